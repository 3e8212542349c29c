#!/usr/bin/env bash
# The atomic-latency quantity on the recorded H100 run, on any machine (no
# GPU): applies gpuq's default model to the recorded counters, joins them
# with the timing truth and the stall counters, and writes the latency
# section of docs/validation.md (between the validation-latency markers)
# and the README's sentence on it (between the latency-summary markers).
#
#   validation/latency.sh [BUILD_DIR (default build)] [DIR (default validation/recorded-h100)]
#
# DIR holds one run.sh output of every case with STALL_METRICS=all:
# times.csv, manifest.csv, ncu.csv.gz (details page), ncu_raw.csv.gz (raw
# page), env.txt.  Writes DIR/joined.csv.  The table is the shipped one of
# the GPU the counters name (tables/<gpu>/atomics.csv.gz).  Where DIR has
# hash_twin/run/times.csv.gz (validation/hash_twin.sh), the hash table's
# truth comes from its LDS/STS twin there (analyze.py join --twin-times).
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=${1:-$ROOT/build}
DIR=${2:-$HERE/recorded-h100}
PY=${PYTHON:-python3}
GPUQ=$BUILD/gpuq
[ -x "$GPUQ" ] || { echo "latency.sh: no gpuq in $BUILD (build the gpuq target first)" >&2; exit 2; }
for f in times.csv manifest.csv ncu.csv.gz ncu_raw.csv.gz env.txt; do
  [ -s "$DIR/$f" ] || { echo "latency.sh: $DIR/$f is missing" >&2; exit 2; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
gzip -cd "$DIR/ncu_raw.csv.gz" > "$TMP/ncu_raw.csv"
# The default variant straight on ncu's raw page: it needs no opcode split
# (only the by-opcode variants read one, docs/validation.md), and the raw
# page carries the stall counters, so gpuq computes L and the kind itself:
# in the shipped form (default) and in the two-counter form (latency-sb-mio).
"$GPUQ" model --ncu-csv "$TMP/ncu_raw.csv" --model default --format csv > "$TMP/default.csv"
# The same U with the latency kind's two-counter L, for the comparison.
"$GPUQ" model --ncu-csv "$TMP/ncu_raw.csv" --model latency-sb-mio --format csv > "$TMP/sbmio.csv"
TABLE=$(grep -v '^#' "$TMP/default.csv" | head -2 | tail -1 | tr ',' '\n' | grep -m1 'atomics.csv' || true)
TWIN=()
[ -s "$DIR/hash_twin/run/times.csv.gz" ] && TWIN=(--twin-times "$DIR/hash_twin/run/times.csv.gz")
"$PY" "$HERE/analyze.py" join --times "$DIR/times.csv" --manifest "$DIR/manifest.csv" \
  --ncu "$DIR/ncu.csv.gz" "${TWIN[@]}" --variant "default=$TMP/default.csv" \
  --variant "latency-sb-mio=$TMP/sbmio.csv" --out "$DIR/joined.csv"
DEVICE=$(grep -m1 '^# device:' "$DIR/times.csv" | sed 's/^# device: //')
SMS=$(grep -m1 '^# sm_count:' "$DIR/times.csv" | sed 's/^# sm_count: //')
WHEN=$(sed -n 's/^date: //p' "$DIR/env.txt" | head -1)
DRIVER=$(sed -n 's/^NVIDIA[^,]*, \([0-9.]*\),.*/\1/p' "$DIR/env.txt" | head -1)
SOURCE="$DEVICE ($SMS SMs, driver ${DRIVER:-?}), recorded $WHEN by \`STALL_METRICS=all validation/run.sh BUILD OUT\` (every case, ncu with every stall reason); models \`default\` and \`latency-sb-mio\` applied on the CPU by \`validation/latency.sh\` with table ${TABLE#$ROOT/}"
PCS=()
[ -s "$DIR/probe/pcsamp_source.csv.gz" ] && PCS=(--pcsamp "$DIR/probe/pcsamp_source.csv.gz")
"$PY" "$HERE/latency.py" report "$DIR/joined.csv" --doc "$ROOT/docs/validation.md" --md "$TMP/latency.md" \
  --source "$SOURCE" "${PCS[@]}" --readme "$ROOT/README.md" \
  --where "an ${DEVICE#NVIDIA } (recorded ${WHEN%%T*}, every case under ncu)"
cat "$TMP/latency.md"
