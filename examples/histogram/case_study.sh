#!/bin/sh
# Everything the case study measures, in one go, on a GPU machine:
#   versions, SASS check, the histogram tests, the fast-histogram bench
#   (with ablations), the paper kernels at 4 Mpixel, and the sweep.
#
#   examples/histogram/case_study.sh BUILD_DIR OUT_DIR [STEP...]
# STEP: versions sass tests bench paper4m sweep (default: all, in that order).
# Results go to OUT_DIR/<step>.txt (bench: also bench-512.txt and
# bench-clocks.csv; sass: also sass-fast.txt; sweep: sweep.csv, raw files tarred).
# Sweep options come from the environment (see sweep.sh), e.g. SWEEP_PROFILE=0.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR OUT_DIR [versions|sass|tests|bench|paper4m|sweep ...]" >&2
    exit 1
fi
build=$1
out=$2
shift 2
steps=${*:-"versions sass tests bench paper4m sweep"}
here=$(cd "$(dirname "$0")" && pwd)
prog=$build/examples/histogram/histogram
mkdir -p "$out"
rc=0

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
        # the SASS of the fast kernels alone, for reading
        awk '/Function : / { keep = ($NF ~ /^hist_fast/) } keep' "$out/sass-all.txt" \
            >"$out/sass-fast.txt" && rm -f "$out/sass-all.txt"
        ;;
    tests)
        ctest --test-dir "$build" -R hist --output-on-failure >"$out/tests.txt" 2>&1 || rc=1
        ;;
    bench)
        # SM/memory clocks and power while the bench runs, every 100 ms (read only).
        nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw --format=csv,noheader \
            -lms 100 >"$out/bench-clocks.csv" 2>/dev/null &
        sampler=$!
        sh "$here/bench_fast.sh" "$build" --ablation >"$out/bench.txt" 2>&1 || rc=1
        # kernels bounded to 512 threads per block (hist_fast_h16*) run here
        sh "$here/bench_fast.sh" "$build" --ablation --threads 512 >"$out/bench-512.txt" 2>&1 || rc=1
        kill "$sampler" 2>/dev/null
        ;;
    paper4m)
        # The probe's table (hopper-probe.md): 4 Mpixel, 256 and 1024 threads,
        # solid (two colours) and uniform; gray puts all four channels in one bank.
        "$prog" --help >/dev/null # (header below is the program's --csv header)
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
        sh "$here/sweep.sh" "$build" "$out/sweep.csv" 2>"$out/sweep.log" || rc=1
        tar -C "$out" -czf "$out/sweep-raw.tgz" sweep.csv.raw && rm -rf "$out/sweep.csv.raw"
        ;;
    *)
        echo "case_study: unknown step '$step'" >&2
        rc=1
        ;;
    esac
done
exit $rc
