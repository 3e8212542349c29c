#!/usr/bin/env bash
# temporary measurement run (h3), deleted after use
set -u
B=/tmp/b; H=$B/examples/histogram/histogram
nvidia-smi -L; date -u
cmake -S . -B $B -DGPUQ_DEPS_PREFIX=$PWD/.deps -DCMAKE_CUDA_ARCHITECTURES=90 >/tmp/cfg.log 2>&1 || tail -20 /tmp/cfg.log
cmake --build $B -j16 --target gpuq gpuq_inject atomics_app profile_check histogram 2>&1 | grep -E "error|warning"
ctest --test-dir $B -R "profile_" --output-on-failure > $OUT/ctest.txt 2>&1; echo ctest rc $?; grep -E "Test +#|tests passed|FAIL" $OUT/ctest.txt
T=$B/tests/profile/work-atomics/synthetic.table.csv
HA="--kernel hist --image solid --pixels 4194304 --threads 256 --reps 10 --warmup 2 --quiet"
( time GPUQ_KEEP_TEMP=1 $B/gpuq profile --table $T --force -o /tmp/h.txt -- $H $HA ) 2>&1 | grep -E "real|warning: no|split"
D=$(ls -d /tmp/gpuq-profile.* | tail -1); C=$(ls -S $D/cubins/*.cubin | head -1)
( time cuobjdump -sass -fun hist_add $C > /tmp/fun.txt ) 2>&1 | grep real; grep -c ATOMS /tmp/fun.txt; grep "Function" /tmp/fun.txt | head -3
grep -E "^[ ]+[0-9]+ +hist_add" /tmp/h.txt | head -2; cut -d, -f1,2,26-30 gpuq-profile.counters.csv | tail -2
timeout 110 bash scripts/bench_profile_overhead.sh -n 3 -g $B/gpuq -G "--table $T --force" $H $HA > $OUT/bench_hist.txt 2>&1; cat $OUT/bench_hist.txt
