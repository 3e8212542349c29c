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
#   2. profile: gpuq profile --format csv -k '^SYMBOL$' -o REPORT --keep-counters
#               COUNTERS -- histogram --quiet --warmup 0 --reps 1
#      so that the kernel launches exactly once per size, in size order, and
#      row i of gpuq's report (and of its counters file) is size i.  The join
#      checks the row count and leaves the columns empty, with a warning, where
#      it does not match.
# Columns added to the timing rows:
#   U, e, n, U_lo, U_hi   from gpuq's report (empty when gpuq has no calibration
#                         table for the GPU: sweep_model.sh fills them later
#                         from the kept counters)
#   N_atom, O_wavefronts, cycles_avg, occupancy_pct, kernel_ns, e_counters, n_hat
#                         straight from the counters file: N and O of Table 1,
#                         e = O / N and n-hat = occupancy x warps per SM (Table 2)
#
# --quick: block sizes 256 and 1024 only.  Sizes: 2^5..2^26 (SWEEP_SIZES).
# Environment (defaults in brackets):
#   SWEEP_KERNELS  [hist hist2 hist_popc hist2_popc]
#   SWEEP_IMAGES   [solid uniform SRC/data/images/astronaut.ppm SRC/data/images/homeworld.ppm]
#   SWEEP_THREADS  [128 256 512 1024]
#   SWEEP_PROFILE_THREADS  block sizes that are also profiled [all of SWEEP_THREADS]
#   SWEEP_SIZES    [32:67108864]
#   SWEEP_REPS     [10]
#   SWEEP_PROFILE  [1]; 0 skips gpuq (its columns stay empty)
#   GPUQ, HISTOGRAM: the programs [BUILD_DIR/gpuq, BUILD_DIR/examples/histogram/histogram]
#   GPUQ_PROFILE_ARGS  extra options for gpuq profile (e.g. "--table FILE") []
#   GPUQ_COL_U, GPUQ_COL_E, GPUQ_COL_N, GPUQ_COL_ULO, GPUQ_COL_UHI: gpuq report columns
#     to take, '|'-separated alternatives, matched case-insensitively
#     [atomics.U|U|utilization, atomics.e|e, ...] (gpuq's report CSV, src/core/report_csv.c;
#     the plain names are those of reports before v2)
# Rows are appended as each process finishes; raw outputs stay in OUT.csv.raw/
# (TAG.time.csv/.log, TAG.gpuq.csv/.log, TAG.counters.csv; TAG = kernel-image-threads).
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
profile_threads=${SWEEP_PROFILE_THREADS:-$threads_list}
sizes=${SWEEP_SIZES:-"32:67108864"}
reps=${SWEEP_REPS:-10}
profile=${SWEEP_PROFILE:-1}
gpuq=${GPUQ:-$build/gpuq}
histogram=${HISTOGRAM:-$build/examples/histogram/histogram}
profile_args=${GPUQ_PROFILE_ARGS:-}
col_u=${GPUQ_COL_U:-"atomics.U|U|utilization"}
col_e=${GPUQ_COL_E:-"atomics.e|e"}
col_n=${GPUQ_COL_N:-"atomics.n|n"}
col_ulo=${GPUQ_COL_ULO:-"atomics.U_lo|U_lo"}
col_uhi=${GPUQ_COL_UHI:-"atomics.U_hi|U_hi"}

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

# The paper kernels are extern "C" with these names (hist_gpu.c, hist_kernel_table).
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

# join_rows TIMING.csv REPORT.csv COUNTERS.csv: prints the timing rows with the
# report's and the counters' columns appended (empty where a file is "" or
# its row count differs from the timing's).  Both gpuq files may start with
# '#' lines; their first other line is the header.  Fields may be quoted.
join_rows() {
    awk -v col_u="$col_u" -v col_e="$col_e" -v col_n="$col_n" -v col_ulo="$col_ulo" \
        -v col_uhi="$col_uhi" -v report_file="$2" -v counters_file="$3" '
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
    # Reads a gpuq CSV; cols is a "|"-list of "|"-alternatives joined by ";".
    function load(file, names, out,    line, hdr, nh, f, n, k, c, wanted, nw, i) {
        n = 0; nh = 0
        nw = split(names, wanted, ";")
        while (file != "" && (getline line < file) > 0) {
            sub(/\r$/, "", line)
            if (line ~ /^# max_warps_per_sm:/) { split(line, f, ": "); max_warps = f[2] + 0 }
            if (line ~ /^#/ || line ~ /^[ \t]*$/) continue
            if (!nh) {
                nh = split_csv(line, hdr)
                for (i = 1; i <= nw; i++) c[i] = find_col(wanted[i], hdr, nh)
                continue
            }
            split_csv(line, f); n++
            for (i = 1; i <= nw; i++) out[n, i] = c[i] ? f[c[i]] : ""
        }
        if (file != "") close(file)
        missing[file] = (nh && !c[1]) ? wanted[1] : ""
        return n
    }
    BEGIN {
        nrep = load(report_file, col_u ";" col_e ";" col_n ";" col_ulo ";" col_uhi, R)
        ncnt = load(counters_file, "N_atom|smsp__inst_executed_op_shared_atom.sum;" \
                    "O_wavefronts|l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum;" \
                    "cycles_avg|sm__cycles_active.avg;" \
                    "occupancy_pct|sm__warps_active.avg.pct_of_peak_sustained_active;" \
                    "duration_ns|gpu__time_duration.sum", C)
    }
    FNR == 1 { next }  # timing header
    { ntiming++; row[ntiming] = $0 }
    END {
        rep_ok = report_file != "" && nrep == ntiming
        cnt_ok = counters_file != "" && ncnt == ntiming
        if (report_file != "" && !rep_ok)
            printf("sweep: warning: %s has %d report rows for %d sizes: U left empty\n",
                   report_file, nrep, ntiming) > "/dev/stderr"
        if (report_file != "" && missing[report_file] != "")
            printf("sweep: warning: no column \"%s\" in %s\n", missing[report_file], report_file) > "/dev/stderr"
        if (counters_file != "" && !cnt_ok)
            printf("sweep: warning: %s has %d launches for %d sizes: counters left out\n",
                   counters_file, ncnt, ntiming) > "/dev/stderr"
        for (i = 1; i <= ntiming; i++) {
            line = row[i]
            for (j = 1; j <= 5; j++) line = line "," (rep_ok ? R[i, j] : "")
            for (j = 1; j <= 5; j++) line = line "," (cnt_ok ? C[i, j] : "")
            e = ""; nh = ""
            if (cnt_ok && C[i, 1] + 0 > 0) e = sprintf("%.4g", C[i, 2] / C[i, 1])
            if (cnt_ok && C[i, 4] != "" && max_warps > 0) nh = sprintf("%.4g", C[i, 4] / 100 * max_warps)
            print line "," e "," nh
        }
    }' "$1"
}

in_list() {
    for x in $2; do [ "$x" = "$1" ] && return 0; done
    return 1
}

echo "gpu,kernel,image,pixels,threads,blocks,warmup,reps,median_us,min_us,max_us,spread,gpixels_per_s,gbytes_per_s,check,U,e,n,U_lo,U_hi,N_atom,O_wavefronts,cycles_avg,occupancy_pct,kernel_ns,e_counters,n_hat" >"$out"
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
            report=""
            counters=""
            if [ "$profile" = 1 ] && in_list "$threads" "$profile_threads"; then
                # shellcheck disable=SC2086 # GPUQ_PROFILE_ARGS is a list of words
                "$gpuq" profile --format csv -k "^$sym\$" -o "$raw/$tag.gpuq.csv" \
                    --keep-counters "$raw/$tag.counters.csv" $profile_args -- \
                    "$histogram" --kernel "$kernel" --image "$image" --sizes "$sizes" \
                    --threads "$threads" --warmup 0 --reps 1 --quiet \
                    >"$raw/$tag.gpuq.log" 2>&1 || {
                    echo "sweep: gpuq profile exit $? for $tag: $(tail -1 "$raw/$tag.gpuq.log")" >&2
                }
                [ -s "$raw/$tag.gpuq.csv" ] && report="$raw/$tag.gpuq.csv"
                [ -s "$raw/$tag.counters.csv" ] && counters="$raw/$tag.counters.csv"
            fi
            join_rows "$raw/$tag.time.csv" "$report" "$counters" >>"$out"
        done
    done
done
echo "sweep: $(($(wc -l <"$out") - 1)) rows in $out" >&2
