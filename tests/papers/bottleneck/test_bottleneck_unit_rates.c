/* The units' measured rates in the bottleneck unit (bottleneck_units.h, the
 * suite "units" of bottleneck_unit_rows.h) on the 2-SM test GPU at 1 GHz
 * (test_helpers.h: throughput DRAM 1000 GB/s, L2 2000 GB/s, issue 4 per
 * clock per SM) with a hand-made units file: component time = work / the
 * measured rate, the tensor pipe's FLOPs by type, L2 and DRAM by the best
 * load and store rates of either suite, TMA bytes, the throughput suite's
 * issue rate;
 * the busy-cycle fallback where a rate or a counter is missing; the rows'
 * table itself. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "papers/bottleneck/bottleneck_unit_rows.h"
#include "papers/bottleneck/bottleneck_units.h"
#include "gpuq/metrics.h"
#include "gpuq/unit.h"
#include "test_helpers.h"

extern const gm_unit gm_unit_bottleneck;

/* units.csv of the test GPU, best points (by construction, not measured):
 * wgmma bf16 2000 FLOP per clock per SM (a slower point of 1500 beside it),
 * mma.sync bf16 1000, fp8 4000 by wgmma and 1000 by mma.sync; L2 loads
 * 4000 GB/s and stores 1000, DRAM 500 and 1250, TMA 3000 from L2 and 2000
 * from DRAM. */
static gm_mdata *units_md(void)
{
    gm_mdata_meta meta = th_meta("units", "test GPU", 2, "");
    meta.sm_clock_mhz = 1000;
    const char *cols[] = {"kind", "name", "warps", "bytes_in_flight", "value", "rate",
                          "clock_mhz"};
    gm_mdata *md = gm_mdata_new(&meta, 7, cols);
    static const char *const rows[][7] = {
        {"device", "l2_bytes", "0", "0", "1048576", "nan", "nan"},
        {"tensor", "gmma_bf16_ss", "4", "0", "1500", "3000", "1000"},
        {"tensor", "gmma_bf16_ss", "16", "0", "2000", "4000", "1000"},
        {"tensor", "hmma_bf16", "16", "0", "1000", "2000", "1000"},
        {"tensor", "gmma_e4m3_ss", "16", "0", "4000", "8000", "1000"},
        {"tensor", "hmma_e4m3", "16", "0", "1000", "2000", "1000"},
        {"tensor", "some_future_row", "16", "0", "9000", "18000", "1000"},
        {"memory", "l2_ld", "32", "65536", "2000", "4000", "1000"},
        {"memory", "l2_st", "32", "65536", "500", "1000", "1000"},
        {"memory", "dram_ld", "32", "65536", "250", "500", "1000"},
        {"memory", "dram_st", "32", "65536", "625", "1250", "1000"},
        {"memory", "tma_l2_ld", "1", "65536", "1500", "3000", "1000"},
        {"memory", "tma_dram_ld", "1", "65536", "1000", "2000", "1000"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(gm_mdata_add_row(md, rows[i], NULL), GM_OK);
    return md;
}

static gm_machine mach, bare;

static int setup(void **state)
{
    (void)state;
    th_machine_with(&mach, "throughput", th_throughput_test_gpu(0));
    mach.n_files = 2;
    snprintf(mach.files[1].suite, sizeof mach.files[1].suite, "units");
    mach.files[1].md = units_md();
    th_machine_with(&bare, "throughput", th_throughput_test_gpu(0));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gm_mdata_free(mach.files[0].md);
    gm_mdata_free(mach.files[1].md);
    gm_mdata_free(bare.files[0].md);
    return 0;
}

/* A wgmma GEMM of 64 blocks of 256 threads, 2500 ns at 1 GHz: 4.6e6 bf16
 * FLOPs (1150 ns at 2000 FLOP/clk/SM on 2 SMs), the tensor pipe busy 2300
 * cycles on the busiest SM; every other tensor counter of the default set 0. */
static void launch(gm_launch_counters *k)
{
    gm_launch_counters_init(k);
    k->grid[0] = 64, k->grid[1] = k->grid[2] = 1;
    k->block[0] = 256, k->block[1] = k->block[2] = 1;
    th_set_metric(k, "smsp__inst_executed.sum", 12000);
    th_set_metric(k, "smsp__inst_executed_pipe_fma.sum", 8000);
    th_set_metric(k, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", 800);
    th_set_metric(k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 0);
    th_set_metric(k, "smsp__inst_executed_op_global_ld.sum", 2048);
    th_set_metric(k, "smsp__inst_executed_op_global_st.sum", 0);
    th_set_metric(k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 8192);
    th_set_metric(k, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0);
    th_set_metric(k, "dram__bytes_read.sum", 1e5);
    th_set_metric(k, "dram__bytes_write.sum", 0);
    th_set_metric(k, "lts__t_sectors_op_read.sum", 1e5 / 32);
    th_set_metric(k, "lts__t_sectors_op_write.sum", 0);
    th_set_metric(k, "lts__t_sectors.sum", 1e5 / 32);
    th_set_metric(k, "sm__warps_active.avg.pct_of_peak_sustained_active", 25);
    th_set_metric(k, "gpu__time_duration.sum", 2500);
    th_set_metric(k, "sm__cycles_elapsed.avg", 2500);
    th_set_metric(k, "sm__pipe_tensor_cycles_active.max", 4 * 2300); /* 4 sub-partitions: 2300 cycles */
    th_set_metric(k, "sm__pipe_tensor_cycles_active.sum", 4 * 4400);
    th_set_metric(k, "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", 4.6e6);
    th_set_metric(k, "sm__ops_path_tensor_op_hgmma_src_fp16.sum", 0);
    th_set_metric(k, "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum", 0);
    th_set_metric(k, "sm__ops_path_tensor_op_igmma_src_int8.sum", 0);
    th_set_metric(k, "sm__ops_path_tensor_src_fp8.sum", 0);
}

/* mma.sync's FLOP counters, collected when named: all zero here. */
static void opt_in(gm_launch_counters *k)
{
    for (int i = 0; i < GM_BOTTLENECK_UNITS_N_TENSOR; i++)
        if (!isfinite(k->metric[gm_metric_find(gm_bottleneck_units_tensor_row_metric(i))]))
            th_set_metric(k, gm_bottleneck_units_tensor_row_metric(i), 0);
}

typedef struct out {
    void *st, *res;
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t n;
    gm_unit_verdict v;
} out;

static void run(gm_machine *m, const char *variant, gm_launch_counters *k, out *o)
{
    const gm_unit *u = &gm_unit_bottleneck;
    gm_error err;
    if (u->prepare(m, variant, &o->st, &err) != GM_OK)
        fail_msg("prepare: %s", err.msg);
    o->res = calloc(1, u->result_size);
    gm_counters_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.sm_count = 2;
    meta.max_warps_per_sm = 64;
    assert_int_equal(u->apply(o->st, &meta, k, o->res, &err), GM_OK);
    o->n = u->fields(o->st, o->res, o->f, GM_UNIT_MAX_FIELDS);
    u->verdict(o->st, o->res, &o->v);
}

static void done(out *o, gm_launch_counters *k)
{
    free(o->res);
    gm_unit_bottleneck.release(o->st);
    gm_launch_counters_clear(k);
}

static const gm_field *field(const out *o, const char *name)
{
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->f[i].name, name) == 0)
            return &o->f[i];
    fail_msg("no field %s", name);
    return NULL;
}

static double num(const out *o, const char *name)
{
    return field(o, name)->num;
}

static const char *text(const out *o, const char *name)
{
    const gm_field *f = field(o, name);
    return f->text ? f->text : "";
}

static void near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * fmax(1, fabs(want))))
        fail_msg("got %.17g, want %.17g", got, want);
}

/* Every FLOP counter collected (mma.sync's named): the tensor pipe is its
 * FLOPs over the best wgmma bf16 point, 4.6e6 / (2000 x 2 SMs x 1 GHz) =
 * 1150 ns, 46% of the 2500 ns measured, whatever its busy cycles say. */
static void tensor_flops(void **state)
{
    (void)state;
    gm_launch_counters k;
    launch(&k);
    opt_in(&k);
    out o;
    run(&mach, NULL, &k, &o);
    near(num(&o, "tensor_us"), 1.15);
    near(num(&o, "tensor_use"), 0.46);
    near(num(&o, "tensor_flop_use"), 0.46);
    assert_string_equal(text(&o, "tensor_from"), "flops");
    done(&o, &k);
    /* mma.sync bf16 FLOPs join at their own rate, 1000: 1e6 more FLOPs are
     * 500 ns more */
    launch(&k);
    opt_in(&k);
    th_set_metric(&k, "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum", 1e6);
    run(&mach, NULL, &k, &o);
    near(num(&o, "tensor_us"), 1.65);
    done(&o, &k);
    /* fp8: wgmma and mma.sync share one counter, timed at the best of their
     * rates (4000): 8e6 FLOPs are 1000 ns, not 4000 */
    launch(&k);
    opt_in(&k);
    th_set_metric(&k, "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", 0);
    th_set_metric(&k, "sm__ops_path_tensor_src_fp8.sum", 8e6);
    run(&mach, NULL, &k, &o);
    near(num(&o, "tensor_us"), 1.0);
    done(&o, &k);
}

/* The default set (no mma.sync FLOPs): their work is unknown, so the tensor
 * pipe is the larger of its FLOP time (1150 ns) and its busy time (2300):
 * busy, with the FLOP share beside it; where the FLOPs take longer than the
 * busy cycles, the FLOPs. */
static void tensor_default_set(void **state)
{
    (void)state;
    gm_launch_counters k;
    launch(&k);
    out o;
    run(&mach, NULL, &k, &o);
    near(num(&o, "tensor_us"), 2.3);
    assert_string_equal(text(&o, "tensor_from"), "busy");
    near(num(&o, "tensor_flop_use"), 0.46);
    assert_string_equal(text(&o, "bottleneck"), "tensor");
    done(&o, &k);
    launch(&k);
    th_set_metric(&k, "sm__pipe_tensor_cycles_active.max", 4 * 1000);
    run(&mach, NULL, &k, &o);
    near(num(&o, "tensor_us"), 1.15);
    assert_string_equal(text(&o, "tensor_from"), "flops");
    done(&o, &k);
}

/* A counter with work and no rate in the units file (wgmma fp16 was not
 * measured), or no units file at all: busy cycles alone, no FLOP share. */
static void tensor_unrated(void **state)
{
    (void)state;
    gm_launch_counters k;
    launch(&k);
    opt_in(&k);
    th_set_metric(&k, "sm__ops_path_tensor_op_hgmma_src_fp16.sum", 1e6);
    out o;
    run(&mach, NULL, &k, &o);
    near(num(&o, "tensor_us"), 2.3);
    assert_string_equal(text(&o, "tensor_from"), "busy");
    assert_true(isnan(num(&o, "tensor_flop_use")));
    done(&o, &k);
    launch(&k);
    opt_in(&k);
    run(&bare, NULL, &k, &o);
    near(num(&o, "tensor_us"), 2.3);
    assert_string_equal(text(&o, "tensor_from"), "busy");
    assert_true(isnan(num(&o, "tensor_flop_use")));
    done(&o, &k);
}

/* L2 and DRAM: each direction at the best rate any suite measured on that
 * memory.  L2 loads: the units suite's LSU rows (4000 GB/s; TMA 3000,
 * throughput 2000); L2 stores: the throughput suite's (2000, units 1000);
 * DRAM loads: the units suite's TMA rows (2000; throughput 1000, LSU 500);
 * DRAM stores: the units suite's (1250, throughput 1000).  Without the
 * units file, the throughput suite's (2000 and 1000 GB/s for every op). */
static void memories(void **state)
{
    (void)state;
    gm_launch_counters k;
    launch(&k);
    /* 1e6 bytes read and 5e5 written in L2, 5e5 more of other ops (atomics):
     * (1e6 + 5e5) / 4000 + 5e5 / 2000 = 625 ns; DRAM 6e6 / 2000 + 1e6 / 1250
     * = 3800 ns: longer than the kernel, a model error naming dram */
    th_set_metric(&k, "lts__t_sectors_op_read.sum", 1e6 / 32);
    th_set_metric(&k, "lts__t_sectors_op_write.sum", 5e5 / 32);
    th_set_metric(&k, "lts__t_sectors.sum", 2e6 / 32);
    th_set_metric(&k, "dram__bytes_read.sum", 6e6);
    th_set_metric(&k, "dram__bytes_write.sum", 1e6);
    out o;
    run(&mach, NULL, &k, &o);
    near(num(&o, "l2_us"), 0.625);
    assert_string_equal(text(&o, "l2_from"), "units+throughput");
    near(num(&o, "dram_us"), 3.8);
    assert_string_equal(text(&o, "dram_from"), "units");
    assert_string_equal(text(&o, "bottleneck"), "misfit");
    done(&o, &k);
    launch(&k);
    th_set_metric(&k, "lts__t_sectors_op_read.sum", 1e6 / 32);
    th_set_metric(&k, "lts__t_sectors_op_write.sum", 5e5 / 32);
    th_set_metric(&k, "lts__t_sectors.sum", 2e6 / 32);
    th_set_metric(&k, "dram__bytes_read.sum", 6e6);
    th_set_metric(&k, "dram__bytes_write.sum", 1e6);
    run(&bare, NULL, &k, &o);
    near(num(&o, "l2_us"), 1.5 / 2 + 0.5 / 2); /* 1.5e6 / 2000 + 5e5 / 2000 */
    assert_string_equal(text(&o, "l2_from"), "throughput");
    near(num(&o, "dram_us"), 7.0);
    assert_string_equal(text(&o, "dram_from"), "throughput");
    done(&o, &k);
    /* the SMs requested more than the L2 served (TMA multicast: one L2 read
     * for several SMs): the L2's own sectors count, 1e5 bytes read of the
     * fixture, not the 2e6 of 62500 L1 sectors */
    launch(&k);
    th_set_metric(&k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 62500);
    run(&mach, NULL, &k, &o);
    near(num(&o, "l2_us"), 0.025); /* 1e5 / 4000 */
    done(&o, &k);
}

/* A units file slower than the throughput suite on every LSU row (as the
 * H200's was, its loads 4 bytes wide) and with TMA rows: the LSU rows take
 * nothing from the throughput suite's rates, TMA's loads beat them where
 * faster.  L2 loads 3000 (TMA), stores 2000 (throughput); DRAM loads 1000
 * (throughput; TMA 800), stores 1000. */
static void memories_best_of_suites(void **state)
{
    (void)state;
    gm_mdata_meta meta = th_meta("units", "test GPU", 2, "");
    meta.sm_clock_mhz = 1000;
    const char *cols[] = {"kind", "name", "value", "rate", "clock_mhz"};
    gm_mdata *md = gm_mdata_new(&meta, 5, cols);
    static const char *const rows[][5] = {
        {"memory", "l2_ld", "500", "1000", "1000"},
        {"memory", "l2_st", "250", "500", "1000"},
        {"memory", "dram_ld", "250", "500", "1000"},
        {"memory", "dram_st", "125", "250", "1000"},
        {"memory", "tma_l2_ld", "1500", "3000", "1000"},
        {"memory", "tma_dram_ld", "400", "800", "1000"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(gm_mdata_add_row(md, rows[i], NULL), GM_OK);
    gm_machine m;
    th_machine_with(&m, "throughput", th_throughput_test_gpu(0));
    m.n_files = 2;
    snprintf(m.files[1].suite, sizeof m.files[1].suite, "units");
    m.files[1].md = md;
    gm_launch_counters k;
    launch(&k);
    th_set_metric(&k, "lts__t_sectors_op_read.sum", 3e6 / 32);
    th_set_metric(&k, "lts__t_sectors_op_write.sum", 1e6 / 32);
    th_set_metric(&k, "lts__t_sectors.sum", 4e6 / 32);
    th_set_metric(&k, "dram__bytes_read.sum", 1e6);
    th_set_metric(&k, "dram__bytes_write.sum", 5e5);
    out o;
    run(&m, NULL, &k, &o);
    near(num(&o, "l2_us"), 3e6 / 3000 / 1e3 + 1e6 / 2000 / 1e3); /* 1.5 us */
    assert_string_equal(text(&o, "l2_from"), "units+throughput");
    near(num(&o, "dram_us"), 1.5e6 / 1000 / 1e3);
    assert_string_equal(text(&o, "dram_from"), "throughput");
    done(&o, &k);
    gm_mdata_free(m.files[0].md);
    gm_mdata_free(md);
}

/* TMA: its load bytes over the best TMA rate (3000 GB/s) where the units
 * file has one and the L2 read every byte TMA delivered, busy cycles
 * without it or where TMA delivered more than the L2 read (multicast);
 * issue slots over the throughput suite's best issue rate. */
static void tma_and_issue(void **state)
{
    (void)state;
    gm_launch_counters k;
    launch(&k);
    th_set_metric(&k, "lts__t_sectors_op_read.sum", 3e6 / 32);
    th_set_metric(&k, "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum", 3e6);
    th_set_metric(&k, "sm__pipe_tma_cycles_active.max", 400);
    th_set_metric(&k, "sm__inst_issued.sum", 12000);
    out o;
    run(&mach, NULL, &k, &o);
    near(num(&o, "tma_us"), 1.0);
    assert_string_equal(text(&o, "tma_from"), "units");
    near(num(&o, "issue_slots_us"), 1.5); /* 12000 / (4 x 2) */
    assert_string_equal(text(&o, "issue_slots_from"), "throughput");
    done(&o, &k);
    launch(&k);
    th_set_metric(&k, "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum", 3e6);
    th_set_metric(&k, "sm__pipe_tma_cycles_active.max", 400);
    run(&bare, NULL, &k, &o);
    near(num(&o, "tma_us"), 0.4);
    assert_string_equal(text(&o, "tma_from"), "busy");
    done(&o, &k);
    /* multicast: 3e6 bytes delivered from 1.5e6 read by the L2 */
    launch(&k);
    th_set_metric(&k, "lts__t_sectors_op_read.sum", 1.5e6 / 32);
    th_set_metric(&k, "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum", 3e6);
    th_set_metric(&k, "sm__pipe_tma_cycles_active.max", 400);
    run(&mach, NULL, &k, &o);
    near(num(&o, "tma_us"), 0.4);
    assert_string_equal(text(&o, "tma_from"), "busy");
    done(&o, &k);
}

/* With L2 and DRAM timed at their own rates the prediction is the launch
 * term and the largest of the verdict's components: the LSU curve's global
 * part (here the longest, from 50x the sectors at 16 warps per SM) is not
 * one of them, and the tensor pipe's time is. */
static void prediction_of_the_units(void **state)
{
    (void)state;
    gm_launch_counters k;
    launch(&k);
    opt_in(&k);
    th_set_metric(&k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 50 * 8192);
    out o;
    run(&mach, NULL, &k, &o);
    static const char *const comps[] = {"inst_us", "shared_us", "tensor_us", "tma_us",
                                        "l2_us", "dram_us", "fma_pipe_us", "alu_pipe_us",
                                        "issue_slots_us"};
    double top = 0;
    for (size_t i = 0; i < sizeof comps / sizeof comps[0]; i++)
        if (isfinite(num(&o, comps[i])) && num(&o, comps[i]) > top)
            top = num(&o, comps[i]);
    assert_true(num(&o, "global_us") > top); /* the LSU curve's part, longest */
    assert_true(top > 0);
    near(num(&o, "predicted_us"), num(&o, "launch_us") + top);
    near(num(&o, "error"), (num(&o, "predicted_us") - 2.5) / 2.5);
    done(&o, &k);
}

/* The issue rate is the throughput suite's measured one, not four per clock:
 * a file whose best issue point is 3.2 times 12000 issued at 1875 ns. */
static void measured_issue_rate(void **state)
{
    (void)state;
    gm_machine m;
    gm_mdata *md = th_throughput_test_gpu(0);
    static const char *const slow[9] = {"issue", "issue", "0", "0", "16", "0", "0", "0", "3.2"};
    assert_int_equal(gm_mdata_add_row(md, slow, NULL), GM_OK); /* replaces the 4 at 16 warps */
    th_machine_with(&m, "throughput", md);
    gm_launch_counters k;
    launch(&k);
    th_set_metric(&k, "sm__inst_issued.sum", 12000);
    out o;
    run(&m, NULL, &k, &o);
    near(num(&o, "issue_slots_us"), 12000 / (3.2 * 2) / 1e3);
    done(&o, &k);
    gm_mdata_free(md);
}

/* The rates file: each row's best point, rows this build does not know left
 * alone, cells out of range refused. */
static void rates_file(void **state)
{
    (void)state;
    gm_bottleneck_units_rates r;
    gm_error err;
    assert_int_equal(gm_bottleneck_units_rates_from_mdata(mach.files[1].md, &r, &err), GM_OK);
    assert_true(r.have);
    near(r.tensor[GM_BOTTLENECK_UNITS_gmma_bf16_ss], 2000);
    near(r.tensor[GM_BOTTLENECK_UNITS_hmma_bf16], 1000);
    assert_true(isnan(r.tensor[GM_BOTTLENECK_UNITS_gmma_f16_ss]));
    near(r.memory_gbps[GM_BOTTLENECK_UNITS_l2_st], 1000);
    near(r.memory_gbps[GM_BOTTLENECK_UNITS_tma_dram_ld], 2000);
    gm_mdata_meta meta = th_meta("units", "test GPU", 2, "");
    meta.sm_clock_mhz = 1000;
    const char *cols[] = {"kind", "name", "value", "rate", "clock_mhz"};
    gm_mdata *bad = gm_mdata_new(&meta, 5, cols);
    const char *row[5] = {"tensor", "hmma_bf16", "-5", "1", "1000"};
    assert_int_equal(gm_mdata_add_row(bad, row, NULL), GM_OK);
    assert_int_equal(gm_bottleneck_units_rates_from_mdata(bad, &r, &err), GM_ERR_RANGE);
    gm_mdata_free(bad);
    /* a machine whose units file is bad: the section refuses it */
    gm_machine m = mach;
    gm_mdata *bad2 = gm_mdata_new(&meta, 5, cols);
    const char *row2[5] = {"memory", "l2_ld", "1", "0", "1000"};
    assert_int_equal(gm_mdata_add_row(bad2, row2, NULL), GM_OK);
    m.files[1].md = bad2;
    void *st = NULL;
    assert_int_not_equal(gm_unit_bottleneck.prepare(&m, NULL, &st, &err), GM_OK);
    gm_mdata_free(bad2);
}

/* The rows' table: every tensor row's counter a metric row, in the default
 * list or in no list (collected when named); FLOP = 2 M N K of its shape;
 * documented rates as published (bf16 and fp16 4096, tf32 2048, fp8 and
 * int8 8192). */
#define ROW_CHECK(id, type, form, arch, emul, k, acc, ptx, tail, flop, doc, metric, set, sass) \
    {#id, type, #form, arch, emul, k, flop, doc, metric, #set, sass, ptx},
static void rows_table(void **state)
{
    (void)state;
    static const struct {
        const char *id, *type, *form;
        int arch;
        unsigned emul;
        int k;
        double flop, doc;
        const char *metric, *set, *sass, *ptx;
    } rows[] = {GM_BOTTLENECK_UNITS_TENSOR_ROWS(ROW_CHECK)};
    assert_int_equal(sizeof rows / sizeof rows[0], GM_BOTTLENECK_UNITS_N_TENSOR);
    const gm_unit *u = &gm_unit_bottleneck;
    for (int i = 0; i < GM_BOTTLENECK_UNITS_N_TENSOR; i++) {
        assert_true(gm_metric_find(rows[i].metric) >= 0);
        assert_string_equal(gm_bottleneck_units_tensor_row_metric(i), rows[i].metric);
        int wgmma = strncmp(rows[i].form, "GMMA", 4) == 0;
        near(rows[i].flop, 2.0 * (wgmma ? 64 * 128 : 16 * 8) * rows[i].k);
        double doc = strcmp(rows[i].type, "tf32") == 0                                    ? 2048
                     : strcmp(rows[i].type, "fp8") == 0 || strcmp(rows[i].type, "int8") == 0 ? 8192
                                                                                          : 4096;
        near(rows[i].doc, doc);
        int in_default = 0, in_opt = 0;
        for (size_t j = 0; u->metrics[j]; j++)
            in_default |= strcmp(u->metrics[j], rows[i].metric) == 0;
        for (size_t j = 0; gm_bottleneck_units_metrics[j]; j++)
            in_opt |= strcmp(gm_bottleneck_units_metrics[j], rows[i].metric) == 0;
        assert_int_equal(in_default, strcmp(rows[i].set, "DEFAULT") == 0);
        assert_int_equal(in_opt, 0);
        assert_true(in_default || strcmp(rows[i].set, "NAMED") == 0);
        /* a row is native on its own architecture, and where it names a
         * family it is emulated on, that family is above its own */
        assert_true(GM_BOTTLENECK_UNITS_NATIVE(rows[i].arch, rows[i].emul, rows[i].arch));
        for (int major = 0; major <= rows[i].arch / 100; major++)
            assert_false(rows[i].emul >> major & 1u);
        /* the instruction and the SASS it must become have the row's shape:
         * wgmma m64n128k<k> as HGMMA/QGMMA/IGMMA.64x128x<k>, mma.sync
         * m16n8k<k> as HMMA/IMMA.168<k> (fp8 mma.sync: QMMA.16832, or the
         * f16 stand-in HMMA.16816 of the architectures it is left out on) */
        char shape[32], sass[32];
        snprintf(shape, sizeof shape, wgmma ? "m64n128k%d." : "m16n8k%d.", rows[i].k);
        assert_non_null(strstr(rows[i].ptx, shape));
        if (wgmma)
            snprintf(sass, sizeof sass, "%s.64x128x%d.",
                     strcmp(rows[i].type, "fp8") == 0    ? "QGMMA"
                     : strcmp(rows[i].type, "int8") == 0 ? "IGMMA"
                                                         : "HGMMA",
                     rows[i].k);
        else if (strcmp(rows[i].type, "fp8") == 0)
            snprintf(sass, sizeof sass, "QMMA.168%d.", rows[i].k);
        else
            snprintf(sass, sizeof sass, "%s.168%d.",
                     strcmp(rows[i].type, "int8") == 0 ? "IMMA" : "HMMA", rows[i].k);
        if (strncmp(rows[i].sass, sass, strlen(sass)) != 0)
            fail_msg("%s: SASS '%s' is not '%s...'", rows[i].id, rows[i].sass, sass);
        /* a row left out somewhere names its stand-in as the other choice */
        if (rows[i].emul && !strstr(rows[i].sass, "|HMMA.16816.F32"))
            fail_msg("%s: SASS '%s' names no stand-in", rows[i].id, rows[i].sass);
    }
    /* fp8 mma.sync: native on Ada (8.9) and 12.x, emulated on Hopper and
     * 10.x, so the suite measures it on no H100 or H200 */
    assert_true(GM_BOTTLENECK_UNITS_NATIVE(890, rows[GM_BOTTLENECK_UNITS_hmma_e4m3].emul, 890));
    assert_false(GM_BOTTLENECK_UNITS_NATIVE(890, rows[GM_BOTTLENECK_UNITS_hmma_e4m3].emul, 900));
    assert_false(GM_BOTTLENECK_UNITS_NATIVE(890, rows[GM_BOTTLENECK_UNITS_hmma_e4m3].emul, 1000));
    assert_true(GM_BOTTLENECK_UNITS_NATIVE(890, rows[GM_BOTTLENECK_UNITS_hmma_e4m3].emul, 1200));
    assert_false(GM_BOTTLENECK_UNITS_NATIVE(890, rows[GM_BOTTLENECK_UNITS_hmma_e4m3].emul, 800));
    assert_true(GM_BOTTLENECK_UNITS_NATIVE(rows[GM_BOTTLENECK_UNITS_gmma_e4m3_ss].arch, rows[GM_BOTTLENECK_UNITS_gmma_e4m3_ss].emul, 900));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tensor_flops),    cmocka_unit_test(tensor_default_set),
        cmocka_unit_test(tensor_unrated),  cmocka_unit_test(memories),
        cmocka_unit_test(memories_best_of_suites),
        cmocka_unit_test(tma_and_issue),   cmocka_unit_test(measured_issue_rate),
        cmocka_unit_test(prediction_of_the_units),
        cmocka_unit_test(rates_file),      cmocka_unit_test(rows_table),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
