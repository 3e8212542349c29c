#!/bin/sh
# gpuq calibrate end to end on a small selection (test bench_calibrate_cli,
# label gpu): interrupted by SIGINT after a few launches it must keep the
# partial file (atomics.partial.csv.gz), leave no finished file, and exit
# 130 with the resume hint; --resume must measure only the missing cells
# and rename the partial file to atomics.csv.gz; a resume with other
# settings is refused; -o FILE.csv is refused; a quick sched run's header
# gets calibrate's SM clock and the suite's method.  Exits 77 when there is no GPU.
#   usage: calibrate_resume.sh GPUQ
gpuq=$1
dir=$(mktemp -d /tmp/gpuq_calibrate_test.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
out=$dir/out
sel="--suite atomics --set atomics.classes=add,popc_inc --methods single_shot --patterns same_address --quiet -o $out"
# add (mixes CAS): sum_{n=1..64} 32 (n+1) cells; popc_inc: 64 x 32
full=$((68608 + 2048))
cells() { gzip -dc "$1" | grep -c '^[a-z_]*,[a-z_]*,[a-z_]*,[0-9]'; }

"$gpuq" calibrate -o "$dir/t.csv" 2>"$dir/err0"
rc=$?
[ $rc -eq 1 ] && grep -q "takes a folder" "$dir/err0" || { echo "FAIL: -o FILE.csv: exit $rc"; cat "$dir/err0"; exit 1; }

# The hook makes gpuq send itself SIGINT after 40 launches: the same path as
# Ctrl-C (handler sets a flag, the suite saves and stops), without timing races.
GPUQ_CALIBRATE_SIGINT_AFTER=40 "$gpuq" calibrate $sel 2>"$dir/err1"
rc=$?
if [ $rc -eq 3 ] && grep -q "no CUDA device\|without CUDA" "$dir/err1"; then
  echo "skipped: $(cat "$dir/err1")"
  exit 77
fi
cat "$dir/err1"
[ $rc -eq 130 ] || { echo "FAIL: interrupted run exited $rc, want 130"; exit 1; }
grep -q "^gpuq: calibrate: interrupted: atomics: [0-9]* of $full cells saved to $out/atomics.partial.csv.gz; resume with --resume$" "$dir/err1" ||
  { echo "FAIL: interrupted run did not print the resume line"; exit 1; }
[ ! -e "$out/atomics.csv.gz" ] || { echo "FAIL: an interrupted run wrote the finished file"; exit 1; }
partial=$(cells "$out/atomics.partial.csv.gz")
echo "partial table: $partial of $full cells"
[ "$partial" -gt 0 ] && [ "$partial" -lt $full ] || { echo "FAIL: partial table has $partial cells"; exit 1; }

"$gpuq" calibrate $sel --resume --reps 7 2>"$dir/err2"
rc=$?
cat "$dir/err2"
[ $rc -eq 2 ] || { echo "FAIL: resume with other --reps exited $rc, want 2"; exit 1; }

"$gpuq" calibrate $sel --resume 2>"$dir/err3"
rc=$?
cat "$dir/err3"
[ $rc -eq 0 ] || { echo "FAIL: --resume exited $rc"; exit 1; }
[ ! -e "$out/atomics.partial.csv.gz" ] || { echo "FAIL: partial file left after success"; exit 1; }
rows=$(cells "$out/atomics.csv.gz")
dups=$(gzip -dc "$out/atomics.csv.gz" | grep '^[a-z_]*,[a-z_]*,[a-z_]*,[0-9]' | cut -d, -f1-6 | sort | uniq -d | wc -l)
echo "resumed table: $rows cells, $dups duplicated"
[ "$rows" -eq $full ] && [ "$dups" -eq 0 ] || { echo "FAIL: want $full distinct cells"; exit 1; }
gzip -dc "$out/atomics.csv.gz" | grep -q "^# gpu_name: " && gzip -dc "$out/atomics.csv.gz" | grep -q "^# sm_clock_mhz: [1-9]" ||
  { echo "FAIL: metadata missing"; exit 1; }
# A second --resume finds the suite finished and measures nothing.
"$gpuq" calibrate $sel --resume >"$dir/out4" 2>&1 || { echo "FAIL: resume of a finished run"; exit 1; }
# A suite that writes no clock of its own (sched) gets calibrate's reading
# (before and after the suite) in its header, and its method line.
"$gpuq" calibrate --suite sched --quick -o "$dir/sched" >"$dir/out5" 2>&1 ||
  { echo "FAIL: calibrate --suite sched --quick"; cat "$dir/out5"; exit 1; }
cat "$dir/out5"
grep -q "^# sm_clock_mhz: [1-9]" "$dir/sched/sched.csv" &&
  grep -q "^# method: driver-JIT PTX" "$dir/sched/sched.csv" &&
  grep -q "^sched: SM clock [1-9][0-9]* MHz (calibrate's reading" "$dir/out5" ||
  { echo "FAIL: sched.csv header has no SM clock or method"; head -12 "$dir/sched/sched.csv"; exit 1; }
echo ok
