/* gpuq table: show, validate, convert or plot a calibration table
 * (format: docs/table-format.md; the plot is the paper's Figure 1). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "atomics_table.h"

#define CMD "table"
#define MAX_AXIS 64 /* entries in an --n-rows / --e-cols list */

static const int default_n_rows[] = {1, 8, 16, 32, 64};
static const int default_e_cols[] = {1, 8, 16, 32};

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: gpuq table show FILE [--partial] [--n-rows LIST] [--e-cols LIST]\n"
            "       gpuq table validate FILE\n"
            "       gpuq table convert FILE -o OUT [--format csv|json] [--partial]\n"
            "       gpuq table plot FILE -o FIG.svg [--n-rows LIST] [--e-cols LIST]\n"
            "                       [--class C] [--pattern P] [--method M] [--partial]\n"
            "\n"
            "Reads a calibration table (the measured T(n,e,c) of 'gpuq calibrate';\n"
            "format: docs/table-format.md).\n"
            "\n"
            "  show      metadata, series, and a grid of S = T/n (cycles per job) for a few\n"
            "            queue lengths n (rows) and active lanes e (columns), at c = 0 (no\n"
            "            CAS) and c = n (all CAS) for series that mix CAS in\n"
            "  validate  check every rule of the format; prints 'ok: ...' (exit 0) or the\n"
            "            first problem with its line number (exit 2)\n"
            "  convert   rewrite as canonical CSV or as JSON ('-o -' writes to stdout)\n"
            "  plot      the paper's Figure 1 as SVG via gnuplot: one panel per (n, e),\n"
            "            x = c (CAS among the n jobs), y = S in cycles\n"
            "\n"
            "options:\n"
            "  -o, --output PATH   output file (convert, plot)\n"
            "  -f, --format F      convert: csv (default) or json\n"
            "      --n-rows LIST   queue lengths to show, e.g. 1,8,16,32,64 (default; values\n"
            "                      above the table's n_max are left out of the default)\n"
            "      --e-cols LIST   active lanes to show, e.g. 1,8,16,32 (default)\n"
            "      --class C       plot: job class (default add): add, cas, popc_inc, ...\n"
            "      --pattern P     plot: same_address (default) or distinct_bank\n"
            "      --method M      plot: single_shot (default) or steady_state\n"
            "      --partial       accept a table with cells not yet measured (a checkpoint)\n"
            "  -h, --help          this text\n"
            "\n"
            "exit codes: 0 ok, 1 usage, 2 bad table, unwritable output or gnuplot missing/failed\n");
}

/* ---- shared option handling ------------------------------------------- */

typedef struct table_opts {
    const char *file;
    const char *output;
    const char *format;
    int partial;
    int n_rows[MAX_AXIS], n_row_count, n_rows_given;
    int e_cols[MAX_AXIS], e_col_count, e_cols_given;
    gm_atomics_job_class cls;
    gm_atomics_pattern pattern;
    gm_atomics_method method;
} table_opts;

enum { OPT_N_ROWS = 256, OPT_E_COLS, OPT_CLASS, OPT_PATTERN, OPT_METHOD, OPT_PARTIAL };

/* "1,8,16" -> list; 0 on success, else a usage error was printed. */
static int parse_list(const char *option, const char *text, int *out, int *count)
{
    char *copy = strdup(text);
    if (!copy)
        return -1;
    *count = 0;
    int rc = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (*count == MAX_AXIS) {
            cli_usage_error(CMD, "%s takes at most %d values", option, MAX_AXIS);
            rc = -1;
            break;
        }
        long v = cli_parse_count(CMD, option, tok, 1, 1024);
        if (v < 0) {
            rc = -1;
            break;
        }
        out[(*count)++] = (int)v;
    }
    if (rc == 0 && *count == 0) {
        cli_usage_error(CMD, "%s needs a comma-separated list of integers", option);
        rc = -1;
    }
    free(copy);
    return rc;
}

/* Parses the options of one action; argv[0] is the action name.  Returns
 * -1 to continue, else the exit code. */
static int parse_opts(int argc, char **argv, table_opts *o, int wants_output)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},  {"format", required_argument, NULL, 'f'},
        {"n-rows", required_argument, NULL, OPT_N_ROWS},
        {"e-cols", required_argument, NULL, OPT_E_COLS},
        {"class", required_argument, NULL, OPT_CLASS},
        {"pattern", required_argument, NULL, OPT_PATTERN},
        {"method", required_argument, NULL, OPT_METHOD},
        {"partial", no_argument, NULL, OPT_PARTIAL},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->cls = GM_ATOMICS_CLASS_ADD;
    o->pattern = GM_ATOMICS_PATTERN_SAME_ADDRESS;
    o->method = GM_ATOMICS_METHOD_SINGLE_SHOT;
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":o:f:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            if (cli_take_once(CMD, "-o", &o->output, optarg) < 0)
                return GPUQ_EXIT_USAGE;
            break;
        case 'f':
            if (cli_take_once(CMD, "--format", &o->format, optarg) < 0)
                return GPUQ_EXIT_USAGE;
            break;
        case OPT_N_ROWS:
            if (parse_list("--n-rows", optarg, o->n_rows, &o->n_row_count) != 0)
                return GPUQ_EXIT_USAGE;
            o->n_rows_given = 1;
            break;
        case OPT_E_COLS:
            if (parse_list("--e-cols", optarg, o->e_cols, &o->e_col_count) != 0)
                return GPUQ_EXIT_USAGE;
            o->e_cols_given = 1;
            break;
        case OPT_CLASS:
            if (gm_atomics_class_parse(optarg, &o->cls) != GM_OK)
                return cli_usage_error(CMD, "unknown job class '%s'", optarg);
            break;
        case OPT_PATTERN:
            if (gm_atomics_pattern_parse(optarg, &o->pattern) != GM_OK)
                return cli_usage_error(CMD, "unknown address pattern '%s'", optarg);
            break;
        case OPT_METHOD:
            if (gm_atomics_method_parse(optarg, &o->method) != GM_OK)
                return cli_usage_error(CMD, "unknown method '%s'", optarg);
            break;
        case OPT_PARTIAL:
            o->partial = 1;
            break;
        case 'h':
            print_usage(stdout);
            return GPUQ_EXIT_OK;
        case ':':
            return cli_usage_error(CMD, "%s: option '%s' needs a value", argv[0], argv[optind - 1]);
        default:
            return cli_usage_error(CMD, "%s: unknown option '%s'", argv[0], argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(CMD, "%s needs exactly one table FILE", argv[0]);
    o->file = argv[optind];
    if (wants_output && !o->output)
        return cli_usage_error(CMD, "%s needs -o OUT", argv[0]);
    if (!wants_output && o->output)
        return cli_usage_error(CMD, "%s takes no -o", argv[0]);
    if (cli_check_output(CMD, "-o", o->output, &o->file, 1) < 0)
        return GPUQ_EXIT_USAGE;
    return -1;
}

static gm_status load(const table_opts *o, gm_atomics_table **table, gm_error *err)
{
    return o->partial ? gm_atomics_table_load_partial(o->file, table, err)
                      : gm_atomics_table_load(o->file, table, err);
}

/* The default axes, cut to the table's grid; explicit ones must fit it. */
static int fit_axes(table_opts *o, const gm_atomics_table *t)
{
    if (!o->n_rows_given)
        for (size_t i = 0; i < sizeof default_n_rows / sizeof default_n_rows[0]; i++)
            if (default_n_rows[i] <= t->meta.max_warps_per_sm)
                o->n_rows[o->n_row_count++] = default_n_rows[i];
    if (!o->e_cols_given)
        for (size_t i = 0; i < sizeof default_e_cols / sizeof default_e_cols[0]; i++)
            if (default_e_cols[i] <= t->meta.warp_size)
                o->e_cols[o->e_col_count++] = default_e_cols[i];
    for (int i = 0; i < o->n_row_count; i++)
        if (o->n_rows[i] > t->meta.max_warps_per_sm)
            return cli_usage_error(CMD, "--n-rows: n=%d outside 1..%d (this table's n_max)",
                                   o->n_rows[i], t->meta.max_warps_per_sm);
    for (int i = 0; i < o->e_col_count; i++)
        if (o->e_cols[i] > t->meta.warp_size)
            return cli_usage_error(CMD, "--e-cols: e=%d outside 1..%d (this table's e_max)",
                                   o->e_cols[i], t->meta.warp_size);
    return -1;
}

static int count_measured(const gm_atomics_series *s, int *total)
{
    int measured = 0;
    *total = 0;
    for (int n = 1; n <= s->n_max; n++)
        for (int e = 1; e <= s->e_max; e++)
            for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                (*total)++;
                if (!isnan(gm_atomics_series_cell(s, n, e, c)->t_median))
                    measured++;
            }
    return measured;
}

/* ---- show ------------------------------------------------------------- */

static void print_grid(const gm_atomics_series *s, const table_opts *o, int all_cas)
{
    printf("    S = T/n in cycles at c = %s\n", all_cas ? "n (all CAS)" : "0");
    printf("    %6s", "n \\ e");
    for (int j = 0; j < o->e_col_count; j++)
        printf(" %9d", o->e_cols[j]);
    printf("\n");
    for (int i = 0; i < o->n_row_count; i++) {
        int n = o->n_rows[i];
        printf("    %6d", n);
        for (int j = 0; j < o->e_col_count; j++) {
            const gm_atomics_cell *cell = gm_atomics_series_cell(s, n, o->e_cols[j],
                                                                 all_cas ? n : 0);
            if (!cell || isnan(cell->t_median))
                printf(" %9s", "-");
            else
                printf(" %9.2f", cell->t_median / n);
        }
        printf("\n");
    }
}

static int do_show(int argc, char **argv)
{
    table_opts o;
    int rc = parse_opts(argc, argv, &o, 0);
    if (rc >= 0)
        return rc;
    gm_atomics_table *t = NULL;
    gm_error err = {{0}};
    gm_status st = load(&o, &t, &err);
    if (st != GM_OK)
        return cli_fail(CMD, st, &err);
    rc = fit_axes(&o, t);
    if (rc >= 0) {
        gm_atomics_table_free(t);
        return rc;
    }
    const gm_atomics_table_meta *m = &t->meta;
    printf("table %s\n", o.file);
    printf("  gpu               %s (compute capability %d.%d, %d SMs)\n", m->gpu_name, m->cc_major,
           m->cc_minor, m->sm_count);
    printf("  grid              n = 1..%d warps, e = 1..%d lanes\n", m->max_warps_per_sm,
           m->warp_size);
    printf("  sm clock          %.0f MHz\n", m->sm_clock_mhz);
    printf("  driver / runtime  %d / %d\n", m->driver_version, m->runtime_version);
    printf("  measured          %s, %d repetitions per cell, re-measured above spread %.3g\n",
           m->date[0] ? m->date : "(no date)", m->reps, m->spread_threshold);
    if (m->method_note[0])
        printf("  method            %s\n", m->method_note);
    printf("  gpuq version      %s\n", m->gpuq_version[0] ? m->gpuq_version : "(unknown)");
    printf("  series            %d\n", t->n_series);
    for (int i = 0; i < t->n_series; i++) {
        const gm_atomics_series *s = &t->series[i];
        int total, measured = count_measured(s, &total);
        int flagged = 0;
        for (int n = 1; n <= s->n_max; n++)
            for (int e = 1; e <= s->e_max; e++)
                for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                    const gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
                    if (!isnan(cell->t_median) && (cell->flags & GM_ATOMICS_CELL_HIGH_SPREAD))
                        flagged++;
                }
        printf("\n  %s,%s,%s  (%s; %d of %d cells measured, %d with high spread)\n",
               gm_atomics_class_name(s->cls), gm_atomics_pattern_name(s->pattern),
               gm_atomics_method_name(s->method),
               s->mixes_cas ? "c = 0..n CAS mixed in" : "no CAS axis", measured, total, flagged);
        print_grid(s, &o, 0);
        if (s->mixes_cas)
            print_grid(s, &o, 1);
    }
    gm_atomics_table_free(t);
    return GPUQ_EXIT_OK;
}

/* ---- validate --------------------------------------------------------- */

static int do_validate(int argc, char **argv)
{
    table_opts o;
    int rc = parse_opts(argc, argv, &o, 0);
    if (rc >= 0)
        return rc;
    gm_atomics_table *t = NULL;
    gm_error err = {{0}};
    gm_status st = load(&o, &t, &err);
    if (st != GM_OK)
        return cli_fail(CMD, st, &err);
    int cells = 0, measured = 0;
    for (int i = 0; i < t->n_series; i++) {
        int total;
        measured += count_measured(&t->series[i], &total);
        cells += total;
    }
    printf("ok: %s: %s (cc %d.%d), %d series, %d of %d cells measured\n", o.file, t->meta.gpu_name,
           t->meta.cc_major, t->meta.cc_minor, t->n_series, measured, cells);
    gm_atomics_table_free(t);
    return GPUQ_EXIT_OK;
}

/* ---- convert ---------------------------------------------------------- */

static gm_status write_csv(FILE *out, const void *t, gm_error *err)
{
    return gm_atomics_table_write(out, t, err);
}

static gm_status write_json(FILE *out, const void *t, gm_error *err)
{
    return gm_atomics_table_write_json(out, t, err);
}

static int do_convert(int argc, char **argv)
{
    table_opts o;
    int rc = parse_opts(argc, argv, &o, 1);
    if (rc >= 0)
        return rc;
    int json = 0;
    if (o.format && strcmp(o.format, "json") == 0)
        json = 1;
    else if (o.format && strcmp(o.format, "csv") != 0)
        return cli_usage_error(CMD, "--format must be csv or json, not '%s'", o.format);
    gm_atomics_table *t = NULL;
    gm_error err = {{0}};
    gm_status st = load(&o, &t, &err);
    if (st != GM_OK)
        return cli_fail(CMD, st, &err);
    rc = cli_write_output(CMD, o.output, json ? write_json : write_csv, t);
    gm_atomics_table_free(t);
    return rc;
}

/* ---- plot ------------------------------------------------------------- */

static int have_program(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char *copy = strdup(path);
    int found = 0;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", *dir ? dir : ".", name);
        found = access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* gnuplot single-quoted string: a quote is written twice. */
static void gp_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* One data block per panel (row n, column e), separated by two blank lines
 * so that gnuplot's `index` picks them; each line is "c S". */
static int write_plot_data(const char *path, const gm_atomics_series *s, const table_opts *o)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int i = 0; i < o->n_row_count; i++)
        for (int j = 0; j < o->e_col_count; j++) {
            int n = o->n_rows[i], e = o->e_cols[j], points = 0;
            fprintf(f, "# n=%d e=%d\n", n, e);
            for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                const gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
                if (isnan(cell->t_median))
                    continue;
                if (s->mixes_cas) {
                    fprintf(f, "%d %.17g\n", c, cell->t_median / n);
                } else {
                    /* no CAS axis: S drawn as a horizontal marker across the panel */
                    fprintf(f, "-1 %.17g\n1 %.17g\n", cell->t_median / n, cell->t_median / n);
                }
                points++;
            }
            if (points == 0) /* keeps the block (and gnuplot) alive */
                fprintf(f, "0 NaN\n");
            fprintf(f, "\n\n");
        }
    int failed = ferror(f);
    return (fclose(f) != 0 || failed) ? -1 : 0;
}

static int write_plot_script(const char *path, const char *data, const char *svg,
                             const gm_atomics_table *t, const gm_atomics_series *s,
                             const table_opts *o)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rows = o->n_row_count, cols = o->e_col_count;
    fprintf(f, "set terminal svg size %d,%d dynamic noenhanced font 'sans,10' background rgb 'white'\n", 200 + 220 * cols,
            80 + 170 * rows);
    fprintf(f, "set output ");
    gp_quoted(f, svg);
    fprintf(f, "\nset datafile missing 'NaN'\nunset key\nset grid\nset yrange [0:*]\nset offsets 0, 0, graph 0.1, 0\n");
    char title[512];
    snprintf(title, sizeof title, "%s: S = T/n (cycles) of %s, %s, %s; x = c, rows n, columns e",
             t->meta.gpu_name, gm_atomics_class_name(s->cls), gm_atomics_pattern_name(s->pattern),
             gm_atomics_method_name(s->method));
    fprintf(f, "set multiplot layout %d,%d title ", rows, cols);
    gp_quoted(f, title);
    fprintf(f, "\n");
    int panel = 0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++, panel++) {
            int n = o->n_rows[i], e = o->e_cols[j];
            fprintf(f, "set title 'n = %d, e = %d'\n", n, e);
            if (s->mixes_cas)
                fprintf(f, "set xrange [0:%d]\nset xtics autofreq\n", n);
            else /* no CAS axis: only c = 0 */
                fprintf(f, "set xrange [-1:1]\nset xtics ('0' 0)\n");
            fprintf(f, "set xlabel '%s'\nset ylabel '%s'\n",
                    i == rows - 1 ? (s->mixes_cas ? "c" : "c (no CAS axis)") : "",
                    j == 0 ? "S (cycles)" : "");
            fprintf(f, "plot ");
            gp_quoted(f, data);
            fprintf(f, " index %d using 1:2 with %s lw 1.5\n", panel,
                    s->mixes_cas ? "linespoints pt 7 ps 0.4" : "lines");
        }
    fprintf(f, "unset multiplot\nset output\n");
    int failed = ferror(f);
    return (fclose(f) != 0 || failed) ? -1 : 0;
}

/* Runs gnuplot on the script; its stderr goes to errlog.  0 on success. */
static int run_gnuplot(const char *script, const char *errlog)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *e = freopen(errlog, "w", stderr);
        (void)e;
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void print_file_head(const char *path, int max_lines)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    for (int i = 0; i < max_lines && fgets(line, sizeof line, f); i++)
        fprintf(stderr, "  gnuplot: %s", line);
    fclose(f);
}

static int do_plot(int argc, char **argv)
{
    table_opts o;
    int rc = parse_opts(argc, argv, &o, 1);
    if (rc >= 0)
        return rc;
    if (!have_program("gnuplot")) {
        cli_error(CMD, "plot: gnuplot not found (apt-get install gnuplot-nox)");
        return GPUQ_EXIT_INPUT;
    }
    gm_atomics_table *t = NULL;
    gm_error err = {{0}};
    gm_status st = load(&o, &t, &err);
    if (st != GM_OK)
        return cli_fail(CMD, st, &err);
    rc = fit_axes(&o, t);
    const gm_atomics_series *s = gm_atomics_table_find(t, o.cls, o.pattern, o.method);
    if (rc < 0 && !s) {
        cli_error(CMD, "plot: %s has no %s,%s,%s series", o.file, gm_atomics_class_name(o.cls),
                  gm_atomics_pattern_name(o.pattern), gm_atomics_method_name(o.method));
        rc = GPUQ_EXIT_INPUT;
    }
    if (rc >= 0) {
        gm_atomics_table_free(t);
        return rc;
    }

    char dir[] = "/tmp/gpuq-plot.XXXXXX";
    if (!mkdtemp(dir)) {
        cli_error(CMD, "plot: cannot create a temporary directory (%s)", strerror(errno));
        gm_atomics_table_free(t);
        return GPUQ_EXIT_INPUT;
    }
    char data[64], script[64], errlog[64], svg_tmp[4096];
    snprintf(data, sizeof data, "%s/panels.dat", dir);
    snprintf(script, sizeof script, "%s/figure1.gp", dir);
    snprintf(errlog, sizeof errlog, "%s/gnuplot.err", dir);
    /* next to the output, so that the final rename stays on one file system */
    snprintf(svg_tmp, sizeof svg_tmp, "%s.tmp.%ld", o.output, (long)getpid());

    rc = GPUQ_EXIT_OK;
    if (write_plot_data(data, s, &o) != 0 || write_plot_script(script, data, svg_tmp, t, s, &o) != 0) {
        cli_error(CMD, "plot: cannot write to %s (%s)", dir, strerror(errno));
        rc = GPUQ_EXIT_INPUT;
    } else if (run_gnuplot(script, errlog) != 0) {
        cli_error(CMD, "plot: gnuplot failed on %s", script);
        print_file_head(errlog, 5);
        rc = GPUQ_EXIT_INPUT;
    } else if (rename(svg_tmp, o.output) != 0) {
        cli_error(CMD, "plot: cannot write %s (%s)", o.output, strerror(errno));
        rc = GPUQ_EXIT_INPUT;
    }
    unlink(svg_tmp);
    unlink(data);
    unlink(script);
    unlink(errlog);
    rmdir(dir);
    gm_atomics_table_free(t);
    return rc;
}

/* ---- dispatch --------------------------------------------------------- */

int cmd_table(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error(CMD, "needs an action: show, validate, convert or plot");
    const char *action = argv[1];
    if (strcmp(action, "--help") == 0 || strcmp(action, "-h") == 0 ||
        strcmp(action, "help") == 0) {
        print_usage(stdout);
        return GPUQ_EXIT_OK;
    }
    if (strcmp(action, "show") == 0)
        return do_show(argc - 1, argv + 1);
    if (strcmp(action, "validate") == 0)
        return do_validate(argc - 1, argv + 1);
    if (strcmp(action, "convert") == 0)
        return do_convert(argc - 1, argv + 1);
    if (strcmp(action, "plot") == 0)
        return do_plot(argc - 1, argv + 1);
    return cli_usage_error(CMD, "unknown action '%s' (show, validate, convert or plot)", action);
}
