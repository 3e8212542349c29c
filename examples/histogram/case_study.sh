#!/bin/sh
# Everything the case study measures, in one go, on a GPU machine:
#   versions, SASS check, the histogram tests, the fast-histogram bench
#   (with ablations), the paper kernels at 4 Mpixel, and the sweep.
#
#   examples/histogram/case_study.sh BUILD_DIR OUT_DIR [STEP...]
# STEP: versions sass tests bench bench512 paper4m sweep sweep-profile
# (default: all, in that order).  Results go to OUT_DIR/<step>.txt, except
# bench512 (bench-512.txt), sass (also sass-fast.txt: hist_fast's SASS), sweep
# (sweep.csv, sweep.csv.raw/) and sweep-profile (sweep-prof.csv and .raw/).
# SM clocks (nvidia-smi, read only) are sampled to OUT_DIR/clocks.csv throughout.
# Sweep options come from the environment (see sweep.sh), e.g. SWEEP_PROFILE=0.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR OUT_DIR [STEP...]" >&2
    exit 1
fi
build=$1
out=$2
shift 2
steps=${*:-"versions sass tests bench bench512 paper4m sweep sweep-profile"}
here=$(cd "$(dirname "$0")" && pwd)
prog=$build/examples/histogram/histogram
mkdir -p "$out"
rc=0
# SM/memory clocks and power every 100 ms while the steps run (read only).
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw --format=csv,noheader \
    -lms 100 >"$out/clocks.csv" 2>/dev/null &
sampler=$!
trap 'kill $sampler 2>/dev/null' EXIT INT TERM

for step in $steps; do
    echo "== $step ($(date -u +%H:%M:%S))" >&2
    case $step in
    versions)
        {
            date -u
            nvidia-smi -L
            nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv
            nvcc --version | tail -1
        } >"$out/versions.txt" 2>&1
        ;;
    sass)
        sh "$here/check_sass.sh" "$prog" "$out/sass-all.txt" >"$out/sass.txt" 2>&1 || rc=1
        # the SASS of hist_fast alone, for reading
        awk '/Function : / { keep = ($NF == "hist_fast") } keep' "$out/sass-all.txt" \
            >"$out/sass-fast.txt" && rm -f "$out/sass-all.txt"
        ;;
    tests)
        ctest --test-dir "$build" -R hist -V >"$out/tests.txt" 2>&1 || rc=1
        ;;
    bench)
        sh "$here/bench_fast.sh" "$build" --ablation >"$out/bench.txt" 2>&1 || rc=1
        ;;
    bench512)
        # kernels bounded to 512 threads per block (hist_fast_h16*) run here
        sh "$here/bench_fast.sh" "$build" --ablation --threads 512 >"$out/bench-512.txt" 2>&1 || rc=1
        ;;
    paper4m)
        # The probe's table (hopper-probe.md): 4 Mpixel, 256 and 1024 threads,
        # solid (two colours) and uniform; gray puts all four channels in one bank.
        echo "device,kernel,image,pixels,threads,blocks,warmup,reps,median_us,min_us,max_us,spread,gpixels_per_s,gbytes_per_s,check" >"$out/paper4m.txt"
        for k in hist hist2 hist_popc hist2_popc; do
            for t in 256 1024; do
                "$prog" --kernel $k --image solid --pixels 4194304 --threads $t --csv --check | tail -1
                "$prog" --kernel $k --image solid --color 80808080 --pixels 4194304 --threads $t --csv --check | tail -1 | sed 's/,solid,/,solid-gray,/'
                "$prog" --kernel $k --image uniform --pixels 4194304 --threads $t --csv --check | tail -1
            done
        done >>"$out/paper4m.txt" 2>&1 || rc=1
        ;;
    sweep)
        # timing of every block size, no profiler
        SWEEP_PROFILE=0 sh "$here/sweep.sh" "$build" "$out/sweep.csv" 2>"$out/sweep.log" || rc=1
        ;;
    sweep-profile)
        # gpuq profile runs (timing again), block sizes $SWEEP_THREADS [1024 256]
        SWEEP_THREADS=${SWEEP_THREADS:-"1024 256"} sh "$here/sweep.sh" "$build" \
            "$out/sweep-prof.csv" 2>"$out/sweep-prof.log" || rc=1
        ;;
    *)
        echo "case_study: unknown step '$step'" >&2
        rc=1
        ;;
    esac
done
exit $rc
