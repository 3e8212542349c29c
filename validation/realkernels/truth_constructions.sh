#!/bin/sh
# The truth rule (truth-rule.md) applied to kernels whose bound is known by
# construction: the launches of a --quick run of each of the suite `units`'
# rows below under ncu with the rule's metrics (at most 40 each), then the
# rule's class of each row's busiest launch, the point the suite keeps (GPU;
# a few minutes on an H200):
#
#   sh validation/realkernels/truth_constructions.sh GPUQ OUTDIR
#
# dram_ld and dram_st stream 2 GiB through DRAM with 16-byte LSU accesses;
# l2_ld and tma_l2_ld read an L2-resident set (LSU, TMA); gmma_bf16_ss and
# hmma_bf16 keep the tensor pipe busy (wgmma, mma.sync).  OUTDIR/<row>.csv
# is ncu's raw CSV; OUTDIR/classes.txt the rule's class and the ten units'
# percentages of each.
set -u
gpuq=${1:?usage: truth_constructions.sh GPUQ OUTDIR}
out=${2:?usage: truth_constructions.sh GPUQ OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" || exit 2
metrics=$(cd "$here" && python3 -c 'import truth; print(truth.ncu_metrics())') || exit 2
for spec in dram_ld:tu_lsu_ld dram_st:tu_lsu_st l2_ld:tu_lsu_ld tma_l2_ld:tu_tma_ld \
            gmma_bf16_ss:tu_gmma_bf16_ss hmma_bf16:tu_hmma_bf16; do
    row=${spec%%:*} kernel=${spec#*:}
    timeout 60 ncu --clock-control none --csv --page raw -k "regex:$kernel" --launch-count 40 \
        --metrics "$metrics" "$gpuq" calibrate --suite units --quick --quiet --set units.rows="$row" \
        --set units.reps=1 -o "$out/$row.tables" >"$out/$row.csv" 2>"$out/$row.err"
    echo "$row: ncu rc $?"
done
python3 - "$out" "$here" >"$out/classes.txt" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[2])
import truth
out = sys.argv[1]
for f in sorted(os.listdir(out)):
    if not f.endswith(".csv"):
        continue
    try:
        rows = truth.read_ncu(os.path.join(out, f))
    except SystemExit as e:
        print("%-14s no ncu row (%s)" % (f[:-4], e))
        continue
    best = max(rows, key=lambda r: truth.truth_of(r)[2])
    cls, unit, p = truth.truth_of(best)
    units = " ".join("%s %.1f" % (u, truth.num(best.get(m + truth.PCT))) for u, m in truth.UNITS)
    print("%-14s %2d launches; busiest: rule %-8s (%s %.1f%%)   %s"
          % (f[:-4], len(rows), cls, unit, p, units))
PY
cat "$out/classes.txt"
