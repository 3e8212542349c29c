/* Suite "gatomics": Robertson's global-memory atomic microbenchmarks (paper
 * 002, GT200) redone on the GPU at hand, and the rates the L2 atomic-unit
 * model needs (src/papers/gatomics/gatomics_model.h).  Experiments, each a block of rows
 * of gatomics.csv (docs/global-atomics.md lists the columns):
 *
 *   clock      two back-to-back reads of %clock, %clock64, %globaltimer at
 *              1..64 warps per SM (the paper's "What does clocks() return?")
 *   stall      cycles per operation (load, store, load+store, red, atom add
 *              and CAS; 32/64-bit; f32 add) under the paper's three patterns,
 *              1..64 warps per SM, with 0 and 50 FMAs between accesses
 *              (the paper's "How long does an atomic operation stall a
 *              thread?" and "Memory access patterns with delays")
 *   lock       the paper's offset sweep (8 lanes per warp, 4 KB apart, offset
 *              0..4096 bytes), 8 and 32 warps per SM, and the lock width read
 *              off it (gm_gatomics_lock_width)
 *   sector     throughput against threads per 32-byte sector (1, 2, 4, 8):
 *              what the L2 atomic unit takes as one job
 *   l2rate     throughput of the L2 atomic units: one address (one lane per
 *              warp, and all lanes), 64 addresses, every thread its own sector
 *   interfere  does a hot address slow non-conflicting atomics? (open question)
 *   hide       FMAs needed to hide an atomic (open question), 1 and 8 warps
 *
 * gatomics_kernels.h says how every timing waits for the operation's result.
 * Each experiment is checkpointed when done; --resume skips those present.
 */
#include <stdio.h>
#include <string.h>

#include "gatomics_suite.h"

const char *const gb_gatomics_ex_names[EX_COUNT] = {"clock", "stall", "lock", "sector",
                                           "l2rate", "interfere", "hide"};

static const gb_suite_key gatomics_keys[] = {
    {"experiments", "comma-separated subset of clock,stall,lock,sector,l2rate,interfere,hide "
                    "(default all)", NULL},
    {"reps", "launches per point, median kept (default 3, 1..21)", NULL},
    {"warps", "warps per SM of the clock and stall sweeps, comma-separated 1..64 "
              "(default 1,2,4,8,16,32,64)", NULL},
    {"iters", "timed iterations per thread in the stall sweep (default 24, 1..1000)", NULL},
    {NULL, NULL, NULL},
};

/* Every timed operation's opcode, in the kernel that claims it (cuobjdump
 * names: the kernels are extern "C").  Rows are mnemonic prefixes and the
 * binary holds sm_80 and sm_90 code: RED on sm_80 is REDG on sm_90, hence
 * "RED.E.ADD|REDG.E.ADD".  That each closing clock read waits for the result (the order of
 * LDG/ATOMG, STS or MEMBAR and SR_CLOCKLO) is checked on the operands by
 * tests/papers/gatomics/check_gatomics_sass.sh. */
static const gb_sass_expect gatomics_sass[] = {
    {"ga_stall_ld32_k", "LDG.E.STRONG", 1},
    {"ga_stall_st32_k", "STG.E", 1},
    {"ga_stall_st32_k", "MEMBAR", 1},
    {"ga_stall_ldst32_k", "LDG.E.STRONG", 1},
    {"ga_stall_ldst32_k", "STG.E", 1},
    {"ga_stall_red32_k", "RED.E.ADD.STRONG|REDG.E.ADD.STRONG", 1},
    {"ga_stall_red32_k", "MEMBAR", 1},
    {"ga_stall_atom32_k", "ATOMG.E.ADD.STRONG", 1},
    {"ga_stall_cas32_k", "ATOMG.E.CAS.STRONG", 1},
    {"ga_stall_ld64_k", "LDG.E.64", 1},
    {"ga_stall_st64_k", "STG.E.64", 1},
    {"ga_stall_red64_k", "RED.E.ADD.64|REDG.E.ADD.64", 1},
    {"ga_stall_atom64_k", "ATOMG.E.ADD.64", 1},
    {"ga_stall_cas64_k", "ATOMG.E.CAS.64", 1},
    {"ga_stall_redf32_k", "RED.E.ADD.F32|REDG.E.ADD.F32", 1},
    {"ga_stall_atomf32_k", "ATOMG.E.ADD.F32", 1},
    {"ga_stall_atom32_k", "STS", 1},
    {"ga_stall_atom32_k50", "FFMA", 50},
    {"ga_stall_none_k384", "FFMA", 384},
    {"ga_clock_clock64", "CS2R", 64},
    {"ga_clock_globaltimer", "CS2R", 64},
    {"ga_lock_atom32", "ATOMG.E.ADD", 1},
    {"ga_rate_atom32", "ATOMG.E.ADD", 1},
    {"ga_rate_red32", "RED.E.ADD.STRONG|REDG.E.ADD.STRONG", 1},
    {"ga_rate_cas32", "ATOMG.E.CAS", 1},
    {"ga_rate_atom64", "ATOMG.E.ADD.64", 1},
    {"ga_rate_red64", "RED.E.ADD.64|REDG.E.ADD.64", 1},
    {"ga_rate_atomf32", "ATOMG.E.ADD.F32", 1},
    {"ga_rate_redf32", "RED.E.ADD.F32|REDG.E.ADD.F32", 1},
    {"ga_interfere_atom32", "ATOMG.E.ADD", 1},
    {NULL, NULL, 0},
};

/* ---- settings ------------------------------------------------------------ */

gm_status gb_gatomics_parse_options(const gb_suite_run *run, gb_gatomics_options *o, gm_error *err)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < EX_COUNT; i++)
        o->ex[i] = 1;
    o->reps = GB_GATOMICS_DEFAULT_REPS;
    o->iters = GB_GATOMICS_STALL_ITERS;
    const int dw[] = {1, 2, 4, 8, 16, 32, 64};
    o->n_warps = 7;
    memcpy(o->warps, dw, sizeof dw);
    if (run->quick) {
        o->warps[0] = 1;
        o->warps[1] = 64;
        o->n_warps = 2;
        o->reps = 1;
        o->iters = 8;
    }
    for (size_t s = 0; s < run->n_settings; s++) {
        const char *k = run->settings[s].key, *v = run->settings[s].value;
        char buf[256];
        gm_status st = GM_OK;
        if (strcmp(k, "reps") == 0) {
            st = gb_suite_parse_int("gatomics", k, v, 1, 21, &o->reps, err);
        } else if (strcmp(k, "iters") == 0) {
            st = gb_suite_parse_int("gatomics", k, v, 1, 1000, &o->iters, err);
        } else if (strcmp(k, "experiments") == 0 || strcmp(k, "warps") == 0) {
            int is_ex = k[0] == 'e';
            if (strlen(v) >= sizeof buf)
                return gm_fail(err, GM_ERR_RANGE, "gatomics.%s: list too long", k);
            snprintf(buf, sizeof buf, "%s", v);
            if (is_ex)
                memset(o->ex, 0, sizeof o->ex);
            else
                o->n_warps = 0;
            char *save = NULL;
            for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (is_ex) {
                    int found = 0;
                    for (int i = 0; i < EX_COUNT; i++)
                        if (strcmp(t, gb_gatomics_ex_names[i]) == 0)
                            o->ex[i] = found = 1;
                    if (!found)
                        return gm_fail(err, GM_ERR_PARSE, "gatomics.experiments: unknown '%s'", t);
                } else {
                    int w;
                    if (o->n_warps >= 8)
                        return gm_fail(err, GM_ERR_RANGE, "gatomics.warps: at most 8 values");
                    if ((st = gb_suite_parse_int("gatomics", k, t, 1, 64, &w, err)) != GM_OK)
                        return st;
                    o->warps[o->n_warps++] = w;
                }
            }
            if (!is_ex && o->n_warps == 0)
                return gm_fail(err, GM_ERR_PARSE, "gatomics.warps needs at least one value");
        }
        if (st != GM_OK)
            return st;
    }
    return GM_OK;
}

static gm_status gatomics_check(const gb_suite_run *run, gm_error *err)
{
    gb_gatomics_options o;
    return gb_gatomics_parse_options(run, &o, err);
}

const gb_suite gb_suite_gatomics = {
    .name = "gatomics",
    .measures = "global-memory atomics: clock cost, stall time per operation, lock width, "
                "L2 atomic-unit throughput (paper 002, Robertson)",
    .sweep = "ld/st/ld+st/red/atom/cas, 32/64-bit and f32, 3 patterns, 1..64 warps per SM, 0 "
             "and 50 FMAs; offset 0..4096 B; 1..8 lanes per sector; FMAs 0..384",
    .file = "gatomics.csv",
    .expected_s = 2.0, /* H100: 1.4 s (docs/global-atomics.md) */
    .sass = gatomics_sass,
    .run = gb_gatomics_measure,
    .keys = gatomics_keys,
    .check = gatomics_check,
};
