#!/bin/sh
# The model and the analysis again on a recorded run, with this tree's gpuq
# and no GPU (docs/bottleneck.md, "Latency and launch bound: validation";
# docs/diag.md, "The T(g,b) sweep"):
#
#   sh validation/latency-bound/reanalyze.sh GPUQ RUN OUT   (from the repository root)
#
# GPUQ: a gpuq binary; RUN: what run.sh wrote (the counters files, the
# timings, cases.csv, device.txt) with the throughput table it measured as
# throughput-table.csv.txt (data/recorded/latency-bound-nvidia-h200/);
# OUT: receives the machine data used (tables/gpu/: the shipped H200 files
# with that throughput table), the *.model.csv of `gpuq model -f csv` on each
# counters file, and analyze.py's checks.csv, sweep.csv and summary.md.
# Exit status: analyze.py's (0 all pass, 1 some check fails, 2 bad input),
# 3 when gpuq model fails.
set -u
[ $# -eq 3 ] || { echo "usage: sh validation/latency-bound/reanalyze.sh GPUQ RUN OUT" >&2; exit 2; }
[ -f validation/latency-bound/expected.csv ] || { echo "reanalyze.sh: run it from the repository root" >&2; exit 2; }
GPUQ=$1
RUN=$2
OUT=$3
[ -f "$RUN/throughput-table.csv.txt" ] || { echo "reanalyze.sh: $RUN has no throughput-table.csv.txt" >&2; exit 2; }
mkdir -p "$OUT/tables/gpu" || exit 2
cp tables/nvidia-h200/* "$OUT/tables/gpu/" || exit 2
cp "$RUN/throughput-table.csv.txt" "$OUT/tables/gpu/throughput.csv" || exit 2
for f in cases.csv cases.times.csv sweep.times.csv device.txt; do
  [ -f "$RUN/$f" ] && cp "$RUN/$f" "$OUT/"
done
GPUQ_TABLE_DIR=$(cd "$OUT/tables" && pwd)
export GPUQ_TABLE_DIR
for f in cases cases-optin sweep; do
  [ -f "$RUN/$f.counters.csv" ] || continue
  "$GPUQ" model -f csv "$RUN/$f.counters.csv" >"$OUT/$f.model.csv.tmp" 2>"$OUT/$f.model.err" ||
    { echo "reanalyze.sh: gpuq model failed on $f ($OUT/$f.model.err)" >&2; exit 3; }
  mv "$OUT/$f.model.csv.tmp" "$OUT/$f.model.csv"
done
python3 validation/latency-bound/analyze.py "$OUT" >"$OUT/analyze.log" 2>&1
rc=$?
tail -n 12 "$OUT/summary.md" 2>/dev/null
exit $rc
