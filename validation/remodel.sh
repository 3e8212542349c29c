#!/usr/bin/env bash
# Re-applies every gpuq model variant to the recorded validation counters, on
# any machine (no GPU), and refreshes the results in the repository:
#
#   validation/remodel.sh [BUILD_DIR (default build)] [TABLE (default tables/nvidia-h200/atomics.csv.gz)]
#
# For each group in validation/recorded/ (atomic, free, mixed, real) it
# turns <group>/ncu_raw.csv into a gpuq counters file that carries each
# case's ATOMS opcode split (analyze.py counters: ncu has no per-opcode
# count; gpuq profile's SASS counts would give the same split), runs
#   gpuq model COUNTERS --table TABLE --model V --format csv
# for every variant V that `gpuq model --help` lists, joins them with the
# timing truth (analyze.py join -> <group>/joined.csv), then writes the
# comparison into docs/validation.md (between the validation-results markers)
# and validation/recorded/scatter.svg (analyze.py report).  Where a group
# also has gpuq profile's counters (<group>/counters.csv), it compares them
# with ncu's, case by case, and the default model's U on each
# (analyze.py collectors -> the validation-collectors section of the doc).
# Run it again whenever the table or a variant changes: the results section
# names the table's date.
set -euo pipefail

if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=${1:-$ROOT/build}
TABLE=${2:-$ROOT/tables/nvidia-h200/atomics.csv.gz}
REC=$HERE/recorded
PY=${PYTHON:-python3}
GPUQ=$BUILD/gpuq
[ -x "$GPUQ" ] || { echo "remodel.sh: no gpuq in $BUILD (build the gpuq target first)" >&2; exit 2; }
[ -r "$TABLE" ] || { echo "remodel.sh: cannot read table $TABLE" >&2; exit 2; }

# The variant names, as gpuq model itself lists them (one place: atomics_model.c).
VARIANTS=$("$GPUQ" model --help | sed -n 's/.*model variant: \([a-z0-9,-]*\).*/\1/p' | tr ',' ' ')
[ -n "$VARIANTS" ] || { echo "remodel.sh: gpuq model --help lists no variants" >&2; exit 2; }

# The table's date line says which calibration the results used.
TABLE_DATE=$( (gzip -cdf "$TABLE" 2>/dev/null || cat "$TABLE") | sed -n 's/^# date: //p' | head -1)

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
JOINED=()
COLLECTED=()
U_ARGS=()
for dir in "$REC"/*/; do
  g=$(basename "$dir")
  [ -s "$dir/ncu_raw.csv" ] && [ -s "$dir/times.csv" ] && [ -s "$dir/manifest.csv" ] || continue
  "$GPUQ" model --ncu-csv "$dir/ncu_raw.csv" --table "$TABLE" --model paper --format csv \
    > "$TMP/${g}_import.csv"
  "$PY" "$HERE/analyze.py" counters --model-csv "$TMP/${g}_import.csv" --times "$dir/times.csv" \
    --manifest "$dir/manifest.csv" --out "$TMP/${g}_counters.csv"
  args=()
  for v in $VARIANTS; do
    "$GPUQ" model "$TMP/${g}_counters.csv" --table "$TABLE" --model "$v" --format csv \
      > "$TMP/${g}_$v.csv" 2> "$TMP/${g}_$v.err" || {
      echo "remodel.sh: $g: gpuq model --model $v failed: $(head -1 "$TMP/${g}_$v.err")" >&2
      exit 2
    }
    args+=(--variant "$v=$TMP/${g}_$v.csv")
  done
  if [ -s "$dir/counters.csv" ] && [ -s "$dir/ncu.csv" ]; then
    # The default model on gpuq profile's own counters, for the collector
    # comparison (the ncu side is $TMP/${g}_default.csv above).
    "$GPUQ" model "$dir/counters.csv" --table "$TABLE" --model default --format csv \
      > "$TMP/${g}_gpuq_default.csv" 2> "$TMP/${g}_gpuq_default.err" || {
      echo "remodel.sh: $g: gpuq model on counters.csv failed: $(head -1 "$TMP/${g}_gpuq_default.err")" >&2
      exit 2
    }
    COLLECTED+=("$dir")
    U_ARGS+=(--u-ncu "$TMP/${g}_default.csv" --u-gpuq "$TMP/${g}_gpuq_default.csv")
  fi
  ncu=()
  [ -s "$dir/ncu.csv" ] && ncu=(--ncu "$dir/ncu.csv")
  "$PY" "$HERE/analyze.py" join --times "$dir/times.csv" --manifest "$dir/manifest.csv" \
    "${ncu[@]}" "${args[@]}" --out "$dir/joined.csv"
  JOINED+=("$dir/joined.csv")
done
[ ${#JOINED[@]} -gt 0 ] || { echo "remodel.sh: no recorded group in $REC" >&2; exit 2; }

DEVICE=$(grep -m1 '^# device:' "$REC/atomic/times.csv" 2>/dev/null | sed 's/^# device: //')
SMS=$(grep -m1 '^# sm_count:' "$REC/atomic/times.csv" 2>/dev/null | sed 's/^# sm_count: //')
# When the counters were recorded: the start times (env.txt) of the groups.
DATES=$(cat "$REC"/*/env.txt 2>/dev/null | sed -n 's/^date: //p' | sort)
FIRST=$(echo "$DATES" | head -1)
LAST=$(echo "$DATES" | tail -1)
WHEN="${FIRST:-?}"
[ -n "$LAST" ] && [ "$LAST" != "$FIRST" ] && WHEN="${FIRST%%T*} (groups started ${FIRST#*T} to ${LAST#*T})"
# The command that recorded validation/recorded/ (docs/validation.md, Results).
RECORD_CMD=${GPUQ_RECORD_CMD:-"OUT=\$OUT/v bash validation/record.sh 280 /tmp/bv"}
# record.sh says in its log when a group ran only a subset of its cases.
SUBSETS=$(sed -n 's/^record: group \([a-z]*\): .* every \([0-9]*\)th case.*/\1 group: every \2th case/p' \
  "$REC/record_log.txt" 2>/dev/null | paste -sd';' - | sed 's/;/; /g')
SCOPE=${SUBSETS:-every case of every group}
SOURCE="${DEVICE:-?} (${SMS:-?} SMs), counters recorded $WHEN by \`$RECORD_CMD\` ($SCOPE)"
"$PY" "$HERE/analyze.py" report "${JOINED[@]}" --doc "$ROOT/docs/validation.md" \
  --svg "$REC/scatter.svg" --md "$TMP/report.md" \
  --source "$SOURCE; models applied on the CPU by \`validation/remodel.sh\` with table $(basename "$TABLE") (# date: ${TABLE_DATE:-?})"
cat "$TMP/report.md"
if [ ${#COLLECTED[@]} -gt 0 ]; then
  "$PY" "$HERE/analyze.py" collectors "${COLLECTED[@]}" "${U_ARGS[@]}" --doc "$ROOT/docs/validation.md" \
    --md "$TMP/collectors.md" \
    --source "$SOURCE: \`gpuq profile\` and ncu each ran the cases once; U from table $(basename "$TABLE")"
  cat "$TMP/collectors.md"
fi
