#!/bin/sh
# The HTML report's screenshot in docs/ (docs/profile.md, README): the
# recorded corpus of real library kernels on an H200 (cuBLAS, cuDNN,
# attention, CUB, PyTorch's own; every section), the second kernel's
# detail open below the first two rows.
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
    data/recorded/realkernels-corpus-nvidia-h200.counters.csv -f html -o "$tmp/r.html"
timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size=1400,1250 --screenshot="$out" \
    "file://$tmp/r.html#kernel=2" 2>/dev/null
echo "$out"
