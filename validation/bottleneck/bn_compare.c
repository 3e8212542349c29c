/* Compares the bottleneck model (paper 004) with ground truth.
 *
 *   bn_compare model THROUGHPUT.csv NCU.csv TIMES.csv
 *       the unit "bottleneck" (both forms) on every launch ncu profiled, the
 *       launches matched to TIMES.csv rows by order; one CSV row per case and
 *       form: measured (event-timed median), predicted, error, bottleneck
 *       named, component times, what-if speedups, causes
 *   bn_compare steps THROUGHPUT.csv NCU.csv TIMES.csv
 *       cr --steps: launches s = 0..9 per variant; step s = launch s minus
 *       launch s-1 (counters and time), modelled with the warps the step
 *       keeps busy (Fig. 6-8)
 *   bn_compare patterns NCU.csv
 *       bn_validate --patterns: sectors and shared wavefronts counted by the
 *       hardware against the transaction simulator (patterns.h)
 *   bn_compare probes NCU.csv
 *       bn_validate --probes: the pipe counter each probe's 64 instructions hit
 *   bn_compare metrics
 *       the hardware metrics of the table (what gpuq profile collects), one a line
 * NCU.csv: `ncu --csv --print-units base --metrics ...` (long layout). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/counters.h"
#include "gpuq/metrics.h"
#include "papers/bottleneck/bottleneck_txsim.h"
#include "gpuq/unit.h"
#include "papers/bottleneck/bottleneck_unit.h"
#include "papers/bottleneck/bottleneck_model.h"
#include "patterns.h"

extern const gm_unit gm_unit_bottleneck;

/* ---- a small reader for the long ncu CSV: (launch ID, metric, value) ---- */
typedef struct ncu_row {
    int id;
    char metric[96];
    double value;
} ncu_row;

static int split_csv(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        if (*p == '"') {
            p++;
            f[n++] = p;
            while (*p && !(*p == '"' && (p[1] == ',' || p[1] == '\n' || p[1] == '\r' || !p[1]))) p++;
            if (*p) *p++ = '\0';
            if (*p == ',') p++;
        } else {
            f[n++] = p;
            while (*p && *p != ',' && *p != '\n') p++;
            if (*p) *p++ = '\0';
        }
    }
    return n;
}

static ncu_row *read_ncu(const char *path, size_t *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bn_compare: cannot open '%s'\n", path);
        exit(2);
    }
    char line[8192];
    int c_id = -1, c_metric = -1, c_value = -1;
    size_t n = 0, cap = 1024;
    ncu_row *rows = malloc(cap * sizeof *rows);
    while (fgets(line, sizeof line, f)) {
        char *fl[64];
        if (line[0] != '"') continue; /* program output and ==PROF== lines */
        int k = split_csv(line, fl, 64);
        if (c_id < 0) {
            for (int i = 0; i < k; i++) {
                if (!strcmp(fl[i], "ID")) c_id = i;
                if (!strcmp(fl[i], "Metric Name")) c_metric = i;
                if (!strcmp(fl[i], "Metric Value")) c_value = i;
            }
            continue;
        }
        if (k <= c_value || c_metric < 0) continue;
        if (n == cap) rows = realloc(rows, (cap *= 2) * sizeof *rows);
        rows[n].id = atoi(fl[c_id]);
        snprintf(rows[n].metric, sizeof rows[n].metric, "%s", fl[c_metric]);
        char num[64], *q = num;
        for (const char *s = fl[c_value]; *s && q < num + 63; s++)
            if (*s != ',') *q++ = *s;
        *q = '\0';
        rows[n].value = strtod(num, NULL);
        n++;
    }
    fclose(f);
    *count = n;
    return rows;
}

static double ncu_get(const ncu_row *r, size_t n, int id, const char *metric)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].id == id && !strcmp(r[i].metric, metric)) return r[i].value;
    return NAN;
}

static int ncu_ids(const ncu_row *r, size_t n, int *ids, int max)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        if ((k == 0 || ids[k - 1] != r[i].id) && k < max) ids[k++] = r[i].id;
    return k;
}

/* ---- the timing CSV: header row, then one row per case ---- */
typedef struct times {
    int n;
    char name[512][64], expected[512][16];
    double us[512];
} times;

static void read_times(const char *path, times *t)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bn_compare: cannot open '%s'\n", path);
        exit(2);
    }
    char line[2048];
    int c_us = -1, c_exp = -1, header = 0;
    t->n = 0;
    while (fgets(line, sizeof line, f) && t->n < 512) {
        char *fl[32];
        if (line[0] == '#' || !strchr(line, ',')) continue;
        int k = split_csv(line, fl, 32);
        if (!header) {
            if (strcmp(fl[0], "case")) continue;
            for (int i = 0; i < k; i++) {
                if (!strcmp(fl[i], "median_us")) c_us = i;
                if (!strcmp(fl[i], "expected")) c_exp = i;
            }
            header = 1;
            continue;
        }
        if (!strcmp(fl[0], "bytes_per_entry") || k <= c_us) break;
        snprintf(t->name[t->n], 64, "%s", fl[0]);
        snprintf(t->expected[t->n], 16, "%s", c_exp >= 0 ? fl[c_exp] : "-");
        t->us[t->n] = atof(fl[c_us]);
        t->n++;
    }
    fclose(f);
}

static const char *part_short(int p)
{
    return p == GM_BOTTLENECK_INST ? "instruction" : p == GM_BOTTLENECK_SHARED ? "shared" : p == GM_BOTTLENECK_GLOBAL ? "global" : "-";
}

/* The machine of THROUGHPUT.csv as the unit would see it. */
static void load_machine(const char *path, gm_machine *m, gm_bottleneck_machine *zm)
{
    gm_mdata *md = NULL;
    gm_error err;
    if (gm_mdata_load(path, &md, &err) != GM_OK || gm_bottleneck_machine_from_mdata(md, zm, &err) != GM_OK) {
        fprintf(stderr, "bn_compare: %s: %s\n", path, err.msg);
        exit(2);
    }
    memset(m, 0, sizeof *m);
    m->n_files = 1;
    snprintf(m->files[0].suite, sizeof m->files[0].suite, "throughput");
    m->files[0].md = md;
    m->sm_count = md->meta.sm_count;
}

/* BN_IDEAL_FROM_LSU=1: where the bank-conflict counter was not collected,
 * conflict-free shared wavefronts = LSU instructions less global ones (one
 * wavefront per 4-byte shared access without conflicts: true of the
 * validation kernels and CR, which access shared memory 4 bytes wide). */
static int ideal_from_lsu;

/* The launch as the model's input, from the imported counters. */
static void load_counters(const char *path, gm_counters_set *set)
{
    gm_error err;
    if (gm_ncu_csv_load(path, set, &err) != GM_OK) {
        fprintf(stderr, "bn_compare: %s: %s\n", path, err.msg);
        exit(2);
    }
}

/* model and steps read the same three files (or exit 2): the throughput
 * table, ncu's counters and the measured times. */
static void load_inputs(const char *tp, const char *ncu, const char *tpath, gm_machine *m,
                        gm_bottleneck_machine *zm, gm_counters_set *set, times *t)
{
    load_machine(tp, m, zm);
    load_counters(ncu, set);
    read_times(tpath, t);
}

static int cmd_model(const char *tp, const char *ncu, const char *tpath)
{
    gm_machine m;
    gm_bottleneck_machine zm;
    gm_counters_set set;
    times t;
    load_inputs(tp, ncu, tpath, &m, &zm, &set, &t);
    if ((int)set.count != t.n) {
        fprintf(stderr, "bn_compare: %zu profiled launches but %d timed cases\n", set.count, t.n);
        return 2;
    }
    printf("case,kernel,expected,form,warps,measured_us,ncu_us,predicted_us,error,named,correct,"
           "inst_us,shared_us,global_us,next,speedup_no_conflicts,speedup_coalesced,speedup_more_warps,causes\n");
    for (int f = 0; f < 2; f++) {
        const char *variant = f ? "paper" : "hopper";
        void *st = NULL;
        gm_error err;
        if (gm_unit_bottleneck.prepare(&m, variant, &st, &err) != GM_OK) {
            fprintf(stderr, "bn_compare: %s\n", err.msg);
            return 2;
        }
        for (size_t i = 0; i < set.count; i++) {
            const gm_launch_counters *k = &set.launches[i];
            gm_bottleneck_launch l;
            gm_bottleneck_launch_from_counters(k, zm.max_warps_per_sm, ideal_from_lsu, &l);
            gm_bottleneck_result r;
            gm_bottleneck_whatif w;
            int sm = m.sm_count;
            gm_bottleneck_form form = f ? GM_BOTTLENECK_PAPER : GM_BOTTLENECK_HOPPER;
            if (gm_bottleneck_predict(&zm, form, sm, &l, &r, &err) != GM_OK ||
                gm_bottleneck_whatif_all(&zm, form, sm, &l, 0, &w, &err) != GM_OK) {
                fprintf(stderr, "bn_compare: %s: %s\n", t.name[i], err.msg);
                continue;
            }
            /* The unit on the same counters must say the same (its path is the report's). */
            void *res = calloc(1, gm_unit_bottleneck.result_size);
            gm_counters_meta meta;
            memset(&meta, 0, sizeof meta);
            meta.sm_count = sm;
            meta.max_warps_per_sm = zm.max_warps_per_sm;
            gm_unit_bottleneck.apply(st, &meta, k, res, &err);
            gm_field fl[GM_UNIT_MAX_FIELDS];
            size_t nf = gm_unit_bottleneck.fields(st, res, fl, GM_UNIT_MAX_FIELDS);
            for (size_t j = 0; j < nf; j++)
                if (!strcmp(fl[j].name, "predicted_us") && !(fabs(fl[j].num - r.predicted / 1e3) < 1e-6 * r.predicted))
                    fprintf(stderr, "bn_compare: %s: unit %.3f us, model %.3f us\n", t.name[i], fl[j].num, r.predicted / 1e3);
            free(res);
            char causes[160];
            gm_bottleneck_causes_text(r.causes, causes, sizeof causes);
            const char *named = part_short(r.bottleneck);
            int correct = !strcmp(t.expected[i], "-") ? -1 : !strcmp(t.expected[i], named);
            printf("%s,\"%s\",%s,%s,%.2f,%.3f,%.3f,%.3f,%.4f,%s,%d,%.3f,%.3f,%.3f,%s,%.3f,%.3f,%.3f,\"%s\"\n", t.name[i],
                   k->kernel, t.expected[i], variant, r.warps, t.us[i],
                   k->metric[gm_metric_find("gpu__time_duration.sum")] / 1e3, r.predicted / 1e3,
                   (r.predicted / 1e3 - t.us[i]) / t.us[i], named, correct, r.t[0] / 1e3, r.t[1] / 1e3,
                   r.t[2] / 1e3, part_short(r.next), w.speedup_no_conflicts, w.speedup_coalesced,
                   w.speedup_more_warps, causes);
        }
        gm_unit_bottleneck.release(st);
    }
    return 0;
}

static int cmd_steps(const char *tp, const char *ncu, const char *tpath)
{
    gm_machine m;
    gm_bottleneck_machine zm;
    gm_counters_set set;
    times t;
    load_inputs(tp, ncu, tpath, &m, &zm, &set, &t);
    if ((int)set.count != t.n || t.n % 11) {
        fprintf(stderr, "bn_compare: steps needs 11 launches per variant (got %zu, %d)\n", set.count, t.n);
        return 2;
    }
    printf("variant,step,form,warps,measured_us,predicted_us,named,inst_us,shared_us,global_us,"
           "shared_wavefronts,shared_ideal\n");
    for (int v = 0; v < t.n / 11; v++)
        for (int s = 0; s <= 10; s++) {
            int i = v * 11 + s;
            gm_bottleneck_launch l, prev;
            gm_bottleneck_launch_from_counters(&set.launches[i], zm.max_warps_per_sm,
                                               ideal_from_lsu, &l);
            double meas = t.us[i];
            if (s > 0) { /* the step alone: this launch minus the one before */
                gm_bottleneck_launch_from_counters(&set.launches[i - 1], zm.max_warps_per_sm,
                                                   ideal_from_lsu, &prev);
                double *a = (double *)&l, *b = (double *)&prev;
                size_t nd = offsetof(gm_bottleneck_launch, warps_per_sm) / sizeof(double);
                for (size_t j = 0; j < nd; j++) a[j] = fmax(0, a[j] - b[j]);
                meas -= t.us[i - 1];
                /* warps the step keeps busy: blocks per SM x warps with work */
                double per_block = s <= 9 ? fmax(1, ceil((512 >> s) / 32.0)) : 8;
                l.warps_per_sm = prev.warps_per_sm / 8 * per_block;
            }
            for (int f = 0; f < 2; f++) {
                gm_bottleneck_result r;
                gm_error err;
                gm_bottleneck_form form = f ? GM_BOTTLENECK_PAPER : GM_BOTTLENECK_HOPPER;
                if (gm_bottleneck_predict(&zm, form, m.sm_count, &l, &r, &err) != GM_OK) continue;
                /* a step is a part of a launch: no launch cost of its own */
                double pred = (r.predicted - (s > 0 ? r.t_launch : 0)) / 1e3;
                printf("%s,%d,%s,%.2f,%.3f,%.3f,%s,%.3f,%.3f,%.3f,%.0f,%.0f\n", v ? "CR-NBC" : "CR", s,
                       f ? "paper" : "hopper", r.warps, meas, pred, part_short(r.bottleneck),
                       r.t[0] / 1e3, r.t[1] / 1e3, r.t[2] / 1e3, l.shared_wavefronts, l.shared_ideal);
            }
        }
    return 0;
}

static int cmd_patterns(const char *ncu)
{
    size_t n;
    ncu_row *rows = read_ncu(ncu, &n);
    int ids[256];
    int k = ncu_ids(rows, n, ids, 256);
    if (k != BN_N_GLOBAL + BN_N_SHARED) {
        fprintf(stderr, "bn_compare: %d pattern launches, want %d\n", k, BN_N_GLOBAL + BN_N_SHARED);
        return 2;
    }
    printf("space,pattern,bytes,quantity,counter,simulated,match\n");
    int agree = 0, total = 0;
    for (int i = 0; i < k; i++) {
        int shared = i >= BN_N_GLOBAL, p = shared ? i - BN_N_GLOBAL : i, bytes = 4;
        uint64_t a[32];
        unsigned char act[32];
        for (int t = 0; t < 32; t++) {
            int b, on;
            a[t] = shared ? bn_shared_addr(p, t, &b, &on) : bn_global_addr(p, t, &b, &on);
            act[t] = (unsigned char)on;
            bytes = b;
        }
        if (!shared) {
            gm_bottleneck_tx_global_cost c;
            memset(&c, 0, sizeof c);
            gm_bottleneck_tx_global_add(&gm_bottleneck_tx_hopper_global, a, act, 32, bytes, &c,
                                        NULL);
            double hw_s = ncu_get(rows, n, ids[i], "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
            double hw_r = ncu_get(rows, n, ids[i], "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
            printf("global,%d,%d,sectors,%.0f,%.0f,%d\n", p, bytes, hw_s, c.transactions, hw_s == c.transactions);
            printf("global,%d,%d,requests,%.0f,%.0f,%d\n", p, bytes, hw_r, c.requests, hw_r == c.requests);
            agree += (hw_s == c.transactions) + (hw_r == c.requests);
            total += 2;
        } else {
            gm_bottleneck_tx_shared_cost c;
            memset(&c, 0, sizeof c);
            gm_bottleneck_tx_shared_add(&gm_bottleneck_tx_hopper_shared, a, act, 32, bytes, &c,
                                        NULL);
            double hw = ncu_get(rows, n, ids[i], "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
            double hw_c = ncu_get(rows, n, ids[i], "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
            printf("shared,%d,%d,wavefronts,%.0f,%.0f,%d\n", p, bytes, hw, c.wavefronts, hw == c.wavefronts);
            printf("shared,%d,%d,conflict_counter,%.0f,%.0f,-\n", p, bytes, hw_c, c.wavefronts - c.ideal);
            agree += hw == c.wavefronts;
            total += 1;
        }
    }
    printf("# simulator matches the counter in %d of %d comparisons\n", agree, total);
    free(rows);
    return 0;
}

static int cmd_probes(const char *ncu)
{
    size_t n;
    ncu_row *rows = read_ncu(ncu, &n);
    int ids[16];
    int k = ncu_ids(rows, n, ids, 16);
    static const char *probe[] = {"FFMA", "IMAD", "LOP3", "DFMA", "HFMA2", "MUFU.EX2"};
    static const char *pipes[] = {"fma", "fmaheavy", "fmalite", "alu", "fp64", "fp16", "xu", "uniform"};
    printf("probe");
    for (int p = 0; p < 8; p++) printf(",%s", pipes[p]);
    printf("\n");
    for (int i = 0; i < k && i < 6; i++) {
        printf("%s", probe[i]);
        for (int p = 0; p < 8; p++) {
            char name[96];
            snprintf(name, sizeof name, "smsp__inst_executed_pipe_%s.sum", pipes[p]);
            printf(",%.0f", ncu_get(rows, n, ids[i], name));
        }
        printf("\n");
    }
    free(rows);
    return 0;
}

int main(int argc, char **argv)
{
    ideal_from_lsu = getenv("BN_IDEAL_FROM_LSU") && !strcmp(getenv("BN_IDEAL_FROM_LSU"), "1");
    if (argc == 5 && !strcmp(argv[1], "model")) return cmd_model(argv[2], argv[3], argv[4]);
    if (argc == 5 && !strcmp(argv[1], "steps")) return cmd_steps(argv[2], argv[3], argv[4]);
    if (argc == 3 && !strcmp(argv[1], "patterns")) return cmd_patterns(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "probes")) return cmd_probes(argv[2]);
    if (argc == 2 && !strcmp(argv[1], "metrics")) { /* what the collector gathers: the hardware rows */
        for (size_t i = 0; i < gm_metric_count(); i++)
            if (strncmp(gm_metric_table[i].name, "smsp__sass", 10))
                printf("%s\n", gm_metric_table[i].name);
        return 0;
    }
    fprintf(stderr, "usage: bn_compare model|steps THROUGHPUT.csv NCU.csv TIMES.csv | patterns|probes NCU.csv\n");
    return 1;
}
