#!/usr/bin/env bash
# The export of a 1,000,000-event recording in both formats, from one run: size, time and
# peak memory (RSS) of `pipescope export` (release), the ratios Perfetto/JSON, and the
# Perfetto export's peak memory again at 2,000,000 events (it must not grow with them).
#
#     Benchmarks/export-sizes.sh             # builds what it needs first
#     Benchmarks/export-sizes.sh --no-build  # uses .build as it is
#
# Each 1M export runs $PIPESCOPE_BENCH_RUNS times (default 3), the two formats in turn, and
# the fastest time of each counts (the cores are shared: the slower runs measure the
# neighbours); peak RSS is the largest of the runs.
#
# The recordings (ExportBenchRecording, the shape of ExportBench, written by the
# `bench-recording` program in Tests/BenchRecording) are written once into
# $PIPESCOPE_BENCH_DIR (default /tmp/pipescope-export-sizes) and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${PIPESCOPE_BENCH_DIR:-/tmp/pipescope-export-sizes}
mkdir -p "$dir"
if [ "${1:-}" != --no-build ]; then
  swift build --build-tests
  swift build -c release --product pipescope
fi
for n in 1000000 2000000; do
  if [ ! -s "$dir/$n.pipescope" ]; then
    echo "writing a $n-event recording (a debug build: a few minutes)" >&2
    swift run --skip-build bench-recording export "$dir/$n.pipescope" "$n" >/dev/null
  fi
done

# One export: prints "seconds peak-KiB bytes".
measure() {
  /usr/bin/time -f "%e %M" -o "$dir/time" .build/release/pipescope export "$1" -o "$2" >/dev/null 2>"$dir/export.log" || { cat "$dir/export.log" >&2; exit 1; }
  echo "$(cat "$dir/time") $(stat -c %s "$2")"
}
runs=${PIPESCOPE_BENCH_RUNS:-3}
json_s=1e9 json_kb=0 pf_s=1e9 pf_kb=0
for ((i = 1; i <= runs; i++)); do
  read -r s kb json_b <<<"$(measure "$dir/1000000.pipescope" "$dir/1M.json")"
  echo "run $i: JSON $s s, $kb KiB" >&2
  json_s=$(python3 -c "print(min($json_s, $s))"); json_kb=$((kb > json_kb ? kb : json_kb))
  read -r s kb pf_b <<<"$(measure "$dir/1000000.pipescope" "$dir/1M.perfetto-trace")"
  echo "run $i: Perfetto $s s, $kb KiB" >&2
  pf_s=$(python3 -c "print(min($pf_s, $s))"); pf_kb=$((kb > pf_kb ? kb : pf_kb))
done
read -r pf2_s pf2_kb pf2_b <<<"$(measure "$dir/2000000.pipescope" "$dir/2M.perfetto-trace")"
read -r json2_s json2_kb json2_b <<<"$(measure "$dir/2000000.pipescope" "$dir/2M.json")"
rm -f "$dir/1M.json" "$dir/2M.json"

RUNS=$runs python3 - "$json_s" "$json_kb" "$json_b" "$pf_s" "$pf_kb" "$pf_b" "$pf2_s" "$pf2_kb" "$pf2_b" \
  "$json2_s" "$json2_kb" "$json2_b" <<'PY'
import os, sys
RUNS = os.environ["RUNS"]
js, jk, jb, ps, pk, pb, p2s, p2k, p2b, j2s, j2k, j2b = map(float, sys.argv[1:])
mib = lambda b: b / 2**20
print(f"(1M: fastest of {RUNS} runs each)")
print(f"{'export of':<34} {'size':>10} {'time':>8} {'peak RSS':>10}")
print(f"{'1M events, JSON':<34} {mib(jb):>6.1f} MiB {js:>6.2f} s {jk/1024:>6.0f} MiB")
print(f"{'1M events, Perfetto (compressed)':<34} {mib(pb):>6.1f} MiB {ps:>6.2f} s {pk/1024:>6.0f} MiB")
print(f"{'Perfetto / JSON':<34} {pb/jb:>10.3f} {ps/js:>8.3f} {pk/jk:>10.2f}")
print(f"{'  JSON / Perfetto':<34} {jb/pb:>9.1f}x {js/ps:>7.1f}x")
print(f"{'2M events, JSON':<34} {mib(j2b):>6.1f} MiB {j2s:>6.2f} s {j2k/1024:>6.0f} MiB")
print(f"{'2M events, Perfetto (compressed)':<34} {mib(p2b):>6.1f} MiB {p2s:>6.2f} s {p2k/1024:>6.0f} MiB")
print(f"{'Perfetto peak RSS, 2M / 1M':<34} {p2k/pk:>10.2f}")
PY
