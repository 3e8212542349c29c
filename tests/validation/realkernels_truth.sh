#!/bin/sh
# CPU test: gpuq's bottleneck section on the real-kernel corpus (H200,
# data/recorded/realkernels-corpus-nvidia-h200.units.counters.csv, every
# section's metrics and the opt-in set) against ncu's counters of the same
# launches (…ncu.csv.gz, validation/realkernels/truth.sh).  Fails when the
# rows do not pair launch by launch, or when the pipes' shares gpuq reports
# (tensor, fma, alu, issue) leave ncu's (truth.py --check-use); prints the
# agreement with the ground-truth rule (validation/realkernels/truth-rule.md).
#   realkernels_truth.sh GPUQ SOURCE_DIR PYTHON
set -eu
gpuq=$1 src=$2 py=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GPUQ_TABLE_DIR=$src/tables "$gpuq" model -f csv -o "$work/report.csv" \
    "$src/data/recorded/realkernels-corpus-nvidia-h200.units.counters.csv"
"$py" "$src/validation/realkernels/truth.py" --check-use 0.15 \
    "$src/data/recorded/realkernels-corpus-nvidia-h200.ncu.csv.gz" "$work/report.csv"
