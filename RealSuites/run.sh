#!/usr/bin/env bash
# Runs the test suites of Tokamak 0.11.1, Fluxor 5.0.1 and combine-schedulers 1.2.2 under
# Pipescope's tap (recording each run), under OpenCombine's empty hook and with no hook, and
# compares every test's result; then lists the lints Pipescope raises on each recording (on its
# last graph, and at every moment of the run with `pipescope check`).
#
#   TOKAMAK_SOURCE=/path/to/Tokamak FLUXOR_SOURCE=/path/to/Fluxor RealSuites/run.sh [SUITE...]
#
# SUITE: tokamak, fluxor, combine-schedulers (default: all three). The *_SOURCE variables
# name a git repository (a clone, a bare one, or a URL) that has the suite's tag; nothing
# of theirs is committed here: each is checked out at its tag into RealSuites/Checkouts/.
# COMBINE_SCHEDULERS_SOURCE defaults to https://github.com/pointfreeco/combine-schedulers
# (on a machine with the Swift package mirror, git reads it from there).
#
# PIPESCOPE_PATH: the Pipescope checkout to test (default: the one holding this folder);
# its `pipescope` binary (PIPESCOPE_PATH/.build/debug/pipescope, made by `swift build`
# there) reads the recordings. SKIP_BUILD=1 reuses the last build. RUN_TIMEOUT: seconds one
# run of a suite may take (default 600).
#
# Out, in RealSuites/results/ (never committed): SUITE.pipescope (the recording), and
# SUITE-HOOK.{log,rc,results}, SUITE-replay.{json,txt}, SUITE-lints.txt, SUITE-check.txt.
# Exit status: 0 when every suite ran and gave the same results under every hook, 1 when a
# result differs, 2 when something could not run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
say() { printf 'realsuites: %s\n' "$*"; }

export PIPESCOPE_PATH=${PIPESCOPE_PATH:-$(cd .. && pwd)}
pipescope=$PIPESCOPE_PATH/.build/debug/pipescope
out=$here/results
limit=${RUN_TIMEOUT:-600}
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(tokamak fluxor combine-schedulers)

# MARK: - Sources: each at its tag in Checkouts/NAME-TAG (the paths Package.swift names)

# checkout NAME TAG SOURCE
checkout() {
  local dir=Checkouts/$1-$2 src=$3
  if [ -d "$dir" ] && [ "$(cat "$dir/.realsuites-tag" 2>/dev/null)" = "$2" ]; then return 0; fi
  [ -n "$src" ] || { say "$1: no source; set the variable naming a git repository of $1 (see the top of run.sh)"; exit 2; }
  case $src in /*) [ -e "$src" ] || { say "$1: $src does not exist"; exit 2; }; src=file://$src ;; esac
  rm -rf "$dir"; mkdir -p Checkouts
  git -c advice.detachedHead=false clone -q --depth 1 --branch "$2" "$src" "$dir" 2> >(grep -v 'depth is ignored' >&2) ||
    { say "$1: could not check out tag $2 of $3"; exit 2; }
  echo "$2" >"$dir/.realsuites-tag"
}
checkout Tokamak 0.11.1 "${TOKAMAK_SOURCE:-}"
checkout Fluxor 5.0.1 "${FLUXOR_SOURCE:-}"
checkout combine-schedulers 1.2.2 "${COMBINE_SCHEDULERS_SOURCE:-https://github.com/pointfreeco/combine-schedulers}"

# MARK: - Build once: all three suites are test targets of one package

mkdir -p "$out"
if [ -z "${SKIP_BUILD:-}" ]; then
  say "building against Pipescope at $PIPESCOPE_PATH (log: RealSuites/results/build.log)"
  swift build --build-tests >"$out/build.log" 2>&1 || { tail -n 40 "$out/build.log"; say "the build failed"; exit 2; }
fi

# MARK: - Run each suite under each hook

# The test modules of each suite, as `swift test --filter` takes them.
filter() {
  case $1 in
    tokamak) echo '^(TokamakTests|TokamakReconcilerTests|TokamakStaticHTMLTests|TokamakLayoutTests)\.' ;;
    fluxor) echo '^(FluxorTests|AnyCodableTests)\.' ;;
    combine-schedulers) echo '^CombineSchedulersTests\.' ;;
    *) return 1 ;;
  esac
}

# Pipescope's sockets go to a private folder, removed at the end.
runtime=$(mktemp -d)
trap 'rm -rf "$runtime"' EXIT
export XDG_RUNTIME_DIR=$runtime
unset PIPESCOPE_SOCKET PIPESCOPE_RECORD

status=0
for suite in "${suites[@]}"; do
  regex=$(filter "$suite") || { say "unknown suite '$suite'; expected tokamak, fluxor or combine-schedulers"; exit 2; }
  rec=$out/$suite.pipescope
  for hook in pipescope empty none; do
    log=$out/$suite-$hook
    rm -f "$log.log" "$log.rc"
    [ "$hook" = pipescope ] && rm -f "$rec"
    # --disable-swift-testing: otherwise `swift test` runs the binary a second time for
    # Swift Testing, and that empty second session would overwrite the recording.
    record=(); [ "$hook" = pipescope ] && record=(PIPESCOPE_RECORD="$rec")
    env SUITE_HOOK="$hook" "${record[@]}" \
      timeout -k 5 "$limit" swift test --skip-build --disable-swift-testing --filter "$regex" >"$log.log" 2>&1
    echo $? >"$log.rc"
    grep -E '^Test Case .*(passed|failed|skipped)' "$log.log" | sed -E 's/ \([0-9.]+ seconds\)//' | sort >"$log.results"
    say "$suite under $hook: rc=$(cat "$log.rc"), $(grep -cE ' passed$' "$log.results") passed, $(grep -cE ' failed$' "$log.results") failed, $(grep -cE ' skipped$' "$log.results") skipped"
  done
  for hook in empty none; do
    if ! diff -q "$out/$suite-$hook.results" "$out/$suite-pipescope.results" >/dev/null; then
      say "$suite: results under pipescope and $hook differ:"; diff "$out/$suite-$hook.results" "$out/$suite-pipescope.results"
      status=1
    fi
  done
  [ -s "$out/$suite-pipescope.results" ] || { say "$suite: no test ran"; status=2; continue; }
  [ -s "$rec" ] || { say "$suite: no recording at $rec"; status=2; continue; }
  [ -x "$pipescope" ] || { say "no pipescope binary at $pipescope to read $rec: run 'swift build' in $PIPESCOPE_PATH"; status=2; continue; }
  "$pipescope" replay "$rec" --json >"$out/$suite-replay.json" 2>"$out/$suite-replay.err" || status=2
  "$pipescope" replay "$rec" --print >"$out/$suite-replay.txt" 2>>"$out/$suite-replay.err" || status=2
  python3 - "$out/$suite-replay.json" >"$out/$suite-lints.txt" <<'PY'
# The lints of the final graph, grouped by kind and place (the linted stage's location, or
# its pipeline's): "KIND xCOUNT at FILE:LINE", then each stage's message.
import json, sys, collections
graph = json.load(open(sys.argv[1]))
nodes = {n["id"]: n for n in graph.get("nodes", [])}
def place(node_id):
    node = nodes.get(node_id)
    while node is not None:
        at = node.get("location")
        if at:
            return f'{at.get("file") or at.get("function") or "?"}:{at.get("line") or "?"}'
        node = nodes.get(node.get("parent"))
    return "(no location)"
groups = collections.defaultdict(list)
for lint in graph.get("lints", []):
    groups[(lint["lint"], place(lint["node"]))].append(lint)
print(f'{len(graph.get("lints", []))} lints')
for (kind, at), found in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
    print(f"{kind} x{len(found)} at {at}")
    for lint in found:
        print(f'  #{lint["node"]}: {lint["message"]}')
PY
  say "$suite: $(head -n 1 "$out/$suite-lints.txt") (RealSuites/results/$suite-lints.txt)"
  # Every lint raised at any moment of the run, as CI would check it (exit 1: findings).
  "$pipescope" check "$rec" >"$out/$suite-check.txt" 2>&1
  case $? in
    0|1) say "$suite: pipescope check: $(tail -n 1 "$out/$suite-check.txt") (RealSuites/results/$suite-check.txt)" ;;
    *) say "$suite: pipescope check could not read $rec:"; cat "$out/$suite-check.txt"; status=2 ;;
  esac
done
exit $status
