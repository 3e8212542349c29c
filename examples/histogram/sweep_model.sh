#!/bin/sh
# Fills the U, e, n, U_lo, U_hi columns of a sweep CSV from the counters the
# sweep kept (SWEEP.csv.raw/TAG.counters.csv), with `gpuq model` and a
# calibration table: for sweeps run before the GPU had a table, after a new
# table, or for another model variant.  CPU only.
#
#   examples/histogram/sweep_model.sh BUILD_DIR SWEEP.csv TABLE.csv [--out OUT.csv] [gpuq model options]
#
# Without --out, SWEEP.csv is rewritten in place; with it, SWEEP.csv is only
# read and the result goes to OUT.csv (the counters still come from
# SWEEP.csv.raw/), e.g. one CSV per variant:
#   sweep_model.sh build sweep.csv TABLE --out sweep-paper.csv -m paper
# Row i of a counters file is the i-th size of that (kernel, image, block size)
# in the sweep (sweep.sh runs one launch per size, in size order).
set -eu
if [ $# -lt 3 ]; then
    echo "usage: $0 BUILD_DIR SWEEP.csv TABLE.csv [--out OUT.csv] [gpuq model options]" >&2
    exit 1
fi
build=$1
csv=$2
table=$3
shift 3
out=$csv
if [ "${1:-}" = --out ]; then
    [ $# -ge 2 ] || { echo "sweep_model: --out needs a file name" >&2; exit 1; }
    out=$2
    shift 2
fi
gpuq=${GPUQ:-$build/gpuq}
raw="$csv.raw"
[ -d "$raw" ] || { echo "sweep_model: no raw directory '$raw'" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# One "tag,index,U,e,n,U_lo,U_hi" line per launch of every counters file.
for counters in "$raw"/*.counters.csv; do
    [ -e "$counters" ] || continue
    tag=$(basename "$counters" .counters.csv)
    "$gpuq" model "$counters" --table "$table" --format csv -o "$tmp/report.csv" "$@" || {
        echo "sweep_model: gpuq model failed for $counters" >&2
        exit 3
    }
    awk -F, -v tag="$tag" '
        /^#/ { next }
        # the atomics section'"'"'s columns (report v2), or the old report'"'"'s names
        function col(name) { return ("atomics." name) in c ? c["atomics." name] : c[name] }
        !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { n++; print tag "," n "," $col("U") "," $col("e") "," $col("n") "," $col("U_lo") "," $col("U_hi") }
    ' "$tmp/report.csv" >>"$tmp/model.csv"
done
[ -s "$tmp/model.csv" ] || { echo "sweep_model: no counters in '$raw'" >&2; exit 2; }
# (The report's numeric columns never contain commas; its verdict, which may,
# is not read.)
awk -F, -v OFS=, '
    NR == FNR { m[$1, $2] = $3 OFS $4 OFS $5 OFS $6 OFS $7; next }
    FNR == 1 { print; next }
    {
        tag = $2 "-" $3 "-" $5
        k = ++seen[tag]
        # A row without a launch of its own gets empty U columns, so that no
        # U from another table or model survives next to the new ones.
        split("", v)
        if ((tag, k) in m) split(m[tag, k], v, OFS)
        for (j = 1; j <= 5; j++) $(15 + j) = v[j]
        print
    }' "$tmp/model.csv" "$csv" >"$tmp/out.csv"
mv "$tmp/out.csv" "$out"
echo "sweep_model: U filled from $(wc -l <"$tmp/model.csv") launches into $out" >&2
