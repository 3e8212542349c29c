#!/usr/bin/env bash
# Re-applies every gpuq model variant to the recorded validation counters, on
# any machine (no GPU), and refreshes the results in the repository:
#
#   validation/remodel.sh [BUILD_DIR (default build)] [TABLE (default tables/h200-sxm.csv.gz)]
#
# For each group in validation/recorded/ (atomic, free, mixed, real) it
# turns <group>/ncu_raw.csv into a gpuq counters file that carries each
# case's ATOMS opcode split (analyze.py counters: ncu has no per-opcode
# count; gpuq profile's SASS counts would give the same split), runs
#   gpuq model COUNTERS --table TABLE --model V --format csv
# for every variant V that `gpuq model --help` lists, joins them with the
# timing truth (analyze.py join -> <group>/joined.csv), then writes the
# comparison into docs/validation.md (between the validation-results markers)
# and validation/recorded/scatter.svg (analyze.py report).  Run it again
# whenever the table or a variant changes: the results section names the
# table's date.
set -euo pipefail

if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=${1:-$ROOT/build}
TABLE=${2:-$ROOT/tables/h200-sxm.csv.gz}
REC=$HERE/recorded
PY=${PYTHON:-python3}
GPUQ=$BUILD/gpuq
[ -x "$GPUQ" ] || { echo "remodel.sh: no gpuq in $BUILD (build the gpuq target first)" >&2; exit 2; }
[ -r "$TABLE" ] || { echo "remodel.sh: cannot read table $TABLE" >&2; exit 2; }

# The variant names, as gpuq model itself lists them (one place: model.c).
VARIANTS=$("$GPUQ" model --help | sed -n 's/.*model variant: \([a-z0-9,-]*\).*/\1/p' | tr ',' ' ')
[ -n "$VARIANTS" ] || { echo "remodel.sh: gpuq model --help lists no variants" >&2; exit 2; }

# The table's date line says which calibration the results used.
TABLE_DATE=$( (gzip -cdf "$TABLE" 2>/dev/null || cat "$TABLE") | sed -n 's/^# date: //p' | head -1)

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
JOINED=()
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
  ncu=()
  [ -s "$dir/ncu.csv" ] && ncu=(--ncu "$dir/ncu.csv")
  "$PY" "$HERE/analyze.py" join --times "$dir/times.csv" --manifest "$dir/manifest.csv" \
    "${ncu[@]}" "${args[@]}" --out "$dir/joined.csv"
  JOINED+=("$dir/joined.csv")
done
[ ${#JOINED[@]} -gt 0 ] || { echo "remodel.sh: no recorded group in $REC" >&2; exit 2; }

DEVICE=$(grep -m1 '^# device:' "$REC/atomic/times.csv" 2>/dev/null | sed 's/^# device: //')
RECORD_CMD="OUT=\$OUT GPUQ_DEPS_PREFIX=\$PWD/.deps bash validation/record.sh 245"
"$PY" "$HERE/analyze.py" report "${JOINED[@]}" --doc "$ROOT/docs/validation.md" \
  --svg "$REC/scatter.svg" --md "$TMP/report.md" \
  --source "${DEVICE:-?} (132 SMs), counters recorded 2026-11-22 by \`$RECORD_CMD\` (atomic group: every 2nd case); models applied on the CPU by \`validation/remodel.sh\` with table $(basename "$TABLE") (# date: ${TABLE_DATE:-?})"
cat "$TMP/report.md"
