#!/usr/bin/env bash
# The inspector's memory over a live session: `pipescope demo` (release) in tmux at 160x45,
# the inspector's RSS and peak RSS (VmHWM) sampled every 30 s for N minutes, with what its
# status line says (events so far), and the history's spill on disk at the end.
#
#     Benchmarks/live-memory.sh             # 30 minutes; builds the release pipescope first
#     Benchmarks/live-memory.sh 5 --no-build
#
# PIPESCOPE_SAMPLE_SECONDS sets the interval (default 30); the spill goes to
# $PIPESCOPE_BENCH_DIR (default /tmp/pipescope-live-memory), its files unlinked as always.
# One line a sample: minutes, RSS and peak in MiB, the status line's start.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-30}
every=${PIPESCOPE_SAMPLE_SECONDS:-30}
dir=${PIPESCOPE_BENCH_DIR:-/tmp/pipescope-live-memory}
mkdir -p "$dir"
if [ "${2:-}" != --no-build ]; then
  swift build -c release --product pipescope
fi

session=pipescope-live-memory-$$
# A tmux server of its own: a test or script that stops the default server (the end-to-end
# tests do) must not end a half-hour run.
tmux() { command tmux -L "$session" "$@"; }
trap 'tmux kill-server 2>/dev/null || true' EXIT
tmux new-session -d -s "$session" -x 160 -y 45 \
  "PIPESCOPE_HISTORY_DIR=$dir exec .build/release/pipescope demo"
pid=$(tmux display-message -p -t "$session" '#{pane_pid}')
# The first screen: the demo's pipelines are there.
for _ in $(seq 1 600); do
  tmux capture-pane -p -t "$session" | grep -q "LIVE" && break
  sleep 0.1
done
start=$(date +%s)
samples=$((minutes * 60 / every))
echo "minutes  RSS MiB  peak MiB  status"
for i in $(seq 0 "$samples"); do
  if [ "$i" -gt 0 ]; then sleep $((start + i * every - $(date +%s))) 2>/dev/null || true; fi
  [ -d /proc/"$pid" ] || { echo "the inspector exited; its screen:" >&2; tmux capture-pane -p -t "$session" >&2; exit 1; }
  rss=$(awk '/VmRSS/ {print $2}' /proc/"$pid"/status)
  hwm=$(awk '/VmHWM/ {print $2}' /proc/"$pid"/status)
  status=$(tmux capture-pane -p -t "$session" | head -1 | sed 's/  */ /g' | cut -c1-100)
  printf "%7.1f  %7d  %8d  %s\n" "$(echo "($(date +%s) - $start) / 60" | bc -l)" $((rss / 1024)) $((hwm / 1024)) "$status"
done
# The spill's files are unlinked: their size is what the inspector's descriptors hold.
held=$(find /proc/"$pid"/fd -lname "$dir/*(deleted)" -exec stat -L -c %s {} + 2>/dev/null | awk '{s += $1} END {print s + 0}')
echo "history on disk at the end: $((held / 1048576)) MiB"
tmux send-keys -t "$session" q
