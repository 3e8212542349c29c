#!/bin/bash
# The collector's GPU checks in one timed batch, for a machine with a GPU:
# build (this tree and, with OLD_SRC, an older gpuq for the before/after
# benchmark), the capture stress test (GPUQ_STRESS_RUNS profiled runs), the
# CUDA graph test (PyTorch), the four-process test, profile_check atomics
# and exit, a GPUQ_DEBUG breakdown of the fixed cost on the 4 Mpixel
# histogram, and the overhead benchmark beside ncu.
#
#   OUT=DIR [OLD_SRC=DIR] [DEADLINE=seconds] scripts/gpu_check_profile.sh
#
# Each step is bounded; steps after DEADLINE seconds are skipped.  Output:
# DIR/log.txt, stress.txt, graph.txt, multiproc.txt, pc.txt, debug.txt,
# bench.txt, artifacts.tgz (the tests' counters and graphs files).
set -u
: "${OUT:?set OUT to the output directory}"
mkdir -p "$OUT"
T0=$(date +%s)
stamp() { echo "== $(date -u +%T) +$(( $(date +%s) - T0 ))s $*"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
DEADLINE=${DEADLINE:-400}
OLD_SRC=${OLD_SRC:-}
exec > >(tee -a "$OUT/log.txt") 2>&1
stamp start
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
nvcc --version | tail -1; ncu --version | tail -1; python3 -c 'import torch; print("torch", torch.__version__)'
ROOT=$(pwd)
OLDPID=
if [ -n "$OLD_SRC" ]; then
  (cmake -S "$OLD_SRC" -B /tmp/old-build -DCMAKE_CUDA_ARCHITECTURES=90-real >/dev/null 2>&1 &&
   cmake --build /tmp/old-build -j6 --target gpuq gpuq_inject > /tmp/old-build.log 2>&1; echo "old build rc=$?") &
  OLDPID=$!
fi
cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=90-real > /tmp/cfg.log 2>&1 || { tail -20 /tmp/cfg.log; exit 1; }
cmake --build build -j10 --target gpuq gpuq_inject atomics_app capture_stress profile_check histogram > /tmp/build.log 2>&1 || { grep -E 'error' /tmp/build.log | head -30; exit 1; }
[ -n "$OLDPID" ] && wait "$OLDPID"   # not a bare wait: it would also wait for the tee above
stamp built
B=$ROOT/build
W=/tmp/w; mkdir -p $W
export GPUQ_LOCK_DIR=$W
# CUDA itself refuses another thread's sync during a global-mode capture.
echo "--- capture_stress --global-sync (plain)"; timeout 20 $B/tests/profile/capture_stress --global-sync; echo "global-sync plain rc=$?"
stamp stress
PYTHONUNBUFFERED=1 GPUQ_STRESS_RUNS=50 timeout 85 python3 tests/profile/stress_check.py $B/gpuq $B/tests/profile/capture_stress $W/stress > $OUT/stress.txt 2>&1; echo "stress rc=$?"; tail -4 $OUT/stress.txt
stamp graph
PYTHONUNBUFFERED=1 timeout 40 python3 tests/profile/graph_check.py $B/gpuq $W/graph > $OUT/graph.txt 2>&1; echo "graph rc=$?"; tail -6 $OUT/graph.txt
stamp multiproc
PYTHONUNBUFFERED=1 timeout 35 python3 tests/profile/multiproc_check.py $B/gpuq $B/tests/profile/capture_stress $W/mp > $OUT/multiproc.txt 2>&1; echo "multiproc rc=$?"; tail -8 $OUT/multiproc.txt
stamp atomics
for m in atomics exit; do
  [ "$(left)" -gt 70 ] || break
  echo "### profile_check $m" >> $OUT/pc.txt
  timeout 35 $B/tests/profile/profile_check $m $B/gpuq $B/tests/profile/atomics_app $W/pc-$m >> $OUT/pc.txt 2>&1; echo "profile_check $m rc=$?"
done
grep -E 'FAIL|fail|passed|FAILED|graph' $OUT/pc.txt | head -20
stamp debug
H="$B/examples/histogram/histogram --kernel hist --image solid --pixels 4194304 --threads 1024 --quiet"
# Table 1's 12 hardware metrics (1 pass), every unit's (the default, 5 passes),
# one metric: what the fixed cost does with the configuration.
T1=smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_atom_dot_cas.sum,smsp__inst_executed_op_shared_atom_dot_alu.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,sm__cycles_active.sum,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum,sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum
for cfg in "GPUQ_METRICS=$T1" "GPUQ_SECTIONS=" "GPUQ_METRICS=sm__cycles_active.sum"; do
  [ "$(left)" -gt 45 ] || break
  echo "### $cfg" >> $OUT/debug.txt
  env $cfg GPUQ_DEBUG=1 GPUQ_VERBOSE=1 $B/gpuq profile --no-opcode-split --keep-counters $W/dbg.csv -o /dev/null -- $H >> $OUT/debug.txt 2>&1
done
grep -E '###|first start|timeline \(ms since gpuq|pass\(es\)|total ms|ms: run 1' $OUT/debug.txt | head -30
stamp bench
if [ "$(left)" -gt 40 ]; then
  old=(); [ -x /tmp/old-build/gpuq ] && old=(-O /tmp/old-build/gpuq)
  BENCH_VARIANTS="counters all_units before ncu ncu_fixed" timeout $(( $(left) - 5 )) scripts/bench_profile_overhead.sh -n 2 -g $B/gpuq "${old[@]}" $H > $OUT/bench.txt 2>&1
  echo "bench rc=$?"; cat $OUT/bench.txt
fi
tar czf $OUT/artifacts.tgz -C $W graph mp stress 2>/dev/null
stamp end
