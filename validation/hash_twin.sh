#!/usr/bin/env bash
# The hash table and its LDS/STS twin on a GPU (docs/validation.md, "The
# hash table's twin"): both cases through validation/run.sh as the suite
# runs them (timing run, ncu with every stall reason, gpuq profile, every
# model variant), then one small CSV.
#
#   validation/hash_twin.sh BUILD_DIR OUTDIR
#
# BUILD_DIR: a gpuq build with gpuq, gpuq_inject and validate_app.  Writes
#   OUTDIR/run/          run.sh's files for the two cases (times.csv,
#                        ncu_raw.csv, joined.csv, latency.md, ...)
#   OUTDIR/hash_twin.csv one row per case (time per round, probes per round,
#                        U, L, every stall reason as a share of active
#                        warp-cycles) and the twin's ratios to the CAS case
#                        (validation/hash_twin.py)
#   OUTDIR/log.txt       what run.sh printed
# Environment: VALIDATE_REPS (default 15), as run.sh's others.
set -euo pipefail
if [ $# -lt 2 ] || [ "$1" = "--help" ]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -ge 1 ] && [ "$1" = "--help" ] && exit 0
  exit 1
fi
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$1
OUTDIR=$2
mkdir -p "$OUTDIR"
STALL_METRICS=${STALL_METRICS:-all} VALIDATE_REPS=${VALIDATE_REPS:-15} \
  "$HERE/run.sh" "$BUILD" "$OUTDIR/run" --case hash_cas_t512x1 --case hash_lds_sts_t512x1 \
  > "$OUTDIR/log.txt" 2>&1 || { echo "hash_twin.sh: run.sh failed (see $OUTDIR/log.txt)" >&2; tail -5 "$OUTDIR/log.txt" >&2; exit 1; }
"${PYTHON:-python3}" "$HERE/hash_twin.py" "$OUTDIR/run" --csv "$OUTDIR/hash_twin.csv"
