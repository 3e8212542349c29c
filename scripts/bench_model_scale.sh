#!/bin/sh
# How gpuq model scales with the launches in a counters file: makes files of
# 10,000, 100,000 and 1,000,000 launches from a recorded one (its rows
# repeated, launch ids renumbered) and prints, per size and format, the wall
# time, the CPU time and the peak resident memory of `gpuq model FILE -f F
# -o /dev/null` as GNU time measures them, for each gpuq program given
# (one after the other on the same file: a before and an after).  A
# benchmark, not a test: it checks nothing and exits 0 when every run did.
#
#   usage: scripts/bench_model_scale.sh [-g "GPUQ ..."] [-f "text csv json"] [-n "SIZES"]
#                                       [-s RECORDED.counters.csv] [-w WORKDIR]
#     -g LIST   the gpuq programs (default: build/gpuq)
#     -f LIST   formats (default: text)
#     -n LIST   launches per file (default: 10000 100000 1000000)
#     -s FILE   the recorded file (default: the H100 histogram run of every
#               section's metrics, data/recorded/, 41 metrics a launch)
#     -w DIR    where the generated files go (default: a temporary folder,
#               removed at the end; a 1M-launch file is about 300 MB)
# Needs GNU time (/usr/bin/time, Debian package "time").
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
gpuq=$src/build/gpuq
formats=text
sizes="10000 100000 1000000"
recorded=$src/data/recorded/histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.all-units.counters.csv
work=
while getopts g:f:n:s:w: opt; do
    case $opt in
    g) gpuq=$OPTARG ;;
    f) formats=$OPTARG ;;
    n) sizes=$OPTARG ;;
    s) recorded=$OPTARG ;;
    w) work=$OPTARG ;;
    *) exit 1 ;;
    esac
done
[ -x /usr/bin/time ] || { echo "bench_model_scale: needs GNU time (apt-get install time)" >&2; exit 2; }
for g in $gpuq; do
    [ -x "$g" ] || { echo "bench_model_scale: no gpuq at $g (-g)" >&2; exit 2; }
done
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/gpuq-scale.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
echo "gpuq model scale: $(uname -n), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "source: $recorded ($(grep -c '^[0-9]' "$recorded") launches)"
printf '%10s %-5s %9s %9s %11s  %s\n' launches fmt "wall s" "cpu s" "max RSS MB" gpuq
for n in $sizes; do
    f=$work/scale-$n.counters.csv
    # each row without its launch id, kept once; then n rows renumbered
    [ -s "$f" ] || awk -v n="$n" '/^#/ || /^launch_id/ { print; next }
        { rest[m++] = substr($0, index($0, ",")) }
        END { for (i = 0; i < n; i++) print i rest[i % m] }' "$recorded" >"$f"
    for fmt in $formats; do
        for g in $gpuq; do
            /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$g" model "$f" -f "$fmt" -o /dev/null
            awk -v n="$n" -v fmt="$fmt" -v g="$g" '{ printf "%10s %-5s %9s %9.2f %11.1f  %s\n",
                n, fmt, $1, $2 + $3, $4 / 1024, g }' "$work/time"
        done
    done
done
