#!/usr/bin/env bash
# Final check and benchmark for the gpuq profile overhead work (engineer h3b).
# usage: tests/profile/overhead_experiments.sh OUTDIR
set -u
OUT=${1:?outdir}
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
nvidia-smi -L; nvcc --version | tail -1; ncu --version | tail -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=/tmp/b
cmake -S . -B $B -DGPUQ_DEPS_PREFIX=$PWD/.deps -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/build.log 2>&1
cmake --build $B -j16 --target gpuq gpuq_inject atomics_app histogram profile_check \
  test_gi_static test_gi_sass test_gi_filter >> $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; }
echo "== built at $(elapsed) s"
(cd $B && ctest -R test_gi 2>&1 | grep "tests passed")
(cd $B && timeout 150 ctest -L gpu -R profile -V > $OUT/ctest.log 2>&1; grep -E "tests passed|Test +#" $OUT/ctest.log)
grep -E "^(ok|FAIL)|gpuq vs ncu|^  [a-z_]+__|launches kept|split from the disassembly|second run" $OUT/ctest.log | head -60
echo "== tests done at $(elapsed) s"

G=$B/gpuq
HIST=($B/examples/histogram/histogram --kernel hist --image solid --pixels 4194304 --threads 256 --reps 10 --warmup 2 --quiet)
for K in 16 1; do
  echo "== histogram, GPUQ_DEBUG=1 GPUQ_BATCH=$K gpuq profile:"
  GPUQ_DEBUG=1 GPUQ_BATCH=$K $G profile --keep-counters /tmp/h$K.csv -o /tmp/h$K.txt -- "${HIST[@]}" 2>&1 >/dev/null | grep -v "window [0-9]*:"
done
cat /tmp/h16.txt | head -30
echo "== bench histogram at $(elapsed) s"
scripts/bench_profile_overhead.sh -n 3 -g $G "${HIST[@]}" 2>&1 | tee $OUT/bench-histogram.txt
echo "== bench atomics_app at $(elapsed) s"
scripts/bench_profile_overhead.sh -n 3 -g $G $B/tests/profile/atomics_app --repeat 3 2>&1 | tee $OUT/bench-atomics_app.txt
echo "== longer histogram run (--reps 100) at $(elapsed) s"
ms() { local t0=$(date +%s%N); "$@" >/dev/null 2>&1; echo $(( ($(date +%s%N) - t0) / 1000000 )); }
H100=($B/examples/histogram/histogram --kernel hist --image solid --pixels 4194304 --threads 256 --reps 100 --warmup 2 --quiet)
for r in 0 1 2 3; do
  echo "round $r ms: plain $(ms "${H100[@]}") default $(ms $G profile --keep-counters /tmp/l.csv -o /dev/null -- "${H100[@]}") counters-only $(ms $G profile --no-opcode-split --keep-counters /tmp/l2.csv -o /dev/null -- "${H100[@]}")"
done
echo "launches: $(grep -c '^[0-9]' /tmp/l.csv)"
echo "== done at $(elapsed) s"
