"""What the GPU tests of gpuq profile (stress_check.py, graph_check.py,
multiproc_check.py) ask the collector to gather."""

# Paper 000's Table 1 hardware metrics (docs/profile.md: 1 pass on GH100).
TABLE1 = "smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_atom_dot_cas.sum,smsp__inst_executed_op_shared_atom_dot_alu.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,sm__cycles_active.sum,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum,sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum"


def duration_ns(row):
    """A counters row's kernel duration: the metric's own column in counters
    v2, `duration_ns` in v1 files; '' when the launch has none."""
    return row.get("gpu__time_duration.sum") or row.get("duration_ns") or ""
