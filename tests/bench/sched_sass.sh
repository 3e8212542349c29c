#!/bin/sh
# SASS check of every suite, with the kernels suite "sched" JIT-compiles at
# run time: sched_cubins writes the cubins the driver made, then
# check_suite_sass.sh checks every suite's rows against gpuq and them.
#   usage: sched_sass.sh CUOBJDUMP GPUQ SCHED_CUBINS
# Exits 77 without cuobjdump or a GPU.
cuobjdump=$1
gpuq=$2
dumper=$3
here=$(dirname "$0")
dir=$(mktemp -d /tmp/gpuq_sched_cubins.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
"$dumper" "$dir"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "FAIL: $dumper $dir (exit $rc)"; exit 1; }
n=$(ls "$dir"/*.cubin 2>/dev/null | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: no cubins written"; exit 1; }
sh "$here/check_suite_sass.sh" "$cuobjdump" "$gpuq" "$dir"/*.cubin
