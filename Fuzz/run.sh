#!/usr/bin/env bash
# Builds the fuzzers with libFuzzer and AddressSanitizer, then runs each (FuzzWire: the
# wire's decoding; FuzzRecording: the recording reader) for the given number of seconds
# (default 30) starting from Fuzz/corpus. New inputs it finds go to a
# scratch copy of the corpus; crashes are written to Fuzz/artifacts/ and fail the run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seconds=${1:-30}
swift build --package-path "$here" -c release \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
mkdir -p "$here/artifacts"
for harness in FuzzWire FuzzRecording; do
  corpus=$(mktemp -d)
  cp "$here"/corpus/* "$corpus"/
  "$here/.build/release/$harness" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
    -artifact_prefix="$here/artifacts/" "$corpus"
  echo "fuzz: $harness: no crash in ${seconds}s ($(ls "$corpus" | wc -l) corpus inputs)"
done
