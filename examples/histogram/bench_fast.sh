#!/bin/sh
# The fast histogram's goals, measured side by side in one run per image:
# DRAM read probe, cudaMemcpy D2D, CUB and hist_fast on 64 Mpixel images
# (histogram --bench; every histogram is checked against the CPU).
#
# hist_fast runs one block of 6 warps per SM (6 x 32 KiB of lane-private
# counters fill shared memory), so the bench gets --threads 192 first; a
# later --threads in the options wins (e.g. --ablation --threads 1024 for the
# 1024-thread variants, where hist_fast is then skipped).  After each bench,
# the previous hist_fast (hist_fast_atoms, 1024 threads) runs once more on the
# same image for comparison; BENCH_BASELINE= (empty) leaves it out.
#
#   examples/histogram/bench_fast.sh BUILD_DIR [histogram options, e.g. --ablation --reps 50]
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 BUILD_DIR [histogram --bench options]" >&2
    exit 1
fi
build=$1
shift
src=$(cd "$(dirname "$0")/../.." && pwd)
histogram=${HISTOGRAM:-$build/examples/histogram/histogram}
pixels=${BENCH_PIXELS:-67108864}
baseline=${BENCH_BASELINE-hist_fast_atoms}
rc=0
for image in solid uniform "$src/data/images/astronaut.ppm" "$src/data/images/homeworld.ppm"; do
    "$histogram" --bench --image "$image" --pixels "$pixels" --threads 192 "$@" || rc=$?
    if [ -n "$baseline" ]; then
        "$histogram" --kernel "$baseline" --image "$image" --pixels "$pixels" --threads 1024 \
            --check || rc=$?
    fi
    echo
done
exit $rc
