#!/bin/sh
# Figures of the histogram case study from the sweep CSV (CPU only, gnuplot):
#   fig3-utilization-<gpu>.svg  U vs image size, one panel per (image, kernel),
#                               one line per block size (paper 000, Figures 3/4)
#   fig5-speedup-<gpu>.svg      hist2 over hist: time(hist) / time(hist2), for the
#                               ATOMS.ADD and POPC.INC pairs (paper 000, Figure 5)
#   fige-serialization-<gpu>.svg  e = O / N from the counters (Table 2), same panels
#                               as fig3 (only where the sweep kept counters)
# and, for every model variant CSV next to the sweep (SWEEP-<model>.csv, as
# written by `sweep_model.sh ... --out SWEEP-<model>.csv -m <model>`):
#   fig3-utilization-<gpu>-<model>.svg  the same as fig3 with that model's U
#   fig3-models-<gpu>.svg       U of every model in one panel per (image, kernel),
#                               at one block size (FIG_THREADS, default the
#                               largest profiled), to compare them side by side
#
#   scripts/figures.sh [SWEEP.csv [OUT_DIR]]   (default docs/case-study/sweep.csv,
#                                               its directory)
# SWEEP.csv itself holds U of the default model.  <gpu> comes from the CSV's
# gpu column: "NVIDIA H200" -> h200; FIG_TAG, if set, is appended to it for
# SWEEP.csv's own figures (fig3-utilization-h200-x.svg for FIG_TAG=-x).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
csv=${1:-$src/docs/case-study/sweep.csv}
outdir=${2:-$(dirname "$csv")}

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "figures: gnuplot not found (apt-get install gnuplot-nox)" >&2
    exit 2
fi
if [ ! -s "$csv" ]; then
    echo "figures: no sweep CSV at '$csv' (run examples/histogram/sweep.sh first)" >&2
    exit 2
fi
mkdir -p "$outdir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Column number of NAME in the header of FILE, so that added columns do not
# break the script.
col() {
    head -1 "$1" | awk -F, -v name="$2" '{ for (i = 1; i <= NF; i++) if ($i == name) { print i; exit } }'
}
check_columns() {
    for name in gpu kernel image pixels threads median_us U; do
        if [ -z "$(col "$1" "$name")" ]; then
            echo "figures: '$1' lacks the column $name (header: $(head -1 "$1"))" >&2
            exit 2
        fi
    done
}
check_columns "$csv"

gpu_name=$(awk -F, -v c="$(col "$csv" gpu)" 'NR == 2 { print $c; exit }' "$csv")
gpu=$(echo "$gpu_name" | sed 's/^NVIDIA //' | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')
[ -n "$gpu" ] || gpu=unknown-gpu
tag=${FIG_TAG:-}

# Model variants: SWEEP-<model>.csv next to SWEEP.csv, <model> a plain word.
base=${csv%.csv}
models=""
for f in "$base"-*.csv; do
    [ -s "$f" ] || continue
    m=${f#"$base"-}
    m=${m%.csv}
    case $m in *[!a-z0-9_-]*|"") continue ;; esac
    check_columns "$f"
    models="$models $m"
done

# Images in a fixed order: the paper's two first, then the photos.
c_image=$(col "$csv" image)
images=$(awk -F, -v c="$c_image" 'NR > 1 { print $c }' "$csv" | sort -u |
         awk '{ o = ($0 == "solid") ? 0 : ($0 == "uniform") ? 1 : 2; print o " " $0 }' |
         sort -k1,1n -k2 | cut -d' ' -f2)
threads_all=$(awk -F, -v c="$(col "$csv" threads)" 'NR > 1 { print $c }' "$csv" | sort -un)
kernels="hist hist2 hist_popc hist2_popc"
nimg=$(echo "$images" | wc -w)

# extract CSV DIR: DIR/u-<kernel>-<image>-<threads>.dat = "pixels U" rows,
# e-... for e = O / N, s-add-/s-popc-<image>-<threads>.dat for the speedups.
extract() {
    mkdir -p "$2"
    awk -F, -v ck="$(col "$1" kernel)" -v ci="$(col "$1" image)" -v cp="$(col "$1" pixels)" \
        -v ct="$(col "$1" threads)" -v cm="$(col "$1" median_us)" -v cu="$(col "$1" U)" \
        -v ce="$(col "$1" e_counters)" -v dir="$2" '
        BEGIN { ce += 0 }
        NR > 1 {
            if ($cu != "") print $cp, $cu > (dir "/u-" $ck "-" $ci "-" $ct ".dat")
            if (ce && $ce != "") print $cp, $ce > (dir "/e-" $ck "-" $ci "-" $ct ".dat")
            t[$ck, $ci, $ct, $cp] = $cm; key[$ci, $ct, $cp] = 1
        }
        END {
            for (k in key) {
                split(k, p, SUBSEP)
                if (t["hist", p[1], p[2], p[3]] != "" && t["hist2", p[1], p[2], p[3]] != "")
                    print p[3], t["hist", p[1], p[2], p[3]] / t["hist2", p[1], p[2], p[3]] \
                        > (dir "/s-add-" p[1] "-" p[2] ".dat")
                if (t["hist_popc", p[1], p[2], p[3]] != "" && t["hist2_popc", p[1], p[2], p[3]] != "")
                    print p[3], t["hist_popc", p[1], p[2], p[3]] / t["hist2_popc", p[1], p[2], p[3]] \
                        > (dir "/s-popc-" p[1] "-" p[2] ".dat")
            }
        }' "$1"
    for f in "$2"/*.dat; do
        [ -e "$f" ] && sort -n -o "$f" "$f"
    done
    return 0
}
extract "$csv" "$tmp/default"
for m in $models; do
    extract "$base-$m.csv" "$tmp/$m"
done

# Line style of a block size: its place in the sorted list of all block
# sizes, so that a size keeps its colour in every panel, even in a panel
# where a smaller size has no data.
style_of() {
    echo "$threads_all" | awk -v t="$1" '$1 == t { print "lc " NR " pt " NR; exit }'
}

# plot_lines TITLE ENTRY...: one panel; ENTRY = FILE|LEGEND|STYLE, skipped
# when FILE is empty or missing; a note when no entry has data.  Every panel
# of a figure lists its legend below the plot, where it hides no data.
plot_lines() {
    title=$1
    shift
    cmd=""
    for entry in "$@"; do
        file=${entry%%|*}
        rest=${entry#*|}
        [ -s "$file" ] || continue
        [ -n "$cmd" ] && cmd="$cmd, "
        cmd="$cmd'$file' using 1:2 with linespoints ${rest#*|} title '${rest%%|*}'"
    done
    echo "set title '$title' noenhanced"
    if [ -n "$cmd" ]; then
        echo "plot $cmd"
    else
        echo "set label 1 'no data' at graph 0.5, 0.5 center"
        echo "plot NaN notitle"
        echo "unset label 1"
    fi
}

# threads_panel DIR PREFIX TITLE: one line per block size.
threads_panel() {
    dir=$1
    prefix=$2
    title=$3
    set --
    for t in $threads_all; do
        set -- "$@" "$dir/$prefix-$t.dat|$t threads|$(style_of "$t")"
    done
    plot_lines "$title" "$@"
}

# The common frame of every figure: log2 x axis of image sizes, grid,
# legend under each panel.  $1 = rows of panels, $2 = width in pixels.
frame() {
    echo "set terminal svg size $(($2)),$((340 * $1 + 40)) dynamic font 'sans,11' background rgb 'white'"
    echo "set logscale x 2; set format x '2^{%L}'; set xrange [16:134217728]"
    echo "set grid; set key below horizontal font ',9' samplen 2"
    echo "set xlabel 'image size (pixels)'"
}

# The U axis starts at 0 and shows at least 0..1.05, more where a model
# reads above it; the dashed line marks U = 1 (the unit saturated).
u_axis() {
    echo "set yrange [0:1.05<*]; set ylabel 'U (shared atomic unit utilization)'"
    echo "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'gray40' front"
}

# grid_figure DIR LETTER OUT.svg TITLE: rows = images, columns = kernels.
grid_figure() {
    {
        frame "$nimg" 1400
        echo "set output '$3'"
        if [ "$2" = u ]; then
            u_axis
        else
            echo "set yrange [0:*]; set ylabel 'e = O / N (wavefronts per ATOMS)'"
        fi
        echo "set multiplot layout $nimg,4 title '$4, $gpu_name'"
        for img in $images; do
            for k in $kernels; do
                threads_panel "$1" "$2-$k-$img" "$k, $img"
            done
        done
        echo "unset multiplot"
    } >"$tmp/grid.gp"
    gnuplot "$tmp/grid.gp"
}

model_label() {
    case $1 in
        default) echo "default model (wavefront, B = O w)" ;;
        paper) echo "paper model (single-shot S, n-hat, B = N S)" ;;
        steady) echo "steady model (steady-state S, n-hat, B = N S)" ;;
        *) echo "model $1" ;;
    esac
}

written=""
fig3="$outdir/fig3-utilization-$gpu$tag.svg"
grid_figure "$tmp/default" u "$fig3" \
    "gpuq: estimated utilization U, $(model_label default)${tag:+ [$tag]} (paper Sec. 4, Fig. 3/4)"
written="$fig3"
for m in $models; do
    svg="$outdir/fig3-utilization-$gpu-$m.svg"
    grid_figure "$tmp/$m" u "$svg" "gpuq: estimated utilization U, $(model_label "$m") (paper Sec. 4, Fig. 3/4)"
    written="$written, $svg"
done

if ls "$tmp"/default/e-*.dat >/dev/null 2>&1; then
    svg="$outdir/fige-serialization-$gpu$tag.svg"
    grid_figure "$tmp/default" e "$svg" "serialization e = O / N from the counters (paper Table 2)"
    written="$written, $svg"
fi

# All models at one block size, one line per model.
if [ -n "$models" ]; then
    threads=${FIG_THREADS:-$(ls "$tmp"/default/u-*.dat 2>/dev/null |
                             sed 's/.*-\([0-9]*\)\.dat$/\1/' | sort -n | tail -1)}
    svg="$outdir/fig3-models-$gpu.svg"
    {
        frame "$nimg" 1400
        echo "set output '$svg'"
        u_axis
        echo "set multiplot layout $nimg,4 title 'gpuq: U of each model variant, $threads threads per block, $gpu_name (paper Sec. 4, Fig. 3/4)'"
        for img in $images; do
            for k in $kernels; do
                # Colours unlike those of the block sizes: default black,
                # then red, blue, yellow, ...
                set -- "$tmp/default/u-$k-$img-$threads.dat|default|lc 8 pt 7 ps 0.7"
                i=8
                for m in $models; do
                    i=$((i - 1))
                    [ "$i" -ge 5 ] || i=7
                    set -- "$@" "$tmp/$m/u-$k-$img-$threads.dat|$m|lc $i pt $((i - 4))"
                done
                plot_lines "$k, $img" "$@"
            done
        done
        echo "unset multiplot"
    } >"$tmp/models.gp"
    gnuplot "$tmp/models.gp"
    written="$written, $svg"
fi

fig5="$outdir/fig5-speedup-$gpu$tag.svg"
{
    frame "$nimg" 900
    echo "set output '$fig5'"
    echo "set ylabel 'time(hist) / time(hist2)'"
    echo "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'gray40' front"
    echo "set multiplot layout $nimg,2 title 'hist2 speedup over hist (channel rotation), $gpu_name (paper Sec. 4, Fig. 5)'"
    for img in $images; do
        threads_panel "$tmp/default" "s-add-$img" "ATOMS.ADD: hist2 over hist, $img"
        threads_panel "$tmp/default" "s-popc-$img" "POPC.INC: hist2_popc over hist_popc, $img"
    done
    echo "unset multiplot"
} >"$tmp/fig5.gp"
gnuplot "$tmp/fig5.gp"
echo "figures: wrote $written, $fig5" >&2
