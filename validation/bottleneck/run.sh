#!/bin/bash
# The bottleneck model's whole validation on one GPU (docs/bottleneck.md):
#   run.sh BIN OUT
# BIN holds gpuq, libgpuq_inject.so, bn_validate, bn_compare, matmul, cr, spmv (a build's
# outputs); OUT receives every measurement.  Steps, each under a timeout:
#   1. the suite "throughput" (gpuq calibrate) and the SASS checks;
#   2. event-timed runs of the validation kernels and the three case studies;
#   3. ncu on the same programs (--profile: one launch per case) for the
#      counters the model reads, the access patterns and the pipe probes
#      (with --log-file, ncu writes its CSV there and not to stdout, as
#      ncu 2025.3.1 did on the H200 on 2026-12-02: the CSV is the log file,
#      the program's own output NAME_ncu.out);
#   4. collection cost: the case-study program plain, under gpuq profile and
#      under ncu collecting the metrics gpuq collects.
set -u
BIN=$(cd "$1" && pwd); OUT=$2
mkdir -p "$OUT/tables/gpu"
log() { echo "== $(date -u +%H:%M:%S) $*"; }
t() { local s=$EPOCHREALTIME; "$@"; local rc=$?; awk -v a="$s" -v b="$EPOCHREALTIME" -v rc=$rc -v c="$*" 'BEGIN {printf "wall %.3f s rc=%d: %s\n", b - a, rc, c}' >>"$OUT/walltimes.txt"; return $rc; }
M=smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fmaheavy.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed_pipe_fp16.sum,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_cbu.sum,smsp__inst_executed_pipe_adu.sum,smsp__inst_executed_pipe_uniform.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_global_st.sum,smsp__sass_sectors_mem_global.sum,smsp__sass_sectors_mem_global_ideal.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,sm__cycles_elapsed.avg,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
PAT=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
PIPES=smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fmaheavy.sum,smsp__inst_executed_pipe_fmalite.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed_pipe_fp16.sum,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_uniform.sum
NCU="ncu --csv --print-units base --clock-control none"

log device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv >"$OUT/device.txt" 2>&1
ncu --version >>"$OUT/device.txt" 2>&1; date -u >>"$OUT/device.txt"

log suite
t timeout 60 "$BIN/gpuq" calibrate --suite throughput -o "$OUT/tables/gpu" >"$OUT/calibrate.log" 2>&1
log sass
t timeout 30 sh tests/bench/check_suite_sass.sh cuobjdump "$BIN/gpuq" >"$OUT/sass_check.txt" 2>&1
for b in bn_validate matmul cr spmv; do
  cuobjdump -sass "$BIN/$b" | awk '/Function :/ {f=$3} /\/\*[0-9a-f]+\*\// {i=index($0,"*/"); s=substr($0,i+2); gsub(/^[ \t]+/,"",s); if (s ~ /^@/) sub(/^@[^ ]+ +/,"",s); split(s,o," "); if (o[1] != "") c[f" "o[1]]++} END {for (k in c) print k, c[k]}' | sort >"$OUT/sass_$b.txt"
done

log timing
t timeout 60 "$BIN/bn_validate" --time >"$OUT/bn_times.csv" 2>"$OUT/bn_times.err"
t timeout 30 "$BIN/matmul" >"$OUT/mm_times.csv" 2>&1
t timeout 30 "$BIN/cr" --steps >"$OUT/cr_times.csv" 2>&1
t timeout 30 "$BIN/spmv" >"$OUT/spmv_times.csv" 2>&1

log ncu patterns and probes
t timeout 60 $NCU --metrics $PAT -k regex:^bn_pat "$BIN/bn_validate" --patterns >"$OUT/pat_ncu.csv" 2>&1
t timeout 30 $NCU --metrics $PIPES -k regex:^bn_probe "$BIN/bn_validate" --probes >"$OUT/probe_ncu.csv" 2>&1
log ncu case studies
t timeout 60 $NCU --metrics $M -k regex:mm_volkov --log-file "$OUT/mm_ncu.csv" "$BIN/matmul" --profile >"$OUT/mm_ncu.out"
t timeout 90 $NCU --metrics $M -k regex:cr_solve --log-file "$OUT/cr_ncu.csv" "$BIN/cr" --profile --steps >"$OUT/cr_ncu.out"
t timeout 60 $NCU --metrics $M -k regex:spmv_ --log-file "$OUT/spmv_ncu.csv" "$BIN/spmv" --profile >"$OUT/spmv_ncu.out"
log ncu validation kernels
t timeout 150 $NCU --metrics $M -k regex:^bn_ --log-file "$OUT/bn_ncu.csv" "$BIN/bn_validate" --profile >"$OUT/bn_ncu.out"

log collection cost
ALL=$("$BIN/bn_compare" metrics | tr '\n' ',' | sed 's/,$//')
echo "gpuq metrics: $ALL" >"$OUT/cost.txt"
for i in 1 2 3; do t timeout 30 "$BIN/bn_validate" --profile >/dev/null 2>&1; done
# gpuq profile finds its tables by GPU: this run's throughput.csv beside the shipped atomic table
# (the shipped folder of the GPU found: H100 or H200; none elsewhere)
case "$(timeout 20 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" in
  *H200*) SHIPPED=tables/nvidia-h200 ;;
  *H100*) SHIPPED=tables/nvidia-h100-80gb-hbm3 ;;
  *) SHIPPED= ;;
esac
mkdir -p /tmp/bn_tables/gpu && { [ -z "$SHIPPED" ] || cp "$SHIPPED"/* /tmp/bn_tables/gpu/; } &&
  cp "$OUT/tables/gpu/throughput.csv" /tmp/bn_tables/gpu/
export GPUQ_TABLE_DIR=/tmp/bn_tables
t timeout 90 env GPUQ_DEBUG=1 "$BIN/gpuq" profile --no-opcode-split -o "$OUT/gpuq_profile_bn.txt" --keep-counters "$OUT/gpuq_bn.counters.csv" -- "$BIN/bn_validate" --profile >"$OUT/gpuq_profile_bn.log" 2>&1
t timeout 90 $NCU --metrics "$ALL" -k regex:^bn_ --log-file "$OUT/bn_ncu_all.csv" "$BIN/bn_validate" --profile >"$OUT/bn_ncu_all.out"
t timeout 60 "$BIN/gpuq" profile --no-opcode-split -o "$OUT/gpuq_profile_mm.txt" -- "$BIN/matmul" --profile >"$OUT/gpuq_profile_mm.log" 2>&1
log done
