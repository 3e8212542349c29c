#!/bin/sh
# Figures of the histogram case study from the sweep CSV (CPU only, gnuplot):
#   fig3-utilization-<gpu>.svg  U vs image size, one panel per (image, kernel),
#                               one line per block size (paper 000, Figures 3/4)
#   fig5-speedup-<gpu>.svg      hist2 over hist: time(hist) / time(hist2), for the
#                               ATOMS.ADD and POPC.INC pairs (paper 000, Figure 5)
#   fige-serialization-<gpu>.svg  e = O / N from the counters (Table 2), same panels
#                               as fig3 (only where the sweep kept counters)
#
#   scripts/figures.sh [SWEEP.csv [OUT_DIR]]   (default docs/case-study/sweep.csv,
#                                               its directory)
# <gpu> comes from the CSV's gpu column: "NVIDIA H200" -> h200; FIG_TAG, if
# set, is appended to it (fig3-utilization-h200-steady.svg for FIG_TAG=-steady).
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

# Column numbers by name, so that added columns do not break the script.
header=$(head -1 "$csv")
col() {
    echo "$header" | awk -F, -v name="$1" '{ for (i = 1; i <= NF; i++) if ($i == name) { print i; exit } }'
}
c_gpu=$(col gpu); c_kernel=$(col kernel); c_image=$(col image); c_pixels=$(col pixels)
c_threads=$(col threads); c_median=$(col median_us); c_u=$(col U); c_e=$(col e_counters)
for v in c_gpu c_kernel c_image c_pixels c_threads c_median c_u; do
    eval "val=\$$v"
    if [ -z "$val" ]; then
        echo "figures: '$csv' lacks the column ${v#c_} (header: $header)" >&2
        exit 2
    fi
done

gpu_name=$(awk -F, -v c="$c_gpu" 'NR == 2 { print $c; exit }' "$csv")
gpu=$(echo "$gpu_name" | sed 's/^NVIDIA //' | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')
[ -n "$gpu" ] || gpu=unknown-gpu
gpu="$gpu${FIG_TAG:-}"

# Images in a fixed order: the paper's two first, then the photos.
images=$(awk -F, -v c="$c_image" 'NR > 1 { print $c }' "$csv" | sort -u |
         awk '{ o = ($0 == "solid") ? 0 : ($0 == "uniform") ? 1 : 2; print o " " $0 }' |
         sort -k1,1n -k2 | cut -d' ' -f2)
threads_all=$(awk -F, -v c="$c_threads" 'NR > 1 { print $c }' "$csv" | sort -un)
kernels="hist hist2 hist_popc hist2_popc"
nimg=$(echo "$images" | wc -w)

# Data files: tmp/u-<kernel>-<image>-<threads>.dat = "pixels U" rows, e-... for e.
awk -F, -v ck="$c_kernel" -v ci="$c_image" -v cp="$c_pixels" -v ct="$c_threads" \
    -v cm="$c_median" -v cu="$c_u" -v ce="${c_e:-0}" -v dir="$tmp" '
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
    }' "$csv"
for f in "$tmp"/*.dat; do
    [ -e "$f" ] && sort -n -o "$f" "$f"
done

# plot_panel FILE_PREFIX TITLE: one line per block size, or a note if no data.
plot_panel() {
    prefix=$1
    title=$2
    cmd=""
    for t in $threads_all; do
        f="$tmp/$prefix-$t.dat"
        [ -s "$f" ] || continue
        [ -n "$cmd" ] && cmd="$cmd, "
        cmd="$cmd'$f' using 1:2 with linespoints title '$t threads'"
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

# grid_figure LETTER OUT.svg YLABEL TITLE: rows = images, columns = kernels.
grid_figure() {
    {
        echo "set terminal svg size 1400,$((320 * nimg)) dynamic font 'sans,11' background rgb 'white'"
        echo "set output '$2'"
        echo "set logscale x 2; set format x '2^{%L}'; set xrange [16:134217728]"
        echo "set yrange [0:*]; set grid; set key top left font ',9'"
        echo "set xlabel 'image size (pixels)'; set ylabel '$3'"
        echo "set multiplot layout $nimg,4 title '$4, $gpu_name${FIG_TAG:+ [$FIG_TAG]}'"
        for img in $images; do
            for k in $kernels; do
                plot_panel "$1-$k-$img" "$k, $img"
            done
        done
        echo "unset multiplot"
    } >"$tmp/grid.gp"
    gnuplot "$tmp/grid.gp"
}

fig3="$outdir/fig3-utilization-$gpu.svg"
grid_figure u "$fig3" "U (shared atomic unit utilization)" \
    "gpuq: estimated utilization U (paper Sec. 4, Fig. 3/4)"
fige=""
if ls "$tmp"/e-*.dat >/dev/null 2>&1; then
    fige="$outdir/fige-serialization-$gpu.svg"
    grid_figure e "$fige" "e = O / N (wavefronts per ATOMS)" \
        "serialization e = O / N from the counters (paper Table 2)"
fi

fig5="$outdir/fig5-speedup-$gpu.svg"
{
    echo "set terminal svg size 900,$((320 * nimg)) dynamic font 'sans,11' background rgb 'white'"
    echo "set output '$fig5'"
    echo "set logscale x 2; set format x '2^{%L}'; set xrange [16:134217728]"
    echo "set grid; set key top left font ',9'"
    echo "set xlabel 'image size (pixels)'; set ylabel 'time(hist) / time(hist2)'"
    echo "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2"
    echo "set multiplot layout $nimg,2 title 'hist2 speedup over hist (channel rotation), $gpu_name (paper Sec. 4, Fig. 5)'"
    for img in $images; do
        plot_panel "s-add-$img" "ATOMS.ADD: hist2 over hist, $img"
        plot_panel "s-popc-$img" "POPC.INC: hist2_popc over hist_popc, $img"
    done
    echo "unset multiplot"
} >"$tmp/fig5.gp"
gnuplot "$tmp/fig5.gp"
echo "figures: wrote $fig3, $fig5${fige:+ and $fige}" >&2
