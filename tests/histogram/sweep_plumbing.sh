#!/bin/sh
# The CSV plumbing of examples/histogram/sweep.sh and scripts/figures.sh,
# without a GPU: a fake histogram program and a fake `gpuq profile` stand in
# for the real ones (they print the real programs' CSV layouts).  Checks the
# row count, that U/e/n land on the right rows (gpuq's row i = size i), that a
# report with the wrong number of rows leaves U empty with a warning, and that
# figures.sh turns the CSV into its SVG files, with a model variant's CSV too.
#   sweep_plumbing.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# Fake histogram: --csv prints the program's header and one row per size of
# --sizes LO:HI (median_us = pixels / 1000, x2 for the rotated kernels);
# --quiet prints nothing.
cat >"$tmp/histogram" <<'FAKE'
#!/bin/sh
kernel=; image=; sizes=; threads=; csv=0
while [ $# -gt 0 ]; do
    case $1 in
        --kernel) kernel=$2; shift ;; --image) image=$2; shift ;; --sizes) sizes=$2; shift ;;
        --threads) threads=$2; shift ;; --csv) csv=1 ;; --reps|--warmup) shift ;;
    esac
    shift
done
[ $csv -eq 1 ] || exit 0
case $image in solid|uniform) label=$image ;; *) label=$(basename "$image" .ppm) ;; esac
echo "device,kernel,image,pixels,threads,blocks,warmup,reps,median_us,min_us,max_us,spread,gpixels_per_s,gbytes_per_s,check"
n=${sizes%:*}; hi=${sizes#*:}
while [ "$n" -le "$hi" ]; do
    f=1; case $kernel in hist2*) f=2 ;; esac
    echo "NVIDIA H200,$kernel,$label,$n,$threads,264,3,10,$((n * f / 1000 + 1)).5,1,2,0.01,1,4,total"
    n=$((n * 2))
done
FAKE
# Fake gpuq profile: writes its report to -o FILE (a '#' header, a header row,
# one row per size whose U is log2(size)/100, a quoted verdict with a comma)
# and the counters to --keep-counters FILE (N = size, O = 3 x size,
# occupancy 50%).  FAKE_SHORT=1 drops the last size from both; FAKE_NOREPORT=1
# writes no report and exits 2, as gpuq does without a calibration table.
cat >"$tmp/gpuq" <<'FAKE'
#!/bin/sh
[ "$1" = profile ] || exit 1
report=/dev/stdout; counters=/dev/null
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    [ "$1" = -o ] && report=$2
    [ "$1" = --keep-counters ] && counters=$2
    shift
done
shift
sizes=
while [ $# -gt 0 ]; do [ "$1" = --sizes ] && sizes=$2; shift; done
hi=${sizes#*:}
{
    echo "# gpuq counters v1"
    echo "# max_warps_per_sm: 64"
    echo "launch_id,kernel,N_atom,O_wavefronts,cycles_avg,occupancy_pct,duration_ns"
    n=${sizes%:*}; i=0
    while [ "$n" -le "$hi" ]; do
        if [ "${FAKE_SHORT:-0}" = 1 ] && [ "$n" -eq "$hi" ]; then break; fi
        echo "$i,hist_add,$n,$((3 * n)),1000,50,2000"
        n=$((n * 2)); i=$((i + 1))
    done
} >"$counters"
[ "${FAKE_NOREPORT:-0}" = 1 ] && { echo "gpuq: profile: no calibration table" >&2; exit 2; }
exec >"$report"
echo "# gpuq report v1"
echo "launch_id,kernel,n,e,U,U_lo,U_hi,verdict"
n=${sizes%:*}; i=0; l=0
t=$n; while [ "$t" -gt 1 ]; do t=$((t / 2)); l=$((l + 1)); done
while [ "$n" -le "$hi" ]; do
    if [ "${FAKE_SHORT:-0}" = 1 ] && [ "$n" -eq "$hi" ]; then break; fi
    echo "$i,hist_add,12.5,3.1,0.$l,0.0$l,0.9$l,\"not a bottleneck, U low\""
    n=$((n * 2)); i=$((i + 1)); l=$((l + 1))
done
FAKE
chmod +x "$tmp/histogram" "$tmp/gpuq"

export HISTOGRAM="$tmp/histogram" GPUQ="$tmp/gpuq"
export SWEEP_SIZES=32:1024 SWEEP_THREADS="128 1024" SWEEP_IMAGES="solid $src/data/images/astronaut.ppm"
sh "$src/examples/histogram/sweep.sh" "$tmp" "$tmp/sweep.csv" 2>"$tmp/log" || bad "sweep.sh failed: $(cat "$tmp/log")"
rows=$(($(wc -l <"$tmp/sweep.csv") - 1))
# 4 kernels x 2 images x 2 block sizes x 6 sizes
[ "$rows" -eq 96 ] && ok || bad "expected 96 rows, got $rows"
head -1 "$tmp/sweep.csv" | grep -q ',check,U,e,n,U_lo,U_hi,N_atom,O_wavefronts,cycles_avg,occupancy_pct,kernel_ns,e_counters,n_hat$' && ok || bad "header: $(head -1 "$tmp/sweep.csv")"
# 2^7 = 128 pixels is the third size: U = 0.7 ... from the report; N = 128,
# O = 384, e = O / N = 3, n-hat = 50% x 64 = 32 from the counters
line=$(grep '^NVIDIA H200,hist2_popc,astronaut,128,1024,' "$tmp/sweep.csv")
[ "$(echo "$line" | cut -d, -f16-27)" = "0.7,3.1,12.5,0.07,0.97,128,384,1000,50,2000,3,32" ] && ok || bad "joined row: $line"
[ "$(awk -F, 'NR > 1 && NF != 27' "$tmp/sweep.csv" | wc -l)" -eq 0 ] && ok || bad "ragged rows"
[ -s "$tmp/sweep.csv.raw/hist-solid-128.gpuq.csv" ] && [ -s "$tmp/sweep.csv.raw/hist-solid-128.counters.csv" ] && ok || bad "raw gpuq output not kept"

FAKE_SHORT=1 sh "$src/examples/histogram/sweep.sh" "$tmp" "$tmp/short.csv" 2>"$tmp/log2"
grep -q "5 report rows for 6 sizes" "$tmp/log2" && grep -q "5 launches for 6 sizes" "$tmp/log2" && ok || bad "no warning on a short report: $(cat "$tmp/log2")"
[ "$(awk -F, 'NR > 1 && ($16 != "" || $21 != "")' "$tmp/short.csv" | wc -l)" -eq 0 ] && ok || bad "U not left empty"

# No calibration table: no report, but the counters still give N, O, e and n-hat.
FAKE_NOREPORT=1 SWEEP_PROFILE_THREADS=1024 sh "$src/examples/histogram/sweep.sh" "$tmp" "$tmp/noreport.csv" 2>"$tmp/log4"
line=$(grep '^NVIDIA H200,hist,solid,64,1024,' "$tmp/noreport.csv")
[ "$(echo "$line" | cut -d, -f16-27)" = ",,,,,64,192,1000,50,2000,3,32" ] && ok || bad "no-report row: $line"
line=$(grep '^NVIDIA H200,hist,solid,64,128,' "$tmp/noreport.csv")
[ "$(echo "$line" | cut -d, -f16-27)" = ",,,,,,,,,,," ] && ok || bad "unprofiled block size: $line"
grep -q "gpuq profile exit 2" "$tmp/log4" && ok || bad "profile failure not reported: $(cat "$tmp/log4")"

SWEEP_PROFILE=0 sh "$src/examples/histogram/sweep.sh" "$tmp" "$tmp/noprof.csv" 2>/dev/null
[ "$(awk -F, 'NR > 1 && NF == 27 && $16 == "" && $21 == ""' "$tmp/noprof.csv" | wc -l)" -eq 96 ] && ok || bad "SWEEP_PROFILE=0"

if command -v gnuplot >/dev/null 2>&1; then
    sh "$src/scripts/figures.sh" "$tmp/sweep.csv" "$tmp/fig" 2>"$tmp/log3" || bad "figures.sh failed: $(cat "$tmp/log3")"
    for f in fig3-utilization-h200.svg fig5-speedup-h200.svg fige-serialization-h200.svg; do
        grep -q '<svg' "$tmp/fig/$f" 2>/dev/null && ok || bad "$f not written"
    done
    # fig5 has a speedup of about 2 (the fake rotated kernels take half... twice the time)
    grep -q "hist2_popc over hist_popc" "$tmp/fig/fig5-speedup-h200.svg" && ok || bad "fig5 titles"
    [ ! -e "$tmp/fig/fig3-models-h200.svg" ] && ok || bad "model comparison drawn without model CSVs"
    # A model variant's CSV next to the sweep (sweep-<model>.csv): its own
    # fig3 and the comparison figure, one line per model.
    cp "$tmp/sweep.csv" "$tmp/sweep-paper.csv"
    sh "$src/scripts/figures.sh" "$tmp/sweep.csv" "$tmp/fig" 2>"$tmp/log5" || bad "figures.sh with a model CSV failed: $(cat "$tmp/log5")"
    grep -q "paper model" "$tmp/fig/fig3-utilization-h200-paper.svg" 2>/dev/null && ok || bad "fig3 of the paper model not written"
    grep -q ">paper<" "$tmp/fig/fig3-models-h200.svg" 2>/dev/null && grep -q ">default<" "$tmp/fig/fig3-models-h200.svg" && ok || bad "model comparison not written"
else
    echo "note: gnuplot not installed: figures.sh not checked"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
