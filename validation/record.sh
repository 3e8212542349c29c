#!/usr/bin/env bash
# Records the data in validation/recorded/ on a GPU machine, from the
# repository root, within a time budget:
#
#   OUT=/some/dir validation/record.sh [BUDGET_SECONDS (default 240)] [BUILD_DIR]
#
# Builds validate_app (standalone) and gpuq (when BUILD_DIR is not given),
# checks the SASS, then runs validation/run.sh one group at a time (free,
# real, mixed, atomic).  Each group's profiler cost per case is measured on
# the groups before it; a group that would not fit in what is left of the
# budget runs an evenly spaced subset of its cases instead, and says so in
# record_log.txt.  Everything lands in $OUT/recorded.tar.gz.
set -uo pipefail
BUDGET=${1:-240}
OUT=${OUT:-/tmp/validation_record}
mkdir -p "$OUT"
START=$(date +%s)
now() { echo $(( $(date +%s) - START )); }
LOG=$OUT/record_log.txt
say() { echo "record: $*" | tee -a "$LOG"; }

if [ $# -ge 2 ]; then
  BUILD=$2
else
  BUILD=/tmp/gpuq-record-build
  cmake -S . -B "$BUILD" -DCMAKE_CUDA_ARCHITECTURES=90 ${GPUQ_DEPS_PREFIX:+-DGPUQ_DEPS_PREFIX=$GPUQ_DEPS_PREFIX} \
    > "$OUT/cmake.txt" 2>&1
  cmake --build "$BUILD" -j"$(nproc)" --target gpuq >> "$OUT/cmake.txt" 2>&1 || say "gpuq did not build (see cmake.txt)"
  if ! cmake --build "$BUILD" -j"$(nproc)" --target validate_app >> "$OUT/cmake.txt" 2>&1; then
    # The top-level project does not include validation/ yet: build it alone.
    cmake -S validation -B "$BUILD/validation" -DCMAKE_CUDA_ARCHITECTURES=90 >> "$OUT/cmake.txt" 2>&1
    cmake --build "$BUILD/validation" -j"$(nproc)" >> "$OUT/cmake.txt" 2>&1 || { say "validate_app did not build"; exit 2; }
  fi
fi
APP=$BUILD/validation/validate_app
say "built in $(now) s"

RUNS=/tmp/validation_runs
rm -rf "$RUNS"
mkdir -p "$RUNS"
cost10=20 # tenths of a second per case under the profiler, until measured
for g in free real mixed atomic; do
  left=$(( BUDGET - $(now) - 15 ))
  mapfile -t names < <("$APP" --list --group "$g" | grep -v '^#' | tail -n +2 | cut -d, -f2)
  n=${#names[@]}
  sel=(--group "$g")
  if [ $(( n * cost10 / 10 + 10 )) -gt "$left" ]; then
    keep=$(( (left - 10) * 10 / cost10 ))
    if [ "$keep" -lt 2 ]; then
      say "group $g: no time left ($left s), skipped"
      continue
    fi
    step=$(( (n + keep - 1) / keep ))
    subset=()
    for ((i = 0; i < n; i += step)); do subset+=("${names[$i]}"); done
    sel=(--case "$(IFS=,; echo "${subset[*]}")")
    say "group $g: $n cases at ~$cost10/10 s each do not fit in $left s: every ${step}th case (${#subset[@]})"
  fi
  t0=$(now)
  timeout "$left" validation/run.sh "$BUILD" "$RUNS/$g" "${sel[@]}" >> "$LOG" 2>&1
  rc=$?
  took=$(( $(now) - t0 ))
  ran=$(grep -vc '^#' "$RUNS/$g/manifest.csv" 2>/dev/null || echo 1)
  ran=$(( ran > 1 ? ran - 1 : 1 ))
  # Per-case cost net of the fixed start-up of a run (host images, ncu).
  net=$(( took > 10 ? took - 8 : 2 ))
  cost10=$(( (net * 10 + ran - 1) / ran ))
  [ "$cost10" -ge 1 ] || cost10=1
  say "group $g: run.sh exit $rc, $took s for $ran cases"
done
rm -f "$RUNS"/*/ncu.ncu-rep.tmp 2>/dev/null
tar czf "$OUT/recorded.tar.gz" -C "$RUNS" . && say "packed $(du -h "$OUT/recorded.tar.gz" | cut -f1) in $(now) s"
