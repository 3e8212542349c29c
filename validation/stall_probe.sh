#!/usr/bin/env bash
# Which warp-stall counters cover waiting on shared atomics, and what they
# cost in profiling passes (docs/validation.md, "The latency quantity").
#
#   validation/stall_probe.sh BUILD_DIR OUTDIR TIMES_CSV
#
# TIMES_CSV is a validate_app timing run (run.sh's times.csv): the loop trips
# of every case.  Writes to OUTDIR:
#   stall_metrics.txt  every smsp__warps_issue_stalled_* counter ncu lists here,
#                      with its description
#   passes.csv         profiling passes ncu needs per metric set (one case)
#   pcsamp_*.csv       PC sampling (ncu SourceCounters): per SASS instruction,
#                      stall samples by reason, for a few cases built so that
#                      one stall reason should dominate
#   pcsamp_log.txt     ncu's log of that run
set -uo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 1
fi
BUILD=$(cd "$1" && pwd)
OUTDIR=$2
TIMES=$3
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUTDIR"
APP=$BUILD/validation/validate_app
[ -x "$APP" ] || APP=$BUILD/validate_app
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}

"$NCU" --query-metrics > "$OUTDIR/query.txt" 2>&1
grep -E '^smsp__warps_issue_stalled_[a-z_]+ ' "$OUTDIR/query.txt" > "$OUTDIR/stall_metrics.txt"
grep -E '^smsp__warps_active ' "$OUTDIR/query.txt" >> "$OUTDIR/stall_metrics.txt"
ALL_STALL=$(awk '/^smsp__warps_issue_stalled_/ {printf "%s%s.sum", sep, $1; sep=","}' "$OUTDIR/stall_metrics.txt")
echo "stall counters: $(grep -c . "$OUTDIR/stall_metrics.txt")"

# The metric list of run.sh (the shared-atomic model's), as the base.
BASE=$(grep -m1 '^metrics:' "$(dirname "$TIMES")/env.txt" | sed 's/^metrics: //' | cut -d, -f1-14)
S=smsp__warps_issue_stalled
W=smsp__warps_active.sum
CASE=add_same_address_e32_t256x4
echo "set,metrics,passes" > "$OUTDIR/passes.csv"
for set in "base:$BASE" \
           "base+warps_active+short_scoreboard+mio_throttle:$BASE,$W,$S""_short_scoreboard.sum,$S""_mio_throttle.sum" \
           "warps_active+short_scoreboard+mio_throttle:$W,$S""_short_scoreboard.sum,$S""_mio_throttle.sum" \
           "base+all_stall:$BASE,$W,$ALL_STALL"; do
  name=${set%%:*}
  list=${set#*:}
  passes=$(timeout 20 "$NCU" --clock-control none --metrics "$list" "$APP" --profile --iters-from "$TIMES" \
             --case "$CASE" 2>&1 | sed -n 's/.* - \([0-9]*\) pass.*/\1/p' | head -1)
  echo "$name,$(echo "$list" | tr ',' '\n' | wc -l),${passes:-?}" | tee -a "$OUTDIR/passes.csv"
done

# PC sampling on cases built to stall for one reason each.
CASES=add_same_address_e1_t32x1_chain,add_same_address_e32_t32x1,popc_inc_same_address_e32_t32x1
CASES=$CASES,hash_cas_t512x1,add_same_address_e32_t256x4_fma16,lds_sts4_t256x4
timeout 60 "$NCU" --clock-control none --set none --section SourceCounters --section WarpStateStats \
  --import-source no --export "$OUTDIR/pcsamp" --force-overwrite --log-file "$OUTDIR/pcsamp_log.txt" \
  "$APP" --profile --iters-from "$TIMES" --case "$CASES" > "$OUTDIR/pcsamp_manifest.csv"
timeout 60 "$NCU" --import "$OUTDIR/pcsamp.ncu-rep" --csv --page details --print-units base \
  > "$OUTDIR/pcsamp_details.csv" 2>&1
timeout 60 "$NCU" --import "$OUTDIR/pcsamp.ncu-rep" --csv --page source --print-source sass \
  > "$OUTDIR/pcsamp_source.csv" 2>&1
cuobjdump -sass -fun '_Z7vk_hashILi1EEv12vk_hash_args' "$APP" > "$OUTDIR/hash_sass.txt" 2>&1
ls -la "$OUTDIR"
