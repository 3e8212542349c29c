/* gpuq diag: the GPUDIAG parameters of one GPU (paper 003, Table 3.1) from
 * its machine data (suite "sched"), each beside what the vendor documents,
 * with a flag on every difference; the end-to-end check of Eq. 3.2
 * (Sec. 4.3.3); text, CSV or JSON; --plot DIR draws the figures.  Needs no
 * GPU. */
#include <dirent.h>
#include <sys/stat.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "waves_diag.h"
#include "waves_data.h"
#include "waves_meas.h"
#include "gpuq/mdata.h"
#include "core/writer.h"

#define CMD "diag"
#define MAX_ITEMS 256

static void print_help(void)
{
    printf("usage: gpuq diag [--table FILE | --gpu NAME] [-f text|csv|json] [--form F]\n"
           "                 [--tails FILE] [--plot DIR] [-o FILE]\n"
           "\n"
           "Shows what 'gpuq calibrate --suite sched' measured on a GPU with GPUDIAG's\n"
           "microbenchmarks (Kim 2023): kernel limits, throughput of each instruction,\n"
           "the multiprocessor count, the warp-scheduling policy, the state buffers behind\n"
           "N_slot, thread-block clusters, and how well Eq. 3.2 predicts measured kernel\n"
           "times.  Each value stands beside the documented one (device attributes, the\n"
           "occupancy API, the programming guide); '*' flags a difference.\n"
           "\n"
           "options:\n"
           "      --table FILE   the sched machine data (default: the one shipped for --gpu,\n"
           "                     or the only one in $GPUQ_TABLE_DIR or the source tables/)\n"
           "      --gpu NAME     the GPU whose shipped data to show (\"NVIDIA H100 80GB HBM3\")\n"
           "      --form F       N_slot form for the predictions: hopper (default: reserved\n"
           "                     shared memory, register-file partitions) or paper (Eq. 3.3)\n"
           "      --tails FILE   take the refill model's mixing from the per-block logs of\n"
           "                     another sched file (default: the table's own)\n"
           "  -f, --format F     text (default), csv or json\n"
           "      --plot DIR     also write the figures as SVG into DIR\n"
           "  -o, --output FILE  write the report there instead of stdout\n"
           "  -h, --help         this text\n"
           "\n"
           "exit codes: 0 ok, 1 usage, 2 bad or missing machine data\n");
}

typedef struct item {
    const char *section;
    char name[64];
    double measured, documented;
    int differs;
    char note[200];
} item;

typedef struct report {
    item it[MAX_ITEMS];
    size_t n;
} report;

static item *add(report *r, const char *section, const char *name, double m, double d,
                 double tol, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static item *add(report *r, const char *section, const char *name, double m, double d,
                 double tol, const char *fmt, ...)
{
    if (r->n >= MAX_ITEMS)
        return NULL;
    item *i = &r->it[r->n++];
    i->section = section;
    snprintf(i->name, sizeof i->name, "%s", name);
    i->measured = m;
    i->documented = d;
    i->differs = !isnan(m) && !isnan(d) && fabs(m - d) > tol * fabs(d);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(i->note, sizeof i->note, fmt, ap);
    va_end(ap);
    return i;
}

static void add_param(report *r, const gm_mdata *md, const char *section, const char *name,
                      const char *label)
{
    double doc;
    const char *note;
    double v = gm_waves_data_param(md, name, &doc, &note);
    if (isnan(v))
        return;
    add(r, section, label ? label : name, v, doc, 0, "%s", note ? note : "");
}

static void build(report *r, const gm_waves_data *d, gm_waves_form form, const gm_waves_data *tails)
{
    const gm_mdata *md = d->md;
    static const char *const lim[] = {"L_T_B", "L_B_y", "L_B_z", "L_G_x", "L_G_y", "L_G_z",
                                      "L_T_G", "L_S_B_static", "L_S_B_dyn", "L_S_B_optin",
                                      "L_R_T", "L_R_B"};
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++)
        add_param(r, md, "kernel limits", lim[i], NULL);
    for (size_t i = 0; i < d->n_ops; i++) {
        const gm_waves_op *o = &d->ops[i];
        char name[64];
        snprintf(name, sizeof name, "%s (%s)", o->name, o->sass);
        /* throughputs within 5% of the guide count as agreeing */
        add(r, "functional units", name, o->thr, o->guide, 0.05,
            "results/clk/SM (Eq. 3.7); P_1 %.2f cycles; s_u %d; peak at c = %d warps", o->fu.P1,
            o->s_u, o->c_at);
    }
    const gm_waves_derived *o = &d->derived;
    double doc, rec = gm_waves_data_param(md, "n_mp", &doc, NULL);
    add(r, "num mp", "n_mp", o->n_mp, md->meta.sm_count, 0,
        "Eq. 3.8: last G before T(G) >= %.2f T(1) (FFMA; 32 warps); the suite read %.0f",
        GM_WAVES_NMP_RATIO, rec);
    int ck = gm_mdata_col(md, "kind"), cn = gm_mdata_col(md, "name"), cx = gm_mdata_col(md, "x"),
        cy = gm_mdata_col(md, "y"), cz = gm_mdata_col(md, "z"), cv = gm_mdata_col(md, "value"),
        cd = gm_mdata_col(md, "doc"), ce = gm_mdata_col(md, "extra"),
        cnote = gm_mdata_col(md, "note");
    for (size_t row = 0; row < md->n_rows; row++) {
        const char *k = gm_mdata_text(md, row, ck);
        if (k && !strcmp(k, "policy")) {
            add(r, "warp scheduler", gm_mdata_text(md, row, cn), gm_mdata_num(md, row, cv), NAN,
                0, "%s: mean run %.2f; of switches %.2f to the next warp up, %.2f down, %.2f to "
                "the oldest (%g issues)",
                gm_mdata_text(md, row, cnote), gm_mdata_num(md, row, cv),
                gm_mdata_num(md, row, cx), gm_mdata_num(md, row, ce), gm_mdata_num(md, row, cy),
                gm_mdata_num(md, row, cz));
        }
    }
    /* the state buffers as Eq. 3.9-3.13 read the raw N_slot points */
    const int H = GM_WAVES_FORM_HOPPER, P = GM_WAVES_FORM_PAPER;
    double dN1, dN2, dS, dres, dR;
    gm_waves_data_param(md, "N1", &dN1, NULL);
    gm_waves_data_param(md, "N2", &dN2, NULL);
    gm_waves_data_param(md, "S", &dS, NULL);
    gm_waves_data_param(md, "s_res", &dres, NULL);
    gm_waves_data_param(md, "R", &dR, NULL);
    add(r, "state buffers", "N1", o->N1, dN1, 0, "Eq. 3.12; doc: max blocks per SM");
    add(r, "state buffers", "N2", o->N2, dN2, 0, "Eq. 3.12; doc: max threads per SM / 32");
    add(r, "state buffers", "S", o->S[H], dS, 0, "Eq. 3.13, hopper form; doc: shared memory per SM");
    add(r, "state buffers", "s_min", o->s_min[H], NAN, 0, "Eq. 3.10 consistency, hopper form");
    add(r, "state buffers", "s_res", o->s_res[H], dres, 0,
        "reserved per block explaining the most points; doc: reserved shared memory per block");
    add(r, "state buffers", "R", o->R[H], dR, 0, "Eq. 3.13, hopper form; doc: registers per SM");
    add(r, "state buffers", "r_min", o->r_min[H], NAN, 0, "Eq. 3.11 consistency (per warp)");
    add(r, "state buffers", "r_parts", o->r_parts[H], NAN, 0, "register-file partitions");
    add(r, "state buffers", "shm_unexplained_hopper", o->shm_mismatch[H], 0, 0,
        "of %d shared-memory points", o->n_shm);
    add(r, "state buffers", "rf_unexplained_hopper", o->rf_mismatch[H], 0, 0,
        "of %d register points", o->n_rf);
    add(r, "state buffers", "S_paper", o->S[P], dS, 0, "Eq. 3.13 as printed (s_min %ld)",
        o->s_min[P]);
    add(r, "state buffers", "R_paper", o->R[P], dR, 0, "Eq. 3.13 as printed (r_min %ld)",
        o->r_min[P]);
    add(r, "state buffers", "shm_unexplained_paper", o->shm_mismatch[P], 0, 0,
        "of %d shared-memory points", o->n_shm);
    add(r, "state buffers", "rf_unexplained_paper", o->rf_mismatch[P], 0, 0,
        "of %d register points", o->n_rf);
    add(r, "state buffers", "nslot_vs_api", o->api_diff, 0, 0,
        "points of %d where measured N_slot != occupancy API", o->n_wsb + o->n_shm + o->n_rf);
    add(r, "state buffers", "not_divisible", o->not_divisible, 0, 0,
        "co-resident totals not a multiple of n_mp (the V520 case)");
    /* the model's N_slot (selected form) at every measured point vs the API */
    if (d->have_params) {
        int n = 0, diff = 0;
        for (size_t row = 0; row < md->n_rows; row++) {
            const char *k = gm_mdata_text(md, row, ck);
            double api = gm_mdata_num(md, row, cd);
            if (!k || strcmp(k, "nslot") || isnan(api))
                continue;
            int N = gm_waves_nslot(&d->form[form], (int)gm_mdata_num(md, row, cx),
                                   (long)gm_mdata_num(md, row, cy), (long)gm_mdata_num(md, row, cz),
                                   NULL);
            n++;
            diff += N != (int)api;
        }
        char name[64];
        snprintf(name, sizeof name, "model_vs_api_%s", gm_waves_form_name(form));
        add(r, "state buffers", name, diff, 0, 0,
            "points of %d where Eq. 3.3 (%s form) differs from the occupancy API", n,
            gm_waves_form_name(form));
    }
    add_param(r, md, "clusters", "cluster_max_portable", NULL);
    add_param(r, md, "clusters", "cluster_max_nonportable", NULL);
    for (size_t row = 0; row < md->n_rows; row++) {
        const char *k = gm_mdata_text(md, row, ck);
        if (k && !strcmp(k, "cluster")) {
            char name[64];
            snprintf(name, sizeof name, "clusters_of_%g", gm_mdata_num(md, row, cx));
            add(r, "clusters", name, gm_mdata_num(md, row, cv), gm_mdata_num(md, row, cd), 0,
                "co-resident (1 block/SM) vs cuOccupancyMaxActiveClusters; %g blocks",
                gm_mdata_num(md, row, ce));
        }
    }
    static const char *const e2e[] = {"lds", "ffma", "mufu_ex2", "ldg"};
    for (size_t i = 0; i < 4; i++) {
        gm_waves_fit f;
        if (gm_waves_fit_tgb(d, e2e[i], form, &f, NULL) != GM_OK)
            continue;
        char name[64];
        snprintf(name, sizeof name, "r_%s", e2e[i]);
        add(r, "end to end", name, f.r, NAN, 0, "Pearson r of Eq. 3.2 vs measured, %zu points%s",
            f.n, f.r >= 0.995 ? "" : " (below 0.995)");
        snprintf(name, sizeof name, "median_err_%s", e2e[i]);
        add(r, "end to end", name, f.median_err, NAN, 0, "median |pred/meas - 1|; max %.3f",
            f.max_err);
        gm_waves_fit_free(&f);
    }
    /* the same check with the random refill of partial waves
     * (waves_refill.h), its mixing from the per-block logs */
    for (size_t i = 0; i < 4; i++) {
        gm_waves_fit f;
        if (gm_waves_fit_tgb_model(d, e2e[i], form, GM_WAVES_T_REFILL, tails, &f, NULL) != GM_OK)
            continue;
        char name[64];
        snprintf(name, sizeof name, "r_%s_refill", e2e[i]);
        add(r, "end to end", name, f.r, NAN, 0, "Pearson r, refill model (mixing %.2f at b = 1, "
            "%.2f at b = 32, from %s), %zu points%s", f.mix[0], f.mix[1],
            tails ? "--tails" : "this file", f.n, f.r >= 0.995 ? "" : " (below 0.995)");
        snprintf(name, sizeof name, "median_err_%s_refill", e2e[i]);
        add(r, "end to end", name, f.median_err, NAN, 0,
            "median |pred/meas - 1|, refill model; max %.3f", f.max_err);
        gm_waves_fit_free(&f);
    }
    /* how much the launches behind each point varied (rows tgbs; files
     * from before them hold medians of 3 single-launch differences) */
    int any = 0;
    for (size_t i = 0; i < 4; i++) {
        gm_waves_noise z;
        if (!gm_waves_data_tgb_noise(d, e2e[i], GM_WAVES_NOISY, &z))
            continue;
        any = 1;
        char name[64];
        snprintf(name, sizeof name, "spread_%s", e2e[i]);
        add(r, "end to end", name, z.median, NAN, 0,
            "median (max - min) / median of a point's %d launches per size, %zu points; %zu "
            "above %.0f%%; max %.3f at G = %.0f, b = %d", z.k, z.n, z.above, 100 * GM_WAVES_NOISY,
            z.max, z.G_max, z.b_max);
        /* the noisy points themselves, the first few in the file's order */
        size_t listed = 0;
        for (size_t row = 0; row < md->n_rows && listed < 8; row++) {
            const char *k = gm_mdata_text(md, row, ck), *nm = gm_mdata_text(md, row, cn);
            if (!k || !nm || strcmp(k, "tgbs") || strcmp(nm, e2e[i]))
                continue;
            double s2 = gm_mdata_num(md, row, cv), s1 = gm_mdata_num(md, row, ce);
            if (!(s2 > GM_WAVES_NOISY || s1 > GM_WAVES_NOISY))
                continue;
            snprintf(name, sizeof name, "noisy_%s_G%.0f_b%.0f", e2e[i], gm_mdata_num(md, row, cx),
                     gm_mdata_num(md, row, cy));
            add(r, "end to end", name, s2 > s1 ? s2 : s1, NAN, 0,
                "launch spread at 2n %.3f, at n %.3f", s2, s1);
            listed++;
        }
    }
    if (!any)
        add(r, "end to end", "launch_spread", NAN, NAN, 0,
            "not recorded: this file's T(g,b) points are medians of 3 differences of single "
            "launches (no tgbs rows)");
    /* the tail wave: how many SMs got blocks after the first ended, and the
     * most one SM got, against Eq. 3.2's even share ceil(G / n_mp) - N */
    gm_waves_tail t;
    size_t row = 0;
    while (gm_waves_data_next_tail(d, &row, &t)) {
        int N = gm_waves_data_nslot(d, form, gm_waves_data_op(d, t.op), t.b);
        long even = N > 0 ? gm_waves_blocks_per_mp((long)t.G, d->form[form].n_mp) - N : -1;
        char name[64];
        snprintf(name, sizeof name, "tail_%s_b%d", t.op, t.b);
        add(r, "end to end", name, t.most, (double)even, 0,
            "G = %.0f: %ld tail blocks on %d SMs; most on one SM vs Eq. 3.2's even share", t.G,
            t.total, t.sms);
    }
}

static void write_text(FILE *out, const report *r, const gm_mdata *md, const char *path)
{
    fprintf(out, "GPUDIAG parameters (paper 003) of %s, %d SMs, cc %d.%d, measured %s\n",
            md->meta.gpu_name, md->meta.sm_count, md->meta.cc_major, md->meta.cc_minor,
            md->meta.date);
    fprintf(out, "machine data: %s\n", path);
    const char *sec = NULL;
    for (size_t i = 0; i < r->n; i++) {
        const item *it = &r->it[i];
        if (!sec || strcmp(sec, it->section)) {
            sec = it->section;
            fprintf(out, "\n%s\n  %-28s %16s %16s  %s\n", sec, "parameter", "measured",
                    "documented", "");
        }
        char m[32], d[32];
        snprintf(m, sizeof m, isnan(it->measured) ? "-" : "%.6g", it->measured);
        snprintf(d, sizeof d, isnan(it->documented) ? "-" : "%.6g", it->documented);
        fprintf(out, "  %-28s %16s %16s %s %s\n", it->name, m, d, it->differs ? "*" : " ",
                it->note);
    }
    fprintf(out, "\n* measured differs from documented (throughputs: by more than 5%%)\n");
}

static void num(FILE *out, double v, int json)
{
    if (isnan(v))
        fputs(json ? "null" : "", out);
    else
        fprintf(out, "%.9g", v);
}

static void write_csv(FILE *out, const report *r)
{
    fputs("section,parameter,measured,documented,differs,note\n", out);
    for (size_t i = 0; i < r->n; i++) {
        const item *it = &r->it[i];
        gm_csv_write_field(out, it->section);
        fputc(',', out);
        gm_csv_write_field(out, it->name);
        fputc(',', out);
        num(out, it->measured, 0);
        fputc(',', out);
        num(out, it->documented, 0);
        fprintf(out, ",%d,", it->differs);
        gm_csv_write_field(out, it->note);
        fputc('\n', out);
    }
}

static void write_json(FILE *out, const report *r, const gm_mdata *md)
{
    fputs("{\n  \"gpu\": ", out);
    gm_json_write_string(out, md->meta.gpu_name);
    fprintf(out, ",\n  \"sm_count\": %d,\n  \"date\": ", md->meta.sm_count);
    gm_json_write_string(out, md->meta.date);
    fputs(",\n  \"parameters\": [\n", out);
    for (size_t i = 0; i < r->n; i++) {
        const item *it = &r->it[i];
        fputs("    {\"section\": ", out);
        gm_json_write_string(out, it->section);
        fputs(", \"parameter\": ", out);
        gm_json_write_string(out, it->name);
        fputs(", \"measured\": ", out);
        num(out, it->measured, 1);
        fputs(", \"documented\": ", out);
        num(out, it->documented, 1);
        fprintf(out, ", \"differs\": %s, \"note\": ", it->differs ? "true" : "false");
        gm_json_write_string(out, it->note);
        fprintf(out, "}%s\n", i + 1 < r->n ? "," : "");
    }
    fputs("  ]\n}\n", out);
}

typedef struct diag_job {
    const report *r;
    const gm_mdata *md;
    const char *path;
    gm_format fmt;
} diag_job;

static gm_status write_report(FILE *out, const void *obj, gm_error *err)
{
    const diag_job *j = obj;
    (void)err; /* stream errors: cli_write_output checks the stream */
    if (j->fmt == GM_FORMAT_CSV)
        write_csv(out, j->r);
    else if (j->fmt == GM_FORMAT_JSON)
        write_json(out, j->r, j->md);
    else
        write_text(out, j->r, j->md, j->path);
    return GM_OK;
}

/* The only sched.csv under dir/<gpu>/ ; 0 none, 1 found, 2 several. */
static int scan_dir(const char *dir, char *path, size_t len)
{
    DIR *d = dir && dir[0] ? opendir(dir) : NULL;
    int found = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char p[4096];
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s/sched.csv", dir, e->d_name);
        struct stat sb; /* stat, not fopen: opening a FIFO would wait for a writer */
        if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (!found)
            snprintf(path, len, "%s", p);
        found++;
    }
    closedir(d);
    return found > 1 ? 2 : found;
}

int cmd_diag(int argc, char **argv)
{
    static const struct option opts[] = {
        {"table", required_argument, NULL, 't'}, {"gpu", required_argument, NULL, 'g'},
        {"form", required_argument, NULL, 'F'},  {"format", required_argument, NULL, 'f'},
        {"plot", required_argument, NULL, 'p'},  {"output", required_argument, NULL, 'o'},
        {"tails", required_argument, NULL, 'T'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *table = NULL, *gpu = NULL, *plot = NULL, *output = NULL, *tails = NULL;
    const char *form_arg = NULL, *fmt_arg = NULL;
    gm_format fmt = GM_FORMAT_TEXT;
    gm_waves_form form = GM_WAVES_FORM_HOPPER;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":hf:o:", opts, NULL)) != -1) {
        switch (c) {
        case 'h': print_help(); return GPUQ_EXIT_OK;
        case 't':
            if (cli_take_once(CMD, "--table", &table, optarg) < 0)
                return GPUQ_EXIT_USAGE;
            break;
        case 'g':
            if (cli_take_once(CMD, "--gpu", &gpu, optarg) < 0)
                return GPUQ_EXIT_USAGE;
            break;
        case 'p':
            if (cli_take_once(CMD, "--plot", &plot, optarg) < 0)
                return GPUQ_EXIT_USAGE;
            break;
        case 'T':
            if (cli_take_once(CMD, "--tails", &tails, optarg) < 0)
                return GPUQ_EXIT_USAGE;
            break;
        case 'o':
            if (cli_take_once(CMD, "-o", &output, optarg) < 0)
                return GPUQ_EXIT_USAGE;
            break;
        case 'F':
            if (cli_take_once(CMD, "--form", &form_arg, optarg) < 0)
                return GPUQ_EXIT_USAGE;
            if (gm_waves_form_parse(optarg, &form) != GM_OK)
                return cli_usage_error(CMD, "--form: '%s' is not hopper or paper", optarg);
            break;
        case 'f':
            if (cli_take_once(CMD, "--format", &fmt_arg, optarg) < 0)
                return GPUQ_EXIT_USAGE;
            if (gm_format_parse(optarg, &fmt) != GM_OK || fmt == GM_FORMAT_HTML)
                return cli_usage_error(CMD, "--format: '%s' is not text, csv or json", optarg);
            break;
        case ':': return cli_usage_error(CMD, "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (table && gpu)
        return cli_usage_error(CMD, "--table and --gpu exclude each other");
    char path[4096];
    gm_error err = {{0}};
    gm_status st;
    if (table) {
        snprintf(path, sizeof path, "%s", table);
    } else if (gpu) {
        gm_mdata_set_search_dirs(NULL, GPUQ_SOURCE_DIR "/tables");
        if ((st = gm_mdata_find(gpu, 0, "sched", "sched.csv", path, sizeof path, &err)) != GM_OK)
            return cli_fail(CMD, st, &err);
    } else {
        int n = scan_dir(getenv("GPUQ_TABLE_DIR"), path, sizeof path);
        if (n == 0)
            n = scan_dir(GPUQ_SOURCE_DIR "/tables", path, sizeof path);
        if (n != 1) {
            cli_error(CMD, n ? "machine data of several GPUs: choose one with --gpu or --table"
                             : "no sched machine data found (run 'gpuq calibrate --suite sched')");
            return GPUQ_EXIT_INPUT;
        }
    }
    const char *inputs[2] = {path, tails};
    if (cli_check_output(CMD, "-o", output, inputs, 2) < 0)
        return GPUQ_EXIT_USAGE;
    gm_mdata *md = NULL, *tmd = NULL;
    gm_waves_data *td = NULL;
    if ((st = gm_mdata_load(path, &md, &err)) != GM_OK)
        return cli_fail(CMD, st, &err);
    if (strcmp(md->meta.suite, "sched") != 0) {
        cli_error(CMD, "%s: not sched machine data (it holds suite '%s'; give the sched.csv of "
                       "'gpuq calibrate --suite sched')",
                  path, md->meta.suite);
        gm_mdata_free(md);
        return GPUQ_EXIT_INPUT;
    }
    gm_waves_data *d = malloc(sizeof *d);
    report *r = calloc(1, sizeof *r);
    int rc = GPUQ_EXIT_OK;
    if (!d || !r) {
        cli_error(CMD, "out of memory");
        rc = GPUQ_EXIT_INPUT;
        goto done;
    }
    if ((st = gm_waves_data_load(md, d, &err)) != GM_OK) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }
    if (tails && ((st = gm_mdata_load(tails, &tmd, &err)) != GM_OK ||
                  (st = (td = malloc(sizeof *td)) ? gm_waves_data_load(tmd, td, &err)
                                                  : GM_ERR_NOMEM) != GM_OK)) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }
    build(r, d, form, td);
    diag_job job = {r, md, path, fmt};
    rc = cli_write_output(CMD, output, write_report, &job);
    if (rc == GPUQ_EXIT_OK && plot) {
        int n = 0;
        if ((st = cli_waves_diag_plot(d, form, plot, &n, &err)) != GM_OK)
            rc = cli_fail(CMD, st, &err);
        else
            fprintf(stderr, "diag: %d figures in %s\n", n, plot);
    }
done:
    free(r);
    free(d);
    free(td);
    gm_mdata_free(md);
    gm_mdata_free(tmd);
    return rc;
}
