#!/bin/sh
# GPU diagnostic: which case loses gpu__time_duration under user replay
# (profile_torch400 on an H200: "400 rows without a kernel duration").
#
#   scripts/probe_duration.sh BUILD [PYTHON]     (about 40 s)
#
# Runs tests/profile/torch_steps.py (2 steps) under gpuq profile with the 12
# one-pass metrics of the benchmark, GPUQ_VERBOSE=1, four ways:
#   default       user replay; the collector checks its first window (one
#                 launch) and second (two) and says which lacked durations
#   batch1        GPUQ_BATCH=1: user replay, one launch per window
#   kernel        GPUQ_REPLAY=kernel: kernel replay, one launch per window
#   toolkit-cupti default, with the toolkit's libcupti preloaded instead of
#                 the torch wheel's
# and prints per case the collector's lines on replay, CUPTI and durations,
# and how many rows lack a duration.  Read: batch1 without durations =
# user replay itself loses them; batch1 with and default's "window of two"
# line = batched windows lose them; toolkit-cupti with durations where
# default had none = the wheel's CUPTI.
set -u
build=${1:?usage: scripts/probe_duration.sh BUILD [PYTHON]}
py=${2:-python3}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
metrics=$(cd "$src/tests/profile" && "$py" -c 'from profile_metrics import TABLE1; print(TABLE1)')
toolkit=$(ls /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.1[0-9] /usr/local/cuda/lib64/libcupti.so.1[0-9] 2>/dev/null | head -n 1)
for c in default batch1 kernel toolkit-cupti; do
    set --
    case $c in
    batch1) set -- GPUQ_BATCH=1 ;;
    kernel) set -- GPUQ_REPLAY=kernel ;;
    toolkit-cupti) [ -n "$toolkit" ] || { echo "== $c: no toolkit libcupti found"; continue; }
                   set -- LD_PRELOAD="$toolkit" ;;
    esac
    echo "== $c $*"
    env "$@" GPUQ_VERBOSE=1 GPUQ_METRICS="$metrics" GPUQ_LOCK_DIR="$work" timeout -k 2 13 \
        "$build/gpuq" profile --no-opcode-split --keep-counters "$work/$c.csv" \
        -o "$work/$c.txt" -- "$py" "$src/tests/profile/torch_steps.py" --steps 2 --pad 0 \
        > "$work/$c.out" 2> "$work/$c.err"
    echo "gpuq exit $?"
    grep -E "CUPTI API|gpu__time_duration|launches profiled|mismatch|stopped" "$work/$c.err" |
        sed 's/^/  /'
    "$py" - "$work/$c.csv" <<'PY'
import csv, sys
try:
    rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
except OSError:
    rows = []
src = [l.strip() for l in open(sys.argv[1]) if l.startswith("# source")] if rows else []
empty = [r["launch_id"] for r in rows if not (r.get("gpu__time_duration.sum") or r.get("duration_ns"))]
print("  %d rows, %d without a duration %s %s" % (len(rows), len(empty), empty[:12], src[:1]))
PY
done
rm -rf "$work"
