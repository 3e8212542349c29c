#!/bin/bash
# The calibrate check behind docs/calibration.md ("gpuq calibrate with
# suites"): on a GPU machine, from the source root,
#   scripts/calibrate_check.sh GPUQ KERNEL_OBJECT OUTDIR
# runs the SASS checks, one full atomic suite (timed), an interrupted run
# (SIGINT after 4 s) and its --resume, a --quick run and the interrupt/resume
# test, and leaves the full table and a log in OUTDIR.  Compare the table
# with the shipped one afterwards (scripts/table_compare.py).
set -u
gpuq=$1 obj=$2 out=$3
mkdir -p "$out"
log=$out/calibrate_check.log
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
cells() { gzip -dc "$1" | grep -c '^[a-z_]*,[a-z_]*,[a-z_]*,[0-9]'; }
now() { date +%s.%N; }
{
  echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  echo "== SASS: every suite's expectations (check_suite_sass.sh), then the atomic kernels in detail (check_sass.sh)"
  sh tests/bench/check_suite_sass.sh "$cuobjdump" "$gpuq"; echo "rc=$?"
  sh tests/papers/atomics/check_sass.sh "$cuobjdump" "$obj"; echo "rc=$?"
  echo "== full: $gpuq calibrate --suite atomics -o $out/full"
  t0=$(now); "$gpuq" calibrate --suite atomics -o "$out/full"; rc=$?; t1=$(now)
  echo "rc=$rc wall=$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') s cells=$(cells "$out/full/atomics.csv.gz")"
  echo "== interrupted: SIGINT after 4 s, then --resume"
  "$gpuq" calibrate --suite atomics --quiet -o "$out/int" & pid=$!
  sleep 4; kill -INT $pid; wait $pid; rc=$?
  echo "rc=$rc partial cells=$(cells "$out/int/atomics.partial.csv.gz") finished file: $(ls "$out/int/atomics.csv.gz" 2>/dev/null || echo none)"
  t0=$(now); "$gpuq" calibrate --suite atomics --resume -o "$out/int"; rc=$?; t1=$(now)
  echo "rc=$rc resume wall=$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') s cells=$(cells "$out/int/atomics.csv.gz") partial left: $(ls "$out/int/atomics.partial.csv.gz" 2>/dev/null || echo none)"
  echo "== quick: $gpuq calibrate --quick -o $out/quick"
  t0=$(now); "$gpuq" calibrate --quick -o "$out/quick"; rc=$?; t1=$(now)
  echo "rc=$rc wall=$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}') s cells=$(cells "$out/quick/atomics.csv.gz")"
  echo "== test: calibrate_resume.sh"
  sh tests/bench/calibrate_resume.sh "$gpuq"; echo "rc=$?"
} 2>&1 | tee "$log"
