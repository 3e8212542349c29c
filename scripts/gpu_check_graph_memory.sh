#!/bin/sh
# The collector's memory over launch-heavy and graph-heavy programs, on a
# machine with a GPU, in one bounded go (about 6 minutes): build, then
# profile_launch_memory (a million launches with 2,000 profiled, 20,000
# profiled, and 20,000 CUDA graphs of 64 kernel nodes instantiated,
# launched and destroyed: tests/profile/launch_memory.sh) and
# profile_graph_torch (kernel nodes of PyTorch's CUDA graphs).
#
#   scripts/gpu_check_graph_memory.sh OUTDIR [BUILD_DIR]
#
# OUTDIR receives device.txt, build.log, ctest.log and the tests' work
# folders (counters, graphs files, GNU time's reports).
set -u
out=${1:?usage: scripts/gpu_check_graph_memory.sh OUTDIR [BUILD_DIR]}
build=${2:-build-gpu}
mkdir -p "$out" || exit 2
{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    nvcc --version | tail -1
    date -u +%Y-%m-%dT%H:%M:%SZ
} >"$out/device.txt" 2>&1
cat "$out/device.txt"
timeout 240 sh -c "cmake -S . -B '$build' -DCMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES:-90} \
    >'$out/build.log' 2>&1 && cmake --build '$build' -j '$(nproc)' >>'$out/build.log' 2>&1" ||
    { tail -30 "$out/build.log"; exit 2; }
timeout 420 ctest --test-dir "$build" -R '^(profile_launch_memory|profile_graph_torch)$' \
    --output-on-failure --timeout 300 >"$out/ctest.log" 2>&1
rc=$?
for d in work-launch-memory work-graph; do
    [ -d "$build/tests/profile/$d" ] && cp -r "$build/tests/profile/$d" "$out/" 2>/dev/null
done
grep -E "launch_memory:|tests passed|Failed|Skipped" "$out/ctest.log" | tail -15
exit $rc
