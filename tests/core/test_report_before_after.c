/* Reports before and after a change of structure.
 *
 * 1. Every report gpuq model makes of data/recorded/ (and of the recorded
 * ncu files in tests/data/ncu/) is byte for byte what gpuq made at commit
 * ec755ce, before the layout into papers and core: tests/data/report-before/
 * ec755ce/commands.txt lists them (every file in text, CSV and JSON, per launch
 * and --summary; each section alone; every variant of every section; two
 * processes in one report; the section and metric lists), record.sh wrote
 * their stdout (NAME.gz) and their exit status and stderr (stderr.txt) with
 * the gpuq of that commit.  Since then every report opens with the ranked
 * kernels (report_rank.c): that block is taken out of each new report
 * before the comparison, and must be there, once, in every report.
 *
 * Reports the bottleneck section's verdicts changed on purpose (the physical
 * check, launch and latency bound, the Hopper unit fields, the launch- and
 * latency-bound what-ifs; and the waves section's launch-shape what-ifs,
 * now with the kernel's own wave cost) are compared with
 * their recording in tests/data/report-before/bottleneck-verdicts/ instead,
 * and their CSV cells outside those verdicts still with ec755ce's.
 *
 * 2. The reshape changed how the report is built (registered units, sections)
 * but not what it says: every CSV report in tests/data/report-before/,
 * written by gpuq 0.1.0 from the recorded counters in data/recorded/ for
 * every variant, per launch and with --summary, is made again here, and
 * every field must be the same: numbers bit for bit, texts as written.
 * Old column names map to the new ones: a counter keeps its name, a model
 * field X is now "atomics.X", the old "kernel" (the demangled name) is
 * "demangled".  The table is the one the old report names: the same cells,
 * moved from tables/<name>-sxm.csv.gz to the GPU's folder. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <sys/wait.h>
#include <unistd.h>

#include "core/csv_internal.h"
#include "core/gzstream.h"
#include "gpuq/report.h"
#include "papers/atomics/atomics_table.h"

#define BEFORE_DIR GPUQ_SOURCE_DIR "/tests/data/report-before"
#define EC755CE_DIR BEFORE_DIR "/ec755ce"
/* reports the bottleneck section's verdicts changed on purpose (its README) */
#define VERDICTS_DIR BEFORE_DIR "/bottleneck-verdicts"

typedef struct csv_doc {
    size_t n_cols, n_rows;
    size_t n_comment; /* '#' lines: the ranked kernels' block */
    char **head;   /* n_cols */
    char **cells;  /* n_rows * n_cols */
} csv_doc;

static void doc_free(csv_doc *d)
{
    for (size_t i = 0; i < d->n_cols; i++)
        free(d->head[i]);
    for (size_t i = 0; i < d->n_rows * d->n_cols; i++)
        free(d->cells[i]);
    free(d->head);
    free(d->cells);
    memset(d, 0, sizeof *d);
}

static void doc_read(FILE *in, const char *name, csv_doc *d)
{
    memset(d, 0, sizeof *d);
    gm_csv_reader rd;
    gm_csv_reader_init(&rd, in, name);
    gm_error err = {{0}};
    int eof = 0;
    for (;;) {
        assert_int_equal(gm_csv_next_line(&rd, &eof, &err), GM_OK);
        if (eof)
            break;
        /* the ranked kernels that open every report since (test_report_rank);
         * the reports before have no '#' line */
        if (rd.raw[0] == '#') {
            d->n_comment++;
            continue;
        }
        assert_int_equal(gm_csv_split(&rd, &err), GM_OK);
        if (!d->head) {
            d->n_cols = rd.n_fields;
            d->head = calloc(d->n_cols, sizeof *d->head);
            for (size_t i = 0; i < d->n_cols; i++)
                d->head[i] = strdup(rd.fields[i]);
            continue;
        }
        if (rd.n_fields != d->n_cols)
            fail_msg("%s:%ld: %zu fields, the header has %zu", name, rd.line, rd.n_fields,
                     d->n_cols);
        d->cells = realloc(d->cells, (d->n_rows + 1) * d->n_cols * sizeof *d->cells);
        for (size_t i = 0; i < d->n_cols; i++)
            d->cells[d->n_rows * d->n_cols + i] = strdup(rd.fields[i]);
        d->n_rows++;
    }
    gm_csv_reader_free(&rd);
}

static long column(const csv_doc *d, const char *name)
{
    for (size_t i = 0; i < d->n_cols; i++)
        if (strcmp(d->head[i], name) == 0)
            return (long)i;
    return -1;
}

/* The new report of counters with the table and variant the old one names. */
static void regenerate(const char *counters, const char *table, const char *variant,
                       int summary, csv_doc *out)
{
    gm_counters_set set;
    gm_error err = {{0}};
    if (gm_counters_load(counters, &set, &err) != GM_OK)
        fail_msg("%s", err.msg);
    /* each table is loaded once (a shipped table takes most of a second) */
    static struct {
        char name[256];
        gm_atomics_table *table;
    } cache[4];
    size_t t = 0;
    while (t < 4 && cache[t].table && strcmp(cache[t].name, table) != 0)
        t++;
    assert_true(t < 4);
    if (!cache[t].table) {
        char path[4200];
        const char *folder = strncmp(table, "h100", 4) == 0 ? "nvidia-h100-80gb-hbm3"
                             : strncmp(table, "h200", 4) == 0 ? "nvidia-h200" : NULL;
        if (!folder)
            fail_msg("no folder for the old table %s", table);
        snprintf(path, sizeof path, "%s/tables/%s/atomics.csv.gz", GPUQ_SOURCE_DIR, folder);
        if (gm_atomics_table_load(path, &cache[t].table, &err) != GM_OK)
            fail_msg("%s", err.msg);
        snprintf(cache[t].name, sizeof cache[t].name, "%s", table);
    }
    gm_machine m;
    memset(&m, 0, sizeof m);
    /* borrowed: the machine is not freed */
    assert_int_equal(gm_machine_adopt(&m, "atomics", table, NULL, cache[t].table, NULL, NULL),
                     GM_OK);
    const char *const variants[] = {variant, NULL};
    gm_report_options opt = {.summary = summary, .variants = variants};
    gm_report_file file = {.set = &set, .path = counters};
    gm_report rep;
    if (gm_report_make(&rep, &file, 1, &m, &opt, &err) != GM_OK)
        fail_msg("%s", err.msg);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_non_null(mem);
    assert_int_equal(gm_report_write(mem, &rep, GM_FORMAT_CSV, &err), GM_OK);
    fclose(mem);
    FILE *in = fmemopen(text, len, "r");
    doc_read(in, "regenerated", out);
    fclose(in);
    free(text);
    gm_report_free(&rep);
    gm_counters_set_clear(&set);
}

static size_t compare_one(const char *file_name, size_t *texts)
{
    /* <recorded>.<variant>[.summary].csv */
    char base[512], variant[64] = "";
    snprintf(base, sizeof base, "%s", file_name);
    base[strlen(base) - 4] = '\0';
    int summary = 0;
    char *dot = strrchr(base, '.');
    if (dot && strcmp(dot, ".summary") == 0) {
        summary = 1;
        *dot = '\0';
        dot = strrchr(base, '.');
    }
    assert_non_null(dot);
    snprintf(variant, sizeof variant, "%s", dot + 1);
    *dot = '\0';
    char path[1024], counters[1024];
    snprintf(path, sizeof path, "%s/%s", BEFORE_DIR, file_name);
    snprintf(counters, sizeof counters, "%s/data/recorded/%s.counters.csv", GPUQ_SOURCE_DIR, base);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    csv_doc before, after;
    doc_read(in, path, &before);
    fclose(in);
    long c_table = column(&before, "table");
    assert_true(c_table >= 0 && before.n_rows > 0);
    const char *table = strrchr(before.cells[c_table], '/');
    table = table ? table + 1 : before.cells[c_table];
    regenerate(counters, table, variant, summary, &after);
    if (after.n_rows != before.n_rows)
        fail_msg("%s: %zu rows before, %zu after", file_name, before.n_rows, after.n_rows);
    /* the one addition: the ranked kernels' block, a heading, a header and
     * one line per kernel name */
    long c_dem = column(&after, "demangled");
    size_t kernels = 0;
    for (size_t r = 0; c_dem >= 0 && r < after.n_rows; r++) {
        size_t q = 0;
        while (q < r && strcmp(after.cells[q * after.n_cols + (size_t)c_dem],
                               after.cells[r * after.n_cols + (size_t)c_dem]) != 0)
            q++;
        kernels += q == r;
    }
    if (before.n_comment != 0 || after.n_comment != 2 + kernels)
        fail_msg("%s: %zu '#' lines before, %zu after for %zu kernels", file_name,
                 before.n_comment, after.n_comment, kernels);
    size_t numbers = 0;
    for (size_t c = 0; c < before.n_cols; c++) {
        const char *old = before.head[c];
        if (strcmp(old, "table") == 0)
            continue; /* the path of the same file, from another checkout */
        char mapped[128];
        long nc = column(&after, strcmp(old, "kernel") == 0 ? "demangled" : old);
        if (nc < 0) {
            snprintf(mapped, sizeof mapped, "atomics.%s", old);
            nc = column(&after, mapped);
        }
        if (nc < 0)
            fail_msg("%s: column %s has no counterpart", file_name, old);
        for (size_t r = 0; r < before.n_rows; r++) {
            const char *a = before.cells[r * before.n_cols + c];
            const char *b = after.cells[r * after.n_cols + (size_t)nc];
            double x, y;
            if (gm_csv_parse_double(a, &x) == 0) {
                if (gm_csv_parse_double(b, &y) != 0 || memcmp(&x, &y, sizeof x) != 0)
                    fail_msg("%s row %zu %s: before %s, after %s", file_name, r, old, a, b);
                numbers++;
            } else {
                if (strcmp(a, b) != 0)
                    fail_msg("%s row %zu %s: before '%s', after '%s'", file_name, r, old, a, b);
                (*texts)++;
            }
        }
    }
    doc_free(&before);
    doc_free(&after);
    return numbers;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void test_every_report_is_the_same(void **state)
{
    (void)state;
    struct dirent **names = NULL;
    int n = scandir(BEFORE_DIR, &names, NULL, by_name);
    assert_true(n > 0);
    size_t files = 0, numbers = 0, texts = 0;
    for (int i = 0; i < n; i++) {
        const char *f = names[i]->d_name;
        size_t len = strlen(f);
        if (len > 4 && strcmp(f + len - 4, ".csv") == 0) {
            numbers += compare_one(f, &texts);
            files++;
        }
        free(names[i]);
    }
    free(names);
    printf("report before/after: %zu reports, %zu numeric fields bit-equal, %zu text fields "
           "equal\n", files, numbers, texts);
    assert_int_equal(files, 84); /* 6 recorded runs x 7 variants x (per launch, summary) */
    assert_int_equal(numbers, 13020); /* every numeric cell of the old reports */
}

/* All of a file (gzipped or not) in a NUL-terminated buffer. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = gm_fopen_maybe_gz(path, "r");
    if (!f)
        fail_msg("%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (cap - n < 65536) {
            cap = cap * 2 + 65536;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    assert_false(ferror(f));
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The H200's sched data measured the register file's allocation unit again
 * with register counts that are not multiples of 8 (256 registers per warp
 * where the first run could not tell it from 8): a kernel whose registers
 * now tie with the limit that held it names both ('warps' -> 'warps+
 * registers', in the limiter and the verdict), with the same N_slot. */
static int limiter_tie(const csv_doc *b, const csv_doc *a, size_t r, const char *col,
                       const char *x, const char *y)
{
    if (strcmp(col, "waves.limiter") != 0 && strcmp(col, "waves.verdict") != 0)
        return 0;
    const char *tie = strstr(y, "+registers");
    size_t at = tie ? (size_t)(tie - y) : 0, tail = strlen("+registers");
    if (!tie || strlen(y) != strlen(x) + tail || strncmp(x, y, at) != 0 ||
        strcmp(x + at, y + at + tail) != 0)
        return 0;
    long nb = column(b, "waves.N_slot"), na = column(a, "waves.N_slot");
    return nb >= 0 && na >= 0 &&
           strcmp(b->cells[r * b->n_cols + (size_t)nb], a->cells[r * a->n_cols + (size_t)na]) == 0;
}

/* A unit verdict of the paper form's parts now gives the named part's own
 * time, not the prediction that combines the parts ("shared memory is the
 * bottleneck (72.9 us of 71.0 measured)" -> "(67.6 us of 71.0 measured)"):
 * the same text but that number. */
static int own_part_time(const char *col, const char *x, const char *y)
{
    static const char key[] = " is the bottleneck (";
    if (strcmp(col, "verdict") != 0 && strcmp(col, "bottleneck.verdict") != 0)
        return 0;
    const char *kx = strstr(x, key), *ky = strstr(y, key);
    if (!kx || !ky || kx - x != ky - y || strncmp(x, y, (size_t)(kx - x)) != 0)
        return 0;
    const char *ux = strstr(kx, " us of "), *uy = strstr(ky, " us of ");
    return ux && uy && strcmp(ux, uy) == 0;
}

/* A report the bottleneck verdicts changed on purpose (bottleneck-verdicts/
 * README.md), as CSV: every column of ec755ce's is there, with ec755ce's
 * cells, except the bottleneck column, the prediction and the verdict, and
 * those only on rows whose bottleneck verdict is no longer a unit (a model
 * error, latency or launch bound). */
static void check_intended(const char *name, char *before, size_t nb, char *after, size_t na)
{
    if (!strstr(name, ".csv"))
        return;
    FILE *fb = fmemopen(before, nb, "r"), *fa = fmemopen(after, na, "r");
    assert_non_null(fb);
    assert_non_null(fa);
    csv_doc b, a;
    doc_read(fb, name, &b);
    doc_read(fa, name, &a);
    fclose(fb);
    fclose(fa);
    assert_int_equal(a.n_rows, b.n_rows);
    long kind = column(&a, "bottleneck.verdict");
    static const char *const may_change[] = {"bottleneck.bottleneck", "bottleneck.predicted_us",
                                             "bottleneck.error", "verdict", "verdict_section"};
    /* the waves section's launch-shape what-ifs now use the kernel's own
     * wave cost and latency (src/papers/waves/waves_shape.h): on any row */
    static const char *const shape_whatifs[] = {"waves.T_2G_us", "waves.T_halfG_us",
                                                "waves.T_2b_halfG_us", "waves.T_halfb_2G_us"};
    size_t changed = 0;
    for (size_t c = 0; c < b.n_cols; c++) {
        long ca = column(&a, b.head[c]);
        if (ca < 0)
            fail_msg("%s: column %s of ec755ce's report is gone", name, b.head[c]);
        int free_cell = 0, any_row = 0;
        for (size_t i = 0; i < sizeof may_change / sizeof may_change[0]; i++)
            free_cell |= strcmp(b.head[c], may_change[i]) == 0;
        for (size_t i = 0; i < sizeof shape_whatifs / sizeof shape_whatifs[0]; i++)
            any_row |= strcmp(b.head[c], shape_whatifs[i]) == 0;
        for (size_t r = 0; r < b.n_rows; r++) {
            const char *x = b.cells[r * b.n_cols + c], *y = a.cells[r * a.n_cols + (size_t)ca];
            if (strcmp(x, y) == 0)
                continue;
            const char *v = kind >= 0 ? a.cells[r * a.n_cols + (size_t)kind] : "unit";
            if (limiter_tie(&b, &a, r, b.head[c], x, y) || own_part_time(b.head[c], x, y)) {
                changed++;
                continue;
            }
            if (any_row) {
                changed++;
                continue;
            }
            if (!free_cell || strcmp(v, "unit") == 0 || strcmp(v, "-") == 0)
                fail_msg("%s row %zu: %s '%s' became '%s' (bottleneck verdict '%s')", name, r + 1,
                         b.head[c], x, y, v);
            changed++;
        }
    }
    if (changed)
        printf("  %s: %zu cells of ec755ce's columns changed by the bottleneck verdicts\n", name,
               changed);
    doc_free(&a);
    doc_free(&b);
}

/* Where two texts first differ, as "line L: 'before' vs 'after'". */
static void first_difference(const char *a, size_t na, const char *b, size_t nb, char *out,
                             size_t len)
{
    size_t i = 0, line = 1, start = 0;
    while (i < na && i < nb && a[i] == b[i]) {
        if (a[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    int wa = 0, wb = 0;
    while (start + (size_t)wa < na && a[start + (size_t)wa] != '\n' && wa < 160)
        wa++;
    while (start + (size_t)wb < nb && b[start + (size_t)wb] != '\n' && wb < 160)
        wb++;
    snprintf(out, len, "line %zu: before '%.*s', after '%.*s'", line, wa, a + start, wb,
             b + start);
}

/* Takes the ranked kernels' block out of a report of gpuq model ARGS (text,
 * CSV or JSON by its -f); returns 1 when it was there. */
static int strip_ranked_block(const char *args, char *text, size_t *len)
{
    char *from = NULL, *to = NULL;
    if (strstr(args, "-f csv")) {
        /* the '#' lines that open the report */
        from = text;
        to = text;
        while (strncmp(to, "# ", 2) == 0 && strchr(to, '\n'))
            to = strchr(to, '\n') + 1;
        if (to == from || strncmp(from, "# kernels by GPU time: ", 23) != 0)
            return 0;
    } else if (strstr(args, "-f json")) {
        from = strstr(text, ",\n  \"gpu_time_ns\": ");
        char *k = from ? strstr(from, "\n  \"kernels\": [") : NULL;
        if (!k)
            return 0;
        k += strlen("\n  \"kernels\": [");
        to = *k == ']' ? k + 1 : strstr(k, "\n  ]");
        if (!to)
            return 0;
        if (*to == '\n')
            to += 4;
    } else {
        from = strstr(text, "\n\n== kernels by GPU time: ");
        char *next = from ? strstr(from + 2, "\n\n== ") : NULL;
        char *verdicts = from ? strstr(from + 2, "\n\nverdicts") : NULL;
        to = next && (!verdicts || next < verdicts) ? next : verdicts;
        if (!to)
            return 0;
    }
    memmove(from, to, *len - (size_t)(to - text) + 1);
    *len -= (size_t)(to - from);
    return 1;
}

static void test_every_cli_report_is_byte_identical(void **state)
{
    (void)state;
    char tmp[] = "/tmp/gpuq_before_after.XXXXXX";
    assert_non_null(mkdtemp(tmp));
    FILE *list = fopen(EC755CE_DIR "/commands.txt", "r");
    assert_non_null(list);
    char *errs = NULL; /* stderr.txt as this gpuq writes it */
    size_t errs_len = 0;
    FILE *errs_out = open_memstream(&errs, &errs_len);
    assert_non_null(errs_out);
    char line[2048];
    size_t reports = 0, bytes = 0, blocks = 0, with_report = 0, intended = 0;
    while (fgets(line, sizeof line, list)) {
        line[strcspn(line, "\n")] = '\0';
        char *args = strchr(line, ' ');
        assert_non_null(args);
        *args++ = '\0';
        char cmd[4096];
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && GPUQ_TABLE_DIR=tables '%s/gpuq' model %s >'%s/out' 2>'%s/err'",
                 GPUQ_SOURCE_DIR, GPUQ_BINARY_DIR, args, tmp, tmp);
        int st = system(cmd);
        assert_true(st != -1 && WIFEXITED(st));
        char path[4200];
        size_t n_before, n_after;
        snprintf(path, sizeof path, "%s/%s.gz", EC755CE_DIR, line);
        char *before = slurp(path, &n_before);
        snprintf(path, sizeof path, "%s/out", tmp);
        char *after = slurp(path, &n_after);
        /* every report opens with the ranked kernels; the lists do not */
        int report = WEXITSTATUS(st) == 0 && !strstr(args, "--sections") && !strstr(args, "--metrics");
        bytes += n_after;
        with_report += report;
        int stripped = strip_ranked_block(args, after, &n_after);
        blocks += stripped;
        if (stripped != report)
            fail_msg("%s (gpuq model %s): %s", line, args,
                     report ? "no ranked kernels' block" : "a ranked block where no report is");
        /* a report the bottleneck verdicts changed on purpose: its recording
         * (with its ranked block, taken out the same way) instead */
        snprintf(path, sizeof path, "%s/%s.gz", VERDICTS_DIR, line);
        if (access(path, R_OK) == 0) {
            check_intended(line, before, n_before, after, n_after);
            free(before);
            before = slurp(path, &n_before);
            if (strip_ranked_block(args, before, &n_before) != report)
                fail_msg("%s: the recording in bottleneck-verdicts/ has no ranked block", line);
            intended++;
        }
        if (n_before != n_after || memcmp(before, after, n_before) != 0) {
            char where[512];
            first_difference(before, n_before, after, n_after, where, sizeof where);
            fail_msg("%s (gpuq model %s): stdout differs from ec755ce's at %s", line, args, where);
        }
        free(before);
        free(after);
        fprintf(errs_out, "%s exit=%d\n", line, WEXITSTATUS(st));
        snprintf(path, sizeof path, "%s/err", tmp);
        size_t n_err;
        char *err = slurp(path, &n_err);
        for (char *p = err; *p;) {
            size_t l = strcspn(p, "\n");
            fprintf(errs_out, "  %.*s\n", (int)l, p);
            p += l + (p[l] == '\n');
        }
        free(err);
        reports++;
    }
    fclose(list);
    fclose(errs_out);
    size_t n_old;
    char *old = slurp(EC755CE_DIR "/stderr.txt", &n_old);
    if (n_old != errs_len || memcmp(old, errs, n_old) != 0) {
        char where[512];
        first_difference(old, n_old, errs, errs_len, where, sizeof where);
        fail_msg("exit status or stderr differs from ec755ce's (stderr.txt) at %s", where);
    }
    free(old);
    free(errs);
    char path[4200];
    snprintf(path, sizeof path, "%s/out", tmp);
    unlink(path);
    snprintf(path, sizeof path, "%s/err", tmp);
    unlink(path);
    rmdir(tmp);
    printf("report before/after: %zu gpuq model runs byte-identical to the recorded ones (%zu bytes of "
           "stdout) once the ranked kernels' block is taken out of the %zu reports, exit status "
           "and stderr too\n", reports, bytes, blocks);
    assert_int_equal(blocks, with_report);
    printf("  %zu of them as the bottleneck verdicts changed them (bottleneck-verdicts/)\n",
           intended);
    size_t n_listed = 0;
    FILE *v = fopen(VERDICTS_DIR "/commands.txt", "r");
    assert_non_null(v);
    while (fgets(line, sizeof line, v))
        n_listed++;
    fclose(v);
    assert_int_equal(intended, n_listed);
    assert_int_equal(reports, 98); /* the lines of commands.txt */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_cli_report_is_byte_identical),
        cmocka_unit_test(test_every_report_is_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
