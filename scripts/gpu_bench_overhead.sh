#!/bin/bash
# Issue 14's overhead figures in one bounded batch, for a machine with a GPU:
# build gpuq, the collector and the histogram example; GPUQ_DEBUG timelines
# of the 4 Mpixel histogram and of tests/profile/torch_steps.py (400 kernel
# launches); then scripts/bench_profile_overhead.sh on both programs (plain,
# gpuq, ncu, and both profilers' fixed cost).
#
#   OUT=DIR [RUNS=3] [DEADLINE=seconds] scripts/gpu_bench_overhead.sh
#
# The PyTorch program's launches are counted first (rows of gpuq's counters
# file, with its defaults, 44 steps and 3 pads, and with 1 step and no pad);
# if this PyTorch launches another number of kernels per step than the
# program's docstring says, --steps/--pad are chosen to make 400.
# Then, if time is left, the GPU test tests/profile/torch400_check.py.
# Output: DIR/log.txt, debug.txt, bench-histogram.txt, bench-torch.txt,
# torch400-check.txt.
set -u
: "${OUT:?set OUT to the output directory}"
mkdir -p "$OUT"
RUNS=${RUNS:-3}
DEADLINE=${DEADLINE:-220}
T0=$(date +%s)
stamp() { echo "== $(date -u +%T) +$(( $(date +%s) - T0 ))s $*"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
exec > >(tee -a "$OUT/log.txt") 2>&1
stamp start
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ncu --version | tail -1; python3 -c 'import torch; print("torch", torch.__version__)'
cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=90-real > /tmp/cfg.log 2>&1 || { tail -20 /tmp/cfg.log; exit 1; }
cmake --build build -j16 --target gpuq gpuq_inject histogram > /tmp/build.log 2>&1 ||
  { grep -E 'error' /tmp/build.log | head -30; exit 1; }
stamp built
B=$(pwd)/build
W=/tmp/w; mkdir -p $W
export GPUQ_LOCK_DIR=$W
# Table 1's 12 hardware metrics, one pass: what the benchmark gives gpuq.
export GPUQ_METRICS=smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_atom_dot_cas.sum,smsp__inst_executed_op_shared_atom_dot_alu.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,sm__cycles_active.sum,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum,sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum
H="$B/examples/histogram/histogram --kernel hist --image solid --pixels 4194304 --threads 1024 --quiet"
T="python3 tests/profile/torch_steps.py"

stamp count
# Launches per step (k) and outside the steps and pads (base), from runs of
# the defaults (44 steps, 3 pads) and of 1 step without pad: then
# --steps/--pad for 400 if the defaults miss it.
count() {
  rm -f $W/count.csv
  timeout 60 $B/gpuq profile --no-opcode-split --keep-counters $W/count.csv -o /dev/null -- $T "$@" >/dev/null
  local n; n=$(grep -c '^[0-9]' $W/count.csv 2>/dev/null); echo "${n:-0}"
}
rdef=$(count); r1=$(count --steps 1 --pad 0)
targs=""
if [ "$rdef" -ne 400 ] && [ "$rdef" -gt $(( r1 + 3 )) ] && [ $(( (rdef - 3 - r1) % 43 )) -eq 0 ]; then
  k=$(( (rdef - 3 - r1) / 43 )); base=$(( r1 - k )); s=$(( (400 - base) / k ))
  targs="--steps $s --pad $(( 400 - base - s * k ))"
fi
echo "torch_steps.py: $rdef launches with its defaults, $r1 with --steps 1 --pad 0; benchmark arguments: '${targs:-the defaults}'"
T="$T $targs"

stamp debug
for prog in "$H" "$T"; do
  echo "### $prog" >> $OUT/debug.txt
  GPUQ_DEBUG=1 timeout 60 $B/gpuq profile --no-opcode-split \
    --keep-counters $W/dbg.csv -o /dev/null -- $prog >> $OUT/debug.txt 2>&1
  echo "rc=$? rows=$(grep -c '^[0-9]' $W/dbg.csv)" >> $OUT/debug.txt
done
grep -E '###|rc=|first start|timeline \(ms since gpuq|unloaded|ms: run 1' $OUT/debug.txt

stamp bench-histogram
BENCH_VARIANTS="ncu ncu_fixed" timeout 65 \
  scripts/bench_profile_overhead.sh -n "$RUNS" -g $B/gpuq $H > $OUT/bench-histogram.txt 2>&1
echo "bench rc=$?"; cat $OUT/bench-histogram.txt
stamp bench-torch
BENCH_NCU_ROUNDS=1 BENCH_VARIANTS="ncu ncu_fixed" timeout $(( $(left) - 3 )) \
  scripts/bench_profile_overhead.sh -n "$RUNS" -g $B/gpuq $T > $OUT/bench-torch.txt 2>&1
echo "bench rc=$?"; cat $OUT/bench-torch.txt
if [ "$(left)" -gt 25 ]; then
  stamp torch400-check
  PYTHONUNBUFFERED=1 timeout $(( $(left) - 3 )) python3 tests/profile/torch400_check.py $B/gpuq $W/t400 > $OUT/torch400-check.txt 2>&1
  echo "torch400_check rc=$?"; tail -8 $OUT/torch400-check.txt
fi
stamp end
