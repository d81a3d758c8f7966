#!/usr/bin/env bash
# A build with nothing changed compiles nothing: after one build, neither the README's
# `swift run pipescope` nor another build may compile a module again.
# (swift-protobuf's default traits once reached the compiler as -D flags in a different
# order on each run of SwiftPM, and every other build recompiled it: see Package.swift.)
set -euo pipefail
cd "$(dirname "$0")/.."

# `--build-tests`: what `swift test` built already. (A plain `swift build` also builds
# the tools of every plugin in the package graph, swift-protobuf's C++ `protoc` among
# them: minutes that neither `swift run pipescope` nor `swift test` spends.)
swift build --build-tests >/dev/null
failed=0
for run in "build --build-tests" "run pipescope --help" "build --build-tests" "run pipescope --help"; do
  # `Compiling plugin X` is SwiftPM checking its plugins, done on every build.
  compiled=$(swift $run 2>&1 | grep -E '^\[[0-9]+/[0-9]+\] Compiling ' | grep -v 'Compiling plugin ' || true)
  if [ -n "$compiled" ]; then
    echo "swift $run, with nothing changed, compiled again:"
    echo "$compiled" | head -n 10
    failed=1
  else
    echo "swift $run: nothing compiled"
  fi
done
exit $failed
