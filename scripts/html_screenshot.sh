#!/bin/sh
# The HTML report's screenshot in docs/ (docs/profile.md, README): the
# recording of every section, sorted by time ascending so that both kernels
# show above the first one's detail.
#
#   scripts/html_screenshot.sh [GPUQ] [OUT.png]
set -eu
cd "$(dirname "$0")/.."
gpuq=${1:-build/gpuq}
out=${2:-docs/html-report.png}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "html_screenshot: no chromium (apt-get install chromium)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
GPUQ_TABLE_DIR=tables "$gpuq" model \
    data/recorded/histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.all-units.counters.csv -f html -o "$tmp/r.html"
timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size=1400,1150 --screenshot="$out" \
    "file://$tmp/r.html#sort=time-asc&kernel=1" 2>/dev/null
echo "$out"
