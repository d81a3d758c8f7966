#!/usr/bin/env bash
# Mutation testing (scripts/mutation-test.py has the list of mutants and says how it runs):
#
#     scripts/mutation-test.sh            # every mutant, then the score and the survivors
#     scripts/mutation-test.sh --list     # the mutants, checked against the tree
#     scripts/mutation-test.sh --only 7   # one mutant
exec python3 "$(dirname "$0")/mutation-test.py" "$@"
