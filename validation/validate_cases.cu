/* validate_app's case table (vk.h): every case with its launch shape and
 * the atomic instruction stream it makes by construction, and the names
 * the CSV prints. */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "validate_app.h"

const char *const group_names[VK_GROUP_COUNT] = {"atomic", "free", "mixed", "real"};
const char *const op_names[VK_OP_COUNT] = {"none", "add", "popc_inc", "cas", "add+cas",
                                           "popc_inc+add"};
const char *const work_names[VK_WORK_COUNT] = {"none", "fma", "gload", "lds_sts", "red_global"};
const char *const family_kernels[VK_FAMILY_COUNT] = {"vk_loop", "vk_hist", "vk_hist",
                                                    "DeviceHistogram", "vk_hash"};

void vk_pattern_name(const vk_case *c, char *buf, size_t len)
{
    switch (c->pattern) {
    case VK_PAT_NONE: snprintf(buf, len, "none"); break;
    case VK_PAT_SAME: snprintf(buf, len, "same_address"); break;
    case VK_PAT_SHARED_WORD: snprintf(buf, len, "shared_word"); break;
    case VK_PAT_BANK: snprintf(buf, len, "bank%d", c->bank_ways); break;
    case VK_PAT_FREE: snprintf(buf, len, "conflict_free"); break;
    case VK_PAT_SOLID: snprintf(buf, len, "solid"); break;
    case VK_PAT_UNIFORM: snprintf(buf, len, "uniform"); break;
    case VK_PAT_HASH: snprintf(buf, len, "hash"); break;
    default: snprintf(buf, len, "?"); break;
    }
}

/* ---------------------------------------------------------------- cases */

static void vk_push(vk_case_list *l, const vk_device *dev, vk_case c)
{
    /* Limits read off the device: shapes it cannot hold are left out. */
    if (c.family == VK_FAMILY_LOOP &&
        ((c.threads / 32) * c.blocks_per_sm > dev->max_warps_per_sm || c.blocks_per_sm > dev->max_blocks_per_sm))
        return;
    char pat[32];
    vk_pattern_name(&c, pat, sizeof pat);
    if (c.family == VK_FAMILY_LOOP) {
        int n = snprintf(c.name, sizeof c.name, "%s_%s_e%d_t%dx%d", op_names[c.op], pat, c.e, c.threads,
                         c.blocks_per_sm);
        if (c.op == VK_OP_NONE)
            n = snprintf(c.name, sizeof c.name, "%s%d_t%dx%d", work_names[c.work], c.k, c.threads,
                         c.blocks_per_sm);
        if (c.alt_warps)
            n += snprintf(c.name + n, sizeof c.name - n, "_alt%d", c.alt_warps);
        if (c.chain)
            n += snprintf(c.name + n, sizeof c.name - n, "_chain");
        if (c.waves > 1)
            n += snprintf(c.name + n, sizeof c.name - n, "_w%d", c.waves);
        if (c.group == VK_GROUP_MIXED)
            snprintf(c.name + n, sizeof c.name - n, "_%s%d", work_names[c.work], c.k);
    } else if (c.family == VK_FAMILY_CUB) {
        snprintf(c.name, sizeof c.name, "cub_%s", pat);
    } else if (c.family == VK_FAMILY_HASH) {
        snprintf(c.name, sizeof c.name, "hash_%s_t%dx%d", c.op == VK_OP_CAS ? "cas" : "lds_sts",
                 c.threads, c.blocks_per_sm);
    } else {
        snprintf(c.name, sizeof c.name, "%s_%s_%s_t%d", c.family == VK_FAMILY_HIST ? "hist" : "hist2",
                 c.use_result ? "add" : "popc_inc", pat, c.threads);
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = (vk_case *)realloc(l->v, (size_t)l->cap * sizeof *l->v);
        if (!l->v) {
            fprintf(stderr, "validate_app: out of memory\n");
            exit(VK_EXIT_INPUT);
        }
    }
    l->v[l->n++] = c;
}

static vk_case vk_loop_case(vk_group g, vk_op op, vk_pattern pat, int e, int threads, int bps)
{
    vk_case c;
    memset(&c, 0, sizeof c);
    c.group = g;
    c.family = VK_FAMILY_LOOP;
    c.op = op;
    c.pattern = pat;
    c.e = e;
    c.threads = threads;
    c.blocks_per_sm = bps;
    c.waves = 1;
    return c;
}

/* The case table: sweeps of the issue's four groups. */
void vk_build_cases(const vk_device *dev, vk_case_list *l)
{
    static const vk_op pure_ops[] = {VK_OP_ADD, VK_OP_POPC, VK_OP_CAS};
    static const struct { int threads, bps; } occupancy[] = {
        {32, 1}, {32, 2}, {32, 4}, {32, 8}, {32, 16}, {32, 32}, {64, 1}, {64, 4}, {64, 16}, {64, 32},
        {128, 1}, {128, 2}, {128, 4}, {128, 8}, {128, 16}, {256, 1}, {256, 3}, {256, 4}, {256, 8},
        {384, 1}, {384, 2}, {384, 4}, {384, 5}, {1024, 1}, {1024, 2}};
    static const struct { int threads, bps; } many_waves[] = {
        {32, 1}, {32, 8}, {128, 1}, {128, 4}, {128, 16}, {1024, 1}, {1024, 2}};
    static const struct { int threads, bps; } three_levels[] = {{256, 1}, {256, 4}, {1024, 2}};
    const int n_occ = (int)(sizeof occupancy / sizeof occupancy[0]);
    const int n_waves = (int)(sizeof many_waves / sizeof many_waves[0]);

    /* 1. Atomic-bound.  Occupancy: warps per SM 1..64 from several block
     * shapes, one wave and eight waves. */
    for (int o = 0; o < 3; o++) {
        for (int s = 0; s < n_occ; s++)
            vk_push(l, dev, vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_SAME, 32,
                                         occupancy[s].threads, occupancy[s].bps));
        for (int s = 0; s < n_waves; s++) {
            vk_case c = vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_SAME, 32,
                                     many_waves[s].threads, many_waves[s].bps);
            c.waves = 8;
            vk_push(l, dev, c);
        }
    }
    /* Active lanes e (e = 32 is in the occupancy sweep). */
    for (int o = 0; o < 3; o++)
        for (int e = 1; e < 32; e *= 2)
            for (int s = 0; s < 3; s++)
                vk_push(l, dev, vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_SAME, e,
                                             three_levels[s].threads, three_levels[s].bps));
    /* Conflict patterns: one word per block, k-way bank conflicts, conflict-free. */
    for (int o = 0; o < 3; o++) {
        for (int s = 0; s < 2; s++) {
            int t = three_levels[s].threads, b = three_levels[s].bps;
            vk_push(l, dev, vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_SHARED_WORD, 32, t, b));
            for (int ways = 2; ways <= 32; ways *= 2) {
                vk_case c = vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_BANK, 32, t, b);
                c.bank_ways = ways;
                vk_push(l, dev, c);
            }
            vk_push(l, dev, vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_FREE, 32, t, b));
        }
    }
    /* Job mix: c CAS warps out of n (the paper's c, Sec. 3.1), and
     * POPC.INC with ADD. */
    static const struct { int threads, bps; } mix_shapes[] = {{256, 1}, {1024, 1}, {1024, 2}};
    for (int s = 0; s < 3; s++) {
        int warps = mix_shapes[s].threads / 32;
        int alts[] = {warps / 8, warps / 4, warps / 2, 3 * warps / 4};
        for (int e = 1; e <= 32; e += 31)
            for (int a = 0; a < 4; a++) {
                vk_case c = vk_loop_case(VK_GROUP_ATOMIC, VK_OP_MIX_ADD_CAS, VK_PAT_SAME, e,
                                         mix_shapes[s].threads, mix_shapes[s].bps);
                c.alt_warps = alts[a];
                vk_push(l, dev, c);
            }
        if (s > 0)
            for (int a = 1; a < 4; a++) {
                vk_case c = vk_loop_case(VK_GROUP_ATOMIC, VK_OP_MIX_POPC_ADD, VK_PAT_SAME, 32,
                                         mix_shapes[s].threads, mix_shapes[s].bps);
                c.alt_warps = alts[a];
                vk_push(l, dev, c);
            }
    }
    /* Dependent chains: one atomic in flight per warp. */
    static const struct { int threads, bps; } chain_shapes[] = {{32, 1}, {128, 1}, {128, 4}, {1024, 2}};
    for (int o = 0; o < 3; o += 2)
        for (int s = 0; s < 4; s++) {
            vk_case c = vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_SAME, 32,
                                     chain_shapes[s].threads, chain_shapes[s].bps);
            c.chain = 1;
            vk_push(l, dev, c);
        }
    for (int s = 0; s < 4; s += 3) {
        vk_case c = vk_loop_case(VK_GROUP_ATOMIC, VK_OP_ADD, VK_PAT_SAME, 1, chain_shapes[s].threads,
                                 chain_shapes[s].bps);
        c.chain = 1;
        vk_push(l, dev, c);
    }
    /* A shared-memory hash table: CAS inserts with linear probing, one
     * block of 512 threads per SM, each thread waiting for its CAS (hash.cu). */
    {
        vk_case c = vk_loop_case(VK_GROUP_ATOMIC, VK_OP_CAS, VK_PAT_HASH, 32, 512, 1);
        c.family = VK_FAMILY_HASH;
        c.chain = 1;
        vk_push(l, dev, c);
    }

    /* 2. Atomic-free: true U = 0. */
    static const struct { vk_work work; int k; } free_work[] = {
        {VK_WORK_FMA, 16}, {VK_WORK_GLOAD, 4}, {VK_WORK_LDS, 4}, {VK_WORK_REDG, 1}};
    for (int w = 0; w < 4; w++)
        for (int s = 0; s < 3; s++) {
            vk_case c = vk_loop_case(VK_GROUP_FREE, VK_OP_NONE, VK_PAT_NONE, 32, three_levels[s].threads,
                                     three_levels[s].bps);
            c.work = free_work[w].work;
            c.k = free_work[w].k;
            vk_push(l, dev, c);
        }
    /* The hash table probed with plain LDS/STS: the atomic case's control
     * flow without atomics. */
    {
        vk_case c = vk_loop_case(VK_GROUP_FREE, VK_OP_NONE, VK_PAT_HASH, 32, 512, 1);
        c.family = VK_FAMILY_HASH;
        c.chain = 1;
        vk_push(l, dev, c);
    }

    /* 3. Mixed: k units of independent work per atomic, k from 0 until the
     * atomics stop mattering. */
    static const struct { vk_op op; vk_pattern pat; vk_work work; int k_max; int n_shapes; } mixed[] = {
        {VK_OP_ADD, VK_PAT_SAME, VK_WORK_FMA, 256, 3},   {VK_OP_ADD, VK_PAT_SAME, VK_WORK_GLOAD, 32, 3},
        {VK_OP_POPC, VK_PAT_SAME, VK_WORK_FMA, 128, 2},  {VK_OP_POPC, VK_PAT_SAME, VK_WORK_GLOAD, 8, 2},
        {VK_OP_CAS, VK_PAT_SAME, VK_WORK_FMA, 512, -1},  {VK_OP_ADD, VK_PAT_FREE, VK_WORK_FMA, 128, -1}};
    /* k = 0 (the atomics-only kernel itself, U_true = 1 up to noise) once
     * per (op, pattern, shape): in its FMA series, which every load series
     * has beside it. */
    for (int m = 0; m < (int)(sizeof mixed / sizeof mixed[0]); m++) {
        /* n_shapes = -1: only the middle level (256 x 4, 32 warps per SM). */
        int s0 = mixed[m].n_shapes < 0 ? 1 : 0;
        int s1 = mixed[m].n_shapes < 0 ? 2 : mixed[m].n_shapes;
        for (int s = s0; s < s1; s++)
            for (int k = 0; k <= mixed[m].k_max; k = k ? 2 * k : 1) {
                if (k == 0 && mixed[m].work != VK_WORK_FMA)
                    continue;
                vk_case c = vk_loop_case(VK_GROUP_MIXED, mixed[m].op, mixed[m].pat, 32,
                                         three_levels[s].threads, three_levels[s].bps);
                c.work = mixed[m].work;
                c.k = k;
                vk_push(l, dev, c);
            }
    }

    /* 4. Real kernels: the paper's histograms (Sec. 4) on a solid and a
     * uniform image, 256 and 1024 threads, one block per SM; CUB last. */
    for (int f = VK_FAMILY_HIST; f <= VK_FAMILY_HIST2; f++)
        for (int r = 0; r < 2; r++)
            for (int p = VK_PAT_SOLID; p <= VK_PAT_UNIFORM; p++)
                for (int t = 256; t <= 1024; t *= 4) {
                    vk_case c;
                    memset(&c, 0, sizeof c);
                    c.group = VK_GROUP_REAL;
                    c.family = (vk_family)f;
                    c.op = r ? VK_OP_ADD : VK_OP_POPC;
                    c.use_result = r;
                    c.pattern = (vk_pattern)p;
                    c.e = 32;
                    c.threads = t;
                    c.blocks_per_sm = 1;
                    c.waves = 1;
                    vk_push(l, dev, c);
                }
    for (int p = VK_PAT_SOLID; p <= VK_PAT_UNIFORM; p++) {
        vk_case c;
        memset(&c, 0, sizeof c);
        c.group = VK_GROUP_REAL;
        c.family = VK_FAMILY_CUB;
        c.op = VK_OP_ADD;
        c.pattern = (vk_pattern)p;
        c.e = 32;
        vk_push(l, dev, c);
    }

    for (int i = 0; i < l->n; i++)
        for (int j = i + 1; j < l->n; j++)
            if (strcmp(l->v[i].name, l->v[j].name) == 0) {
                fprintf(stderr, "validate_app: duplicate case name '%s' (bug in vk_build_cases)\n",
                        l->v[i].name);
                exit(VK_EXIT_INPUT);
            }
}
