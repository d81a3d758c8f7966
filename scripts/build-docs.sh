#!/usr/bin/env bash
# Builds the DocC catalog (Sources/Pipescope/Pipescope.docc) with the library's public
# API, failing on any warning: a broken <doc:…> or ``Symbol`` link in an article or in a
# `///` comment of the public API is one.
#
#   scripts/build-docs.sh [OUTPUT]     # default .build/docs
#
# Uses the debug build's symbols (`swift package dump-symbol-graph` builds what is
# missing), so after `swift test` it takes about half a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-.build/docs}

graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
swift package dump-symbol-graph --minimum-access-level public >"$graphs/build.log" 2>&1 || {
  cat "$graphs/build.log"; echo "docs: the symbol graph could not be built"; exit 1; }
# The Pipescope module's symbols, and its extensions of other modules' types
# (Pipescope@OpenCombine: pipescopeName and pipescopeExpect on Publisher).
cp .build/*/symbolgraph/Pipescope.symbols.json .build/*/symbolgraph/Pipescope@*.symbols.json "$graphs"/

docc convert Sources/Pipescope/Pipescope.docc --fallback-display-name Pipescope \
  --fallback-bundle-identifier pipescope --additional-symbol-graph-dir "$graphs" \
  --output-path "$output" --warnings-as-errors
echo "docs: built in $output"
