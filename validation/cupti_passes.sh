#!/usr/bin/env bash
# Profiling passes of gpuq's metric sets on a chip (CUPTI host API, no GPU):
# the shared-atomic unit's counters alone and with the latency kind's stall
# counters (two-counter form, and the shipped issue form with wait and
# selected), the whole metric table without and with them
# (docs/validation.md, "The latency quantity").
#
#   validation/cupti_passes.sh [BUILD_DIR (default build)] [CHIP (default GH100)]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$HERE/../build}
CHIP=${2:-GH100}
MP=$BUILD/validation/metric_passes
# libcupti loads libnvperf_host.so by name: from the toolkit when the loader's path lacks it.
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}${CUDA_HOME:-/usr/local/cuda}/lib64
[ -x "$MP" ] || { echo "cupti_passes.sh: no $MP (build the metric_passes target)" >&2; exit 2; }
S=smsp__warps_issue_stalled
LAT="${S}_short_scoreboard.sum,${S}_mio_throttle.sum"   # the two-counter form
ISSUE="${S}_wait.sum,${S}_selected.sum"                 # what the shipped form adds
# Hardware metrics only: the SASS-instrumented ones take their own pass (collector_range.c).
ATOMIC=$(grep -oE '/\* *(smsp|sm|l1tex|gpu)__[a-z0-9_.]+' "$HERE/../include/gpuq/metrics.h" |
         sed 's|/\* *||' | grep -v __sass_ | paste -sd, -)
TABLE=$(grep -oE '^\s*\{"[a-z0-9]+__[a-z0-9_.]+"' "$HERE/../src/core/metrics.c" | sed 's/.*{"//; s/"//' |
        grep -v __sass_ | grep -v -e "${S}_short_scoreboard" -e "${S}_mio_throttle" -e "${S}_wait" \
        -e "${S}_selected" | paste -sd, -)
run() { printf '%s\t' "$1"; "$MP" "$CHIP" "$2" 2>/dev/null | cut -f1 | tr -d '\n'; printf '\t(%s metrics)\n' "$(echo "$2" | tr ',' '\n' | wc -l)"; }
echo "# chip $CHIP, $(date -u +%Y-%m-%dT%H:%M:%SZ), cuptiProfilerHostGetNumOfPasses"
echo "# set	passes	(metrics); '?' = CUPTI refused a name in the set"
run "atomic unit (Table 1 rows)" "$ATOMIC"
run "atomic unit + latency kind (short_scoreboard, mio_throttle)" "$ATOMIC,$LAT"
run "latency kind alone" "$LAT"
run "latency kind, issue form, alone (+ wait, selected)" "$LAT,$ISSUE"
run "atomic unit + latency kind, issue form (the atomics section's set)" "$ATOMIC,$LAT,$ISSUE"
# Names this chip does not know (the collector drops them with a note) are left out.
KNOWN=$(for m in ${TABLE//,/ }; do "$MP" "$CHIP" "$m" 2>/dev/null | grep -q '^?' || echo "$m"; done | paste -sd, -)
run "metric table, other rows (names this chip knows)" "$KNOWN"
run "metric table with the two-counter latency kind" "$KNOWN,$LAT"
run "metric table with the issue form (the whole table: gpuq profile's default)" "$KNOWN,$LAT,$ISSUE"
