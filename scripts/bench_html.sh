#!/bin/sh
# How large a 10,000-launch HTML report is, and how soon a browser has drawn
# it: a benchmark, not a test (tests/html/large_check.py checks the size).
#
#   scripts/bench_html.sh [GPUQ] [RUNS]
#
# Makes the counters with scripts/synth_counters.py from the all-sections
# recording (10,000 launches, 100 kernel names), writes the report, and
# loads it RUNS times (3) in headless Chromium with the first kernel's
# detail open (#kernel=1); prints the file's size and,
# per run, the page's data-gpuq-ready (ms from navigation until the first
# screen is drawn, as the page measures it), its script's own time, and
# the whole browser process's wall time (start-up included).
set -eu
cd "$(dirname "$0")/.."
gpuq=${1:-build/gpuq}
runs=${2:-3}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "bench_html: no chromium (apt-get install chromium)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
rec=data/recorded/histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.all-units.counters.csv
python3 scripts/synth_counters.py "$rec" "$tmp/c.csv" --launches 10000 --names 50
GPUQ_TABLE_DIR=tables "$gpuq" model "$tmp/c.csv" -f html -o "$tmp/r.html"
echo "machine:  $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); $("$browser" --version 2>/dev/null)"
echo "date:     $(date -u +%Y-%m-%dT%H:%MZ)"
echo "report:   $(wc -c < "$tmp/r.html") bytes for 10000 launches of 100 kernels"
i=0
while [ $i -lt "$runs" ]; do
    i=$((i + 1))
    t0=$(date +%s%N)
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
        --dump-dom "file://$tmp/r.html#kernel=1" > "$tmp/dom.html" 2>/dev/null
    t1=$(date +%s%N)
    ready=$(sed -n 's/.*data-gpuq-ready="\([0-9]*\)".*/\1/p' "$tmp/dom.html" | head -1)
    script=$(sed -n 's/.*data-gpuq-script-ms="\([0-9]*\)".*/\1/p' "$tmp/dom.html" | head -1)
    err=$(grep -c '<html[^>]*data-gpuq-error' "$tmp/dom.html" || true)
    echo "run $i:    drawn ${ready:-?} ms after navigation (script ${script:-?} ms), browser process $(( (t1 - t0) / 1000000 )) ms, script errors: $err"
done
