#!/bin/sh
# Suite "sched" end to end (test bench_sched_suite, label gpu): gpuq
# calibrate --suite sched --quick must finish, and its machine data must
# show what the issue asks for:
#   - N_slot equals the occupancy API at every point measured on real
#     launches (nslot_api_diff = 0);
#   - the paper's semaphore (Fig. 3.4) on a configuration one block larger
#     than what fits ended by itself, flagged as timed out, within 1 s;
#   - n_mp measured equals the SM count;
# and gpuq diag must read it in every format.  Exits 77 without a GPU.
# Then the unit's N_slot (Eq. 3.3, hopper form, from that data) must equal the
# occupancy API for every launch configuration of the recorded validation
# suite and histogram case study (sched_nslot_check).
#   usage: sched_suite.sh GPUQ NSLOT_CHECK SOURCE_DIR
gpuq=$1
check=$2
src=$3
dir=$(mktemp -d /tmp/gpuq_sched_test.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
"$gpuq" calibrate --suite sched --quick --quiet -o "$dir" 2>"$dir/err"
rc=$?
if [ $rc -eq 3 ] && grep -q "no CUDA device\|without CUDA\|cuInit" "$dir/err"; then
  echo "skipped: $(cat "$dir/err")"
  exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: calibrate exit $rc"; cat "$dir/err"; exit 1; }
csv=$dir/sched.csv
[ -f "$csv" ] || { echo "FAIL: no $csv"; ls -R "$dir"; exit 1; }
param() { awk -F, -v n="$1" -v c="$2" '$1 == "param" && $2 == n { print $c }' "$csv"; }
diff=$(param nslot_api_diff 6)
pts=$(param nslot_api_diff 8)
[ "$diff" = "0" ] || { echo "FAIL: N_slot differs from the occupancy API at $diff of $pts points"; grep '^nslot' "$csv"; exit 1; }
echo "ok: N_slot = occupancy API at all $pts points"
# sema rows: kind,name,G,b,s,value(1 = timed out),doc,extra(ms),note
bad=$(awk -F, '$1 == "sema" { n[$2]++; if (n[$2] == 1 && $6 != 0) print "fits but timed out: " $0;
                             if (n[$2] == 2 && ($6 != 1 || $8 > 1000)) print "did not end by itself: " $0 }' "$csv")
[ -z "$bad" ] || { echo "FAIL: $bad"; exit 1; }
[ "$(grep -c '^sema' "$csv")" -ge 4 ] || { echo "FAIL: semaphore rows missing"; exit 1; }
echo "ok: the semaphore ends by itself on configurations that cannot be co-resident"
nmp=$(param n_mp 6)
doc=$(param n_mp 7)
[ -n "$nmp" ] && [ "$nmp" = "$doc" ] || { echo "FAIL: n_mp $nmp, SM count $doc"; exit 1; }
echo "ok: n_mp = $nmp = SM count"
for f in text csv json; do
  "$gpuq" diag --table "$csv" -f $f >"$dir/diag.$f" 2>"$dir/diag.err" || { echo "FAIL: gpuq diag -f $f"; cat "$dir/diag.err"; exit 1; }
done
echo "ok: gpuq diag text/csv/json"
"$check" "$csv" hopper "$src"/validation/recorded/*/counters.csv "$src"/data/recorded/*.counters.csv \
  || { echo "FAIL: sched_nslot_check"; exit 1; }
