#!/usr/bin/env bash
# Replaying a 10,000,000-event recording in the inspector (release): the time to the first
# screen, the time to read it all, `g` (the recording's first event), five jumps of 9,999
# events among those on disk, `G` (back to the end), and the inspector's peak RSS.
#
#     Benchmarks/replay-history.sh             # builds what it needs first
#     Benchmarks/replay-history.sh --no-build  # uses .build as it is
#
# The recording (BusyRecording, written by the `bench-recording` program: 20 long-lived
# pipelines receiving values, short ones finishing, pipelines cancelled by their sink, every
# stage subscribed) is written once into
# $PIPESCOPE_BENCH_DIR (default /tmp/pipescope-replay-history) and reused;
# PIPESCOPE_BENCH_EVENTS sets its size (default 10000000).
#
# The inspector runs in tmux at 160x45; each time is from sending the key (or starting the
# command) until `tmux capture-pane` shows the screen that answers it, polled every few
# milliseconds, so it includes up to one poll (about 5-10 ms) and the frame's drawing.
# Peak RSS is VmHWM of the inspector's process, read before quitting.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${PIPESCOPE_BENCH_DIR:-/tmp/pipescope-replay-history}
events=${PIPESCOPE_BENCH_EVENTS:-10000000}
mkdir -p "$dir"
if [ "${1:-}" != --no-build ]; then
  swift build --build-tests
  swift build -c release --product pipescope
fi
rec="$dir/$events.pipescope"
if [ ! -s "$rec" ]; then
  echo "writing a $events-event recording (a debug build: several minutes)" >&2
  swift run --skip-build bench-recording busy "$rec" "$events" >/dev/null
fi
echo "recording: $rec, $(stat -c %s "$rec") bytes" >&2

session=pipescope-replay-bench-$$
now_ms() { date +%s%3N; }
screen() { tmux capture-pane -p -t "$session"; }
# Waits (at most 120 s) until the screen matches the extended regexp $1 (and, with $2, does
# not match $2); prints the milliseconds since $3.
wait_for() {
  local from=$3 deadline=$(($(now_ms) + 120000))
  while true; do
    local s
    s=$(screen)
    if grep -Eq -- "$1" <<<"$s" && { [ -z "$2" ] || ! grep -Eq -- "$2" <<<"$s"; }; then
      echo $(($(now_ms) - from))
      return
    fi
    if [ "$(now_ms)" -gt "$deadline" ]; then
      echo "timed out waiting for /$1/; the screen:" >&2
      screen >&2
      exit 1
    fi
    sleep 0.005
  done
}
trap 'tmux kill-session -t "$session" 2>/dev/null || true' EXIT

start=$(now_ms)
tmux new-session -d -s "$session" -x 160 -y 45 \
  "PIPESCOPE_HISTORY_DIR=$dir exec .build/release/pipescope replay '$rec'"
pid=$(tmux display-message -p -t "$session" '#{pane_pid}')
first=$(wait_for "REPLAY" "" "$start")
shown=$(screen | head -1)
read_all=$(wait_for "REPLAY" "reading " "$start")
rss_read=$(awk '/VmRSS/ {print $2}' /proc/"$pid"/status)
t=$(now_ms); tmux send-keys -t "$session" g
g_ms=$(wait_for "HISTORY 0/" "" "$t")
# Five jumps of 9,999 events on from the first: the fifth lands about 50,000 events after a
# checkpoint (they are about that far apart among the events on disk), the most a jump folds.
jumps=""
for k in 1 2 3 4 5; do
  t=$(now_ms); tmux send-keys -t "$session" 9 9 9 9 n
  jumps="$jumps $(wait_for "HISTORY $((k * 9999))/" "" "$t")"
done
t=$(now_ms); tmux send-keys -t "$session" G
G_ms=$(wait_for "REPLAY" "HISTORY" "$t")
status=$(screen | head -1)
hwm=$(awk '/VmHWM/ {print $2}' /proc/"$pid"/status)
tmux send-keys -t "$session" q
echo "first screen:          $first ms  ($(sed 's/  */ /g' <<<"$shown" | cut -c1-120))"
echo "all read:              $read_all ms"
echo "g (first event):       $g_ms ms"
echo "9999n x5 (on disk):   $jumps ms"
echo "G (back to the end):   $G_ms ms"
echo "RSS once read:         $((rss_read / 1024)) MiB"
echo "peak RSS (VmHWM):      $((hwm / 1024)) MiB"
echo "status line at the end: $(sed 's/  */ /g' <<<"$status" | cut -c1-140)"
