#!/usr/bin/env bash
# The global-atomics validation, one command, on a GPU machine:
#
#   validation/gatomics/run.sh BUILD_DIR OUTDIR GATOMICS.csv
#
# BUILD_DIR holds gatomics_cases and gatomics_apply (a gpuq build's
# validation/gatomics, or a folder with both).  Writes to OUTDIR:
#   times.csv       every case timed (CUDA events, median of 7): U_true's inputs
#   manifest.csv    the cases run once each under ncu, in order
#   ncu.csv         ncu --page raw of that run: the unit's metrics and the
#                   diagnostic ones this GPU has (clock control off: the
#                   rates in GATOMICS.csv were measured at the running clock)
#   model.csv       gatomics_apply: U of every variant per launch
# then: python3 validation/gatomics/analyze.py OUTDIR --md OUTDIR/report.md
set -uo pipefail
if [ $# -ne 3 ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 1
fi
BUILD=$1 OUTDIR=$2 MD=$3
CASES=$BUILD/gatomics_cases; [ -x "$CASES" ] || CASES=$BUILD/validation/gatomics/gatomics_cases
APPLY=$BUILD/gatomics_apply; [ -x "$APPLY" ] || APPLY=$BUILD/validation/gatomics/gatomics_apply
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
mkdir -p "$OUTDIR"
[ -x "$CASES" ] || { echo "run.sh: no gatomics_cases in $BUILD" >&2; exit 2; }
"$CASES" --times --reps 7 > "$OUTDIR/times.csv" || { echo "run.sh: timing run failed" >&2; exit 2; }
# The unit's metrics (src/papers/gatomics/gatomics_model.h) and diagnostics kept where
# this GPU has them (ncu stops at a metric it does not know).
UNIT="lts__t_sectors_srcunit_tex_op_atom.sum,lts__t_sectors_srcunit_tex_op_red.sum,lts__d_atomic_input_cycles_active.sum,lts__d_atomic_input_cycles_active.max,lts__cycles_elapsed.avg,gpu__time_duration.sum"
"$NCU" --query-metrics > "$OUTDIR/ncu-query.txt" 2>&1 || true
EXTRA=""
for m in lts__t_requests_srcunit_tex_op_atom.sum lts__t_requests_srcunit_tex_op_red.sum \
         l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum l1tex__t_requests_pipe_lsu_mem_global_op_red.sum \
         l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum \
         smsp__sass_inst_executed_op_global_atom.sum smsp__sass_inst_executed_op_global_red.sum \
         smsp__sass_thread_inst_executed_op_global_atom.sum smsp__sass_thread_inst_executed_op_global_red.sum \
         lts__d_atomic_input_cycles_active.avg lts__t_sectors_srcunit_tex_op_atom_dot_cas.sum \
         lts__t_sectors_srcunit_tex_op_atom_dot_alu.sum; do
  grep -qw "${m%.*}" "$OUTDIR/ncu-query.txt" && EXTRA="$EXTRA,$m"
done
"$NCU" --csv --page raw --print-units base --clock-control none --metrics "$UNIT$EXTRA" \
  --log-file "$OUTDIR/ncu.log" "$CASES" --profile > "$OUTDIR/manifest.csv" \
  || { echo "run.sh: ncu run failed (see $OUTDIR/ncu.log)" >&2; exit 2; }
grep -v '^==' "$OUTDIR/ncu.log" > "$OUTDIR/ncu.csv"
if [ -x "$APPLY" ]; then
  "$APPLY" "$OUTDIR/ncu.csv" "$MD" > "$OUTDIR/model.csv" || echo "run.sh: gatomics_apply failed" >&2
else
  echo "run.sh: no gatomics_apply: model.csv not written (run it where gpuq is built)" >&2
fi
echo "run.sh: done: $OUTDIR"
