#!/bin/sh
# The whole GPU check in one go, for a machine with a CUDA GPU:
#   build (sm_90 unless CMAKE_CUDA_ARCHITECTURES is set), every test including
#   the `gpu` label, then the demo profiles whose counters are shipped in
#   data/recorded/ for machines without a GPU.
#
#   scripts/gpu_check.sh OUTDIR [BUILD_DIR]
#
# OUTDIR receives ctest.log, demo.txt, demo.json and the recorded counters.
set -u
out=${1:?usage: scripts/gpu_check.sh OUTDIR [BUILD_DIR]}
build=${2:-build-gpu}
mkdir -p "$out" || exit 2
arch=${CMAKE_CUDA_ARCHITECTURES:-90}
deps=""
[ -d .deps ] && deps="-DGPUQ_DEPS_PREFIX=$PWD/.deps"

{
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -1
  date -u +%Y-%m-%dT%H:%M:%SZ
} >"$out/device.txt" 2>&1
cat "$out/device.txt"

cmake -S . -B "$build" $deps -DCMAKE_CUDA_ARCHITECTURES="$arch" >"$out/build.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" >>"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 2; }

ctest --test-dir "$build" --output-on-failure -j 4 >"$out/ctest.log" 2>&1
ctest_rc=$?
grep -E "tests passed|Failed|Skipped|\(Not Run\)" "$out/ctest.log" | tail -15

# The demo: the paper's Listing 1 on a 4 Mpixel image, 1024 threads, as
# ATOMS.ADD and ATOMS.POPC.INC on a solid image, and ATOMS.ADD on a uniform one.
app="$build/examples/histogram/histogram"
gpuq="$build/gpuq"
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | tr 'A-Z ' 'a-z-')
: >"$out/demo.txt"
for run in "hist hist_add solid" "hist_popc hist_popc solid" "hist hist_add uniform"; do
  set -- $run
  kernel=$1 symbol=$2 image=$3
  name="histogram-$kernel-$image-4m-$dev"
  cmd="gpuq profile -k ^$symbol\$ -- histogram --kernel $kernel --image $image --pixels 4194304 --threads 1024 --reps 3"
  echo "\$ $cmd" >>"$out/demo.txt"
  "$gpuq" profile -k "^$symbol\$" --keep-counters "$out/$name.counters.csv" -- \
    "$app" --kernel "$kernel" --image "$image" --pixels 4194304 --threads 1024 --reps 3 \
    >>"$out/demo.txt" 2>&1
  echo "exit $?" >>"$out/demo.txt"
done
"$gpuq" model "$out/histogram-hist-solid-4m-$dev.counters.csv" -f json >"$out/demo.json" 2>&1
tail -40 "$out/demo.txt"
exit $ctest_rc
