/* The machine data of one GPU for a report (gpuq/unit.h): every suite the
 * report's units need, found by GPU name and SM count (gm_mdata_find) or
 * given explicitly ("suite=path", --table).  A suite not found is one line
 * in m->missing naming the sections skipped and the command that measures
 * it; the other units still report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/unit.h"

static int file_of(const gm_machine *m, const char *suite)
{
    for (size_t i = 0; m && suite && i < m->n_files; i++)
        if (strcmp(m->files[i].suite, suite) == 0)
            return (int)i;
    return -1;
}

const gm_mdata *gm_machine_suite(const gm_machine *m, const char *suite)
{
    int i = file_of(m, suite);
    return i < 0 ? NULL : m->files[i].md;
}

const void *gm_machine_data(const gm_machine *m, const char *suite)
{
    int i = file_of(m, suite);
    return i < 0 ? NULL : m->files[i].data;
}

const char *gm_machine_path(const gm_machine *m, const char *suite)
{
    int i = file_of(m, suite);
    return i < 0 ? NULL : m->files[i].path;
}

const gm_mdata_meta *gm_machine_meta(const gm_machine *m, const char *suite)
{
    int i = file_of(m, suite);
    return i < 0 ? NULL : &m->files[i].meta;
}

static int suite_loaded(const gm_machine *m, const char *suite)
{
    return file_of(m, suite) >= 0;
}

int gm_machine_has(const gm_machine *m, const char *const *suites)
{
    if (!m)
        return 0;
    for (size_t i = 0; suites && suites[i]; i++)
        if (!suite_loaded(m, suites[i]))
            return 0;
    return 1;
}

void gm_machine_free(gm_machine *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_files; i++) {
        gm_mdata_free(m->files[i].md);
        if (m->files[i].free_data)
            m->files[i].free_data(m->files[i].data);
    }
    memset(m, 0, sizeof *m);
}

/* The path an override gives for suite ("atomics=tables/x.csv.gz"), or NULL. */
static const char *override_for(const char *const *overrides, const char *suite)
{
    size_t len = strlen(suite);
    for (size_t i = 0; overrides && overrides[i]; i++)
        if (strncmp(overrides[i], suite, len) == 0 && overrides[i][len] == '=')
            return overrides[i] + len + 1;
    return NULL;
}

/* "atomics: no machine data for NVIDIA X (132 SMs): section atomics skipped;
 * measure it with 'gpuq calibrate --suite atomics'".  A suite that units
 * only use where present names them as falling back instead. */
static void note_missing(gm_machine *m, const char *suite, const char *why)
{
    if (m->n_missing >= GM_MACHINE_MAX_FILES)
        return;
    char sections[2][96] = {"", ""}; /* [0] need it, [1] use it where present */
    size_t used[2] = {0, 0};
    for (size_t u = 0; gm_units[u]; u++) {
        for (int opt = 0; opt < 2; opt++) {
            const char *const *s = opt ? gm_units[u]->optional_suites : gm_units[u]->suites;
            int needs = 0;
            for (size_t i = 0; s && s[i] && !needs; i++)
                needs = strcmp(s[i], suite) == 0;
            if (!needs)
                continue;
            int w = snprintf(sections[opt] + used[opt], sizeof sections[opt] - used[opt], "%s%s",
                             used[opt] ? ", " : "", gm_units[u]->name);
            if (w > 0 && (size_t)w < sizeof sections[opt] - used[opt])
                used[opt] += (size_t)w;
        }
    }
    if (!used[0] && used[1])
        snprintf(m->missing[m->n_missing++], sizeof m->missing[0],
                 "%s: %s: section%s %s used a fallback (named in its fields); measure "
                 "it with 'gpuq calibrate --suite %s'",
                 suite, why, strchr(sections[1], ',') ? "s" : "", sections[1], suite);
    else
        snprintf(m->missing[m->n_missing++], sizeof m->missing[0],
                 "%s: %s: section%s %s skipped; measure it with 'gpuq calibrate --suite %s'",
                 suite, why, strchr(sections[0], ',') ? "s" : "",
                 sections[0][0] ? sections[0] : "(none)", suite);
}

static gm_status check_gpu(const char *suite, const char *path, const char *file_gpu,
                           int file_sms, const char *gpu_name, int sm_count, gm_error *err)
{
    if (!gpu_name[0] || (strcmp(file_gpu, gpu_name) == 0 &&
                         (sm_count == 0 || file_sms == sm_count)))
        return GM_OK;
    return gm_fail(err, GM_ERR_MISMATCH,
                   "%s data %s was measured on %s with %d SMs, the counters come from %s with "
                   "%d SMs (pass --force to use it anyway, or run 'gpuq calibrate --suite %s' "
                   "on that GPU)",
                   suite, path, file_gpu, file_sms, gpu_name, sm_count, suite);
}

/* The entry for a suite's file (n_files grows when the caller keeps it). */
static void set_entry(gm_machine *m, const char *suite, const char *path,
                      const gm_mdata_meta *meta, gm_mdata *md, void *data,
                      void (*free_data)(void *))
{
    size_t i = m->n_files++;
    memset(&m->files[i], 0, sizeof m->files[i]);
    snprintf(m->files[i].suite, sizeof m->files[i].suite, "%s", suite);
    snprintf(m->files[i].path, sizeof m->files[i].path, "%s", path);
    if (meta)
        m->files[i].meta = *meta;
    m->files[i].md = md;
    m->files[i].data = data;
    m->files[i].free_data = free_data;
}

static gm_status load_one(gm_machine *m, const char *suite, const char *path, int explicit_path,
                          int force, gm_error *err)
{
    gm_status st;
    if (m->n_files >= GM_MACHINE_MAX_FILES)
        return gm_fail(err, GM_ERR_RANGE, "machine data: more than %d suites",
                       GM_MACHINE_MAX_FILES);
    const gm_mdata_format *format = gm_mdata_format_of(suite);
    if (format) {
        void *data = NULL;
        gm_mdata_meta meta;
        memset(&meta, 0, sizeof meta);
        if ((st = format->load(path, &data, &meta, err)) != GM_OK)
            return st;
        if (explicit_path && !force &&
            (st = check_gpu(suite, path, meta.gpu_name, meta.sm_count, m->gpu_name,
                            m->sm_count, err)) != GM_OK) {
            format->free(data);
            return st;
        }
        set_entry(m, suite, path, &meta, NULL, data, format->free);
        return GM_OK;
    }
    gm_mdata *md = NULL;
    if ((st = gm_mdata_load(path, &md, err)) != GM_OK)
        return st;
    if (strcmp(md->meta.suite, suite) != 0) {
        st = gm_fail(err, GM_ERR_MISMATCH, "%s: not %s machine data (it holds suite '%s')", path,
                     suite, md->meta.suite);
        gm_mdata_free(md);
        return st;
    }
    if (explicit_path && !force &&
        (st = check_gpu(suite, path, md->meta.gpu_name, md->meta.sm_count, m->gpu_name,
                        m->sm_count, err)) != GM_OK) {
        gm_mdata_free(md);
        return st;
    }
    set_entry(m, suite, path, &md->meta, md, NULL, NULL);
    return GM_OK;
}

/* The line gm_machine_load wrote for a suite that is there now. */
static void drop_missing(gm_machine *m, const char *suite)
{
    size_t n = strlen(suite), j = 0;
    for (size_t i = 0; i < m->n_missing; i++)
        if (!(strncmp(m->missing[i], suite, n) == 0 && m->missing[i][n] == ':'))
            memmove(m->missing[j++], m->missing[i], sizeof m->missing[0]);
    m->n_missing = j;
}

gm_status gm_machine_take(gm_machine *to, gm_machine *from, const char *suite, gm_error *err)
{
    int i = file_of(from, suite);
    if (!to || i < 0)
        return gm_fail(err, GM_ERR_INVALID_ARG, "machine data: no suite %s to take",
                       suite ? suite : "(none)");
    if (suite_loaded(to, suite))
        return gm_fail(err, GM_ERR_INVALID_ARG, "machine data: suite %s is there already", suite);
    if (to->n_files >= GM_MACHINE_MAX_FILES)
        return gm_fail(err, GM_ERR_RANGE, "machine data: more than %d suites",
                       GM_MACHINE_MAX_FILES);
    to->files[to->n_files++] = from->files[i];
    memmove(&from->files[i], &from->files[i + 1],
            (from->n_files - (size_t)i - 1) * sizeof from->files[0]);
    from->n_files--;
    drop_missing(to, suite);
    return GM_OK;
}

gm_status gm_machine_adopt(gm_machine *m, const char *suite, const char *path,
                           const gm_mdata_meta *meta, void *data, void (*free_data)(void *),
                           gm_error *err)
{
    gm_status st = GM_OK;
    if (!m || !suite || !data)
        st = gm_fail(err, GM_ERR_INVALID_ARG, "machine data: nothing to add");
    else if (suite_loaded(m, suite))
        st = gm_fail(err, GM_ERR_INVALID_ARG, "machine data: suite %s is there already", suite);
    else if (m->n_files >= GM_MACHINE_MAX_FILES)
        st = gm_fail(err, GM_ERR_RANGE, "machine data: more than %d suites",
                     GM_MACHINE_MAX_FILES);
    if (st != GM_OK) {
        if (free_data && data)
            free_data(data);
        return st;
    }
    set_entry(m, suite, path ? path : "", meta, NULL, data, free_data);
    drop_missing(m, suite); /* the line gm_machine_load wrote for it does not hold any more */
    return GM_OK;
}

gm_status gm_machine_find(const char *suite, const char *gpu_name, int sm_count, char *path,
                          size_t len, gm_error *err)
{
    char file[64];
    snprintf(file, sizeof file, "%s.csv", suite);
    gm_status st = gm_mdata_find(gpu_name, sm_count, suite, file, path, len, err);
    const gm_mdata_format *format = gm_mdata_format_of(suite);
    if (st != GM_OK && format && format->find &&
        format->find(gpu_name, sm_count, path, len, NULL) == GM_OK)
        st = GM_OK;
    return st;
}

gm_status gm_machine_load(gm_machine *m, const char *gpu_name, int sm_count,
                          const char *const *suites, const char *const *overrides, int force,
                          gm_error *err)
{
    if (!m)
        return gm_fail(err, GM_ERR_INVALID_ARG, "machine data: nothing to fill");
    memset(m, 0, sizeof *m);
    snprintf(m->gpu_name, sizeof m->gpu_name, "%s", gpu_name ? gpu_name : "");
    m->sm_count = sm_count;
    for (size_t i = 0; overrides && overrides[i]; i++) {
        const char *eq = strchr(overrides[i], '=');
        if (!eq || eq == overrides[i] || !eq[1])
            return gm_fail(err, GM_ERR_INVALID_ARG,
                           "machine data: '%s' is not SUITE=PATH", overrides[i]);
    }
    for (size_t s = 0; suites && suites[s]; s++) {
        const char *suite = suites[s];
        if (suite_loaded(m, suite))
            continue; /* named twice */
        const char *given = override_for(overrides, suite);
        gm_status st;
        if (given) {
            if ((st = load_one(m, suite, given, 1, force, err)) != GM_OK) {
                gm_machine_free(m);
                return st;
            }
            continue;
        }
        if (!m->gpu_name[0]) {
            note_missing(m, suite,
                         "the counters do not name their GPU, so no machine data can be chosen "
                         "(pass it explicitly, e.g. --table FILE)");
            continue;
        }
        char path[4096], why[200];
        gm_error ferr = {{0}};
        if (gm_machine_find(suite, m->gpu_name, sm_count, path, sizeof path, &ferr) != GM_OK) {
            if (sm_count > 0)
                snprintf(why, sizeof why, "no machine data for %.120s with %d SMs", m->gpu_name,
                         sm_count);
            else
                snprintf(why, sizeof why, "no machine data for %.120s", m->gpu_name);
            note_missing(m, suite, why);
            continue;
        }
        if ((st = load_one(m, suite, path, 0, force, err)) != GM_OK) {
            gm_machine_free(m);
            return st;
        }
    }
    return GM_OK;
}
