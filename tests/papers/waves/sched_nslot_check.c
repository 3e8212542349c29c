/* N_slot of the "blocks and waves" unit against the occupancy API for the
 * launch configurations of recorded runs (the validation suite and the
 * histogram case study): for each distinct (block size, registers, shared
 * memory) a kernel with that register allocation and that much shared
 * memory is JIT-compiled (gd_count) and cuOccupancyMaxActiveBlocksPerMultiprocessor
 * asked; Eq. 3.3 in the form given must say the same.  Exits 77 without a
 * GPU, 1 on any difference.
 *   usage: sched_nslot_check SCHED.csv hopper|paper COUNTERS.csv... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/counters.h"
#include "papers/waves/waves_data.h"
#include "papers/waves/waves_suite.h"

typedef struct cfg {
    int B, regs, smem;
} cfg;

int main(int argc, char **argv)
{
    gm_error err = {{0}};
    gm_mdata *md = NULL;
    gm_waves_data *d = calloc(1, sizeof *d);
    gm_waves_form form;
    if (argc < 4 || gm_waves_form_parse(argv[2], &form) != GM_OK) {
        fprintf(stderr, "usage: sched_nslot_check SCHED.csv hopper|paper COUNTERS.csv...\n");
        return 1;
    }
    if (gm_mdata_load(argv[1], &md, &err) != GM_OK || gm_waves_data_load(md, d, &err) != GM_OK ||
        !d->have_params) {
        fprintf(stderr, "sched_nslot_check: %s: %s\n", argv[1], err.msg[0] ? err.msg : "no parameters");
        return 1;
    }
    cfg *cf = NULL;
    size_t n = 0, cap = 0, launches = 0;
    for (int a = 3; a < argc; a++) {
        gm_counters_set set;
        gm_counters_set_init(&set);
        if (gm_counters_load(argv[a], &set, &err) != GM_OK) {
            fprintf(stderr, "sched_nslot_check: %s: %s\n", argv[a], err.msg);
            return 1;
        }
        for (size_t i = 0; i < set.count; i++) {
            const gm_launch_counters *k = &set.launches[i];
            int B = (int)(k->block[0] * (k->block[1] ? k->block[1] : 1) *
                          (k->block[2] ? k->block[2] : 1));
            if (k->regs_per_thread < 0 || k->shared_bytes < 0 || B < 1)
                continue;
            launches++;
            size_t j = 0;
            while (j < n && !(cf[j].B == B && cf[j].regs == k->regs_per_thread &&
                              cf[j].smem == k->shared_bytes))
                j++;
            if (j < n)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                cf = realloc(cf, cap * sizeof *cf);
            }
            cf[n++] = (cfg){B, k->regs_per_thread, k->shared_bytes};
        }
        gm_counters_set_clear(&set);
    }
    gb_waves_jit *j = NULL;
    gb_waves_dev dev;
    gm_status st = gb_waves_jit_open(0, &j, &dev, &err);
    if (st == GM_ERR_NO_GPU || st == GM_ERR_UNSUPPORTED) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    if (st != GM_OK) {
        fprintf(stderr, "sched_nslot_check: %s\n", err.msg);
        return 1;
    }
    char *ptx = malloc(GB_WAVES_PTX_MAX);
    int cc = dev.cc_major * 10 + dev.cc_minor, bad = 0, checked = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        gb_waves_kern *k = NULL;
        /* a register allocation of regs (occupancy counts it in units of 8) */
        int want8 = (cf[i].regs + 7) / 8 * 8;
        gb_waves_ptx_count(ptx, GB_WAVES_PTX_MAX, cc, cf[i].smem > 0 ? -1 : 0, want8, want8, 0);
        if (gb_waves_jit_load(j, ptx, "gd_count", &k, &err) != GM_OK) {
            fprintf(stderr, "sched_nslot_check: %s\n", err.msg);
            return 1;
        }
        int got = gb_waves_kern_regs(k), api = -1;
        if ((got + 7) / 8 * 8 != want8 ||
            (cf[i].smem > 0 && gb_waves_kern_set_dyn_smem(k, cf[i].smem, &err) != GM_OK) ||
            gb_waves_kern_occupancy(k, cf[i].B, cf[i].smem, &api, &err) != GM_OK) {
            printf("skip: B %d regs %d smem %d (kernel got %d registers)\n", cf[i].B, cf[i].regs,
                   cf[i].smem, got);
            skipped++;
            gb_waves_kern_free(k);
            continue;
        }
        unsigned lim = 0;
        int N = gm_waves_nslot(&d->form[form], (cf[i].B + 31) / 32, cf[i].smem, cf[i].regs, &lim);
        char lt[48];
        checked++;
        if (N != api)
            bad++;
        printf("%s: B %4d regs %3d smem %6d: N_slot %2d (%s), occupancy API %2d\n",
               N == api ? "ok" : "FAIL", cf[i].B, cf[i].regs, cf[i].smem, N,
               gm_waves_limiter_text(lim, lt, sizeof lt), api);
        gb_waves_kern_free(k);
    }
    printf("%s: %d of %d launch configurations (%zu launches) agree with the occupancy API "
           "(%s form); %d skipped\n",
           bad ? "FAIL" : "ok", checked - bad, checked, launches, argv[2], skipped);
    free(ptx);
    gb_waves_jit_close(j);
    gm_mdata_free(md);
    free(d);
    free(cf);
    return bad || checked == 0 ? 1 : 0;
}
