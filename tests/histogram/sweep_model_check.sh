#!/bin/sh
# examples/histogram/sweep_model.sh fills U from kept counters: a recorded
# counters file (data/hist_popc-uniform-256.counters.csv: gpuq profile of
# hist_popc on the uniform image, 2^20..2^22 pixels, 256 threads, NVIDIA H200,
# 2026-11-22) and the hand-written test table (tests/data/tables/test_gpu.csv,
# --force: it claims another GPU), so only the plumbing is checked: every row
# gets a U, e = O / N of its own launch, rows of other tags stay untouched.
#   sweep_model_check.sh GPUQ SOURCE_DIR
set -u
gpuq=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

mkdir -p "$tmp/s.csv.raw"
cp "$src/tests/histogram/data/hist_popc-uniform-256.counters.csv" "$tmp/s.csv.raw/"
{
    echo "gpu,kernel,image,pixels,threads,blocks,warmup,reps,median_us,min_us,max_us,spread,gpixels_per_s,gbytes_per_s,check,U,e,n,U_lo,U_hi,N_atom,O_wavefronts,cycles_avg,occupancy_pct,kernel_ns,e_counters,n_hat"
    for p in 1048576 2097152 4194304; do
        echo "NVIDIA H200,hist_popc,uniform,$p,256,1056,3,10,1,1,1,0,1,1,total,,,,,,,,,,,,"
        echo "NVIDIA H200,hist_popc,uniform,$p,1024,264,3,10,1,1,1,0,1,1,total,,,,,,,,,,,,"
    done
} >"$tmp/s.csv"
GPUQ="$gpuq" sh "$src/examples/histogram/sweep_model.sh" . "$tmp/s.csv" \
    "$src/tests/data/tables/test_gpu.csv" --force 2>"$tmp/log" || bad "sweep_model.sh failed: $(cat "$tmp/log")"
[ "$(awk -F, 'NR > 1 && $5 == 256 && $16 != ""' "$tmp/s.csv" | wc -l)" -eq 3 ] && ok || bad "U missing: $(cat "$tmp/s.csv")"
[ "$(awk -F, 'NR > 1 && $5 == 1024 && $16 != ""' "$tmp/s.csv" | wc -l)" -eq 0 ] && ok || bad "other rows touched"
# e of the 2^21-pixel launch: O / N = 826326 / 262144 = 3.152
awk -F, 'NR > 1 && $4 == 2097152 && $5 == 256 { exit !($17 > 3.15 && $17 < 3.155) }' "$tmp/s.csv" && ok || bad "e of row 2: $(grep ',2097152,256,' "$tmp/s.csv")"
[ "$(awk -F, 'NF != 27' "$tmp/s.csv" | wc -l)" -eq 0 ] && ok || bad "ragged rows"

# --out: the sweep is only read, the result goes to another file; a stale U
# on a row without counters (here the 1024-thread rows) is cleared there.
sed 's/,total,,,,,,/,total,9.9,9.9,9.9,9.9,9.9,/' "$tmp/s.csv" >"$tmp/stale.csv"
mv "$tmp/s.csv.raw" "$tmp/stale.csv.raw"
cp "$tmp/stale.csv" "$tmp/stale.before"
GPUQ="$gpuq" sh "$src/examples/histogram/sweep_model.sh" . "$tmp/stale.csv" \
    "$src/tests/data/tables/test_gpu.csv" --out "$tmp/v.csv" --force -m paper 2>"$tmp/log" || bad "--out failed: $(cat "$tmp/log")"
cmp -s "$tmp/stale.csv" "$tmp/stale.before" && ok || bad "--out changed the input"
[ "$(awk -F, 'NR > 1 && $5 == 1024 && $16 == "" && $20 == ""' "$tmp/v.csv" | wc -l)" -eq 3 ] && ok || bad "stale U kept: $(cat "$tmp/v.csv")"
[ "$(awk -F, 'NR > 1 && $5 == 256 && $16 != "" && $16 != 9.9' "$tmp/v.csv" | wc -l)" -eq 3 ] && ok || bad "U not recomputed under --out"
# Same counters, same e, whatever the model.
awk -F, 'NR > 1 && $4 == 2097152 && $5 == 256 { exit !($17 > 3.15 && $17 < 3.155) }' "$tmp/v.csv" && ok || bad "e under --out"
sh "$src/examples/histogram/sweep_model.sh" . "$tmp/stale.csv" x.csv --out 2>/dev/null
[ $? -eq 1 ] && ok || bad "--out without a file name is not a usage error"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
