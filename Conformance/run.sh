#!/usr/bin/env bash
# Runs OpenCombine 0.14.0's own test suite twice, once with OpenCombine's empty
# `_Introspection` hook enabled and once with `Pipescope.start()`, both before any test
# runs, and compares every test's result. Exits 0 if all are the same, 1 if any differs,
# 2 if the run itself cannot be trusted (nothing ran, too few tests, a hook missing).
#
#   Conformance/run.sh             the report goes to Conformance/report/report.md
#
# Tunables, in seconds: CONFORMANCE_TEST_TIMEOUT (one test run alone, and how long a
# class run may print nothing before it counts as hung; default 20) and
# CONFORMANCE_CLASS_TIMEOUT (one class in all; default 120). CONFORMANCE_REPEATS: how many
# more times a test that did not pass, or differed, runs alone under each hook (default 2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

tag=0.14.0
clone=OpenCombine-$tag              # gitignored
suite=Suite/OpenCombineTests        # gitignored; the test target's path in Package.swift
out=report                          # gitignored
class_limit=${CONFORMANCE_CLASS_TIMEOUT:-120}
test_limit=${CONFORMANCE_TEST_TIMEOUT:-20}
configs=(empty pipescope)
started=$SECONDS

say() { printf 'conformance: %s\n' "$*"; }
elapsed() { printf '%dm%02ds' $(((SECONDS - started) / 60)) $(((SECONDS - started) % 60)); }

# MARK: - The suite: clone once, copy its tests into the package when they differ

if [ ! -d "$clone/.git" ] || [ "$(git -C "$clone" describe --tags --exact-match 2>/dev/null)" != "$tag" ]; then
  say "fetching OpenCombine $tag"
  rm -rf "$clone"
  git -c advice.detachedHead=false clone -q --depth 1 --branch "$tag" \
    https://github.com/OpenCombine/OpenCombine "$clone" 2>&1 | grep -v 'depth is ignored' || true
  [ -d "$clone/Tests/OpenCombineTests" ] || { say "could not clone OpenCombine $tag: no Tests/OpenCombineTests in $here/$clone"; exit 2; }
fi
# Copied only when different, so an unchanged suite is not recompiled.
if ! diff -rq "$clone/Tests/OpenCombineTests" "$suite" >/dev/null 2>&1; then
  rm -rf "$suite"
  mkdir -p "$(dirname "$suite")"
  cp -R "$clone/Tests/OpenCombineTests" "$suite"
fi

# MARK: - Build once (debug, as the suite's own `swift test` does)

rm -rf "$out"
mkdir -p "$out"
say "building the suite with Pipescope (log: Conformance/$out/build.log)"
if ! swift build --build-tests >"$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log"
  say "the build failed; the whole log is Conformance/$out/build.log"
  exit 2
fi
binary="$(swift build --show-bin-path)/ConformancePackageTests.xctest"
[ -x "$binary" ] || { say "no test binary at $binary after a successful build"; exit 2; }
say "built in $(elapsed)"

# MARK: - Run each class in its own process, for each configuration

# What the two runs share: Pipescope's sockets go to a private folder, removed at the end,
# and Swift's crash backtracer is off (the suite's crash tests would spend seconds each
# symbolicating a backtrace nobody reads; the crash itself is unchanged).
runtime=$(mktemp -d)
trap 'rm -rf "$runtime"' EXIT
export XDG_RUNTIME_DIR=$runtime SWIFT_BACKTRACE=enable=no
unset PIPESCOPE_SOCKET PIPESCOPE_RECORD

CONFORMANCE_HOOK=none "$binary" --list-tests >"$out/tests.txt" 2>"$out/list.log" || {
  cat "$out/list.log"; say "the test binary could not list its tests"; exit 2; }
mapfile -t classes < <(sed -nE 's|^OpenCombineTests\.([A-Za-z0-9_]+)/[A-Za-z0-9_]+$|\1|p' "$out/tests.txt" | sort -u)
[ ${#classes[@]} -gt 0 ] || { say "the test binary listed no test classes (Conformance/$out/tests.txt)"; exit 2; }
say "$(grep -c '^OpenCombineTests\.' "$out/tests.txt") tests in ${#classes[@]} classes"

# run LIMIT LOG FILTER: one process of the test binary under `timeout`; its exit status
# goes to LOG.rc (124 or 137: timed out). `timeout` stops the whole process group, so the
# suite's crash-test child processes go too.
run() {
  local limit=$1 log=$2 filter=$3 rc=0
  timeout -k 5 "$limit" "$binary" "$filter" >"$log.log" 2>&1 </dev/null || rc=$?
  echo "$rc" >"$log.rc"
}

# run_class LOG FILTER: the same for a whole class, which also stops as hung once it has
# printed nothing for $test_limit seconds (no single test takes more than a few), so a
# hang costs about one test's limit, not the class's. LOG.idle says that happened.
run_class() {
  local log=$1 filter=$2 rc=0 pid watcher
  timeout -k 5 "$class_limit" "$binary" "$filter" >"$log.log" 2>&1 </dev/null &
  pid=$!
  (
    size=-1 quiet=0
    while sleep 1; do
      now=$(stat -c %s "$log.log" 2>/dev/null || echo 0)
      if [ "$now" = "$size" ]; then quiet=$((quiet + 1)); else quiet=0 size=$now; fi
      if [ "$quiet" -ge "$test_limit" ]; then
        touch "$log.idle"
        kill -TERM "$pid" 2>/dev/null || true   # timeout passes it on to the group
        exit 0
      fi
    done
  ) &
  watcher=$!
  wait "$pid" || rc=$?
  kill "$watcher" 2>/dev/null || true
  wait "$watcher" 2>/dev/null || true
  echo "$rc" >"$log.rc"
}

# run_config CONFIG: every class in its own process; then, alone, each test that a hang or
# crash left without a verdict.
run_config() {
  local cfg=$1 class rc test
  mkdir -p "$out/$cfg/classes" "$out/$cfg/tests"
  export CONFORMANCE_HOOK=$cfg
  for class in "${classes[@]}"; do
    run_class "$out/$cfg/classes/$class" "OpenCombineTests.$class"
    rc=$(cat "$out/$cfg/classes/$class.rc")
    if [ -e "$out/$cfg/classes/$class.idle" ]; then
      say "$cfg: $class printed nothing for ${test_limit}s and was stopped; running the tests it gave no verdict alone"
    elif [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
      say "$cfg: $class exited $rc; running the tests it gave no verdict alone"
    fi
    while read -r test; do
      [ -n "$test" ] || continue
      run "$test_limit" "$out/$cfg/tests/${test/\//.}" "OpenCombineTests.$test"
    done < <(python3 results.py missing "$out/$cfg/classes/$class.log" "$class" "$out/tests.txt")
  done
  say "$cfg: done at $(elapsed)"
}

# The two hooks run side by side: most of a run is waiting (timers, hangs), and so both
# meet the same load. What that load makes fail now and then is repeated below.
pids=()
for cfg in "${configs[@]}"; do
  run_config "$cfg" &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid" || { say "a run stopped early (exit $?)"; kill "${pids[@]}" 2>/dev/null || true; exit 2; }
done

# MARK: - Run again, alone, what did not pass or differed (some tests race the clock)

python3 results.py again "$out" "$out/tests.txt" >"$out/again.txt"
say "running $(wc -l <"$out/again.txt") repetitions of tests that did not pass or differed"
while read -r n cfg test; do
  mkdir -p "$out/$cfg/again"
  CONFORMANCE_HOOK=$cfg run "$test_limit" "$out/$cfg/again/${test/\//.}.$n" "OpenCombineTests.$test"
done <"$out/again.txt"
say "repetitions done at $(elapsed)"

# MARK: - Compare

status=0
python3 results.py report "$out" "$out/tests.txt" || status=$?
say "report: Conformance/$out/report.md; logs: Conformance/$out/{empty,pipescope}/; took $(elapsed)"
exit "$status"
