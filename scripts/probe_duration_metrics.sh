#!/bin/sh
# GPU diagnostic beside probe_duration.sh: which metric of the 12 one-pass
# metrics (tests/profile/profile_metrics.py TABLE1) takes gpu__time_duration
# away on a GH100.  Runs tests/profile/torch_steps.py (2 steps) under gpuq
# profile once per set: TABLE1 without one metric (each in turn), the
# duration alone, the duration with sm__cycles_active.sum, and prints per set
# the passes and how many rows lack a duration.
#
#   scripts/probe_duration_metrics.sh BUILD [PYTHON]     (about 90 s)
set -u
build=${1:?usage: scripts/probe_duration_metrics.sh BUILD [PYTHON]}
py=${2:-python3}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
table1=$(cd "$src/tests/profile" && "$py" -c 'from profile_metrics import TABLE1; print(TABLE1)')
run() { # name metrics
    env GPUQ_VERBOSE=1 GPUQ_METRICS="$2" GPUQ_LOCK_DIR="$work" timeout -k 2 20 \
        "$build/gpuq" profile --no-opcode-split --keep-counters "$work/$1.csv" \
        -o "$work/$1.txt" -- "$py" "$src/tests/profile/torch_steps.py" --steps 2 --pad 0 \
        > "$work/$1.out" 2> "$work/$1.err"
    rc=$?
    passes=$(sed -n 's/.* metrics, \([0-9]*\) pass(es).*/\1/p' "$work/$1.err" | head -n 1)
    "$py" - "$work/$1.csv" "$1" "$rc" "${passes:-?}" <<'PY'
import csv, sys
path, name, rc, passes = sys.argv[1:5]
try:
    rows = list(csv.DictReader(l for l in open(path) if not l.startswith("#")))
except OSError:
    rows = []
empty = sum(1 for r in rows if not (r.get("gpu__time_duration.sum") or r.get("duration_ns")))
print("%-55s exit %s, %s pass(es), %d rows, %d without a duration" % (name, rc, passes, len(rows), empty))
PY
}
run all "$table1"
for m in $(echo "$table1" | tr , ' '); do
    [ "$m" = gpu__time_duration.sum ] && continue
    run "without-$m" "$(echo "$table1" | tr , '\n' | grep -vx "$m" | paste -sd, -)"
done
run duration-only gpu__time_duration.sum
run duration+cycles gpu__time_duration.sum,sm__cycles_active.sum
run duration+warps gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active
rm -rf "$work"
