/* Suite "sched": GPUDIAG's seven microbenchmarks (paper 003, Table 3.1)
 * plus Hopper's thread-block clusters, writing tables/<gpu>/sched.csv
 * (columns: waves_suite.h).  Kernels are PTX generated at run time
 * (waves_ptx.c) and JIT-compiled by the driver (waves_jit_cuda.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "waves_suite.h"

const char *const gb_waves_columns[GB_WAVES_NCOLS] = {"kind", "name", "x", "y", "z",
                                                      "value", "doc", "extra", "note"};

/* Every functional-unit kernel must repeat its instruction per_iter times
 * (the loop body; ptxas may unroll further).  Checked on the cubins the
 * driver JIT made (tests/bench/sched_sass.sh). */
static const gb_sass_expect sched_sass[] = {
    {"gd_fu_ffma", "FFMA", 128},
    {"gd_fu_fadd", "FADD", 128},
    {"gd_fu_iadd3", "IADD3", 128},
    {"gd_fu_imad", "IMAD", 128},
    {"gd_fu_lop3", "LOP3", 128},
    {"gd_fu_shf_wrap", "SHF", 128},
    {"gd_fu_mufu_rcp", "MUFU.RCP", 64},
    {"gd_fu_mufu_sin", "MUFU.SIN", 64},
    {"gd_fu_mufu_ex2", "MUFU.EX2", 64},
    {"gd_fu_dfma", "DFMA", 64},
    {"gd_fu_hfma2", "HFMA2", 128},
    {"gd_fu_shfl", "SHFL.BFLY", 64},
    {"gd_fu_lds", "LDS", 32},
    {"gd_fu_ldg", "LDG", 32},
    {"gd_fu_bra", "BRA", 64},
    {"gd_fu_atoms_add", "ATOMS.ADD", 32},
    {"gd_fu_atoms_popc", "ATOMS.POPC.INC", 32},
    {NULL, NULL, 0},
};

gm_status gb_waves_row(gb_waves_ctx *c, const char *kind, const char *name, double x, double y,
                       double z, double value, double doc, double extra, const char *note,
                       gm_error *err)
{
    char clean[256];
    /* the writer refuses a comma in a cell: notes read ';' instead */
    snprintf(clean, sizeof clean, "%s", note ? note : "");
    for (char *q = clean; *q; q++)
        if (*q == ',' || *q == '"')
            *q = ';';
    const char *texts[GB_WAVES_NCOLS] = {kind, name ? name : "", NULL, NULL, NULL,
                                         NULL, NULL, NULL, clean};
    double vals[GB_WAVES_NCOLS] = {0, 0, x, y, z, value, doc, extra, 0};
    char nan_text[GB_WAVES_NCOLS][4];
    for (int i = 2; i < 8; i++) {
        if (isnan(vals[i])) { /* empty cell: not measured / not documented */
            nan_text[i][0] = '\0';
            texts[i] = nan_text[i];
        }
    }
    return gm_mdata_add_values(c->md, texts, vals, err);
}

void gb_waves_progress(gb_waves_ctx *c, long add, const char *what)
{
    c->done += add;
    if (c->done > c->total)
        c->total = c->done;
    if (c->run && c->run->progress)
        c->run->progress(c->run->io, c->done, c->total, what);
}

int gb_waves_stop(gb_waves_ctx *c)
{
    return c->run && c->run->stop && c->run->stop(c->run->io);
}

gm_status gb_waves_load(gb_waves_ctx *c, const char *entry, gb_waves_kern **k, gm_error *err)
{
    return gb_waves_jit_load(c->j, c->ptx, entry, k, err);
}

gm_status gb_waves_reset_sync(gb_waves_ctx *c, gm_error *err)
{
    return gb_waves_jit_zero(c->j, c->sync, 4096, err);
}

static gm_status setup(gb_waves_ctx *c, int device, gm_error *err)
{
    gm_status st = gb_waves_jit_open(device, &c->j, &c->dev, err);
    if (st != GM_OK)
        return st;
    c->cc = c->dev.cc_major * 10 + c->dev.cc_minor;
    if (c->dev.cc_major < 9)
        return gm_fail(err, GM_ERR_UNSUPPORTED,
                       "suite sched needs compute capability 9.0 or later (clusters), "
                       "this GPU is %d.%d",
                       c->dev.cc_major, c->dev.cc_minor);
    c->timeout_s = 10.0;
    if (!(c->ptx = malloc(GB_WAVES_PTX_MAX)))
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    if ((st = gb_waves_jit_alloc(c->j, GB_WAVES_SINK_OFFSET + 4096, &c->out, err)) != GM_OK ||
        (st = gb_waves_jit_alloc(c->j, 4096, &c->sync, err)) != GM_OK ||
        (st = gb_waves_jit_alloc(c->j, 1 << 20, &c->data, err)) != GM_OK)
        return st;
    /* data[i] = &data[i]: the LDG chase's self-pointers */
    uint64_t *h = malloc(1 << 20);
    if (!h)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < (1 << 20) / 8; i++)
        h[i] = c->data + 8 * i;
    st = gb_waves_jit_write(c->j, c->data, h, 1 << 20, err);
    free(h);
    if (st == GM_OK)
        st = gb_waves_jit_zero(c->j, c->out, GB_WAVES_SINK_OFFSET + 4096, err);
    return st;
}

static void teardown(gb_waves_ctx *c)
{
    gm_mdata_free(c->md);
    free(c->ptx);
    gb_waves_jit_close(c->j);
    memset(c, 0, sizeof *c);
}

typedef gm_status (*waves_test)(gb_waves_ctx *c, gm_error *err);

static gm_status sched_run(const gb_suite_run *run, gm_error *err)
{
    static const waves_test tests[] = {gb_waves_test_limits, gb_waves_test_fu, gb_waves_test_nmp,
                                       gb_waves_test_wsched, gb_waves_test_nslot,
                                       gb_waves_test_clusters, gb_waves_test_tgb};
    gb_waves_ctx c;
    memset(&c, 0, sizeof c);
    c.run = run;
    c.quick = run->quick;
    gm_status st = setup(&c, run->device, err);
    if (st != GM_OK) {
        teardown(&c);
        return st;
    }
    /* How each kind of row was measured (docs/diag.md, "How the suite measures"). */
    gm_mdata_meta meta = *run->meta;
    if (!meta.method[0])
        snprintf(meta.method, sizeof meta.method,
                 "driver-JIT PTX; limits: launch refusal; fu(c), n_mp: clock64, 2nd pass, median of 3; "
                 "policy: %%clock order; N_slot, clusters: bounded counter; T(g,b): events, warm-up "
                 "+ 9 rounds (quick 5) reordered, median T(2n) - median T(n); tgbs spread, tgbr all");
    if (!(c.md = gm_mdata_new(&meta, GB_WAVES_NCOLS, gb_waves_columns))) {
        teardown(&c);
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    }
    c.total = c.quick ? 1300 : 8000; /* launches; T(g,b) is ~75% (19 per point) */
    for (size_t i = 0; i < sizeof tests / sizeof tests[0] && st == GM_OK; i++) {
        if (gb_waves_stop(&c)) {
            st = gm_fail(err, GM_ERR_INTERRUPTED, "stopped after %zu of %zu tests", i,
                         sizeof tests / sizeof tests[0]);
            break;
        }
        st = tests[i](&c, err);
        gm_error cerr;
        gm_status cst = run->checkpoint(run->io, c.md, &cerr);
        if (st == GM_OK && cst != GM_OK) {
            *err = cerr;
            st = cst;
        }
    }
    if (st == GM_OK)
        gb_waves_progress(&c, c.total - c.done, "done");
    teardown(&c);
    return st;
}

gm_status gb_waves_dump_cubins(int device, const char *dir, gm_error *err)
{
    gb_waves_ctx c;
    memset(&c, 0, sizeof c);
    gm_status st = setup(&c, device, err);
    if (st == GM_OK && mkdir(dir, 0777) != 0 && errno != EEXIST)
        st = gm_fail(err, GM_ERR_IO, "%s: %s", dir, strerror(errno));
    for (size_t i = 0; st == GM_OK && i < gb_waves_fu_op_count(); i++) {
        const gb_waves_fu_op *op = &gb_waves_fu_ops[i];
        char entry[64], path[4096];
        gb_waves_kern *k = NULL;
        if (gb_waves_ptx_fu(c.ptx, GB_WAVES_PTX_MAX, op, c.cc) < 0) {
            st = gm_fail(err, GM_ERR_NOMEM, "PTX of %s too long", op->name);
            break;
        }
        snprintf(entry, sizeof entry, "gd_fu_%s", op->name);
        if ((st = gb_waves_load(&c, entry, &k, err)) != GM_OK)
            break;
        const void *bin;
        size_t size;
        gb_waves_kern_cubin(k, &bin, &size);
        snprintf(path, sizeof path, "%s/%s.cubin", dir, entry);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(bin, 1, size, f) != size)
            st = gm_fail(err, GM_ERR_IO, "%s: %s", path, strerror(errno));
        if (f && fclose(f) != 0 && st == GM_OK)
            st = gm_fail(err, GM_ERR_IO, "%s: %s", path, strerror(errno));
        gb_waves_kern_free(k);
    }
    teardown(&c);
    return st;
}

const gb_suite gb_suite_sched = {
    .name = "sched",
    .measures = "GPUDIAG: kernel limits, fu(c) per instruction, n_mp, warp-scheduling policy, "
                "N_slot and the state buffers, clusters, T(g,b) (paper 003, Table 3.1)",
    .sweep = "17 instruction sequences x c = 1..32 warps; N_slot over b = 1..32 warps, "
             "~120 shared-memory sizes, 12 register counts x 10 block sizes; T(g,b) of 4 "
             "kernels, b = 1..32 warps, g up to 4 n_mp N_slot, 9 launches per size and point",
    .file = "sched.csv",
    .expected_s = 35.0, /* H100: 34.6 s and 33.3 s (docs/diag.md, runs 4a/4b) */
    .sass = sched_sass,
    .run = sched_run,
    .keys = NULL,
    .check = NULL,
};
