/* The Zhang & Owens model on a hand-made machine (not a measurement): every
 * expected number below is worked out in the comment beside it.
 *
 * Machine: 1000 MHz (1 cycle = 1 ns), curves in warp-instructions (or
 * wavefronts) per clock per SM:
 *   fma   1 warp -> 1, 16 warps -> 4        alu  1 -> 0.5, 16 -> 2
 *   xu    0.5 flat                         issue 1 -> 1, 16 -> 4
 *   shared copy 1 -> 0.25, 16 -> 1, 32 -> 1
 *   global (GB/s = B/ns): dram ld/st 4 B: (2 blocks, 128 threads, 1) 100,
 *   (64, 256, 4) 1000; l2 ld/st (64, 256, 4) 2000; an empty launch 1000 ns.
 * Launch on 2 SMs: 64 blocks of 256 threads, 16 warps per SM. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "papers/bottleneck/bottleneck_model.h"
#include "test_helpers.h"

static void near_at(double got, double want, int line)
{
    if (!(fabs(got - want) <= 1e-9 * fmax(1, fabs(want)))) {
        print_error("line %d: got %.17g, want %.17g\n", line, got, want);
        fail();
    }
}
#define near(got, want) near_at((double)(got), (double)(want), __LINE__)

static gm_mdata *machine_data(void)
{
    gm_mdata_meta meta = th_meta("throughput", "test GPU", 2, "");
    meta.sm_clock_mhz = 1000;
    const char *cols[] = {"kind", "name", "bytes", "ways", "warps", "blocks",
                          "threads", "per_thread", "value", "spread", "sass"};
    gm_mdata *md = gm_mdata_new(&meta, 11, cols);
    assert_non_null(md);
    static const char *const rows[][11] = {
        {"inst", "fma", "0", "0", "1", "0", "0", "0", "1", "0", "FFMA"},
        {"inst", "fma", "0", "0", "16", "0", "0", "0", "4", "0", "FFMA"},
        {"inst", "alu", "0", "0", "16", "0", "0", "0", "2", "0", "LOP3"},
        {"inst", "alu", "0", "0", "1", "0", "0", "0", "0.5", "0", "LOP3"},
        {"inst", "xu", "0", "0", "1", "0", "0", "0", "0.5", "0", "MUFU"},
        {"issue", "issue", "0", "0", "1", "0", "0", "0", "1", "0", ""},
        {"issue", "issue", "0", "0", "16", "0", "0", "0", "4", "0", ""},
        {"shared", "copy", "4", "1", "1", "0", "0", "0", "0.25", "0", "LDS"},
        {"shared", "copy", "4", "1", "16", "0", "0", "0", "1", "0", "LDS"},
        {"shared", "copy", "4", "1", "32", "0", "0", "0", "1", "0", "LDS"},
        {"global", "dram_ld", "4", "0", "0", "2", "128", "1", "100", "0", "LDG"},
        {"global", "dram_ld", "4", "0", "0", "64", "256", "4", "1000", "0", "LDG"},
        {"global", "dram_st", "4", "0", "0", "2", "128", "1", "100", "0", "STG"},
        {"global", "dram_ld", "4", "0", "0", "2", "128", "16", "400", "0", "LDG"},
        {"global", "dram_st", "4", "0", "0", "64", "256", "4", "1000", "0", "STG"},
        {"global", "l2_ld", "4", "0", "0", "64", "256", "4", "2000", "0", "LDG"},
        {"global", "l2_st", "4", "0", "0", "64", "256", "4", "2000", "0", "STG"},
        {"launch", "queued", "0", "0", "0", "0", "0", "0", "700", "0", ""},
        {"launch", "graph", "0", "0", "0", "0", "0", "0", "600", "0", ""},
        {"launch", "graph_gap", "0", "0", "0", "0", "0", "0", "500", "0", ""},
        {"launch", "empty", "0", "0", "0", "0", "0", "0", "1000", "0", ""},
    };
    gm_error err;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(gm_mdata_add_row(md, rows[i], &err), GM_OK);
    return md;
}

static gm_bottleneck_machine mach;

static int setup(void **state)
{
    (void)state;
    gm_mdata *md = machine_data();
    gm_error err;
    gm_status st = gm_bottleneck_machine_from_mdata(md, &mach, &err);
    gm_mdata_free(md);
    return st == GM_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gm_bottleneck_machine_free(&mach);
    return 0;
}

/* fma 8000, alu 4000 (12000 in all); shared 3200 wavefronts, 800 without
 * conflicts; 2048 global loads = 4 per warp of 4-byte coalesced words
 * (8192 sectors); 1e6 bytes from DRAM and from L2. */
static gm_bottleneck_launch base_launch(void)
{
    gm_bottleneck_launch l;
    gm_bottleneck_launch_init(&l);
    l.inst[GM_BOTTLENECK_FMA] = 8000;
    l.inst[GM_BOTTLENECK_ALU] = 4000;
    l.inst_total = 12000;
    l.shared_wavefronts = 3200;
    l.shared_ideal = 800;
    l.global_inst = 2048;
    l.global_sectors = 8192;
    l.global_sectors_ideal = 8192;
    l.dram_read_bytes = 1e6;
    l.l2_read_bytes = 1e6;
    l.warps_per_sm = 16;
    l.blocks = 64;
    l.threads_per_block = 256;
    return l;
}

static void curves(void **state)
{
    (void)state;
    near(gm_bottleneck_curve_at(&mach.inst[GM_BOTTLENECK_FMA], 8.5), 2.5); /* 1 + 7.5/15 x 3 */
    near(gm_bottleneck_curve_at(&mach.inst[GM_BOTTLENECK_FMA], 0.5), 1); /* clamped */
    near(gm_bottleneck_curve_at(&mach.inst[GM_BOTTLENECK_FMA], 64), 4);
    /* rows given out of order */
    near(gm_bottleneck_curve_at(&mach.inst[GM_BOTTLENECK_ALU], 1), 0.5);
    assert_true(mach.shared.n == 3 && mach.shared_k[1].n == 0);
    assert_true(isnan(gm_bottleneck_curve_at(&mach.inst[GM_BOTTLENECK_FP64], 4)));
    near(gm_bottleneck_global_bw(&mach, 0, 0, 4, 64, 256, 4), 1000);
    near(gm_bottleneck_global_bw(&mach, 0, 0, 4, 3, 100, 1), 100); /* nearest in log space */
    near(gm_bottleneck_global_bw(&mach, 0, 0, 16, 64, 256, 4), 1000); /* closest bytes: 4 */
    near(mach.launch_ns, 1000); /* the back-to-back row, not the queued or graph ones */
    near(mach.queued_ns, 700);
    near(mach.graph_ns, 600);
    near(mach.graph_gap_ns, 500);
    assert_int_equal(gm_bottleneck_pipe_find("xu"), GM_BOTTLENECK_XU);
    assert_int_equal(gm_bottleneck_pipe_find("tensor"), -1);
}

/* Paper form: t_fma = 8000 / (4 x 2 SMs) = 1000 ns, t_alu = 4000 / (2 x 2)
 * = 1000, summed 2000; shared 3200 / (1 x 2) = 1600; global: 2048 / (64 x
 * 8 warps) = 4 per thread, shape (64, 256, 4): DRAM 1e6 / 1000 = 1000 ns,
 * L2 1e6 / 2000 = 500, so 1000.  Bottleneck: instructions, 2000 ns; next
 * shared, 2000 / 1600 = 1.25. */
static void paper_form(void **state)
{
    (void)state;
    gm_bottleneck_launch l = base_launch();
    gm_bottleneck_result r;
    gm_error err;
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_PAPER, 2, &l, &r, &err), GM_OK);
    near(r.t_pipe[GM_BOTTLENECK_FMA], 1000);
    near(r.t_pipe[GM_BOTTLENECK_ALU], 1000);
    near(r.t[GM_BOTTLENECK_INST], 2000);
    near(r.t[GM_BOTTLENECK_SHARED], 1600);
    near(r.t[GM_BOTTLENECK_GLOBAL], 1000);
    near(r.t_launch, 0);
    assert_int_equal(r.bottleneck, GM_BOTTLENECK_INST);
    assert_int_equal(r.next, GM_BOTTLENECK_SHARED);
    near(r.predicted, 2000);
    near(r.speedup_next, 1.25);
    assert_int_equal(r.causes, 0); /* 2/3 compute, fma binds at its best rate */
    /* An untimed pipe runs at the issue rate: 800 LSU / (4 x 2) = 100 more. */
    l.inst[GM_BOTTLENECK_LSU] = 800;
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_PAPER, 2, &l, &r, &err), GM_OK);
    near(r.t[GM_BOTTLENECK_INST], 2100);
}

/* Hopper form: the pipes overlap, the issue rate binds: max(1000, 1000,
 * 12000 / (4 x 2) = 1500) = 1500; shared 1600 now binds: 1000 + 1600 =
 * 2600 ns, next the instructions, 2600 / 2500 = 1.04.  Causes: 3200 > 1.1 x
 * 800 bank conflicts; the 800 ideal wavefronts are under 8000 compute
 * instructions (no bookkeeping); S(16) is the best (not too few warps). */
static void hopper_form(void **state)
{
    (void)state;
    gm_bottleneck_launch l = base_launch();
    gm_bottleneck_result r;
    gm_error err;
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_HOPPER, 2, &l, &r, &err), GM_OK);
    near(r.t_issue, 1500);
    near(r.t[GM_BOTTLENECK_INST], 1500);
    assert_int_equal(r.bottleneck, GM_BOTTLENECK_SHARED);
    assert_int_equal(r.next, GM_BOTTLENECK_INST);
    near(r.predicted, 2600);
    near(r.speedup_next, 2600.0 / 2500.0);
    assert_int_equal(r.causes, GM_BOTTLENECK_CAUSE_CONFLICTS);
    char buf[128];
    gm_bottleneck_causes_text(r.causes | GM_BOTTLENECK_CAUSE_FEW_WARPS, buf, sizeof buf);
    assert_string_equal(buf, "too few warps, bank conflicts");

    /* One warp per SM: fma 8000 / (1 x 2) = 4000, alu 4000 / (0.5 x 2) =
     * 4000, issue 12000 / 2 = 6000; shared 3200 / (0.25 x 2) = 6400 binds:
     * 7400 ns, conflicts and too few warps. */
    l.warps_per_sm = 1;
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_HOPPER, 2, &l, &r, &err), GM_OK);
    near(r.t[GM_BOTTLENECK_INST], 6000);
    near(r.predicted, 7400);
    assert_int_equal(r.causes, GM_BOTTLENECK_CAUSE_CONFLICTS | GM_BOTTLENECK_CAUSE_FEW_WARPS);
}

/* What-ifs in the Hopper form: without conflicts shared is 800 / 2 = 400,
 * the instructions bind: 1000 + 1500 = 2500, 2600 / 2500 = 1.04.  More
 * warps (64) changes nothing: every curve is flat past 16. */
static void whatifs(void **state)
{
    (void)state;
    gm_bottleneck_launch l = base_launch();
    gm_bottleneck_whatif w;
    gm_error err;
    assert_int_equal(gm_bottleneck_whatif_all(&mach, GM_BOTTLENECK_HOPPER, 2, &l, 0, &w, &err),
                     GM_OK);
    near(w.t_no_conflicts, 2500);
    near(w.speedup_no_conflicts, 1.04);
    near(w.more_warps, 64);
    near(w.speedup_more_warps, 1);
    near(w.speedup_coalesced, 1); /* already coalesced */
    /* From 4 warps per SM (fma 1 + 3/15 x 3 = 1.6 ...) to 16: shared at 4
     * warps 0.25 + 3/15 x 0.75 = 0.4, 3200 / 0.8 = 4000, +1000 = 5000;
     * at 16 it is 2600: 5000 / 2600. */
    l.warps_per_sm = 4;
    assert_int_equal(gm_bottleneck_whatif_all(&mach, GM_BOTTLENECK_HOPPER, 2, &l, 16, &w, &err),
                     GM_OK);
    near(w.speedup_more_warps, 5000.0 / 2600.0);
}

/* A streaming launch: 1e7 bytes from DRAM / 1000 = 10000 ns, L2 1e7 / 2000
 * = 5000: global binds, 11000 ns (Hopper form).  Twice the ideal sectors:
 * uncoalesced; perfect coalescing halves the bytes: 1000 + 5000 = 6000. */
static void global_bound(void **state)
{
    (void)state;
    gm_bottleneck_launch l = base_launch();
    l.dram_read_bytes = l.l2_read_bytes = 1e7;
    l.global_sectors = 16384;
    gm_bottleneck_result r;
    gm_bottleneck_whatif w;
    gm_error err;
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_HOPPER, 2, &l, &r, &err), GM_OK);
    assert_int_equal(r.bottleneck, GM_BOTTLENECK_GLOBAL);
    near(r.predicted, 11000);
    assert_int_equal(r.causes, GM_BOTTLENECK_CAUSE_UNCOALESCED);
    assert_int_equal(gm_bottleneck_whatif_all(&mach, GM_BOTTLENECK_HOPPER, 2, &l, 0, &w, &err),
                     GM_OK);
    near(w.t_coalesced, 6000);
    near(w.speedup_coalesced, 11000.0 / 6000.0);
    /* Two blocks of 128 threads, one load each: the (2, 128, 1) point, 100
     * GB/s (paper form: the synthetic kernel's time as it is): 1e7 / 100 =
     * 1e5 ns, too little parallelism; the shape uses 2 SMs of 2 and 4 warps
     * per SM (ceil(2 / 2) x 4).  The Hopper form takes the launch (1000 ns)
     * out of the synthetic time, 1024 B / 100 GB/s = 10 ns: nothing is left,
     * so the table's best, 1000 GB/s: 1e4 ns. */
    l.blocks = 2;
    l.threads_per_block = 128;
    l.global_inst = 8;
    l.global_sectors = l.global_sectors_ideal = 32;
    l.warps_per_sm = NAN;
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_PAPER, 2, &l, &r, &err), GM_OK);
    near(r.warps, 4);
    near(r.t[GM_BOTTLENECK_GLOBAL], 1e5);
    assert_int_equal(r.causes, GM_BOTTLENECK_CAUSE_LOW_PARALLEL);
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_HOPPER, 2, &l, &r, &err), GM_OK);
    near(r.t[GM_BOTTLENECK_GLOBAL], 1e4);
}

/* The counts of n identical launches added up (gpuq model --summary),
 * told launches = n: n times the time of one, launch terms included (Hopper
 * form: 2600 x 3), and the global shape is still one launch's.  The small
 * launch reads 2 words per thread, nearest the (2, 128, 1) point (100 GB/s,
 * paper form: 1e6 / 100 = 1e4 ns); taken as 6 per thread it would sit
 * nearest the (2, 128, 16) one (400 GB/s). */
static gm_bottleneck_launch times(gm_bottleneck_launch l, double n)
{
    for (int p = 0; p < GM_BOTTLENECK_PIPES; p++)
        l.inst[p] *= n;
    l.inst_total *= n;
    l.shared_wavefronts *= n;
    l.shared_ideal *= n;
    l.global_inst *= n;
    l.global_sectors *= n;
    l.global_sectors_ideal *= n;
    l.dram_read_bytes *= n;
    l.l2_read_bytes *= n;
    l.launches = n;
    return l;
}

static void summed_launches(void **state)
{
    (void)state;
    gm_bottleneck_launch small = base_launch();
    small.blocks = 2;
    small.threads_per_block = 128;
    small.global_inst = 16;
    small.global_sectors = small.global_sectors_ideal = 64;
    small.l2_read_bytes = NAN;
    gm_bottleneck_launch cases[2] = {base_launch(), small};
    gm_bottleneck_result one, sum;
    gm_error err;
    for (int c = 0; c < 2; c++)
        for (int f = GM_BOTTLENECK_PAPER; f <= GM_BOTTLENECK_HOPPER; f++) {
            assert_int_equal(gm_bottleneck_predict(&mach, f, 2, &cases[c], &one, &err), GM_OK);
            gm_bottleneck_launch l3 = times(cases[c], 3);
            assert_int_equal(gm_bottleneck_predict(&mach, f, 2, &l3, &sum, &err), GM_OK);
            near(sum.predicted, 3 * one.predicted);
            near(sum.t_launch, 3 * one.t_launch);
            near(sum.t[GM_BOTTLENECK_GLOBAL], 3 * one.t[GM_BOTTLENECK_GLOBAL]);
        }
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_HOPPER, 2, &cases[0], &one, &err),
                     GM_OK);
    near(one.predicted, 2600);
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_PAPER, 2, &cases[1], &one, &err),
                     GM_OK);
    near(one.t[GM_BOTTLENECK_GLOBAL], 1e4);
}

/* MUFU at 0.5 per clock: 4000 / (0.5 x 2) = 4000 ns, the slowest pipe:
 * expensive instructions; 4000 of 16000 compute: low density too. */
static void expensive(void **state)
{
    (void)state;
    gm_bottleneck_launch l = base_launch();
    l.inst[GM_BOTTLENECK_FMA] = 4000;
    l.inst[GM_BOTTLENECK_XU] = 4000;
    l.inst_total = 16000 - 4000; /* fma 4000 + alu 4000 + xu 4000 */
    l.inst[GM_BOTTLENECK_ALU] = 4000;
    l.shared_wavefronts = l.shared_ideal = 0;
    gm_bottleneck_result r;
    gm_error err;
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_HOPPER, 2, &l, &r, &err), GM_OK);
    near(r.t_pipe[GM_BOTTLENECK_XU], 4000);
    assert_int_equal(r.bottleneck, GM_BOTTLENECK_INST);
    assert_int_equal(r.causes, GM_BOTTLENECK_CAUSE_EXPENSIVE | GM_BOTTLENECK_CAUSE_LOW_DENSITY);
}

/* The Hopper form's own curves: four-chain instruction rates and the shared
 * bandwidth at the launch's conflict degree (a machine with an "ilp"
 * column: fma ilp 4 at 1 warp -> 4; shared 4-way: 1 warp -> 1, 16 -> 2). */
static void hopper_curves(void **state)
{
    (void)state;
    gm_mdata_meta meta = th_meta("throughput", "test GPU", 2, "");
    meta.sm_clock_mhz = 1000;
    const char *cols[] = {"kind", "name", "bytes", "ways", "ilp", "warps", "blocks",
                          "threads", "per_thread", "value"};
    gm_mdata *md = gm_mdata_new(&meta, 10, cols);
    static const char *const rows[][10] = {
        {"inst", "fma", "0", "0", "1", "1", "0", "0", "0", "1"},
        {"inst", "fma", "0", "0", "1", "16", "0", "0", "0", "4"},
        {"inst", "fma", "0", "0", "4", "1", "0", "0", "0", "4"},
        {"issue", "issue", "0", "0", "3", "1", "0", "0", "0", "4"},
        {"shared", "copy", "4", "1", "1", "1", "0", "0", "0", "0.25"},
        {"shared", "copy", "4", "1", "1", "16", "0", "0", "0", "1"},
        {"shared", "copy", "4", "4", "1", "1", "0", "0", "0", "1"},
        {"shared", "copy", "4", "4", "1", "16", "0", "0", "0", "2"},
        {"global", "dram_ld", "4", "0", "1", "0", "64", "256", "4", "1000"},
    };
    gm_error err;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(gm_mdata_add_row(md, rows[i], &err), GM_OK);
    gm_bottleneck_machine m;
    assert_int_equal(gm_bottleneck_machine_from_mdata(md, &m, &err), GM_OK);
    gm_mdata_free(md);
    gm_bottleneck_launch l = base_launch();
    l.inst[GM_BOTTLENECK_ALU] = NAN;
    l.inst_total = 8000;
    l.dram_read_bytes = l.l2_read_bytes = 0;
    l.warps_per_sm = 1;
    gm_bottleneck_result r;
    /* 1 warp: paper fma 8000 / (1 x 2) = 4000; Hopper 8000 / (4 x 2) = 1000.
     * Shared, k = 3200 / 800 = 4: paper 3200 / (0.25 x 2) = 6400; Hopper at
     * the 4-way curve 3200 / (1 x 2) = 1600. */
    assert_int_equal(gm_bottleneck_predict(&m, GM_BOTTLENECK_PAPER, 2, &l, &r, &err), GM_OK);
    near(r.t_pipe[GM_BOTTLENECK_FMA], 4000);
    near(r.t[GM_BOTTLENECK_SHARED], 6400);
    assert_int_equal(gm_bottleneck_predict(&m, GM_BOTTLENECK_HOPPER, 2, &l, &r, &err), GM_OK);
    near(r.t_pipe[GM_BOTTLENECK_FMA], 1000);
    near(r.t[GM_BOTTLENECK_SHARED], 1600);
    /* k = 2^1.5: halfway in log2 between 1-way (1 at 16 warps) and 4-way (2)
     * is three quarters of the way from 2^0 to 2^2: 1.75; 2263 / 3.5. */
    l.warps_per_sm = 16;
    l.shared_wavefronts = 800 * pow(2, 1.5);
    assert_int_equal(gm_bottleneck_predict(&m, GM_BOTTLENECK_HOPPER, 2, &l, &r, &err), GM_OK);
    near(r.t[GM_BOTTLENECK_SHARED], l.shared_wavefronts / 3.5);
    gm_bottleneck_machine_free(&m);
}

static void bad_input(void **state)
{
    (void)state;
    gm_bottleneck_launch l = base_launch();
    gm_bottleneck_result r;
    gm_error err;
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_HOPPER, 0, &l, &r, &err),
                     GM_ERR_INVALID_ARG);
    l.warps_per_sm = NAN;
    l.blocks = NAN;
    assert_int_equal(gm_bottleneck_predict(&mach, GM_BOTTLENECK_HOPPER, 2, &l, &r, &err),
                     GM_ERR_INVALID_ARG);
    /* A file without the shared curve is refused with a message. */
    gm_mdata_meta meta = th_meta("throughput", "test GPU", 2, "");
    meta.sm_clock_mhz = 1000;
    const char *cols[] = {"kind", "name", "bytes", "ways", "warps", "blocks",
                          "threads", "per_thread", "value"};
    gm_mdata *md = gm_mdata_new(&meta, 9, cols);
    const char *row[] = {"issue", "issue", "0", "0", "1", "0", "0", "0", "1"};
    assert_int_equal(gm_mdata_add_row(md, row, &err), GM_OK);
    gm_bottleneck_machine m2;
    assert_int_equal(gm_bottleneck_machine_from_mdata(md, &m2, &err), GM_ERR_MISSING);
    const char *neg[] = {"inst", "fma", "0", "0", "4", "0", "0", "0", "-1"};
    assert_int_equal(gm_mdata_add_row(md, neg, &err), GM_OK);
    assert_int_equal(gm_bottleneck_machine_from_mdata(md, &m2, &err), GM_ERR_RANGE);
    gm_mdata_free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(curves),       cmocka_unit_test(paper_form),
        cmocka_unit_test(hopper_form),  cmocka_unit_test(whatifs),
        cmocka_unit_test(global_bound), cmocka_unit_test(expensive),
        cmocka_unit_test(hopper_curves), cmocka_unit_test(bad_input),
        cmocka_unit_test(summed_launches),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
