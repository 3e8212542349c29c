#!/bin/sh
# The suite "units" on a GPU machine, in one bounded run (docs/bottleneck.md,
# "The suite units"):
#
#   scripts/gpu_units.sh BUILD OUTDIR       (from the repository root)
#
# 1. builds gpuq and sched_cubins in BUILD where BUILD/gpuq is missing
#    (CMAKE_CUDA_ARCHITECTURES 90 unless set; not counted in the budget);
# 2. gpuq calibrate --suite units -o OUTDIR/tables (OUTDIR/tables/units.csv,
#    the file to ship as tables/<gpu>/units.csv); if that fails, once more
#    without the sm_90a rows (wgmma, TMA) into OUTDIR/tables-no-sm90a;
#    then the suite throughput into OUTDIR/tables too (its 8- and 16-byte
#    loads were 4 bytes wide before 2026-12-02: the model takes each
#    memory's best rate of either suite, so both are measured together);
# 3. the SASS test (ctest bench_suite_sass) and every tu_ kernel's opcodes
#    (OUTDIR/units_sass.txt, OUTDIR/units_sass_full.txt);
# 4. ncu on one launch of each of nine rows' kernels (OUTDIR/ncu/): whether
#    the counters the model divides by the rates count what the suite's
#    kernels do (one FLOP per op, 32 bytes per sector; the LSU loads' L1
#    sectors x 32 = their bytes: 16-byte loads, one sector per 2 threads);
# 5. OUTDIR/summary.txt: each row's best rate beside its documented one, and
#    the ncu counters of step 4 over each launch's work.
# Every step has a timeout; the whole run takes under 4 minutes on an H200
# once built (the ncu step is skipped when less than a minute is left).
set -u
build=${1:?usage: scripts/gpu_units.sh BUILD OUTDIR}
out=${2:?usage: scripts/gpu_units.sh BUILD OUTDIR}
mkdir -p "$out/ncu" || exit 2
gpuq=$build/gpuq
start=$(date +%s)
left() { echo $((230 - ($(date +%s) - start))); }
log=$out/gpu_units.log
: >"$log"
say() { echo "== $*" | tee -a "$log"; }

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
  nvcc --version | tail -1
  ncu --version | tail -1
  date -u +%Y-%m-%dT%H:%M:%SZ
  git rev-parse HEAD
} >"$out/device.txt" 2>&1
cat "$out/device.txt"

if [ ! -x "$gpuq" ]; then
  say "building $build (not counted in the 4 minutes)"
  timeout 300 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}" >"$out/build.log" 2>&1 &&
    timeout 600 cmake --build "$build" -j "$(nproc)" --target gpuq sched_cubins >>"$out/build.log" 2>&1 ||
    { tail -20 "$out/build.log"; exit 2; }
  start=$(date +%s)
fi

say "calibrate: $gpuq calibrate --suite units -o $out/tables"
timeout 150 "$gpuq" calibrate --suite units -o "$out/tables" >"$out/calibrate.log" 2>&1
rc=$?
tail -3 "$out/calibrate.log" | tee -a "$log"
say "calibrate rc=$rc"
if [ $rc -ne 0 ]; then
  rows=memory,hmma_f16,hmma_bf16,hmma_tf32,imma_s8,hmma_e4m3
  say "again without the sm_90a rows: --set units.rows=$rows -o $out/tables-no-sm90a"
  timeout 90 "$gpuq" calibrate --suite units --set units.rows=$rows -o "$out/tables-no-sm90a" \
    >"$out/calibrate-no-sm90a.log" 2>&1
  say "calibrate (no sm_90a) rc=$?"
fi

say "calibrate: $gpuq calibrate --suite throughput -o $out/tables"
timeout 60 "$gpuq" calibrate --suite throughput -o "$out/tables" >"$out/calibrate-throughput.log" 2>&1
say "calibrate throughput rc=$?"

say "SASS: ctest bench_suite_sass"
timeout 120 ctest --test-dir "$build" -R bench_suite_sass --output-on-failure >"$out/sass_test.log" 2>&1
say "bench_suite_sass rc=$?"
grep -E "units|FAIL" "$out/sass_test.log" | tee -a "$log"
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
timeout 60 "$cuobjdump" -sass "$gpuq" >"$out/gpuq.sass" 2>&1
# each tu_ kernel: its architecture and how many times each opcode appears
awk '/arch = /{arch=$NF} /Function :/{name=$3; keep=(name ~ /tu_/); if (keep) print "\n" name " (" arch ")"; next}
     keep && /\/\*[0-9a-f]+\*\//{l=$0; sub(/^[^*]*\/\*[0-9a-f]+\*\/[ \t]*/, "", l); if (l ~ /^@/) sub(/^@[^ \t]+[ \t]+/, "", l);
       op=l; sub(/[ \t;].*$/, "", op); if (op != "") print "  " op}' "$out/gpuq.sass" |
  awk '/^$/ {next} /^[^ ]/ {if (name) for (o in n) printf "%s %d %s\n", name, n[o], o; delete n; name=$0; next} {n[$1]++}
       END {for (o in n) printf "%s %d %s\n", name, n[o], o}' | sort >"$out/units_sass.txt"
awk '/Function :/{keep=($3 ~ /tu_(hmma_e4m3|hmma_bf16|gmma_bf16_ss|gmma_e4m3_ss|lsu_ld|tma_ld)/)} keep' \
  "$out/gpuq.sass" >"$out/units_sass_full.txt"
rm -f "$out/gpuq.sass"

# ncu: one launch of a row's kernel (the warm-up of the first point of a
# --quick run of that row alone), the counters the model reads.
metrics=sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum,sm__ops_path_tensor_op_hgmma_src_fp16.sum,sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum,sm__ops_path_tensor_op_igmma_src_int8.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum,sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum,sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32.sum,sm__ops_path_tensor_op_imma_src_int8.sum,sm__ops_path_tensor_src_fp16.sum,sm__pipe_tensor_cycles_active.sum,sm__pipe_tensor_cycles_active.max,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,lts__t_sectors.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum,sm__pipe_tma_cycles_active.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg
for spec in hmma_bf16:tu_hmma_bf16 imma_s8:tu_imma_s8 gmma_bf16_ss:tu_gmma_bf16_ss \
            gmma_e4m3_ss:tu_gmma_e4m3_ss gmma_s8_ss:tu_gmma_s8_ss l2_ld:tu_lsu_ld dram_ld:tu_lsu_ld \
            dram_st:tu_lsu_st tma_l2_ld:tu_tma_ld; do
  row=${spec%%:*} kernel=${spec#*:}
  if [ "$(left)" -lt 60 ]; then say "ncu $row: skipped (under a minute left)"; continue; fi
  timeout 40 ncu --clock-control none --csv --print-units base -k "regex:$kernel" --launch-count 1 \
    --metrics "$metrics" "$gpuq" calibrate --suite units --quick --quiet --set units.rows="$row" \
    --set units.reps=1 -o "$out/ncu/$row" >"$out/ncu/$row.csv" 2>"$out/ncu/$row.err"
  say "ncu $row rc=$?"
done

timeout 30 python3 - "$out" >"$out/summary.txt" 2>&1 <<'EOF'
import csv, io, math, os, sys
out = sys.argv[1]
def table(path):
    rows = [l for l in open(path) if not l.startswith('#')]
    return list(csv.DictReader(io.StringIO(''.join(rows))))
def num(x):
    try: return float(x)
    except (TypeError, ValueError): return math.nan
print("summary: best point of each row (value per clock per SM at its clock; documented the same)")
for d in ("tables", "tables-no-sm90a"):
    p = os.path.join(out, d, "units.csv")
    if not os.path.exists(p): continue
    best = {}
    for r in table(p):
        if r["kind"] in ("tensor", "memory") and (r["name"] not in best or num(r["value"]) > num(best[r["name"]]["value"])):
            best[r["name"]] = r
    print(p)
    for n, r in best.items():
        doc = num(r["documented"])
        share = num(r["value"]) / doc if doc > 0 else math.nan
        print("  %-14s %-5s warps %4s in-flight %8s  %10.1f %-11s %10.1f G/s at %6.0f MHz  documented %8.1f (%s)" % (
            n, r["type"], r["warps"], r["bytes_in_flight"], num(r["value"]), r["unit"], num(r["rate"]),
            num(r["clock_mhz"]), doc, "%.0f%%" % (100 * share) if share == share else "-"))
p = os.path.join(out, "tables", "throughput.csv")
if os.path.exists(p):
    print("\nthroughput suite: best global point of each memory and op (GB/s)")
    best = {}
    for r in table(p):
        if r["kind"] == "global" and (r["name"] not in best or num(r["value"]) > num(best[r["name"]]["value"])):
            best[r["name"]] = r
    for n, r in sorted(best.items()):
        print("  %-8s %10.1f GB/s  %2s-byte accesses, %s blocks x %s threads x %s per thread" % (
            n, num(r["value"]), r["bytes"], r["blocks"], r["threads"], r["per_thread"]))
print("\nncu check: counters of one launch against the suite's work (FLOPs or bytes) of that launch")
for f in sorted(os.listdir(os.path.join(out, "ncu"))):
    if not f.endswith(".csv"): continue
    row = f[:-4]
    try:
        work = num(table(os.path.join(out, "ncu", row, "units.csv"))[2]["work"])
        got = {}
        lines = [l for l in open(os.path.join(out, "ncu", f)) if l.startswith('"')]
        for r in csv.DictReader(io.StringIO(''.join(lines))):
            got[r["Metric Name"]] = num(r["Metric Value"].replace(",", ""))
    except Exception as e:
        print("  %s: %s" % (row, e)); continue
    print("  %s: work %.6g" % (row, work))
    for m, v in sorted(got.items()):
        scale = 32 if "sectors" in m else 1
        counts_work = "ops_path" in m or "bytes" in m or "sectors" in m
        ratio = v * scale / work if work > 0 and counts_work else math.nan
        print("    %-60s %16.6g%s" % (m, v, "   x%g / work = %.4f" % (scale, ratio) if ratio == ratio and v else ""))
EOF
cat "$out/summary.txt"
say "done in $(( $(date +%s) - start )) s: $out"
