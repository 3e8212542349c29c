#!/bin/sh
# The fast histogram's goals, measured side by side in one run per image:
# DRAM read probe, cudaMemcpy D2D, CUB and hist_fast on 64 Mpixel images
# (histogram --bench; every histogram is checked against the CPU).
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
