#!/bin/sh
# gpuq profile prints the "global atomics" section (unit gatomics, paper 002)
# for the histogram example (its per-block histograms are merged into the
# global one with RED) and for a PyTorch index_add_/scatter_add_ script
# (float global atomics).  Checks, per program: the section heading is
# there, the CSV report has a gatomics.U column, and some launch has U > 0
# (atomics reached L2); launches with U = 0 are counted (validation/gatomics
# checks U = 0 exactly on atomic-free kernels).
#   usage: gatomics_section.sh GPUQ HISTOGRAM TORCH_SCRIPT WORKDIR
# Exits 77 without a GPU, the gatomics machine data, or torch (torch part).
gpuq=$1 hist=$2 script=$3 work=$4
mkdir -p "$work" || exit 1
nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
status=0
check() { # name, text report, csv report
  if ! grep -q "global atomics" "$2"; then
    if grep -q "gatomics: .*skipped" "$2"; then echo "skipped: $1: no gatomics machine data for this GPU"; return 77; fi
    echo "FAIL: $1: no 'global atomics' section"; sed -n 1,40p "$2"; status=1; return 1
  fi
  # the CSV has quoted fields with commas (demangled C++ names): a CSV reader, not awk -F,
  python3 - "$1" "$3" <<'PY' || status=1
import csv, sys
name, path = sys.argv[1], sys.argv[2]
with open(path) as f:
    rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
if not rows or "gatomics.U" not in rows[0]:
    sys.exit(f"FAIL: {name}: no gatomics.U column")
values = [r["gatomics.U"] for r in rows]
pos = sum(1 for v in values if v not in ("", "nan") and float(v) > 0)
zero = sum(1 for v in values if v == "0")
if not pos:
    sys.exit(f"FAIL: {name}: no launch with U > 0")
print(f"ok: {name}: {pos} launch(es) with U > 0, {zero} with U = 0")
PY
}
"$gpuq" profile --keep-counters "$work/hist.counters.csv" -o "$work/hist.txt" -- \
  "$hist" --kernel hist --image uniform --pixels 1048576 --threads 1024 --reps 2 --warmup 1 >"$work/hist.stdout" 2>"$work/hist.stderr" ||
  { echo "FAIL: gpuq profile histogram (exit $?); its stderr ends:"; tail -5 "$work/hist.stderr"; status=1; }
"$gpuq" model "$work/hist.counters.csv" -f csv -o "$work/hist.csv" || status=1
check histogram "$work/hist.txt" "$work/hist.csv"
[ $? -eq 77 ] && exit 77
if python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  "$gpuq" profile --keep-counters "$work/torch.counters.csv" -o "$work/torch.txt" -- \
    python3 "$script" --reps 1 >/dev/null 2>&1 || { echo "FAIL: gpuq profile torch"; status=1; }
  "$gpuq" model "$work/torch.counters.csv" -f csv -o "$work/torch.csv" || status=1
  check torch "$work/torch.txt" "$work/torch.csv"
else
  echo "skipped: torch part (no torch with CUDA)"
fi
exit $status
