#!/bin/sh
# The shipped machine data (test shipped_tables, CPU): one folder per GPU,
# named from the GPU name in its files' headers (gm_mdata_dir_name: lower
# case, runs of other characters as one '-'), each atomic table in format v2
# with suite 'atomics', valid, and its cells unchanged by the move from
# tables/h100-sxm.csv.gz and tables/h200-sxm.csv.gz (format v1) into the
# folders: SHA-256 of the lines below the '#' header (column header and
# every cell row) equals the value computed from the v1 files before.
#   usage: check_shipped_tables.sh GPUQ SOURCE_DIR
gpuq=$1
src=$2
status=0
check() { # folder, gpu name, sha256 of the rows in v1
  f=$src/tables/$1/atomics.csv.gz
  [ -f "$f" ] || { echo "FAIL: $f missing"; status=1; return; }
  head=$(gzip -dc "$f" | sed -n '1,3p')
  printf '%s\n' "$head" | sed -n 1p | grep -qx '# gpuq calibration table v2' || { echo "FAIL: $f: not format v2"; status=1; }
  printf '%s\n' "$head" | sed -n 2p | grep -qx '# suite: atomics' || { echo "FAIL: $f: no suite line"; status=1; }
  name=$(gzip -dc "$f" | sed -n 's/^# gpu_name: //p' | head -1)
  [ "$name" = "$2" ] || { echo "FAIL: $f: gpu_name '$name', want '$2'"; status=1; }
  dir=$(printf '%s' "$name" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9][^a-z0-9]*/-/g; s/^-//; s/-$//')
  [ "$dir" = "$1" ] || { echo "FAIL: $f: folder '$1', the GPU name gives '$dir'"; status=1; }
  sum=$(gzip -dc "$f" | grep -v '^#' | sha256sum | cut -d' ' -f1)
  [ "$sum" = "$3" ] || { echo "FAIL: $f: rows changed (sha256 $sum, want $3)"; status=1; }
  "$gpuq" table validate "$f" >/dev/null || { echo "FAIL: $f does not validate"; status=1; }
  echo "ok: $f ($name): v2, rows sha256 $sum as in v1"
}
check nvidia-h100-80gb-hbm3 "NVIDIA H100 80GB HBM3" 32cbd969f0b372edfe9081f23e40a4585d7f4feadb8361ea4b497ffe149fd64d
check nvidia-h200 "NVIDIA H200" b1febf4f77889485b91aa7b784757c8497d221ebf5ef330cf06ba0467c0298aa
# No table files left directly in tables/ (the old layout).
left=$(find "$src/tables" -maxdepth 1 -type f -name '*.csv*' | wc -l)
[ "$left" -eq 0 ] || { echo "FAIL: $left table file(s) directly in tables/"; status=1; }
exit $status
