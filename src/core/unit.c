/* Looking things up in the unit table (gpuq/unit.h; the table itself is
 * src/papers/units.c): units by name, the metrics to gather, the machine-data
 * formats the units declare, the extra passes they ask for. */
#include <stdio.h>
#include <string.h>

#include "gpuq/metrics.h"
#include "gpuq/unit.h"

size_t gm_unit_count(void)
{
    size_t n = 0;
    while (gm_units[n])
        n++;
    return n;
}

const gm_unit *gm_unit_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; gm_units[i]; i++)
        if (strcmp(gm_units[i]->name, name) == 0)
            return gm_units[i];
    return NULL;
}

size_t gm_units_metric_rows(const gm_unit *const *units, size_t n_units, int *rows, size_t max)
{
    size_t n = 0;
    if (!units)
        n_units = gm_unit_count();
    for (size_t u = 0; u < n_units; u++) {
        const gm_unit *unit = units ? units[u] : gm_units[u];
        if (!unit || !unit->metrics)
            continue;
        for (size_t i = 0; unit->metrics[i]; i++) {
            int row = gm_metric_find(unit->metrics[i]);
            if (row < 0)
                continue; /* test_units checks that every declared metric is a row */
            int seen = 0;
            for (size_t j = 0; j < n && !seen; j++)
                seen = rows[j] == row;
            if (!seen && n < max && rows)
                rows[n++] = row;
        }
    }
    return n;
}

const gm_mdata_format *gm_mdata_format_of(const char *suite)
{
    for (size_t i = 0; suite && gm_units[i]; i++)
        if (gm_units[i]->format && strcmp(gm_units[i]->format->suite, suite) == 0)
            return gm_units[i]->format;
    return NULL;
}

/* 1 when the counters hold the metric (or do not list theirs). */
static int counters_hold(const gm_counters_meta *meta, const char *metric)
{
    if (meta->n_metrics == 0)
        return 1;
    int row = metric ? gm_metric_find(metric) : -1;
    for (size_t j = 0; row >= 0 && j < meta->n_metrics; j++)
        if (meta->metric_rows[j] == row)
            return 1;
    return 0;
}

const gm_code_pass *gm_units_code_pass(const char *const *sections, size_t n_sections,
                                       const gm_counters_meta *meta)
{
    for (size_t u = 0; gm_units[u]; u++) {
        const gm_code_pass *pass = gm_units[u]->code_pass;
        int picked = n_sections == 0;
        for (size_t i = 0; !picked && sections && i < n_sections; i++)
            picked = sections[i] && strcmp(sections[i], gm_units[u]->name) == 0;
        if (pass && picked && (!meta || counters_hold(meta, pass->when)))
            return pass;
    }
    return NULL;
}

const gm_code_pass *gm_units_file_pass(void)
{
    return gm_units_code_pass(NULL, 0, NULL);
}

size_t gm_code_pass_values(const gm_code_pass *pass)
{
    size_t n = 0;
    while (pass && pass->result_values && pass->result_values[n] && n < GM_PASS_VALUES_MAX)
        n++;
    return n;
}

size_t gm_code_pass_columns(const gm_code_pass *pass)
{
    return pass ? 1 + gm_code_pass_values(pass) : 0;
}

void gm_code_pass_column(const gm_code_pass *pass, size_t i, char *buf, size_t len)
{
    if (i >= gm_code_pass_columns(pass))
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%s_%s", pass->result_key,
                 i == 0 ? "valid" : pass->result_values[i - 1]);
}

size_t gm_unit_opt_in_rows(const gm_unit *u, int *rows, size_t *n, size_t max)
{
    size_t added = 0;
    for (size_t i = 0; u && u->opt_in_metrics && u->opt_in_metrics[i] && rows && n; i++) {
        int row = gm_metric_find(u->opt_in_metrics[i]);
        int seen = row < 0;
        for (size_t j = 0; j < *n && !seen; j++)
            seen = rows[j] == row;
        if (!seen && *n < max) {
            rows[(*n)++] = row;
            added++;
        }
    }
    return added;
}
