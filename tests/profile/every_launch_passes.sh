#!/usr/bin/env bash
# The one-pass set repeated launches get (gm_metric_desc.every_launch,
# collector_repeat.c) must be one pass on the chips gpuq is calibrated for,
# or the collector measures every launch in full there.  CUPTI's host API
# answers without a GPU.
#   every_launch_passes.sh GPUQ_METRIC_PASSES
set -u
MP=$1
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}${CUDA_HOME:-/usr/local/cuda}/lib64
status=0
for chip in GH100 GB100; do
  line=$("$MP" "$chip" 2>/dev/null | grep '^every launch')
  if [ -z "$line" ]; then
    echo "SKIP: $MP gave no answer for $chip (CUPTI's host library missing?)"
    exit 77
  fi
  case $line in
    *" 1 pass(es)") echo "ok   $chip: $line" ;;
    *) echo "FAIL $chip: $line (expected 1 pass)"; status=1 ;;
  esac
done
exit $status
