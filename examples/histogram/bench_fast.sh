#!/bin/sh
# The fast histogram's goals, measured side by side in one run per image:
# DRAM read probe, cudaMemcpy D2D, CUB and hist_fast on 64 Mpixel images
# (histogram --bench; every histogram is checked against the CPU).
# --threads defaults to 1024; the hist_fast_bytes* variants (224 KiB of shared
# memory, at most 192 threads per block) are skipped there: measure them with
# --ablation --threads 192 (the 1024-thread variants then run at 192 too).
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
rc=0
for image in solid uniform "$src/data/images/astronaut.ppm" "$src/data/images/homeworld.ppm"; do
    "$histogram" --bench --image "$image" --pixels "$pixels" "$@" || rc=$?
    echo
done
exit $rc
