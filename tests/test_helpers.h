/* Set-up the model tests repeated: the header of a machine-data file they
 * build, and the shipped table and recorded counters several tests read.
 * Header-only (static inline), so that a test takes it by including it;
 * include <cmocka.h> first. */
#ifndef GPUQ_TESTS_MODEL_TEST_HELPERS_H
#define GPUQ_TESTS_MODEL_TEST_HELPERS_H

#include <stdio.h>
#include <string.h>

#include "gpuq/counters.h"
#include "papers/waves/waves_model.h"
#include "gpuq/mdata.h"
#include "gpuq/metrics.h"
#include "papers/atomics/atomics_format.h"
#include "papers/atomics/atomics_table.h"
#include "gpuq/unit.h"

#define TH_H100 "NVIDIA H100 80GB HBM3"

/* One metric of a launch by its row's name; a name that is no row fails. */
static inline void th_set_metric(gm_launch_counters *k, const char *name, double v)
{
    int row = gm_metric_find(name);
    if (row < 0)
        fail_msg("%s is not a metric row", name);
    k->metric[row] = v;
}

/* A machine-data header of suite on a Hopper GPU (cc 9.0) named gpu with
 * sm_count SMs, dated date; every other field zero, for the test to set. */
static inline gm_mdata_meta th_meta(const char *suite, const char *gpu, int sm_count,
                                    const char *date)
{
    gm_mdata_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.suite, sizeof m.suite, "%s", suite);
    snprintf(m.gpu_name, sizeof m.gpu_name, "%s", gpu);
    m.cc_major = 9;
    m.sm_count = sm_count;
    snprintf(m.date, sizeof m.date, "%s", date);
    return m;
}

/* The registered unit `name`, checked: it exists, has this title, and
 * every metric it declares is a row of gpuq's table. */
/* Throughput machine data of the 2-SM test GPU at 1000 MHz: fma 4 and alu 2
 * per clock at 16 warps, issue 4, shared 1, DRAM 1000 and L2 2000 bytes per
 * clock, an empty launch of 1000 ns; fast_at_64 adds fma 8 at 64 warps. */
static inline gm_mdata *th_throughput_test_gpu(int fast_at_64)
{
    gm_mdata_meta meta = th_meta("throughput", "test GPU", 2, "");
    meta.sm_clock_mhz = 1000;
    const char *cols[] = {"kind", "name", "bytes", "ways", "warps", "blocks", "threads",
                          "per_thread", "value"};
    gm_mdata *md = gm_mdata_new(&meta, 9, cols);
    static const char *const rows[][9] = {
        {"inst", "fma", "0", "0", "16", "0", "0", "0", "4"},
        {"inst", "alu", "0", "0", "16", "0", "0", "0", "2"},
        {"issue", "issue", "0", "0", "16", "0", "0", "0", "4"},
        {"shared", "copy", "4", "1", "16", "0", "0", "0", "1"},
        {"global", "dram_ld", "4", "0", "0", "64", "256", "4", "1000"},
        {"global", "dram_st", "4", "0", "0", "64", "256", "4", "1000"},
        {"global", "l2_ld", "4", "0", "0", "64", "256", "4", "2000"},
        {"global", "l2_st", "4", "0", "0", "64", "256", "4", "2000"},
        {"launch", "empty", "0", "0", "0", "0", "0", "0", "1000"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(gm_mdata_add_row(md, rows[i], NULL), GM_OK);
    static const char *const fast[9] = {"inst", "fma", "0", "0", "64", "0", "0", "0", "8"};
    if (fast_at_64)
        assert_int_equal(gm_mdata_add_row(md, fast, NULL), GM_OK);
    return md;
}

static inline const gm_unit *th_unit(const char *name, const char *title)
{
    const gm_unit *u = gm_unit_find(name);
    assert_non_null(u);
    assert_string_equal(u->title, title);
    for (size_t i = 0; u->metrics[i]; i++)
        assert_true(gm_metric_find(u->metrics[i]) >= 0);
    return u;
}

/* A machine whose only machine data is md, suite's file (owned by m). */
static inline void th_machine_with(gm_machine *m, const char *suite, gm_mdata *md)
{
    memset(m, 0, sizeof *m);
    m->n_files = 1;
    snprintf(m->files[0].suite, sizeof m->files[0].suite, "%s", suite);
    m->files[0].md = md;
}

/* A machine with only the atomics table at path (relative to the source
 * tree) loaded. */
static inline void th_atomics_machine(gm_machine *m, const char *path)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", GPUQ_SOURCE_DIR, path);
    memset(m, 0, sizeof *m);
    gm_atomics_table *t = NULL;
    assert_int_equal(gm_atomics_table_load(full, &t, NULL), GM_OK);
    gm_mdata_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.gpu_name, sizeof meta.gpu_name, "%s", t->meta.gpu_name);
    meta.sm_count = t->meta.sm_count;
    assert_int_equal(gm_machine_adopt(m, "atomics", full, &meta, t, gm_atomics_format.free, NULL),
                     GM_OK);
}

/* The histogram's recorded counters on the H200 (data/recorded/), which the
 * shipped H200 table's tests run the atomics unit on. */
static inline void th_recorded_h200(gm_counters_set *set)
{
    assert_int_equal(
        gm_counters_load(GPUQ_SOURCE_DIR
                         "/data/recorded/histogram-hist-uniform-4m-nvidia-h200.counters.csv",
                         set, NULL),
        GM_OK);
    assert_true(set->count > 0);
}

/* One row of a sched machine-data file (columns of src/papers/waves/waves_suite.h:
 * kind, name, x, y, z, value, doc, extra, note). */
static inline void th_sched_row(gm_mdata *md, const char *kind, const char *name, const char *x,
                                const char *y, const char *z, const char *value,
                                const char *doc, const char *extra)
{
    const char *row[9] = {kind, name, x, y, z, value, doc, extra, ""};
    assert_int_equal(gm_mdata_add_row(md, row, NULL), GM_OK);
}

/* An N_slot point made by Eq. 3.3 from p, as the suite records it: the
 * co-resident total over n_mp SMs, the occupancy API's value (here Eq. 3.3's
 * own) beside it.  Nothing when one block does not fit. */
static inline void th_nslot_row(gm_mdata *md, const gm_waves_params *p, const char *name, int b,
                                long s, int r)
{
    int N = gm_waves_nslot(p, b, s, r, NULL);
    if (N <= 0)
        return;
    char bs[16], ss[32], rs[16], ns[16], ts[32];
    snprintf(bs, sizeof bs, "%d", b);
    snprintf(ss, sizeof ss, "%ld", s);
    snprintf(rs, sizeof rs, "%d", r);
    snprintf(ns, sizeof ns, "%d", N);
    snprintf(ts, sizeof ts, "%d", N * p->n_mp);
    th_sched_row(md, "nslot", name, bs, ss, rs, ns, ns, ts);
}

/* A sched machine-data file (paper 003) under meta with the raw rows the
 * loader derives an H100-like GPU from: L_T_B 1024, T(G) doubling past 132
 * blocks (Eq. 3.8), and N_slot points made by Eq. 3.3 (hopper form) from
 * N1 32, N2 64, S 233472 (s_min 128, 1024 reserved per block), R 65536
 * (r_min 256, 4 partitions) on 132 SMs: warp slots at b = 1..32, shared
 * memory around every edge, registers at b = 1..32. */
static inline gm_mdata *th_sched_h100(const gm_mdata_meta *meta)
{
    static const char *const cols[9] = {"kind", "name", "x", "y", "z",
                                        "value", "doc", "extra", "note"};
    gm_mdata *md = gm_mdata_new(meta, 9, cols);
    assert_non_null(md);
    th_sched_row(md, "param", "L_T_B", "", "", "", "1024", "", "");
    th_sched_row(md, "nmp", "ffma", "1", "32", "", "100", "", "");
    th_sched_row(md, "nmp", "ffma", "132", "32", "", "101", "", "");
    th_sched_row(md, "nmp", "ffma", "133", "32", "", "200", "", "");
    gm_waves_params hp = {.w = 32, .n_mp = 132, .N1 = 32, .N2 = 64, .S = 233472, .s_min = 128,
                          .s_res = 1024, .R = 65536, .r_min = 256, .r_parts = 4,
                          .form = GM_WAVES_FORM_HOPPER};
    for (int b = 1; b <= 32; b++)
        th_nslot_row(md, &hp, "wsb", b, 0, 16);
    for (int k = 1; k <= 32; k++) {
        long edge = 233472 / k - 1024;
        long ss[4] = {edge, edge - 64, edge - 200, edge + 1};
        for (int j = 0; j < 4; j++)
            if (ss[j] >= 1 && ss[j] <= 232448)
                th_nslot_row(md, &hp, "shm", 1, ss[j], 16);
    }
    static const int rs[] = {24, 32, 33, 40, 41, 48, 57, 64, 65, 72, 97, 128, 129, 168, 200, 255};
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
        for (int b = 1; b <= 32; b *= 2)
            th_nslot_row(md, &hp, "rf", b, 0, rs[i]);
    return md;
}

/* 1 when two results of unit u (state st) give the same fields, bit for
 * bit (numbers by their bytes, NaN included; texts by their characters),
 * and the same verdict: what a result kept across launches (core/memo.h)
 * must be to one computed. */
static inline int th_same_result(const gm_unit *u, const void *st, const void *a, const void *b)
{
    gm_field fa[GM_UNIT_MAX_FIELDS], fb[GM_UNIT_MAX_FIELDS];
    size_t na = u->fields(st, a, fa, GM_UNIT_MAX_FIELDS);
    size_t nb = u->fields(st, b, fb, GM_UNIT_MAX_FIELDS);
    if (na != nb || na == 0)
        return 0;
    for (size_t i = 0; i < na; i++) {
        if (strcmp(fa[i].name, fb[i].name) != 0 || fa[i].kind != fb[i].kind ||
            memcmp(&fa[i].num, &fb[i].num, sizeof fa[i].num) != 0 || !fa[i].text != !fb[i].text ||
            (fa[i].text && strcmp(fa[i].text, fb[i].text) != 0))
            return 0;
    }
    gm_unit_verdict va, vb;
    u->verdict(st, a, &va);
    u->verdict(st, b, &vb);
    return memcmp(&va.severity, &vb.severity, sizeof va.severity) == 0 &&
           strcmp(va.text, vb.text) == 0;
}

#endif
