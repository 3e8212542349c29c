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
# T(g,b): every point has its spread row (tgbs) and one row per round with
# both launches (tgbr), and its time is median T(2n) - median T(n) of those
# rows (docs/diag.md, "How the suite measures").
bad=$(awk -F, '
  function med(s, n,   i, j, t, a) { split(s, a, " "); n = 0; for (i in a) n++
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  $1 == "tgb" { k = $2 " G=" $3 " b=" $4; pt[k] = $6; ptn[k] = $8 }
  $1 == "tgbs" { sp[$2 " G=" $3 " b=" $4] = $5 }
  $1 == "tgbr" { k = $2 " G=" $3 " b=" $4; t2[k] = t2[k] " " $6; t1[k] = t1[k] " " $8; nr[k]++ }
  END { for (k in pt) {
      if (!(k in sp)) { print "no spread row for " k; continue }
      if (nr[k] != sp[k]) { print nr[k] " launch rows for " k ", want " sp[k]; continue }
      d = med(t2[k]) - med(t1[k]); e = d - pt[k]; if (e < 0) e = -e
      if (e > 1e-6 * pt[k]) print "point " k ": " pt[k] " ms, medians give " d
      e = med(t1[k]) - ptn[k]; if (e < 0) e = -e
      if (e > 1e-6 * ptn[k]) print "point " k ": median T(n) " ptn[k] ", rows give " med(t1[k]) } }' "$csv")
[ -z "$bad" ] || { echo "FAIL: T(g,b) rows: $bad"; exit 1; }
[ "$(grep -c '^tgb,' "$csv")" -ge 60 ] || { echo "FAIL: T(g,b) points missing"; exit 1; }
echo "ok: every T(g,b) point is median T(2n) - median T(n) of its $(awk -F, '$1 == "tgbs" { print $5; exit }' "$csv") rounds"
for f in text csv json; do
  "$gpuq" diag --table "$csv" -f $f >"$dir/diag.$f" 2>"$dir/diag.err" || { echo "FAIL: gpuq diag -f $f"; cat "$dir/diag.err"; exit 1; }
done
grep -q "spread_lds" "$dir/diag.text" || { echo "FAIL: gpuq diag shows no launch spread"; exit 1; }
echo "ok: gpuq diag text/csv/json, with the launch spread"
"$check" "$csv" hopper "$src"/validation/recorded/*/counters.csv "$src"/data/recorded/*.counters.csv \
  || { echo "FAIL: sched_nslot_check"; exit 1; }
