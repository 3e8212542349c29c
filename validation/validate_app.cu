/* validate_app: runs the validation cases (vk.h) and prints one CSV line per
 * case with its launch shape, its atomic instruction stream and its time.
 *
 *   validate_app --list                      the case table, no GPU work
 *   validate_app [--group G] [--case NAME]   time the selected cases (all by default)
 *   validate_app --profile --iters-from CSV  one launch per case, nothing else,
 *                                            for ncu / gpuq profile (run.sh)
 *
 * Timing: CUDA events around each launch; per case a calibration sizes the
 * loop so the kernel runs about --target-us, then --warmup launches, then
 * --reps launches (median, min, max).  Mixed cases time their atomics-only
 * twin (same kernel, same launch, k = 0) interleaved with the case, so clock
 * drift hits both alike; histogram cases time their replay the same way.
 *
 * Exit codes: 0 ok, 1 usage, 2 input error, 3 CUDA error, 77 no GPU.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "validate_app.h"

/* ---------------------------------------------------------------- output */

static const char *const csv_header =
    "group,name,blocks,threads,op,pattern,e,k,time_us,atomics_only_us,time_min_us,time_max_us,"
    "atomics_only_min_us,atomics_only_max_us,reps,iters,work,chain,blocks_per_sm,warps_per_sm,waves,"
    "alt_warps,cas_warps_per_sm,smem_bytes,n_atom_expected,launches,kernel,no_probe_us";

static void vk_fmt(char *buf, size_t len, double v, const char *fmt)
{
    if (isnan(v))
        buf[0] = '\0';
    else
        snprintf(buf, len, fmt, v);
}

static void vk_print_row(const vk_case *c, const vk_result *r)
{
    char pat[32], t[6][32], n_atom[32], bare[32];
    vk_pattern_name(c, pat, sizeof pat);
    vk_fmt(t[0], sizeof t[0], r->t_med, "%.2f");
    vk_fmt(t[1], sizeof t[1], r->a_med, "%.2f");
    vk_fmt(t[2], sizeof t[2], r->t_min, "%.2f");
    vk_fmt(t[3], sizeof t[3], r->t_max, "%.2f");
    vk_fmt(t[4], sizeof t[4], r->a_min, "%.2f");
    vk_fmt(t[5], sizeof t[5], r->a_max, "%.2f");
    vk_fmt(n_atom, sizeof n_atom, r->n_atom_expected, "%.0f");
    vk_fmt(bare, sizeof bare, r->f_med, "%.2f");
    char launches[16] = "";
    if (r->launches >= 0) /* -1: unknown (a CUB run could not be captured) */
        snprintf(launches, sizeof launches, "%d", r->launches);
    int warps_per_sm = c->family == VK_FAMILY_CUB ? 0 : (c->threads / 32) * c->blocks_per_sm;
    int cas_warps = 0;
    if (c->op == VK_OP_CAS)
        cas_warps = warps_per_sm;
    else if (c->op == VK_OP_MIX_ADD_CAS)
        cas_warps = c->alt_warps * c->blocks_per_sm;
    printf("%s,%s,%u,%d,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%d,%u,%s,%d,%d,%d,%d,%d,%d,%zu,%s,%s,%s,%s\n",
           group_names[c->group], c->name, r->blocks, c->threads,
           c->family == VK_FAMILY_CUB ? "cub_internal" : op_names[c->op], pat, c->e, c->k, t[0],
           t[1], t[2], t[3], t[4], t[5], r->reps, r->iters, work_names[c->work], c->chain,
           c->blocks_per_sm, warps_per_sm, c->waves, c->alt_warps, cas_warps, r->smem_bytes, n_atom,
           launches, family_kernels[c->family], bare);
    fflush(stdout);
}

static void vk_print_meta(const vk_device *dev, const vk_options *opt, int argc, char **argv)
{
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    printf("# gpuq validation cases v1\n");
    printf("# device: %s\n", dev->name);
    printf("# compute_capability: %d.%d\n", dev->cc_major, dev->cc_minor);
    printf("# sm_count: %d\n# max_warps_per_sm: %d\n# max_blocks_per_sm: %d\n", dev->sm_count,
           dev->max_warps_per_sm, dev->max_blocks_per_sm);
    printf("# driver_version: %d\n# runtime_version: %d\n", dev->driver_version, dev->runtime_version);
    printf("# date: %s\n", date);
    if (opt->list)
        printf("# mode: list\n");
    else if (opt->profile)
        printf("# mode: profile (one launch per case, iterations from %s)\n", opt->iters_from);
    else
        printf("# mode: timing (CUDA events; %d warm-up, median of %d; target %.0f us)\n", opt->warmup,
               opt->reps, opt->target_us);
    printf("# command:");
    for (int i = 0; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n%s\n", csv_header);
}

/* ------------------------------------------------------------------ CLI */

static void vk_usage(FILE *out)
{
    fprintf(out,
            "usage: validate_app [--list] [--group G]... [--case NAME]... [options]\n"
            "\n"
            "Runs gpuq's validation kernels (docs/validation.md) and prints one CSV line\n"
            "per case: launch shape, atomic instruction stream, time in microseconds.\n"
            "\n"
            "  --list            print the case table (no GPU work)\n"
            "  --group G         run the cases of group G: atomic, free, mixed, real\n"
            "  --case NAME       run case NAME (repeatable; comma-separated list allowed)\n"
            "  --reps N          timed launches per case, median reported (default 7)\n"
            "  --warmup N        untimed launches first (default 2)\n"
            "  --target-us T     loop sizing: kernel time to aim for (default 400)\n"
            "  --profile         one launch per case and nothing else (for ncu, gpuq profile)\n"
            "  --iters-from CSV  loop trips per case from an earlier timing run (needed by --profile)\n"
            "  --help            this text\n"
            "\n"
            "exit codes: 0 ok, 1 usage, 2 input error, 3 CUDA error, 77 no GPU\n");
}

static long vk_parse_long(const char *opt, const char *v, long lo, long hi)
{
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (!end || *end || x < lo || x > hi) {
        fprintf(stderr, "validate_app: %s: '%s' is not a number in %ld..%ld (try --help)\n", opt, v, lo, hi);
        exit(VK_EXIT_USAGE);
    }
    return x;
}

static void vk_add_names(char ***list, int *n, char *arg)
{
    for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
        *list = (char **)realloc(*list, (size_t)(*n + 1) * sizeof **list);
        if (!*list)
            exit(VK_EXIT_INPUT);
        (*list)[(*n)++] = tok;
    }
}

/* Reads `name` and `iters` columns of a timing CSV written by this program. */
static int vk_iters_load(const char *path, vk_iters_table *t)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int name_col = -1, iters_col = -1;
    memset(t, 0, sizeof *t);
    if (!f) {
        fprintf(stderr, "validate_app: --iters-from: cannot open '%s'\n", path);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        char *fields[64];
        int nf = 0;
        for (char *p = line; nf < 64;) {
            fields[nf++] = p;
            char *comma = strchr(p, ',');
            if (!comma)
                break;
            *comma = '\0';
            p = comma + 1;
        }
        if (name_col < 0) {
            for (int i = 0; i < nf; i++) {
                if (strcmp(fields[i], "name") == 0)
                    name_col = i;
                if (strcmp(fields[i], "iters") == 0)
                    iters_col = i;
            }
            if (name_col < 0 || iters_col < 0) {
                fprintf(stderr, "validate_app: --iters-from: '%s' has no name/iters header\n", path);
                fclose(f);
                return -1;
            }
            continue;
        }
        if (nf <= name_col || nf <= iters_col)
            continue;
        t->names = (char **)realloc(t->names, (size_t)(t->n + 1) * sizeof *t->names);
        t->iters = (unsigned *)realloc(t->iters, (size_t)(t->n + 1) * sizeof *t->iters);
        if (!t->names || !t->iters)
            exit(VK_EXIT_INPUT);
        t->names[t->n] = strdup(fields[name_col]);
        t->iters[t->n] = (unsigned)strtoul(fields[iters_col], NULL, 10);
        t->n++;
    }
    fclose(f);
    return 0;
}

static int vk_selected(const vk_case *c, const vk_options *opt)
{
    if (opt->n_names == 0 && opt->n_groups == 0)
        return 1;
    for (int i = 0; i < opt->n_names; i++)
        if (strcmp(opt->names[i], c->name) == 0)
            return 1;
    for (int i = 0; i < opt->n_groups; i++)
        if (strcmp(opt->groups[i], group_names[c->group]) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    vk_options opt;
    memset(&opt, 0, sizeof opt);
    opt.reps = 7;
    opt.warmup = 2;
    opt.target_us = 400.0;
    static const struct option longopts[] = {
        {"list", no_argument, NULL, 'l'},         {"group", required_argument, NULL, 'g'},
        {"case", required_argument, NULL, 'c'},   {"reps", required_argument, NULL, 'r'},
        {"warmup", required_argument, NULL, 'w'}, {"target-us", required_argument, NULL, 't'},
        {"profile", no_argument, NULL, 'p'},      {"iters-from", required_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'l': opt.list = 1; break;
        case 'g': vk_add_names(&opt.groups, &opt.n_groups, optarg); break;
        case 'c': vk_add_names(&opt.names, &opt.n_names, optarg); break;
        case 'r': opt.reps = (int)vk_parse_long("--reps", optarg, 1, 64); break;
        case 'w': opt.warmup = (int)vk_parse_long("--warmup", optarg, 0, 100); break;
        case 't': opt.target_us = (double)vk_parse_long("--target-us", optarg, 10, 100000); break;
        case 'p': opt.profile = 1; break;
        case 'i': opt.iters_from = optarg; break;
        case 'h': vk_usage(stdout); return 0;
        default: vk_usage(stderr); return VK_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "validate_app: unexpected argument '%s' (try --help)\n", argv[optind]);
        return VK_EXIT_USAGE;
    }
    if (opt.profile && !opt.iters_from) {
        fprintf(stderr, "validate_app: --profile needs --iters-from (a timing CSV), so that the "
                        "profiled launches are the timed ones (try --help)\n");
        return VK_EXIT_USAGE;
    }
    for (int i = 0; i < opt.n_groups; i++) {
        int known = 0;
        for (int g = 0; g < VK_GROUP_COUNT; g++)
            known |= strcmp(opt.groups[i], group_names[g]) == 0;
        if (!known) {
            fprintf(stderr, "validate_app: --group: unknown group '%s' (atomic, free, mixed, real)\n",
                    opt.groups[i]);
            return VK_EXIT_USAGE;
        }
    }

    vk_device dev;
    memset(&dev, 0, sizeof dev);
    if (opt.list) {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0 || vk_device_open(&dev) != 0)
            vk_device_default(&dev);
    } else if (vk_device_open(&dev) != 0) {
        return VK_EXIT_NO_GPU;
    }

    vk_case_list cases = {NULL, 0, 0};
    vk_build_cases(&dev, &cases);
    for (int i = 0; i < opt.n_names; i++) {
        int found = 0;
        for (int j = 0; j < cases.n; j++)
            found |= strcmp(opt.names[i], cases.v[j].name) == 0;
        if (!found) {
            fprintf(stderr, "validate_app: --case: no case named '%s' on this device (see --list)\n",
                    opt.names[i]);
            return VK_EXIT_USAGE;
        }
    }

    vk_print_meta(&dev, &opt, argc, argv);
    if (opt.list) {
        vk_result none;
        memset(&none, 0, sizeof none);
        none.t_med = none.t_min = none.t_max = NAN;
        none.a_med = none.a_min = none.a_max = NAN;
        none.n_atom_expected = NAN;
        for (int i = 0; i < cases.n; i++) {
            const vk_case *c = &cases.v[i];
            if (!vk_selected(c, &opt))
                continue;
            /* Shape without running: grids as they will be launched;
             * CUB's launch count is only known by capturing a run. */
            none.f_med = NAN;
            none.blocks = c->family == VK_FAMILY_LOOP || c->family == VK_FAMILY_HASH
                              ? (unsigned)(c->waves * c->blocks_per_sm * dev.sm_count)
                          : c->family == VK_FAMILY_CUB ? 0u : (unsigned)dev.sm_count;
            none.launches = c->family == VK_FAMILY_CUB ? -1 : 1;
            vk_print_row(c, &none);
        }
        free(cases.v);
        return 0;
    }

    vk_iters_table iters_table;
    memset(&iters_table, 0, sizeof iters_table);
    if (opt.iters_from && vk_iters_load(opt.iters_from, &iters_table) != 0)
        return VK_EXIT_INPUT;

    vk_buffers buffers;
    vk_buffers_create(&buffers, &dev);
    vk_timer timer;
    VK_CHECK(cudaStreamCreateWithFlags(&timer.stream, cudaStreamNonBlocking));
    VK_CHECK(cudaEventCreate(&timer.start));
    VK_CHECK(cudaEventCreate(&timer.stop));

    int ran = 0, skipped = 0, failed = 0;
    for (int i = 0; i < cases.n; i++) {
        const vk_case *c = &cases.v[i];
        if (!vk_selected(c, &opt))
            continue;
        vk_result r;
        int rc = vk_run_case(c, &dev, &buffers, &timer, &opt, opt.iters_from ? &iters_table : NULL, &r);
        if (rc == 0) {
            vk_print_row(c, &r);
            ran++;
        } else if (rc == -1) {
            skipped++;
        } else {
            failed++;
        }
    }
    fprintf(stderr, "validate_app: %d cases ran, %d skipped, %d failed a correctness check\n", ran,
            skipped, failed);

    cudaEventDestroy(timer.start);
    cudaEventDestroy(timer.stop);
    cudaStreamDestroy(timer.stream);
    vk_buffers_release(&buffers);
    free(cases.v);
    return failed ? VK_EXIT_INPUT : 0;
}
