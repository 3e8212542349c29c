#!/bin/sh
# The latency and launch verdicts' validation and the T(g,b) sweep of the
# waves what-ifs, in one bounded run on one GPU (docs/bottleneck.md,
# "Latency and launch bound: validation"; docs/diag.md, "Launch-shape
# what-ifs: the T(g,b) sweep"):
#
#   sh validation/latency-bound/run.sh BUILD OUT      (from the repository root)
#
# BUILD: a build directory of this tree, configured here if it is not (CUDA
# arch 90) and brought up to date for gpuq, libgpuq_inject.so and
# validation/latency-bound/lb_validate (at most 300 s; seconds when it is
# already built). OUT receives every raw result and the summary:
#   device.txt             GPU, driver, clocks, date, commands' wall times
#   tables/gpu/            the machine data used: throughput.csv measured now
#                          (it has the queued-launch row), the rest shipped
#   sass_check.txt         check_sass.py on lb_validate
#   cases.times.csv        every case event-timed (and stream64/graph64/fused64)
#   sweep.times.csv        the T(g,b) sweep event-timed
#   cases.counters.csv     gpuq profile of every case, default metric set
#   cases-optin.counters.csv  the same with GPUQ_EXTRA_METRICS=@bottleneck
#   sweep.counters.csv     gpuq profile of every sweep point
#   *.model.csv            gpuq model -f csv of each counters file
#   checks.csv, sweep.csv, summary.md   analyze.py's tables (CPU only: it can
#                          be run again anywhere on OUT)
# Every step has a timeout; the whole run takes about 2.5 minutes on an H200
# (7.5 at most with the build). A step that fails is logged and the run goes on.
set -u
[ $# -eq 2 ] || { echo "usage: sh validation/latency-bound/run.sh BUILD OUT" >&2; exit 2; }
[ -f validation/latency-bound/expected.csv ] || { echo "run.sh: run it from the repository root" >&2; exit 2; }
BUILD=$1
OUT=$2
HERE=validation/latency-bound
mkdir -p "$OUT/tables/gpu" || exit 2
LOG="$OUT/device.txt"
log() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$LOG"; }
# t SECONDS CMD...: runs CMD under timeout, logs its wall time and status
t() {
  lim=$1; shift
  s=$(date +%s.%N)
  timeout -k 5 "$lim" "$@"
  rc=$?
  awk -v a="$s" -v b="$(date +%s.%N)" -v rc=$rc -v c="$*" \
    'BEGIN { printf "wall %.1f s rc=%d: %s\n", b - a, rc, c }' >>"$LOG"
  return $rc
}
: >"$LOG"
date -u +%Y-%m-%dT%H:%M:%SZ >>"$LOG"
git rev-parse HEAD >>"$LOG" 2>/dev/null

LB="$BUILD/validation/latency-bound/lb_validate"
# configured once; built every time (nothing to do when it is up to date, and
# never a gpuq older than this tree's)
log build
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  t 60 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    >"$OUT/build.log" 2>&1
fi
t 240 cmake --build "$BUILD" -j "$(nproc)" --target gpuq gpuq_inject lb_validate \
  >>"$OUT/build.log" 2>&1 || { echo "run.sh: build failed ($OUT/build.log)" >&2; exit 3; }
GPUQ=$(cd "$BUILD" && pwd)/gpuq
LB=$(cd "$(dirname "$LB")" && pwd)/lb_validate

log device
t 20 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw \
  --format=csv >>"$LOG" 2>&1
GPU=$(timeout 20 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$GPU" in
  *H200*) SHIPPED=tables/nvidia-h200 ;;
  *H100*) SHIPPED=tables/nvidia-h100-80gb-hbm3 ;;
  *) SHIPPED= ;;
esac
echo "gpu: $GPU; shipped machine data: ${SHIPPED:-none}" >>"$LOG"

log machine data
[ -n "$SHIPPED" ] && cp "$SHIPPED"/* "$OUT/tables/gpu/"
rm -f "$OUT/tables/gpu/throughput.csv"
t 60 "$GPUQ" calibrate --suite throughput -o "$OUT/tables/gpu" >"$OUT/calibrate.log" 2>&1
if [ ! -f "$OUT/tables/gpu/throughput.csv" ] && [ -n "$SHIPPED" ]; then
  echo "throughput suite failed: the shipped throughput.csv instead (no queued-launch row)" >>"$LOG"
  cp "$SHIPPED/throughput.csv" "$OUT/tables/gpu/"
fi
if [ ! -f "$OUT/tables/gpu/sched.csv" ]; then
  t 90 "$GPUQ" calibrate --suite sched -o "$OUT/tables/gpu" >>"$OUT/calibrate.log" 2>&1
fi
export GPUQ_TABLE_DIR
GPUQ_TABLE_DIR=$(cd "$OUT/tables" && pwd)

log sass
if command -v cuobjdump >/dev/null 2>&1; then
  cuobjdump -sass "$LB" >"$OUT/lb_validate.sass" 2>&1
  t 30 python3 "$HERE/check_sass.py" --arch sm_90 <"$OUT/lb_validate.sass" >"$OUT/sass_check.txt" 2>&1
else
  echo "no cuobjdump on PATH: SASS not checked" >"$OUT/sass_check.txt"
fi

log timing
t 60 "$LB" --cases >"$OUT/cases.csv" 2>>"$LOG"
t 90 "$LB" --time --reps 5 >"$OUT/cases.times.csv" 2>>"$LOG"
t 120 "$LB" --sweep-time --reps 5 >"$OUT/sweep.times.csv" 2>>"$LOG"

log profile
t 120 "$GPUQ" profile --no-opcode-split -f csv -o "$OUT/cases.report.csv" \
  --keep-counters "$OUT/cases.counters.csv" -- "$LB" --profile >"$OUT/cases.profile.log" 2>&1
t 150 env GPUQ_EXTRA_METRICS=@bottleneck "$GPUQ" profile --no-opcode-split -f csv \
  -o "$OUT/cases-optin.report.csv" --keep-counters "$OUT/cases-optin.counters.csv" -- \
  "$LB" --profile >"$OUT/cases-optin.profile.log" 2>&1
t 150 "$GPUQ" profile --no-opcode-split -f csv -o "$OUT/sweep.report.csv" \
  --keep-counters "$OUT/sweep.counters.csv" -- "$LB" --sweep-profile >"$OUT/sweep.profile.log" 2>&1

log model and analysis
for f in cases cases-optin sweep; do
  [ -f "$OUT/$f.counters.csv" ] &&
    t 60 "$GPUQ" model -f csv "$OUT/$f.counters.csv" >"$OUT/$f.model.csv" 2>"$OUT/$f.model.err"
done
t 60 python3 "$HERE/analyze.py" "$OUT" >"$OUT/analyze.log" 2>&1
head -40 "$OUT/summary.md" 2>/dev/null
log "done"
