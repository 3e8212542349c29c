/* Applies the "global atomics" unit, every variant, to an ncu recording of
 * the validation cases (ncu --csv --page raw --print-units base), with the
 * rates of a gatomics machine-data file.  One CSV row per (launch, variant):
 *
 *   gatomics_apply NCU.csv GATOMICS.csv > model.csv
 *
 * The unit's own code does the work (gm_unit_find("gatomics")), so what is
 * validated is what `gpuq profile` and `gpuq model` report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/counters.h"
#include "gpuq/mdata.h"
#include "gpuq/unit.h"

static double field_num(const gm_field *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return f[i].num;
    return NAN;
}

static const char *field_text(const gm_field *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0 && f[i].text)
            return f[i].text;
    return "";
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gatomics_apply NCU.csv GATOMICS.csv\n");
        return 1;
    }
    gm_error err = {{0}};
    gm_counters_set set;
    if (gm_ncu_csv_load(argv[1], &set, &err) != GM_OK) {
        fprintf(stderr, "gatomics_apply: %s\n", err.msg);
        return 2;
    }
    gm_machine m;
    memset(&m, 0, sizeof m);
    m.n_files = 1;
    snprintf(m.files[0].suite, sizeof m.files[0].suite, "gatomics");
    snprintf(m.files[0].path, sizeof m.files[0].path, "%s", argv[2]);
    if (gm_mdata_load(argv[2], &m.files[0].md, &err) != GM_OK) {
        fprintf(stderr, "gatomics_apply: %s\n", err.msg);
        return 2;
    }
    const gm_unit *u = gm_unit_find("gatomics");
    if (!u) {
        fprintf(stderr, "gatomics_apply: no unit 'gatomics' in this build\n");
        return 2;
    }
    printf("index,kernel,variant,U,U_direct,B_us,k_eff,sectors,X_Gsps,binding,notes\n");
    char variants[128];
    snprintf(variants, sizeof variants, "%s", u->variants);
    void *res = calloc(1, u->result_size);
    for (char *v = strtok(variants, ","); v; v = strtok(NULL, ",")) {
        void *st = NULL;
        if (u->prepare(&m, v, &st, &err) != GM_OK) {
            fprintf(stderr, "gatomics_apply: %s\n", err.msg);
            return 2;
        }
        for (size_t i = 0; i < set.count; i++) {
            if (u->apply(st, &set.meta, &set.launches[i], res, &err) != GM_OK) {
                fprintf(stderr, "gatomics_apply: launch %zu: %s\n", i, err.msg);
                return 2;
            }
            gm_field f[GM_UNIT_MAX_FIELDS];
            size_t nf = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
            printf("%zu,\"%s\",%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s,%s\n", i,
                   set.launches[i].kernel ? set.launches[i].kernel : "", v, field_num(f, nf, "U"),
                   field_num(f, nf, "U_direct"), field_num(f, nf, "B_us"),
                   field_num(f, nf, "k_eff"), field_num(f, nf, "sectors"),
                   field_num(f, nf, "X_Gsps"), field_text(f, nf, "binding"),
                   field_text(f, nf, "notes"));
            if (u->free_result)
                u->free_result(res);
        }
        u->release(st);
    }
    free(res);
    gm_mdata_free(m.files[0].md);
    gm_counters_set_clear(&set);
    return 0;
}
