#!/bin/sh
# ncu's counters of the real-kernel corpus, the ground truth of
# truth-rule.md: one ncu run of corpus.py --reps 1, every launch of the
# program (as gpuq profile records it: the rows match by launch order), the
# metrics of the rule, raw CSV.  Not filtered by the NVTX range "corpus":
# autograd runs the backward kernels on its own thread, outside the main
# thread's push/pop range, and ncu's --nvtx-include then drops them (200 of
# the range's launches were kept on the H200, 2026-12-02).
#
#   validation/realkernels/truth.sh OUT.ncu.csv [PYTHON]    (GPU; 3-6 minutes on an H200)
set -u
out=${1:?usage: validation/realkernels/truth.sh OUT.ncu.csv [PYTHON]}
py=${2:-python3}
here=$(cd "$(dirname "$0")" && pwd)
pct=pct_of_peak_sustained_elapsed
# the rule's metrics (truth.py's table of units), then ncu's own SpeedOfLight
# pair, the warps and the launch's shape, for reference
metrics=$(cd "$here" && python3 -c 'import truth; print(truth.ncu_metrics())') || exit 2
for m in sm__throughput gpu__compute_memory_throughput; do
    metrics=$metrics,$m.avg.$pct
done
metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size
ncu --clock-control none --metrics "$metrics" \
    --csv --page raw "$py" "$here/corpus.py" --reps 1 > "$out.tmp"
rc=$?
mv "$out.tmp" "$out"
exit $rc
