#!/usr/bin/env bash
# Fails when a build log holds a compiler warning from our own code (Sources/, Tests/,
# Benchmarks/, Fuzz/, Conformance/, RealSuites/ of this checkout); dependencies' warnings (under a
# .build folder) are theirs, and so are the real projects' sources RealSuites/run.sh checks
# out into RealSuites/Checkouts. Usage: scripts/check-warnings.sh BUILD.log
set -euo pipefail
log=${1:?usage: scripts/check-warnings.sh BUILD.log}
root=$(cd "$(dirname "$0")/.." && pwd)
# Each warning is printed as `PATH:LINE:COL: warning: …`, once per compile job that
# reports it: count distinct places.
ours=$(grep -E "^$root/[^ ]*:[0-9]+:[0-9]+: warning: " "$log" | grep -v "^$root/\.build" | grep -v "^$root/RealSuites/Checkouts/" | sort -u || true)
if [ -n "$ours" ]; then
  echo "$(printf '%s\n' "$ours" | wc -l) distinct warning(s) in our own code; fix each in the change that adds it:"
  printf '%s\n' "$ours" | sed "s|^$root/||"
  exit 1
fi
echo "no warning from our own code in $log"
