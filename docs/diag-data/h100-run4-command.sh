#!/bin/bash
# One device call: build, suite sched (timed), gpuq diag, the sched GPU tests.
cd "$(dirname "$0")"
T0=$(date +%s%N)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/smi-before.txt 2>&1
nvidia-smi > $OUT/smi-full.txt 2>&1
(cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=90-real > $OUT/cmake.log 2>&1 && \
 timeout 150 cmake --build build -j16 --target gpuq sched_nslot_check sched_cubins > $OUT/build.log 2>&1) || { echo BUILD FAILED; tail -40 $OUT/build.log $OUT/cmake.log; exit 1; }
T1=$(date +%s%N); echo "build: $(( (T1 - T0) / 1000000 )) ms"
S0=$(date +%s%N)
timeout 110 ./build/gpuq calibrate --suite sched -o $OUT/cal > $OUT/cal.log 2>&1; echo "calibrate rc=$?"
S1=$(date +%s%N); echo "calibrate wall: $(( (S1 - S0) / 1000000 )) ms"
tail -4 $OUT/cal.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/smi-after.txt 2>&1
F=$OUT/cal/sched.csv
ls -la $OUT/cal
./build/gpuq diag --table $F > $OUT/diag.txt 2>&1
./build/gpuq diag --table $F --form paper > $OUT/diag-paper.txt 2>&1
./build/gpuq diag --table $F -f csv > $OUT/diag.csv 2>&1
./build/gpuq diag --table $F --tails tables/nvidia-h100-80gb-hbm3/sched.csv -f csv > $OUT/diag-tails3.csv 2>&1
grep -E "r_|median_err_|spread_|noisy_" $OUT/diag.csv | cut -c1-170
python3 scripts/diag_tgb_noise.py $F > $OUT/noise.txt 2>&1; grep -v "^  " $OUT/noise.txt | cut -c1-400
(cd build && timeout 60 ctest -L gpu -R "sched|suite_sass" --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?")
grep -E "tests passed|Passed|Failed|\*\*\*" $OUT/ctest.log | head
# a second full run, if the time allows: how the new points repeat run to run
left=$(( 225 - ($(date +%s%N) - T0) / 1000000000 ))
if [ $left -gt 45 ]; then
  S0=$(date +%s%N)
  timeout $left ./build/gpuq calibrate --suite sched -o $OUT/cal2 > $OUT/cal2.log 2>&1; echo "calibrate 2 rc=$?"
  S1=$(date +%s%N); echo "calibrate 2 wall: $(( (S1 - S0) / 1000000 )) ms"
  ./build/gpuq diag --table $OUT/cal2/sched.csv -f csv > $OUT/diag2.csv 2>&1
  grep -E "r_|median_err_|spread_" $OUT/diag2.csv | cut -c1-120
else
  echo "no time for a second run ($left s left)"
fi
T2=$(date +%s%N); echo "total: $(( (T2 - T0) / 1000000 )) ms"
