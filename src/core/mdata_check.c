/* The cell check of machine data (gm_mdata_check, gpuq/mdata.h): each
 * suite reader lists its columns' quantities as rules, and every cell they
 * cover is checked against the range table (gpuq/ranges.h) before the
 * reader casts or multiplies it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuq/mdata.h"

static gm_status check_cell(const gm_mdata *md, size_t r, int col, const char *key,
                            const gm_mdata_rule *rule, gm_error *err)
{
    const char *text = gm_mdata_text(md, r, col);
    if (!text)
        return GM_OK;
    if (rule->optional && (text[0] == '\0' || strcmp(text, "nan") == 0))
        return GM_OK;
    char where[400], field[160];
    if (md->line && md->line[r] > 0)
        snprintf(where, sizeof where, "%s:%ld", md->source[0] ? md->source : md->meta.suite,
                 md->line[r]);
    else
        snprintf(where, sizeof where, "%s row %zu", md->meta.suite, r + 1);
    snprintf(field, sizeof field, "%s row '%.40s', column '%s'", md->meta.suite, key,
             rule->column);
    double v;
    return gm_quantity_parse(rule->q, text, where, field, &v, err);
}

gm_status gm_mdata_check(const gm_mdata *md, const char *key_column, const gm_mdata_rule *rules,
                         size_t n_rules, gm_error *err)
{
    if (!md || !rules)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no machine data or rules");
    int kc = key_column ? gm_mdata_col(md, key_column) : -1;
    int cols[64];
    if (n_rules > sizeof cols / sizeof cols[0])
        return gm_fail(err, GM_ERR_INVALID_ARG, "more than 64 rules");
    for (size_t i = 0; i < n_rules; i++)
        cols[i] = gm_mdata_col(md, rules[i].column);
    for (size_t r = 0; r < md->n_rows; r++) {
        const char *key = kc >= 0 ? gm_mdata_text(md, r, kc) : "";
        for (size_t i = 0; i < n_rules; i++) {
            if (cols[i] < 0 || (rules[i].key && (!key || strcmp(rules[i].key, key) != 0)))
                continue;
            gm_status st = check_cell(md, r, cols[i], key ? key : "", &rules[i], err);
            if (st != GM_OK)
                return st;
        }
    }
    return GM_OK;
}
