/* Imports Nsight Compute CSV output into a counters set, so that the model
 * can run on counters ncu recorded (the paper's own tool chain, Sec. 3.4).
 *
 * Two layouts, told apart by the header row:
 *   long   `ncu --csv --metrics ...` (default page "details"): one row per
 *          (launch, metric) with "Metric Name", "Metric Unit", "Metric Value"
 *   wide   `ncu --csv --page raw --metrics ...`: one row per launch, one
 *          column per metric, and a units row right after the header
 * Everything ncu or the profiled program prints before the header row
 * ("==PROF==", "==WARNING==", program output) is skipped.  Values may carry
 * thousands separators ("1,347"); times are converted to nanoseconds and
 * SI-prefixed counts ("Kcycle") to plain counts.  Metrics gpuq does not use
 * are ignored; a launch without some metric keeps NaN there.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv_internal.h"
#include "gzstream.h"
#include "gpuq/counters.h"

/* Columns the importer reads besides the metrics. */
enum ncu_column {
    COL_ID = 0,
    COL_PROCESS,
    COL_KERNEL,
    COL_BLOCK,
    COL_GRID,
    COL_DEVICE,
    COL_CC,
    COL_METRIC_NAME,
    COL_METRIC_UNIT,
    COL_METRIC_VALUE,
    /* wide (raw page) only */
    COL_REGS,
    COL_SHARED_STATIC,
    COL_SHARED_DYNAMIC,
    COL_DEVICE_NAME,
    COL_SM_COUNT,
    COL_MAX_WARPS,
    COL_COUNT
};

static const char *const column_titles[COL_COUNT] = {
    [COL_ID] = "ID",
    [COL_PROCESS] = "Process Name",
    [COL_KERNEL] = "Kernel Name",
    [COL_BLOCK] = "Block Size",
    [COL_GRID] = "Grid Size",
    [COL_DEVICE] = "Device",
    [COL_CC] = "CC",
    [COL_METRIC_NAME] = "Metric Name",
    [COL_METRIC_UNIT] = "Metric Unit",
    [COL_METRIC_VALUE] = "Metric Value",
    [COL_REGS] = "launch__registers_per_thread",
    [COL_SHARED_STATIC] = "launch__shared_mem_per_block_static",
    [COL_SHARED_DYNAMIC] = "launch__shared_mem_per_block_dynamic",
    [COL_DEVICE_NAME] = "device__attribute_display_name",
    [COL_SM_COUNT] = "device__attribute_multiprocessor_count",
    [COL_MAX_WARPS] = "device__attribute_max_warps_per_multiprocessor",
};

typedef struct seen_bits {
    uint64_t w[(GM_METRIC_MAX + 63) / 64];
} seen_bits;

typedef struct ncu_loader {
    gm_csv_reader rd;
    const char *path;
    gm_counters_set *set;
    int wide;
    long col[COL_COUNT];            /* column index, -1 if absent */
    long metric_col[GM_METRIC_MAX]; /* wide layout: column of each metric, -1 if absent */
    size_t n_columns;
    char **units;                   /* wide layout: unit of each column (owned copies) */
    /* launch rows already seen for each launch (long layout): bit per metric */
    /* One bit per metric-table row for each launch: a metric given twice for
     * one ID is an error.  The table has more rows than an int has bits. */
    seen_bits *metric_seen;
    size_t metric_seen_cap;
    char where[320];
} ncu_loader;

/* ---- value parsing ---- */

/* "1,234,567.5" -> 1234567.5.  ncu groups thousands with commas in its
 * default en-US number format.  "n/a" and "" are "not collected". */
static int parse_ncu_number(const char *text, double *out, int *missing)
{
    char buf[128];
    size_t n = 0;
    *missing = 0;
    if (*text == '\0' || strcmp(text, "n/a") == 0 || strcmp(text, "N/A") == 0) {
        *missing = 1;
        *out = NAN;
        return 0;
    }
    for (const char *p = text; *p; p++) {
        if (*p == ',')
            continue;
        if (n + 1 >= sizeof buf)
            return -1;
        buf[n++] = *p;
    }
    buf[n] = '\0';
    return gm_number_parse(buf, out) == 0 ? 0 : -1;
}

typedef enum unit_kind { UNIT_UNKNOWN = 0, UNIT_TIME, UNIT_PERCENT, UNIT_COUNT } unit_kind;

/* What a unit measures and its scale to gpuq's unit: ns for time, plain
 * counts otherwise.  ncu's auto units scale large counts ("Kcycle",
 * "Minst") and times ("usecond"); --print-units base keeps "ns"/"cycle".
 * *base is the unit without its K/M/G prefix. */
static unit_kind classify_unit(const char *unit, double *scale, const char **base_out)
{
    static const struct {
        const char *name;
        double scale;
    } time_units[] = {
        {"ns", 1},   {"nsecond", 1},   {"us", 1e3}, {"usecond", 1e3},
        {"ms", 1e6}, {"msecond", 1e6}, {"s", 1e9},  {"second", 1e9},
    };
    static const char *const count_units[] = {"", "cycle", "inst", "warp", "wavefront",
                                              "request", "sector", "byte"};
    *scale = 1;
    *base_out = unit;
    for (size_t i = 0; i < sizeof time_units / sizeof time_units[0]; i++)
        if (strcmp(unit, time_units[i].name) == 0) {
            *scale = time_units[i].scale;
            return UNIT_TIME;
        }
    if (strcmp(unit, "%") == 0)
        return UNIT_PERCENT;
    const char *base = unit;
    switch (unit[0]) {
    case 'K':
        *scale = 1e3;
        base++;
        break;
    case 'M':
        *scale = 1e6;
        base++;
        break;
    case 'G':
        *scale = 1e9;
        base++;
        break;
    default:
        break;
    }
    *base_out = base;
    for (size_t i = 0; i < sizeof count_units / sizeof count_units[0]; i++)
        if (strcmp(base, count_units[i]) == 0 && (base == unit || *base))
            return UNIT_COUNT;
    return UNIT_UNKNOWN;
}

/* The metric's value in gpuq's units.  The unit must fit the metric: a
 * time for the duration, a percentage for occupancy, and for a count the
 * metric's own unit (gm_metric_desc.unit: "Kcycle" is refused for
 * wavefronts, never scaled), or none at all; then the value must lie in
 * the metric's physical range (gpuq/ranges.h). */
static gm_status convert_value(ncu_loader *ld, int metric, const char *unit, const char *text,
                               double *out, gm_error *err)
{
    int missing = 0;
    const gm_metric_desc *md = &gm_metric_table[metric];
    const char *name = md->name;
    if (parse_ncu_number(text, out, &missing) != 0)
        return gm_fail(err, GM_ERR_PARSE, "%s: %s value '%.40s' is not a number", ld->where,
                       name, text);
    if (missing)
        return GM_OK;
    if (*out < 0)
        return gm_fail(err, GM_ERR_RANGE, "%s: %s value %s is negative", ld->where, name, text);
    double scale;
    const char *base;
    unit_kind kind = classify_unit(unit, &scale, &base);
    unit_kind wanted = md->quantity == GM_Q_DURATION_NS ? UNIT_TIME
                       : md->quantity == GM_Q_PERCENT  ? UNIT_PERCENT
                                                       : UNIT_COUNT;
    if (kind != wanted)
        return gm_fail(err, GM_ERR_PARSE, "%s: %s has unit '%s', which gpuq does not expect",
                       ld->where, name, unit);
    if (kind == UNIT_COUNT && *base && strcmp(base, md->unit ? md->unit : "") != 0)
        return gm_fail(err, GM_ERR_PARSE,
                       "%s: %s has unit '%s', which it is not counted in (expected %s%s%s; "
                       "refused rather than scaled)",
                       ld->where, name, unit, md->unit && *md->unit ? "'" : "",
                       md->unit && *md->unit ? md->unit : "no unit",
                       md->unit && *md->unit ? "' or none" : "");
    *out *= scale;
    /* "12.35 Kcycle" stands for a whole count ncu rounded for display. */
    if (scale != 1 && gm_quantity_table[md->quantity].integer)
        *out = nearbyint(*out);
    return gm_quantity_check(md->quantity, *out, ld->where, name, err);
}

/* "(256, 1, 1)" -> {256, 1, 1} */
static int parse_dim3(const char *text, unsigned out[3])
{
    unsigned long v[3];
    int used = 0;
    if (sscanf(text, " ( %lu , %lu , %lu )%n", &v[0], &v[1], &v[2], &used) != 3 ||
        text[used] != '\0')
        return -1;
    for (int d = 0; d < 3; d++) {
        if (v[d] == 0 || v[d] > 2147483647UL)
            return -1;
        out[d] = (unsigned)v[d];
    }
    return 0;
}

/* ---- header ---- */

static int is_header(const gm_csv_reader *rd)
{
    if (rd->n_fields < 3 || strcmp(rd->fields[0], "ID") != 0)
        return 0;
    for (size_t i = 1; i < rd->n_fields; i++)
        if (strcmp(rd->fields[i], "Kernel Name") == 0)
            return 1;
    return 0;
}

static gm_status read_header(ncu_loader *ld, gm_error *err)
{
    gm_csv_reader *rd = &ld->rd;
    for (int c = 0; c < COL_COUNT; c++)
        ld->col[c] = -1;
    for (int m = 0; m < GM_METRIC_COUNT; m++)
        ld->metric_col[m] = -1;
    ld->n_columns = rd->n_fields;
    for (size_t i = 0; i < rd->n_fields; i++) {
        for (int c = 0; c < COL_COUNT; c++)
            if (ld->col[c] < 0 && strcmp(rd->fields[i], column_titles[c]) == 0)
                ld->col[c] = (long)i;
        for (int m = 0; m < GM_METRIC_COUNT; m++)
            if (strcmp(rd->fields[i], gm_metric_table[m].name) == 0) {
                if (ld->metric_col[m] >= 0)
                    return gm_fail(err, GM_ERR_DUPLICATE, "%s: column '%s' appears twice",
                                   ld->where, gm_metric_table[m].name);
                ld->metric_col[m] = (long)i;
            }
    }
    if (ld->col[COL_KERNEL] < 0)
        return gm_fail(err, GM_ERR_MISSING, "%s: header has no \"Kernel Name\" column", ld->where);
    int long_layout = ld->col[COL_METRIC_NAME] >= 0 || ld->col[COL_METRIC_VALUE] >= 0;
    if (long_layout) {
        if (ld->col[COL_METRIC_NAME] < 0 || ld->col[COL_METRIC_VALUE] < 0)
            return gm_fail(err, GM_ERR_MISSING,
                           "%s: header has one of \"Metric Name\" and \"Metric Value\" but not "
                           "both",
                           ld->where);
        ld->wide = 0;
        return GM_OK;
    }
    ld->wide = 1;
    int any = 0;
    for (int m = 0; m < GM_METRIC_COUNT; m++)
        any |= ld->metric_col[m] >= 0;
    if (!any)
        return gm_fail(err, GM_ERR_MISSING,
                       "%s: no gpuq metric in the header (record with `ncu --csv --metrics "
                       "<gpuq's list>`)",
                       ld->where);
    return GM_OK;
}

/* Units row of the wide layout: first field empty, one unit per column. */
static gm_status read_units_row(ncu_loader *ld, gm_error *err)
{
    gm_csv_reader *rd = &ld->rd;
    if (rd->n_fields != ld->n_columns || rd->fields[0][0] != '\0')
        return gm_fail(err, GM_ERR_PARSE,
                       "%s: expected the units row of `--page raw` output (%zu fields, first "
                       "empty), found %zu fields",
                       ld->where, ld->n_columns, rd->n_fields);
    ld->units = calloc(ld->n_columns, sizeof *ld->units);
    if (!ld->units)
        return gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", ld->where);
    for (size_t i = 0; i < ld->n_columns; i++) {
        size_t len = strlen(rd->fields[i]);
        ld->units[i] = malloc(len + 1);
        if (!ld->units[i])
            return gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", ld->where);
        memcpy(ld->units[i], rd->fields[i], len + 1);
    }
    return GM_OK;
}

/* ---- rows ---- */

static const char *field(const ncu_loader *ld, enum ncu_column c)
{
    return ld->col[c] >= 0 ? ld->rd.fields[ld->col[c]] : NULL;
}

static void copy_meta(char *dst, size_t size, const char *value)
{
    snprintf(dst, size, "%s", value);
}

/* Device metadata is per launch in ncu's output and per file in gpuq's:
 * take it from the first launch and refuse files that mix GPUs. */
static gm_status note_device(ncu_loader *ld, gm_error *err)
{
    gm_counters_meta *m = &ld->set->meta;
    const char *cc = field(ld, COL_CC), *name = field(ld, COL_DEVICE_NAME);
    int first = ld->set->count == 0;
    if (cc && *cc) {
        int major = 0, minor = 0, used = 0;
        if (sscanf(cc, "%d.%d%n", &major, &minor, &used) != 2 || cc[used] != '\0')
            return gm_fail(err, GM_ERR_PARSE, "%s: CC '%s' is not 'major.minor'", ld->where, cc);
        if (first) {
            m->cc_major = major;
            m->cc_minor = minor;
        } else if (m->cc_major != major || m->cc_minor != minor) {
            return gm_fail(err, GM_ERR_MISMATCH,
                           "%s: launches from GPUs of compute capability %d.%d and %s in one "
                           "file (import one GPU at a time)",
                           ld->where, m->cc_major, m->cc_minor, cc);
        }
    }
    if (name) {
        if (first)
            copy_meta(m->device_name, sizeof m->device_name, name);
        else if (strcmp(m->device_name, name) != 0)
            return gm_fail(err, GM_ERR_MISMATCH,
                           "%s: launches from '%s' and '%s' in one file (import one GPU at a "
                           "time)",
                           ld->where, m->device_name, name);
    }
    const enum ncu_column int_cols[2] = {COL_SM_COUNT, COL_MAX_WARPS};
    int *targets[2] = {&m->sm_count, &m->max_warps_per_sm};
    for (int i = 0; i < 2; i++) {
        const char *text = field(ld, int_cols[i]);
        double v;
        int missing;
        if (!text || !first)
            continue;
        if (parse_ncu_number(text, &v, &missing) != 0 || (!missing && (v < 0 || v > 1e6)))
            return gm_fail(err, GM_ERR_PARSE, "%s: %s '%s' is not a count", ld->where,
                           column_titles[int_cols[i]], text);
        if (!missing)
            *targets[i] = (int)v;
    }
    const char *process = field(ld, COL_PROCESS);
    if (first && process)
        copy_meta(m->command, sizeof m->command, process);
    return GM_OK;
}

/* Launch config and names of a new launch from the current row. */
static gm_status start_launch(ncu_loader *ld, unsigned long long id, gm_launch_counters *k,
                              gm_error *err)
{
    gm_status st;
    /* Initialised before any return: every caller clears k on failure. */
    gm_launch_counters_init(k);
    const char *kernel = field(ld, COL_KERNEL);
    if (!*kernel)
        return gm_fail(err, GM_ERR_MISSING, "%s: empty kernel name", ld->where);
    k->launch_id = id;
    if ((st = gm_launch_counters_set_names(k, kernel, kernel)) != GM_OK)
        return gm_fail(err, st, "%s: out of memory", ld->where);
    const char *grid = field(ld, COL_GRID), *block = field(ld, COL_BLOCK);
    if (grid && parse_dim3(grid, k->grid) != 0)
        return gm_fail(err, GM_ERR_PARSE, "%s: Grid Size '%s' is not '(x, y, z)'", ld->where,
                       grid);
    if (block && parse_dim3(block, k->block) != 0)
        return gm_fail(err, GM_ERR_PARSE, "%s: Block Size '%s' is not '(x, y, z)'", ld->where,
                       block);
    const char *device = field(ld, COL_DEVICE);
    if (device) {
        long long d;
        if (gm_csv_parse_long(device, &d) != 0 || d < 0 || d > 1024)
            return gm_fail(err, GM_ERR_PARSE, "%s: Device '%s' is not a device index", ld->where,
                           device);
        k->device = (int)d;
    }
    const char *regs = field(ld, COL_REGS);
    double v;
    int missing;
    if (regs && parse_ncu_number(regs, &v, &missing) == 0 && !missing)
        k->regs_per_thread = (int)v;
    const char *s_static = field(ld, COL_SHARED_STATIC), *s_dyn = field(ld, COL_SHARED_DYNAMIC);
    double vs, vd;
    int ms, md;
    if (s_static && s_dyn && parse_ncu_number(s_static, &vs, &ms) == 0 &&
        parse_ncu_number(s_dyn, &vd, &md) == 0 && !ms && !md)
        k->shared_bytes = (int)(vs + vd);
    return note_device(ld, err);
}

static gm_status parse_id(ncu_loader *ld, unsigned long long *id, gm_error *err)
{
    const char *text = ld->rd.fields[ld->col[COL_ID]];
    char *end = NULL;
    errno = 0;
    if (!isdigit((unsigned char)text[0]))
        return gm_fail(err, GM_ERR_PARSE, "%s: ID '%s' is not a launch number", ld->where, text);
    *id = strtoull(text, &end, 10);
    if (*end || errno)
        return gm_fail(err, GM_ERR_PARSE, "%s: ID '%s' is not a launch number", ld->where, text);
    return GM_OK;
}

static gm_status long_row(ncu_loader *ld, gm_error *err)
{
    gm_status st;
    unsigned long long id;
    if ((st = parse_id(ld, &id, err)) != GM_OK)
        return st;
    /* Rows of one launch are contiguous in ncu's output; search backwards so
     * that the usual case costs one comparison. */
    gm_launch_counters *k = NULL;
    size_t index = 0;
    for (size_t i = ld->set->count; i-- > 0;)
        if (ld->set->launches[i].launch_id == id) {
            k = &ld->set->launches[i];
            index = i;
            break;
        }
    if (!k) {
        gm_launch_counters fresh;
        if ((st = start_launch(ld, id, &fresh, err)) != GM_OK) {
            gm_launch_counters_clear(&fresh);
            return st;
        }
        if (ld->set->count == ld->metric_seen_cap) {
            size_t cap = ld->metric_seen_cap ? ld->metric_seen_cap * 2 : 16;
            seen_bits *grown = realloc(ld->metric_seen, cap * sizeof *grown);
            if (!grown) {
                gm_launch_counters_clear(&fresh);
                return gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", ld->where);
            }
            ld->metric_seen = grown;
            ld->metric_seen_cap = cap;
        }
        index = ld->set->count;
        memset(&ld->metric_seen[index], 0, sizeof ld->metric_seen[index]);
        if ((st = gm_counters_set_push(ld->set, &fresh)) != GM_OK) {
            gm_launch_counters_clear(&fresh);
            return gm_fail(err, st, "%s: out of memory", ld->where);
        }
        k = &ld->set->launches[index];
    } else if (strcmp(k->kernel, field(ld, COL_KERNEL)) != 0) {
        return gm_fail(err, GM_ERR_PARSE, "%s: ID %llu names kernel '%s', earlier rows '%s'",
                       ld->where, id, field(ld, COL_KERNEL), k->kernel);
    }
    const char *name = field(ld, COL_METRIC_NAME);
    for (int m = 0; m < GM_METRIC_COUNT; m++) {
        if (strcmp(name, gm_metric_table[m].name) != 0)
            continue;
        uint64_t *word = &ld->metric_seen[index].w[m / 64];
        uint64_t bit = (uint64_t)1 << (m % 64);
        if (*word & bit)
            return gm_fail(err, GM_ERR_DUPLICATE, "%s: %s given twice for ID %llu", ld->where,
                           name, id);
        *word |= bit;
        const char *unit = field(ld, COL_METRIC_UNIT);
        return convert_value(ld, m, unit ? unit : "", field(ld, COL_METRIC_VALUE), &k->metric[m],
                             err);
    }
    return GM_OK; /* a metric gpuq does not use */
}

static gm_status wide_row(ncu_loader *ld, gm_error *err)
{
    gm_status st;
    unsigned long long id;
    if ((st = parse_id(ld, &id, err)) != GM_OK)
        return st;
    for (size_t i = 0; i < ld->set->count; i++)
        if (ld->set->launches[i].launch_id == id)
            return gm_fail(err, GM_ERR_DUPLICATE, "%s: ID %llu appears twice", ld->where, id);
    gm_launch_counters k;
    if ((st = start_launch(ld, id, &k, err)) != GM_OK)
        goto fail;
    for (int m = 0; m < GM_METRIC_COUNT; m++) {
        long c = ld->metric_col[m];
        if (c < 0)
            continue;
        if ((st = convert_value(ld, m, ld->units[c], ld->rd.fields[c], &k.metric[m], err)) !=
            GM_OK)
            goto fail;
    }
    if ((st = gm_counters_set_push(ld->set, &k)) != GM_OK) {
        st = gm_fail(err, st, "%s: out of memory", ld->where);
        goto fail;
    }
    return GM_OK;
fail:
    gm_launch_counters_clear(&k);
    return st;
}

static gm_status load_ncu(ncu_loader *ld, gm_error *err)
{
    gm_status st;
    int eof = 0, have_header = 0, have_units = 0;
    for (;;) {
        if ((st = gm_csv_next_line(&ld->rd, &eof, err)) != GM_OK)
            return st;
        if (eof)
            break;
        snprintf(ld->where, sizeof ld->where, "%s:%ld", ld->path, ld->rd.line);
        if (!have_header) {
            /* Only a line that starts like ncu's header is split: program
             * output before it may contain anything, unbalanced quotes too. */
            if (strncmp(ld->rd.raw, "\"ID\",", 5) != 0 && strncmp(ld->rd.raw, "ID,", 3) != 0)
                continue;
            if ((st = gm_csv_split(&ld->rd, err)) != GM_OK)
                return st;
            if (!is_header(&ld->rd))
                continue;
            if ((st = read_header(ld, err)) != GM_OK)
                return st;
            have_header = 1;
            continue;
        }
        if (ld->rd.raw_len == 0)
            continue;
        if (strncmp(ld->rd.raw, "==", 2) == 0)
            continue; /* ncu status lines ("==PROF==", "==WARNING==") */
        if ((st = gm_csv_split(&ld->rd, err)) != GM_OK)
            return st;
        if (ld->rd.n_fields != ld->n_columns)
            return gm_fail(err, GM_ERR_PARSE, "%s: %zu fields, the header has %zu (truncated?)",
                           ld->where, ld->rd.n_fields, ld->n_columns);
        if (ld->wide && !have_units) {
            if ((st = read_units_row(ld, err)) != GM_OK)
                return st;
            have_units = 1;
            continue;
        }
        if ((st = ld->wide ? wide_row(ld, err) : long_row(ld, err)) != GM_OK)
            return st;
    }
    if (!have_header)
        return gm_fail(err, GM_ERR_MISSING,
                       "%s: no ncu CSV header (a line starting \"ID\",...,\"Kernel Name\") found: "
                       "is this `ncu --csv` output?",
                       ld->path);
    if (ld->set->count == 0)
        return gm_fail(err, GM_ERR_MISSING, "%s: ncu CSV has a header but no kernel launches",
                       ld->path);
    return GM_OK;
}

gm_status gm_ncu_csv_load(const char *path, gm_counters_set *out, gm_error *err)
{
    if (!path || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "ncu import: no path or output set");
    gm_counters_set_init(out);
    FILE *in = NULL;
    gm_status ost = gm_open_input(path, "ncu CSV file", &in, err);
    if (ost != GM_OK)
        return ost;
    ncu_loader ld;
    memset(&ld, 0, sizeof ld);
    gm_csv_reader_init(&ld.rd, in, path);
    ld.path = path;
    ld.set = out;
    gm_status st = load_ncu(&ld, err);
    if (st == GM_OK)
        snprintf(out->meta.source, sizeof out->meta.source, "ncu csv import: %s", path);
    if (ld.units)
        for (size_t i = 0; i < ld.n_columns; i++)
            free(ld.units[i]);
    free(ld.units);
    free(ld.metric_seen);
    gm_csv_reader_free(&ld.rd);
    fclose(in);
    if (st != GM_OK)
        gm_counters_set_clear(out);
    return st;
}
