#!/usr/bin/env bash
# Runs the collector directly (no gpuq profile) on atomics_app, both passes,
# with GPUQ_VERBOSE=1, and keeps everything it wrote: the first thing to run
# when the collector misbehaves on a new machine.
#   usage: tests/profile/collector_smoke.sh BUILD_DIR OUT_DIR
set -u
build=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
app="$build/tests/profile/atomics_app"
lib="$build/libgpuq_inject.so"
[ -x "$app" ] && [ -f "$lib" ] || { echo "collector_smoke: build atomics_app and gpuq_inject first"; exit 2; }

"$app" --probe || exit $?

echo "== counters pass"
rm -f "$out/counters.csv" "$out"/counters.status*
CUDA_INJECTION64_PATH="$lib" GPUQ_VERBOSE=1 GPUQ_OUT="$out/counters.csv" \
  GPUQ_STATUS="$out/counters.status" GPUQ_COMMAND="atomics_app --fork" \
  "$app" --expect "$out/expected.csv" --fork
echo "exit status $?"
cat "$out"/counters.status.* 2>/dev/null  # one per process: <GPUQ_STATUS>.<pid>
cat "$out/counters.csv" 2>/dev/null

echo "== sass pass"
rm -rf "$out/sass.csv" "$out"/sass.status* "$out/cubins"
CUDA_INJECTION64_PATH="$lib" GPUQ_VERBOSE=1 GPUQ_PASS=sass GPUQ_OUT="$out/sass.csv" \
  GPUQ_STATUS="$out/sass.status" GPUQ_CUBIN_DIR="$out/cubins" "$app"
echo "exit status $?"
cat "$out"/sass.status.* 2>/dev/null
head -n 40 "$out/sass.csv" 2>/dev/null
echo "sass.csv: $(wc -l < "$out/sass.csv" 2>/dev/null) lines"
ls -la "$out/cubins" 2>/dev/null
