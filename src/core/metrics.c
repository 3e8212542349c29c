/* The metric table (gpuq/metrics.h): every hardware counter a registered
 * model reads, by its CUPTI / Nsight Compute name.  Read by the collector,
 * the ncu importer, the counters file and the report.
 *
 * Adding metrics: append rows at the end, under a comment naming the unit
 * that reads them.  Every reader finds a row by its name (gm_metric_find);
 * the order of rows is the order of the counters file's columns and of
 * `gpuq model --metrics`, so appending keeps those stable. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "gpuq/metrics.h"

const gm_metric_desc gm_metric_table[] = {
    /* ---- shared atomics (unit "atomics", paper 000 Table 1 on Hopper;
     *      shared/notes/hopper-probe.md) ---- */
    {"smsp__sass_inst_executed_op_shared_atom.sum", "N_atom_sass",
     "shared-memory atomic warp-instructions, SASS-instrumented count (N, Table 1)",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_op_shared_atom.sum", "N_atom",
     "shared-memory atomic warp-instructions, hardware count (N, Table 1)",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_op_shared_atom_dot_cas.sum", "N_cas",
     "ATOMS.CAS warp-instructions (N_c, Table 1)", GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_op_shared_atom_dot_alu.sum", "N_alu",
     "non-CAS ATOMS warp-instructions (N_f, Table 1)",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", "O_wavefronts",
     "shared atomic wavefronts, serialized passes (O, Table 1)",
     GM_SUM_ADD, GM_Q_EVENTS, "", GM_EVERY_LAUNCH},
    {"sm__cycles_active.sum", "cycles_sum", "active SM cycles summed over SMs (T, Table 1)",
     GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_EVERY_LAUNCH},
    {"sm__cycles_active.avg", "cycles_avg", "active cycles of the average SM",
     GM_SUM_ADD, GM_Q_MEAN, "cycle", GM_EVERY_LAUNCH},
    {"sm__cycles_active.min", "cycles_min", "active cycles of the least busy SM",
     GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_EVERY_LAUNCH},
    {"sm__cycles_active.max", "cycles_max", "active cycles of the busiest SM",
     GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_EVERY_LAUNCH},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy_pct",
     "achieved occupancy in percent (o, Table 1)",
     GM_SUM_CYCLE_WEIGHTED, GM_Q_PERCENT, "%", GM_PER_SHAPE},
    {"gpu__time_duration.sum", "duration_ns", "kernel duration in nanoseconds",
     GM_SUM_ADD, GM_Q_DURATION_NS, "ns", GM_EVERY_LAUNCH},
    {"sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum", "shared_pending",
     "LSU shared-memory FIFO occupancy summed over cycles (queue-length integral)",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_EVERY_LAUNCH},
    {"sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum", "shared_inst",
     "LDS, LDSM and ATOMS warp-instructions through that FIFO",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_EVERY_LAUNCH},
    /* ---- other units' metrics: append below, one block per unit ---- */
    /* ---- global atomics (unit "gatomics", paper 002; gatomics_model.h) ---- */
    {"lts__t_sectors_srcunit_tex_op_atom.sum", "l2_atom_sectors",
     "L2 sectors of global atomics with a result (ATOMG) from the SMs",
     GM_SUM_ADD, GM_Q_EVENTS, "sector", GM_EVERY_LAUNCH},
    {"lts__t_sectors_srcunit_tex_op_red.sum", "l2_red_sectors",
     "L2 sectors of global reductions (RED) from the SMs",
     GM_SUM_ADD, GM_Q_EVENTS, "sector", GM_EVERY_LAUNCH},
    {"lts__t_sectors_srcunit_tex_op_atom_dot_cas.sum", "l2_cas_sectors",
     "L2 sectors of global CAS (part of the atom sectors)",
     GM_SUM_ADD, GM_Q_EVENTS, "sector", GM_EVERY_LAUNCH},
    {"lts__d_atomic_input_cycles_active.sum", "l2_atomic_active_sum",
     "cycles the L2 slices' atomic input was active, summed over slices",
     GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_EVERY_LAUNCH},
    {"lts__d_atomic_input_cycles_active.max", "l2_atomic_active_max",
     "cycles the busiest L2 slice's atomic input was active",
     GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_EVERY_LAUNCH},
    {"lts__cycles_elapsed.avg", "l2_cycles", "L2 cycles elapsed (average slice)",
     GM_SUM_ADD, GM_Q_MEAN, "cycle", GM_EVERY_LAUNCH},
    /* ---- bottleneck (unit "bottleneck", paper 004 Sec. 4 on Hopper: the
     *      instruction pipes, shared wavefronts, global sectors, DRAM/L2) ---- */
    {"smsp__inst_executed.sum", "inst_total", "warp-instructions issued (all pipes)",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_pipe_fma.sum", "inst_fma", "warp-instructions on the fma pipe",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_pipe_fmaheavy.sum", "inst_fmaheavy",
     "warp-instructions on the fmaheavy half (IMAD, ...)",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_pipe_alu.sum", "inst_alu", "warp-instructions on the alu pipe",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_pipe_fp64.sum", "inst_fp64", "warp-instructions on the fp64 pipe",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_pipe_fp16.sum", "inst_fp16", "warp-instructions on the fp16 pipe",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_pipe_xu.sum", "inst_xu", "warp-instructions on the xu pipe (MUFU)",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_pipe_lsu.sum", "inst_lsu", "warp-instructions on the lsu pipe",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_pipe_cbu.sum", "inst_cbu", "warp-instructions on the cbu pipe (branches)",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_pipe_adu.sum", "inst_adu", "warp-instructions on the adu pipe",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_pipe_uniform.sum", "inst_uniform",
     "warp-instructions on the uniform pipe", GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "shared_wavefronts",
     "shared-memory wavefronts, bank conflicts included",
     GM_SUM_ADD, GM_Q_EVENTS, "", GM_EVERY_LAUNCH},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "shared_bank_conflicts",
     "shared-memory wavefronts added by bank conflicts",
     GM_SUM_ADD, GM_Q_EVENTS, "", GM_EVERY_LAUNCH},
    {"smsp__inst_executed_op_global_ld.sum", "global_ld_inst", "global load warp-instructions",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__inst_executed_op_global_st.sum", "global_st_inst", "global store warp-instructions",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"smsp__sass_sectors_mem_global.sum", "global_sectors",
     "32-byte sectors of global accesses (SASS-instrumented)",
     GM_SUM_ADD, GM_Q_EVENTS, "sector", GM_PER_SHAPE},
    {"smsp__sass_sectors_mem_global_ideal.sum", "global_sectors_ideal",
     "sectors the same accesses need when perfectly coalesced",
     GM_SUM_ADD, GM_Q_EVENTS, "sector", GM_PER_SHAPE},
    {"dram__bytes_read.sum", "dram_read_bytes", "bytes read from DRAM",
     GM_SUM_ADD, GM_Q_BYTES, "byte", GM_EVERY_LAUNCH},
    {"dram__bytes_write.sum", "dram_write_bytes", "bytes written to DRAM",
     GM_SUM_ADD, GM_Q_BYTES, "byte", GM_EVERY_LAUNCH},
    {"lts__t_sectors_op_read.sum", "l2_read_sectors", "L2 sectors read",
     GM_SUM_ADD, GM_Q_EVENTS, "sector", GM_EVERY_LAUNCH},
    {"lts__t_sectors_op_write.sum", "l2_write_sectors", "L2 sectors written",
     GM_SUM_ADD, GM_Q_EVENTS, "sector", GM_EVERY_LAUNCH},
    {"sm__cycles_elapsed.avg", "cycles_elapsed_avg", "elapsed SM cycles (the clock of the launch)",
     GM_SUM_ADD, GM_Q_MEAN, "cycle", GM_EVERY_LAUNCH},
    /* ---- shared atomics, latency kind (unit "atomics"; atomics_latency.h):
     *      warp-cycles stalled by reason; one more pass on GH100 ---- */
    {"smsp__warps_issue_stalled_short_scoreboard.sum", "stall_short_scoreboard",
     "warp-cycles stalled on an MIO result (shared memory, ATOMS, special math)",
     GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_PER_SHAPE},
    {"smsp__warps_issue_stalled_mio_throttle.sum", "stall_mio_throttle",
     "warp-cycles stalled on a full MIO queue (shared memory, ATOMS, special math)",
     GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_PER_SHAPE},
    /* ---- bottleneck (paper 004): global sectors from the L1 hardware
     *      counters, for gpuq profile, whose range profiler cannot collect
     *      the SASS-instrumented smsp__sass_sectors_mem_global ---- */
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global_ld_sectors_hw",
     "32-byte sectors of global loads at L1 (hardware counter)",
     GM_SUM_ADD, GM_Q_EVENTS, "sector", GM_PER_SHAPE},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global_st_sectors_hw",
     "32-byte sectors of global stores at L1 (hardware counter)",
     GM_SUM_ADD, GM_Q_EVENTS, "sector", GM_PER_SHAPE},
    /* ---- shared atomics, latency kind, issue form (unit "atomics";
     *      atomics_latency.h, docs/validation.md "The latency quantity") ---- */
    {"smsp__warps_issue_stalled_wait.sum", "stall_wait",
     "warp-cycles stalled on a fixed-latency dependency",
     GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_PER_SHAPE},
    {"smsp__warps_issue_stalled_selected.sum", "stall_selected",
     "warp-cycles selected to issue (one per issued warp-instruction)",
     GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_EVERY_LAUNCH},
    /* ---- bottleneck, Hopper's units (bottleneck_units.h: tensor pipe, TMA,
     *      L2, DRAM, pipe activity) and the latency verdict's warp states
     *      (bottleneck_verdict.h); ten in the unit's default set (no pass
     *      more on GH100), the rest opt-in, GPUQ_EXTRA_METRICS=@bottleneck;
     *      every name checked on GH100 with ncu --query-metrics ---- */
    {"sm__pipe_tensor_cycles_active.max", "tensor_active_max",
     "cycles the busiest SM's tensor pipe was active (HMMA, HGMMA, QGMMA, IMMA)",
     GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_PER_SHAPE},
    {"sm__pipe_tensor_cycles_active.sum", "tensor_active_sum",
     "tensor pipe active cycles summed over SMs", GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_PER_SHAPE},
    {"sm__pipe_tensor_op_hmma_cycles_active.sum", "tensor_hmma_active_sum",
     "tensor pipe active cycles of HMMA, HGMMA and QGMMA summed over SMs",
     GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_PER_SHAPE},
    {"sm__inst_executed_pipe_tensor_op_gmma.sum", "inst_gmma",
     "wgmma (HGMMA, QGMMA, IGMMA) warp-instructions",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"sm__inst_executed_pipe_tensor_op_hmma.sum", "inst_hmma",
     "mma.sync (HMMA) warp-instructions", GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_PER_SHAPE},
    {"sm__pipe_tma_cycles_active.max", "tma_active_max",
     "cycles the busiest SM's TMA unit was active", GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_PER_SHAPE},
    {"sm__pipe_tma_cycles_active.sum", "tma_active_sum",
     "TMA unit active cycles summed over SMs", GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_PER_SHAPE},
    {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum", "tma_load_bytes",
     "bytes TMA loads brought from L2 into shared memory",
     GM_SUM_ADD, GM_Q_BYTES, "byte", GM_PER_SHAPE},
    {"l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum", "tma_store_bytes",
     "bytes TMA stores sent from shared memory to L2",
     GM_SUM_ADD, GM_Q_BYTES, "byte", GM_PER_SHAPE},
    {"lts__t_sectors.sum", "l2_sectors",
     "L2 sectors accessed, every source and op (LSU, TMA, atomics)",
     GM_SUM_ADD, GM_Q_EVENTS, "sector", GM_EVERY_LAUNCH},
    {"lts__t_sectors_lookup_hit.sum", "l2_sectors_hit",
     "L2 sectors that hit", GM_SUM_ADD, GM_Q_EVENTS, "sector", GM_PER_SHAPE},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum", "shared_wavefronts_gmma",
     "shared-memory wavefronts of wgmma operand reads (part of shared_wavefronts)",
     GM_SUM_ADD, GM_Q_EVENTS, "", GM_PER_SHAPE},
    {"smsp__warps_issue_stalled_gmma.sum", "stall_gmma",
     "warp-cycles stalled waiting on wgmma", GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_PER_SHAPE},
    {"smsp__warps_issue_stalled_long_scoreboard.sum", "stall_long_scoreboard",
     "warp-cycles stalled on a global, local or texture result",
     GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_PER_SHAPE},
    {"smsp__warps_issue_stalled_barrier.sum", "stall_barrier",
     "warp-cycles stalled at a barrier", GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_PER_SHAPE},
    {"smsp__warps_issue_stalled_branch_resolving.sum", "stall_branch_resolving",
     "warp-cycles stalled resolving a branch target",
     GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_PER_SHAPE},
    {"smsp__warps_issue_stalled_no_instruction.sum", "stall_no_instruction",
     "warp-cycles stalled on instruction fetch", GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_PER_SHAPE},
    {"smsp__warps_issue_stalled_math_pipe_throttle.sum", "stall_math_pipe_throttle",
     "warp-cycles stalled on a busy math pipe", GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_PER_SHAPE},
    {"smsp__warps_issue_stalled_lg_throttle.sum", "stall_lg_throttle",
     "warp-cycles stalled on a full global/local memory queue",
     GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_PER_SHAPE},
    {"smsp__warps_issue_stalled_membar.sum", "stall_membar",
     "warp-cycles stalled at a memory barrier", GM_SUM_ADD, GM_Q_CYCLES, "warp", GM_PER_SHAPE},
    {"sm__pipe_fma_cycles_active.sum", "fma_active_sum",
     "fma pipe active cycles summed over SMs", GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_PER_SHAPE},
    {"sm__pipe_alu_cycles_active.sum", "alu_active_sum",
     "alu pipe active cycles summed over SMs", GM_SUM_ADD, GM_Q_CYCLES, "cycle", GM_PER_SHAPE},
    {"sm__inst_issued.sum", "inst_issued",
     "warp-instructions issued summed over SMs",
     GM_SUM_ADD, GM_Q_EVENTS, "inst", GM_EVERY_LAUNCH_WORK},
    /* ---- bottleneck, the tensor pipe's work by instruction type (the rows of
     *      bottleneck_unit_rows.h): wgmma's and fp8's in the unit's default
     *      set (no pass more on GH100), mma.sync's opt-in (3 passes more);
     *      every name checked on GH100 with ncu --query-metrics ---- */
    {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", "tensor_ops_hgmma_bf16",
     "tensor FLOPs of wgmma (HGMMA) with bf16 sources and fp32 accumulators",
     GM_SUM_ADD, GM_Q_EVENTS, "", GM_PER_SHAPE},
    {"sm__ops_path_tensor_op_hgmma_src_fp16.sum", "tensor_ops_hgmma_fp16",
     "tensor FLOPs of wgmma (HGMMA) with fp16 sources", GM_SUM_ADD, GM_Q_EVENTS, "", GM_PER_SHAPE},
    {"sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum", "tensor_ops_hgmma_tf32",
     "tensor FLOPs of wgmma (HGMMA) with tf32 sources", GM_SUM_ADD, GM_Q_EVENTS, "", GM_PER_SHAPE},
    {"sm__ops_path_tensor_op_igmma_src_int8.sum", "tensor_ops_igmma_int8",
     "tensor operations of wgmma (IGMMA) with int8 sources",
     GM_SUM_ADD, GM_Q_EVENTS, "", GM_EVERY_LAUNCH},
    {"sm__ops_path_tensor_src_fp8.sum", "tensor_ops_fp8",
     "tensor FLOPs with fp8 sources (wgmma QGMMA and mma.sync)",
     GM_SUM_ADD, GM_Q_EVENTS, "", GM_EVERY_LAUNCH},
    {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum", "tensor_ops_hmma_fp16",
     "tensor FLOPs of mma.sync (HMMA) with fp16 sources and fp32 accumulators",
     GM_SUM_ADD, GM_Q_EVENTS, "", GM_PER_SHAPE},
    {"sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum", "tensor_ops_hmma_bf16",
     "tensor FLOPs of mma.sync (HMMA) with bf16 sources",
     GM_SUM_ADD, GM_Q_EVENTS, "", GM_PER_SHAPE},
    {"sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32.sum", "tensor_ops_hmma_tf32",
     "tensor FLOPs of mma.sync (HMMA) with tf32 sources",
     GM_SUM_ADD, GM_Q_EVENTS, "", GM_PER_SHAPE},
    {"sm__ops_path_tensor_op_imma_src_int8.sum", "tensor_ops_imma_int8",
     "tensor operations of mma.sync (IMMA) with int8 sources",
     GM_SUM_ADD, GM_Q_EVENTS, "", GM_PER_SHAPE},
};

size_t gm_metric_count(void)
{
    return sizeof gm_metric_table / sizeof gm_metric_table[0];
}

int gm_metric_is_instrumented(const char *name)
{
    return name && strstr(name, "__sass_") != NULL;
}

/* Names and short column names to rows, hashed once: readers look metrics
 * up by name for every launch (the bottleneck unit reads 20 a launch), and
 * a scan of the table's 2 x 160 strings took 8% of gpuq model's time on
 * 100,000 launches.  A name is stored once, with the first row that has it
 * as either, which is what a scan in table order finds. */
#define FIND_SLOTS 1024 /* a power of two, over 3x the names */
static struct {
    const char *key;
    int row;
} find_slots[FIND_SLOTS];
static pthread_once_t find_once = PTHREAD_ONCE_INIT;

static size_t name_hash(const char *s)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)(h & (FIND_SLOTS - 1));
}

static void find_put(const char *key, int row)
{
    size_t i = name_hash(key);
    while (find_slots[i].key && strcmp(find_slots[i].key, key) != 0)
        i = (i + 1) & (FIND_SLOTS - 1);
    if (!find_slots[i].key) {
        find_slots[i].key = key;
        find_slots[i].row = row;
    }
}

static void build_find(void)
{
    for (size_t i = 0; i < gm_metric_count(); i++) {
        find_put(gm_metric_table[i].name, (int)i);
        find_put(gm_metric_table[i].column, (int)i);
    }
}

int gm_metric_find(const char *name)
{
    if (!name)
        return -1;
    pthread_once(&find_once, build_find);
    for (size_t i = name_hash(name); find_slots[i].key; i = (i + 1) & (FIND_SLOTS - 1))
        if (strcmp(find_slots[i].key, name) == 0)
            return find_slots[i].row;
    return -1;
}

char *gm_metric_list(const int *rows, size_t n_rows, char *buf, size_t len)
{
    if (!buf || len == 0)
        return NULL;
    size_t n = rows ? n_rows : gm_metric_count(), used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int r = rows ? rows[i] : (int)i;
        if (r < 0 || (size_t)r >= gm_metric_count())
            return NULL;
        const char *name = gm_metric_table[r].name;
        size_t l = strlen(name);
        if (used + (i ? 1 : 0) + l + 1 > len)
            return NULL;
        if (i)
            buf[used++] = ',';
        memcpy(buf + used, name, l + 1);
        used += l;
    }
    return buf;
}

/* The whole table's list, built once: the collector reads it from any
 * thread. */
static char all_list[GM_METRIC_MAX * 80];
static pthread_once_t all_once = PTHREAD_ONCE_INIT;

static void build_all_list(void)
{
    if (!gm_metric_list(NULL, 0, all_list, sizeof all_list))
        all_list[0] = '\0';
}

const char *gm_metric_list_csv(void)
{
    pthread_once(&all_once, build_all_list);
    return all_list;
}
