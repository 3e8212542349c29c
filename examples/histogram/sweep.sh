#!/bin/sh
# The case-study sweep (paper 000, Sec. 4.1, Figures 3-5): every paper kernel
# x image x size (powers of two) x block size, the time of each run and
# gpuq's utilization report for it, in one CSV.
#
#   examples/histogram/sweep.sh [--quick] BUILD_DIR OUT.csv
#
# For each (kernel, image, block size) two processes run, each covering all
# sizes with `histogram --sizes LO:HI` (the image is made once, at the largest
# size; smaller ones are its prefixes):
#   1. timing:  histogram --csv --reps R                (no profiler attached)
#   2. profile: gpuq profile --format csv -k '^SYMBOL$' -- histogram --quiet
#               --warmup 0 --reps 1
#      so that the kernel launches exactly once per size, in size order, and
#      row i of gpuq's report is size i.  The join checks the row count and
#      leaves U empty (with a warning) where it does not match.
#
# --quick: block sizes 256 and 1024 only.  Sizes: 2^5..2^26 (SWEEP_SIZES).
# Environment (defaults in brackets):
#   SWEEP_KERNELS  [hist hist2 hist_popc hist2_popc]
#   SWEEP_IMAGES   [solid uniform SRC/data/images/astronaut.ppm SRC/data/images/homeworld.ppm]
#   SWEEP_THREADS  [128 256 512 1024]
#   SWEEP_SIZES    [32:67108864]
#   SWEEP_REPS     [10]
#   SWEEP_PROFILE  [1]; 0 skips gpuq (U, e, n columns stay empty)
#   GPUQ, HISTOGRAM: the programs [BUILD_DIR/gpuq, BUILD_DIR/examples/histogram/histogram]
#   GPUQ_PROFILE_ARGS  extra options for gpuq profile (e.g. "--table FILE") []
#   GPUQ_COL_U, GPUQ_COL_E, GPUQ_COL_N, GPUQ_COL_ULO, GPUQ_COL_UHI: gpuq report columns
#     to take, '|'-separated alternatives, matched case-insensitively
#     [U|utilization, e, n, U_lo, U_hi] (gpuq's report CSV, src/model/report.c)
# Raw outputs are kept in OUT.csv.raw/ (one pair of files per process).
set -eu

quick=0
if [ "${1:-}" = "--quick" ]; then
    quick=1
    shift
fi
if [ $# -ne 2 ]; then
    echo "usage: $0 [--quick] BUILD_DIR OUT.csv" >&2
    exit 1
fi
build=$1
out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)

kernels=${SWEEP_KERNELS:-"hist hist2 hist_popc hist2_popc"}
images=${SWEEP_IMAGES:-"solid uniform $src/data/images/astronaut.ppm $src/data/images/homeworld.ppm"}
if [ $quick -eq 1 ]; then
    threads_list=${SWEEP_THREADS:-"256 1024"}
else
    threads_list=${SWEEP_THREADS:-"128 256 512 1024"}
fi
sizes=${SWEEP_SIZES:-"32:67108864"}
reps=${SWEEP_REPS:-10}
profile=${SWEEP_PROFILE:-1}
gpuq=${GPUQ:-$build/gpuq}
histogram=${HISTOGRAM:-$build/examples/histogram/histogram}
profile_args=${GPUQ_PROFILE_ARGS:-}
col_u=${GPUQ_COL_U:-"U|utilization"}
col_e=${GPUQ_COL_E:-"e"}
col_n=${GPUQ_COL_N:-"n"}
col_ulo=${GPUQ_COL_ULO:-"U_lo"}
col_uhi=${GPUQ_COL_UHI:-"U_hi"}

if [ ! -x "$histogram" ]; then
    echo "sweep: no histogram program at '$histogram' (build the 'histogram' target)" >&2
    exit 2
fi
if [ "$profile" = 1 ] && [ ! -x "$gpuq" ]; then
    echo "sweep: no gpuq at '$gpuq' (build it, or set SWEEP_PROFILE=0)" >&2
    exit 2
fi

raw="$out.raw"
mkdir -p "$raw"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT INT TERM

# Kernel name -> symbol, from `histogram --help` would be indirect; the four
# paper kernels are extern "C" with these names (hist_gpu.c, hist_kernel_table).
symbol_of() {
    case $1 in
        hist) echo hist_add ;;
        hist2) echo hist2_add ;;
        *) echo "$1" ;;
    esac
}

label_of() {
    case $1 in
        solid|uniform) echo "$1" ;;
        *) b=$(basename "$1"); echo "${b%.*}" ;;
    esac
}

# join TIMING.csv PROFILE.csv: prints the timing rows with U,e,n,U_lo,U_hi appended.
# The profile CSV may start with '#' lines; its first other line is the
# header.  Fields may be double-quoted (with commas inside).
join_rows() {
    awk -v col_u="$col_u" -v col_e="$col_e" -v col_n="$col_n" -v col_ulo="$col_ulo" \
        -v col_uhi="$col_uhi" -v profile_file="$2" '
    function split_csv(line, f,    n, i, c, q, cur) {
        n = 0; cur = ""; q = 0
        for (i = 1; i <= length(line); i++) {
            c = substr(line, i, 1)
            if (q) {
                if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cur = cur c; i++ } else q = 0 }
                else cur = cur c
            } else if (c == "\"") q = 1
            else if (c == ",") { f[++n] = cur; cur = "" }
            else cur = cur c
        }
        f[++n] = cur
        return n
    }
    function find_col(names, hdr, nh,    alt, na, i, j) {
        na = split(names, alt, "|")
        for (i = 1; i <= na; i++)
            for (j = 1; j <= nh; j++)
                if (tolower(hdr[j]) == tolower(alt[i])) return j
        return 0
    }
    BEGIN {
        nrows = 0; have_header = 0
        while (profile_file != "" && (getline line < profile_file) > 0) {
            sub(/\r$/, "", line)
            if (line ~ /^#/ || line ~ /^[ \t]*$/) continue
            if (!have_header) {
                nh = split_csv(line, hdr); have_header = 1
                cu = find_col(col_u, hdr, nh); ce = find_col(col_e, hdr, nh); cn = find_col(col_n, hdr, nh)
                cl = find_col(col_ulo, hdr, nh); ch = find_col(col_uhi, hdr, nh)
                continue
            }
            split_csv(line, f); nrows++
            U[nrows] = cu ? f[cu] : ""; E[nrows] = ce ? f[ce] : ""; N[nrows] = cn ? f[cn] : ""
            L[nrows] = cl ? f[cl] : ""; H[nrows] = ch ? f[ch] : ""
        }
    }
    FNR == 1 { next }  # timing header
    { ntiming++; row[ntiming] = $0 }
    END {
        ok = (nrows == ntiming) && have_header
        if (profile_file != "" && !ok)
            printf("sweep: warning: %s has %d report rows for %d sizes: U left empty\n",
                   profile_file, nrows, ntiming) > "/dev/stderr"
        if (profile_file != "" && have_header && !cu)
            printf("sweep: warning: no column \"%s\" in %s: U left empty\n", col_u, profile_file) > "/dev/stderr"
        for (i = 1; i <= ntiming; i++)
            print row[i] "," (ok ? U[i] "," E[i] "," N[i] "," L[i] "," H[i] : ",,,,")
    }' "$1"
}

echo "gpu,kernel,image,pixels,threads,blocks,warmup,reps,median_us,min_us,max_us,spread,gpixels_per_s,gbytes_per_s,check,U,e,n,U_lo,U_hi" >"$tmp"
for kernel in $kernels; do
    sym=$(symbol_of "$kernel")
    for image in $images; do
        label=$(label_of "$image")
        for threads in $threads_list; do
            tag="$kernel-$label-$threads"
            echo "sweep: $tag" >&2
            "$histogram" --kernel "$kernel" --image "$image" --sizes "$sizes" \
                --threads "$threads" --reps "$reps" --csv >"$raw/$tag.time.csv" 2>"$raw/$tag.time.log" || {
                echo "sweep: histogram failed for $tag (exit $?): see $raw/$tag.time.log" >&2
                cat "$raw/$tag.time.log" >&2
                exit 3
            }
            pfile=""
            if [ "$profile" = 1 ]; then
                pfile="$raw/$tag.gpuq.csv"
                # shellcheck disable=SC2086 # GPUQ_PROFILE_ARGS is a list of words
                if ! "$gpuq" profile --format csv -k "^$sym\$" $profile_args -- \
                    "$histogram" --kernel "$kernel" --image "$image" --sizes "$sizes" \
                    --threads "$threads" --warmup 0 --reps 1 --quiet \
                    >"$pfile" 2>"$raw/$tag.gpuq.log"; then
                    echo "sweep: gpuq profile failed for $tag: see $raw/$tag.gpuq.log" >&2
                    tail -3 "$raw/$tag.gpuq.log" >&2
                    pfile=/dev/null
                fi
            fi
            join_rows "$raw/$tag.time.csv" "$pfile" >>"$tmp"
        done
    done
done
mv "$tmp" "$out"
trap - EXIT INT TERM
echo "sweep: $(($(wc -l <"$out") - 1)) rows in $out" >&2
