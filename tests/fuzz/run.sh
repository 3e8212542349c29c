#!/bin/sh
# Fuzz one harness with libFuzzer (clang) under ASan+UBSan:
#
#   tests/fuzz/run.sh NAME SECONDS        NAME: a line of tests/fuzz/harnesses.txt
#
# Builds fuzz_NAME in $GPUQ_FUZZ_BUILD (default build-fuzz, configured with
# -DGPUQ_FUZZ=ON and CC=clang), starts from the seeds and regression inputs,
# keeps the grown corpus in build-fuzz/corpus/NAME (reused by the next run),
# and writes any crashing input to build-fuzz/findings/.  Prints one summary
# line; exits 0 when nothing was found, 1 on a finding, 2 on a setup error.
# Finding something: fix it, then copy the input to
# tests/data/fuzz-regress/NAME/ (the fuzz_replay_NAME test replays it).
set -u
cd "$(dirname "$0")/../.." || exit 2
if [ $# -ne 2 ]; then
    echo "usage: tests/fuzz/run.sh NAME SECONDS" >&2
    exit 2
fi
name=$1
seconds=$2
build=${GPUQ_FUZZ_BUILD:-build-fuzz}
line=$(grep "^$name[[:space:]]" tests/fuzz/harnesses.txt) ||
    { echo "run.sh: no harness '$name' in tests/fuzz/harnesses.txt" >&2; exit 2; }
command -v "${CC:-clang}" >/dev/null 2>&1 ||
    { echo "run.sh: clang not found: apt-get install clang" >&2; exit 2; }

if [ ! -f "$build/CMakeCache.txt" ]; then
    mkdir -p "$build"
    CC=${CC:-clang} cmake -S . -B "$build" -DGPUQ_FUZZ=ON -DGPUQ_WITH_CUDA=OFF \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 ||
        { tail -20 "$build/configure.log" >&2; echo "run.sh: configure failed" >&2; exit 2; }
fi
cmake --build "$build" --target "fuzz_$name" -j "${JOBS:-2}" >"$build/fuzz_$name.build.log" 2>&1 ||
    { tail -20 "$build/fuzz_$name.build.log" >&2; echo "run.sh: build failed" >&2; exit 2; }

# libFuzzer takes folders: the seeds are copied into one.
seeds=$build/seeds/$name
corpus=$build/corpus/$name
findings=$build/findings
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$findings"
for w in $(echo "$line" | cut -d' ' -f2-) "tests/data/fuzz-regress/$name"; do
    if [ -d "$w" ]; then
        cp -R "$w/." "$seeds/"
    elif [ -f "$w" ]; then
        cp "$w" "$seeds/"
    fi
done

log=$build/fuzz_$name.log
# FUZZ_TIMEOUT: seconds one input may take (10); on a machine shared with
# other jobs a large seed can take longer without hanging
"$build/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/$name-" "$corpus" "$seeds" >"$log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
inputs=$(find "$corpus" -type f | wc -l)
if [ $rc -eq 0 ]; then
    echo "fuzz $name: ${execs:-?} inputs in ${took:-?} s, corpus $inputs, no finding (log: $log)"
    exit 0
fi
grep -E "ERROR|broken promise|Test unit written" "$log" | head -5
echo "fuzz $name: FINDING after ${execs:-?} inputs (exit $rc; log: $log; input in $findings/)"
exit 1
