#!/bin/sh
# Records the ncu CSV test data (run on a GPU machine from the repository
# root; OUT names the output folder).  The metric list is gm_metric_list_csv()
# (src/model/counters.c), written out here so that this script needs no build.
set -eu
OUT=${OUT:-/tmp/ncu_probe}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
M=smsp__sass_inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_atom.sum,\
smsp__inst_executed_op_shared_atom_dot_cas.sum,smsp__inst_executed_op_shared_atom_dot_alu.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,sm__cycles_active.sum,\
sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,\
sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,\
sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum,sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum
nvidia-smi -L
nvcc --version | tail -1
ncu --version | tail -1
date -u +%Y-%m-%dT%H:%M:%SZ
nvcc -arch=sm_90 -O2 -o /tmp/atomics_probe tests/data/ncu/atomics_probe.cu
cuobjdump -sass /tmp/atomics_probe | grep -E 'Function|ATOMS' > "$OUT/probe_sass.txt"
cat "$OUT/probe_sass.txt"
/tmp/atomics_probe
ncu --clock-control none --csv --metrics "$M" /tmp/atomics_probe > "$OUT/ncu_probe.csv"
ncu --clock-control none --csv --page raw --metrics "$M" /tmp/atomics_probe > "$OUT/ncu_probe_raw.csv"
ncu --clock-control none --csv --print-units base --metrics "$M" /tmp/atomics_probe \
    > "$OUT/ncu_probe_base.csv"
wc -l "$OUT"/*.csv
