/* A code pass's disassembly parsing, the sass pass file, and the join with
 * the counters of the first run (see host_sass.h).  Running the
 * disassembler is host_disasm.c; what a kernel's code holds and the cubin
 * reader are host_code.c. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_sass.h"

/* ---- disassembly lines ------------------------------------------------ */

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

int host_sass_parse_instruction(const char *line, uint32_t *offset, char *opcode, size_t opcode_len)
{
    const char *p = skip_blanks(line);
    if (p[0] != '/' || p[1] != '*')
        return 0;
    p += 2;
    /* The offset is hex digits right after the comment opener; encoding
     * comments ("/" "* 0x000f... *" "/") have a blank there instead. */
    if (!isxdigit((unsigned char)*p))
        return 0;
    char *end = NULL;
    unsigned long off = strtoul(p, &end, 16);
    if (end[0] != '*' || end[1] != '/')
        return 0;
    p = skip_blanks(end + 2);
    if (*p == '{') /* dual-issue brace on older architectures */
        p = skip_blanks(p + 1);
    if (*p == '@') { /* guard predicate: @P0, @!P1, @!UPT */
        while (*p && *p != ' ' && *p != '\t')
            p++;
        p = skip_blanks(p);
    }
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != ';' && p[n] != '\n' && p[n] != '\r')
        n++;
    if (n == 0 || !isupper((unsigned char)p[0]) || n >= opcode_len)
        return 0;
    memcpy(opcode, p, n);
    opcode[n] = '\0';
    *offset = (uint32_t)off;
    return 1;
}

static int copy_name(const char *start, size_t n, char *name, size_t name_len)
{
    if (n == 0 || n >= name_len)
        return 0;
    memcpy(name, start, n);
    name[n] = '\0';
    return 1;
}

int host_sass_parse_function(const char *line, char *name, size_t name_len)
{
    const char *p = skip_blanks(line);
    static const char fn_tag[] = "Function : ";
    if (strncmp(p, fn_tag, sizeof fn_tag - 1) == 0) {
        p += sizeof fn_tag - 1;
        size_t n = strcspn(p, " \t\r\n");
        return copy_name(p, n, name, name_len);
    }
    static const char section_tag[] = ".section";
    if (strncmp(p, section_tag, sizeof section_tag - 1) == 0) {
        p = skip_blanks(p + sizeof section_tag - 1);
        if (strncmp(p, ".text.", 6) != 0)
            return 0;
        p += 6;
        return copy_name(p, strcspn(p, ", \t\r\n"), name, name_len);
    }
    if (strncmp(p, ".text.", 6) == 0) {
        p += 6;
        size_t n = strcspn(p, " \t\r\n");
        if (n > 0 && p[n - 1] == ':')
            return copy_name(p, n - 1, name, name_len);
    }
    return 0;
}

/* ---- disassembly ------------------------------------------------------ */

static gm_status grow(void **array, size_t *capacity, size_t needed, size_t elem, gm_error *err)
{
    if (needed <= *capacity)
        return GM_OK;
    size_t cap = *capacity ? *capacity : 64;
    while (cap < needed)
        cap *= 2;
    void *p = realloc(*array, cap * elem);
    if (!p)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    *array = p;
    *capacity = cap;
    return GM_OK;
}

/* Sort key needs the function names; instructions of one host_disasm are
 * sorted with this pointer set (qsort has no context argument in C11). */
static const host_disasm *sort_ctx;

static int inst_cmp(const void *a, const void *b)
{
    const host_sass_inst *x = a, *y = b;
    int c = strcmp(sort_ctx->functions[x->function], sort_ctx->functions[y->function]);
    if (c)
        return c;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

gm_status host_disasm_parse(const char *text, host_disasm *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no disassembly text");
    size_t fn_cap = 0;
    long current = -1;
    char line[1024], name[512];
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        size_t keep = n < sizeof line - 1 ? n : sizeof line - 1;
        memcpy(line, p, keep);
        line[keep] = '\0';
        p += n + (p[n] == '\n');

        if (host_sass_parse_function(line, name, sizeof name)) {
            /* nvdisasm names a function up to three times (banner, .section,
             * label): reuse the entry when it repeats the current one. */
            if (current >= 0 && strcmp(out->functions[current], name) == 0)
                continue;
            gm_status st = grow((void **)&out->functions, &fn_cap, out->n_functions + 1,
                                sizeof *out->functions, err);
            if (st != GM_OK)
                goto fail;
            out->functions[out->n_functions] = strdup(name);
            if (!out->functions[out->n_functions]) {
                gm_fail(err, GM_ERR_NOMEM, "out of memory");
                goto fail;
            }
            current = (long)out->n_functions++;
            continue;
        }
        host_sass_inst inst;
        if (current < 0 || !host_sass_parse_instruction(line, &inst.offset, inst.opcode,
                                                      sizeof inst.opcode))
            continue;
        inst.function = (size_t)current;
        gm_status st = grow((void **)&out->inst, &out->capacity, out->count + 1, sizeof inst, err);
        if (st != GM_OK)
            goto fail;
        out->inst[out->count++] = inst;
    }
    sort_ctx = out;
    qsort(out->inst, out->count, sizeof *out->inst, inst_cmp);
    sort_ctx = NULL;
    return GM_OK;
fail:
    host_disasm_free(out);
    return GM_ERR_NOMEM;
}

void host_disasm_free(host_disasm *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_functions; i++)
        free(d->functions[i]);
    free(d->functions);
    free(d->inst);
    memset(d, 0, sizeof *d);
}

const char *host_disasm_lookup(const host_disasm *d, const char *function, uint32_t offset)
{
    if (!d || !function)
        return NULL;
    size_t lo = 0, hi = d->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const host_sass_inst *m = &d->inst[mid];
        int c = strcmp(d->functions[m->function], function);
        if (c == 0)
            c = (m->offset > offset) - (m->offset < offset);
        if (c == 0)
            return m->opcode;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- sass pass file --------------------------------------------------- */

void host_sass_run_free(host_sass_run *run)
{
    if (!run)
        return;
    for (size_t i = 0; i < run->n_cubins; i++)
        free(run->cubins[i].path);
    for (size_t i = 0; i < run->n_launches; i++)
        free(run->launches[i].mangled);
    for (size_t i = 0; i < run->n_records; i++)
        free(run->records[i].function);
    free(run->cubins);
    free(run->launches);
    free(run->records);
    memset(run, 0, sizeof *run);
}

/* Splits "a,b,c,rest" into at most n fields in place; the last field takes
 * the rest of the line (a function name could hold a comma).  Returns the
 * number of fields. */
static size_t split_fields(char *line, char **fields, size_t n)
{
    size_t k = 0;
    char *p = line;
    while (k < n) {
        fields[k++] = p;
        if (k == n)
            break;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return k;
}

static int parse_u64(const char *s, int base, uint64_t *out)
{
    if (!s || !isxdigit((unsigned char)s[0]))
        return 0;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno || *end != '\0')
        return 0;
    *out = (uint64_t)v;
    return 1;
}

static long find_launch(const host_sass_run *run, uint64_t launch_id)
{
    /* Records follow their launch line, so the match is almost always the
     * last launch: search backwards. */
    for (size_t i = run->n_launches; i-- > 0;)
        if (run->launches[i].launch_id == launch_id)
            return (long)i;
    return -1;
}

gm_status host_sass_run_parse(const char *text, const char *name, host_sass_run *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap_c = 0, cap_l = 0, cap_r = 0;
    size_t lineno = 0;
    char *line = NULL;
    size_t line_cap = 0;
    gm_status st = GM_OK;
    const char *p = text;
    int seen_magic = 0;
    while (*p) {
        size_t n = strcspn(p, "\n");
        lineno++;
        if (n + 1 > line_cap) {
            char *bigger = realloc(line, n + 1);
            if (!bigger) {
                st = gm_fail(err, GM_ERR_NOMEM, "out of memory");
                goto done;
            }
            line = bigger;
            line_cap = n + 1;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        if (n > 0 && line[n - 1] == '\r')
            line[n - 1] = '\0';
        p += n + (p[n] == '\n');

        if (lineno == 1) {
            if (strcmp(line, GI_SASS_FILE_MAGIC) != 0) {
                st = gm_fail(err, GM_ERR_PARSE, "%s: line 1: not a gpuq sass pass file (expected '%s')",
                             name, GI_SASS_FILE_MAGIC);
                goto done;
            }
            seen_magic = 1;
            continue;
        }
        if (line[0] == '\0' || line[0] == '#')
            continue;
        char *f[6];
        if (strncmp(line, "metric,", 7) == 0) {
            if (!line[7] || strlen(line + 7) >= sizeof out->metric) {
                st = gm_fail(err, GM_ERR_PARSE, "%s: line %zu: bad metric record", name, lineno);
                goto done;
            }
            snprintf(out->metric, sizeof out->metric, "%s", line + 7);
            continue;
        }
        if (strncmp(line, "cubin,", 6) == 0) {
            uint64_t crc;
            if (split_fields(line, f, 3) != 3 || !parse_u64(f[1], 16, &crc) || !f[2][0]) {
                st = gm_fail(err, GM_ERR_PARSE, "%s: line %zu: bad cubin record", name, lineno);
                goto done;
            }
            if ((st = grow((void **)&out->cubins, &cap_c, out->n_cubins + 1, sizeof *out->cubins,
                           err)) != GM_OK)
                goto done;
            host_sass_cubin *c = &out->cubins[out->n_cubins];
            c->crc = crc;
            c->path = strdup(f[2]);
            if (!c->path) {
                st = gm_fail(err, GM_ERR_NOMEM, "out of memory");
                goto done;
            }
            out->n_cubins++;
        } else if (strncmp(line, "launch,", 7) == 0) {
            uint64_t id, dev;
            if (split_fields(line, f, 4) != 4 || !parse_u64(f[1], 10, &id) ||
                !parse_u64(f[2], 10, &dev) || !f[3][0]) {
                st = gm_fail(err, GM_ERR_PARSE, "%s: line %zu: bad launch record", name, lineno);
                goto done;
            }
            if ((st = grow((void **)&out->launches, &cap_l, out->n_launches + 1,
                           sizeof *out->launches, err)) != GM_OK)
                goto done;
            host_sass_launch *l = &out->launches[out->n_launches];
            memset(l, 0, sizeof *l);
            l->launch_id = id;
            l->device = (int)dev;
            l->first = out->n_records;
            l->mangled = strdup(f[3]);
            if (!l->mangled) {
                st = gm_fail(err, GM_ERR_NOMEM, "out of memory");
                goto done;
            }
            out->n_launches++;
        } else if (strncmp(line, "inst,", 5) == 0) {
            uint64_t id, crc, pc, execs;
            if (split_fields(line, f, 6) != 6 || !parse_u64(f[1], 10, &id) ||
                !parse_u64(f[2], 16, &crc) || !parse_u64(f[3], 10, &pc) ||
                !parse_u64(f[4], 10, &execs) || !f[5][0] || crc > UINT32_MAX || pc > UINT32_MAX) {
                st = gm_fail(err, GM_ERR_PARSE, "%s: line %zu: bad inst record", name, lineno);
                goto done;
            }
            long li = find_launch(out, id);
            if (li < 0 || out->launches[li].complete ||
                out->launches[li].first + out->launches[li].n != out->n_records) {
                st = gm_fail(err, GM_ERR_PARSE,
                             "%s: line %zu: inst record of launch %" PRIu64
                             " outside that launch's records",
                             name, lineno, id);
                goto done;
            }
            if ((st = grow((void **)&out->records, &cap_r, out->n_records + 1,
                           sizeof *out->records, err)) != GM_OK)
                goto done;
            host_sass_record *r = &out->records[out->n_records];
            r->crc = (uint32_t)crc;
            r->pc_offset = (uint32_t)pc;
            r->executions = execs;
            r->function = strdup(f[5]);
            if (!r->function) {
                st = gm_fail(err, GM_ERR_NOMEM, "out of memory");
                goto done;
            }
            out->n_records++;
            out->launches[li].n++;
        } else if (strncmp(line, "end,", 4) == 0) {
            uint64_t id, count;
            long li;
            if (split_fields(line, f, 3) != 3 || !parse_u64(f[1], 10, &id) ||
                !parse_u64(f[2], 10, &count) || (li = find_launch(out, id)) < 0) {
                st = gm_fail(err, GM_ERR_PARSE, "%s: line %zu: bad end record", name, lineno);
                goto done;
            }
            if (out->launches[li].n != count) {
                st = gm_fail(err, GM_ERR_PARSE,
                             "%s: line %zu: launch %" PRIu64 " ends with %" PRIu64
                             " records but %zu were read",
                             name, lineno, id, count, out->launches[li].n);
                goto done;
            }
            out->launches[li].complete = 1;
        } else {
            /* The last line may be cut short by a crash; any other unknown
             * line is an error. */
            if (*p == '\0')
                break;
            st = gm_fail(err, GM_ERR_PARSE, "%s: line %zu: unknown record '%.40s'", name, lineno,
                         line);
            goto done;
        }
    }
    if (!seen_magic)
        st = gm_fail(err, GM_ERR_PARSE, "%s: empty file", name);
    if (!out->metric[0])
        snprintf(out->metric, sizeof out->metric, "%s", GI_SASS_ALL_METRIC);
done:
    free(line);
    if (st != GM_OK)
        host_sass_run_free(out);
    return st;
}

static gm_status read_file(const char *path, char **text, gm_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return gm_fail(err, GM_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    }
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                fclose(f);
                return gm_fail(err, GM_ERR_NOMEM, "out of memory");
            }
            buf = bigger;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return gm_fail(err, GM_ERR_IO, "cannot read '%s'", path);
    }
    buf[len] = '\0';
    *text = buf;
    return GM_OK;
}

gm_status host_sass_run_load(const char *path, host_sass_run *out, gm_error *err)
{
    char *text = NULL;
    gm_status st = read_file(path, &text, err);
    if (st != GM_OK)
        return st;
    st = host_sass_run_parse(text, path, out, err);
    free(text);
    return st;
}

/* ---- the join -------------------------------------------------------- */

static const char *lookup_opcode(const host_sass_run *run, const host_disasm *disasm,
                                 const host_sass_record *r)
{
    for (size_t i = 0; i < run->n_cubins; i++)
        if ((uint32_t)run->cubins[i].crc == r->crc) {
            const char *op = host_disasm_lookup(&disasm[i], r->function, r->pc_offset);
            if (op)
                return op;
        }
    /* The CRC in SASS records is 32 bits while cuptiGetCubinCrc gives 64:
     * if they do not agree, any cubin holding the function will do. */
    for (size_t i = 0; i < run->n_cubins; i++) {
        const char *op = host_disasm_lookup(&disasm[i], r->function, r->pc_offset);
        if (op)
            return op;
    }
    return NULL;
}

gm_status host_sass_launch_counts(const host_sass_run *run, const host_disasm *disasm,
                                  size_t launch_index, gm_inst_count **counts, size_t *n,
                                  size_t *unresolved, gm_error *err)
{
    const host_sass_launch *l = &run->launches[launch_index];
    *counts = calloc(l->n + 1, sizeof **counts);
    *n = 0;
    *unresolved = 0;
    if (!*counts)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < l->n; k++) {
        const host_sass_record *r = &run->records[l->first + k];
        if (r->executions == 0)
            continue;
        const char *op = lookup_opcode(run, disasm, r);
        if (!op) {
            (*unresolved)++;
            continue;
        }
        (*counts)[(*n)++] = (gm_inst_count){op, (double)r->executions};
    }
    return GM_OK;
}

typedef struct join_key {
    const char *name;
    uint64_t id;
    size_t index;
} join_key;

static int join_key_cmp(const void *a, const void *b)
{
    const join_key *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->id > y->id) - (x->id < y->id);
}

gm_status host_sass_merge(gm_counters_set *set, const host_sass_run *run, const host_disasm *disasm,
                          const gm_code_pass *pass, host_merge_stats *stats, gm_error *err)
{
    memset(stats, 0, sizeof *stats);
    join_key *a = calloc(set->count + 1, sizeof *a);
    join_key *b = calloc(run->n_launches + 1, sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    }
    size_t na = 0, nb = 0;
    for (size_t i = 0; i < set->count; i++) {
        const gm_launch_counters *k = &set->launches[i];
        const char *name = k->mangled && k->mangled[0] ? k->mangled : k->kernel;
        /* A row the pass has nothing to do with (listed without counters,
         * which neither run could measure): not "missing" from the second
         * run. */
        if (!pass->applies(k))
            continue;
        a[na++] = (join_key){name ? name : "", k->launch_id, i};
    }
    for (size_t i = 0; i < run->n_launches; i++)
        if (run->launches[i].complete)
            b[nb++] = (join_key){run->launches[i].mangled, run->launches[i].launch_id, i};
    qsort(a, na, sizeof *a, join_key_cmp);
    qsort(b, nb, sizeof *b, join_key_cmp);

    /* Walk both lists name group by name group; within a group the k-th
     * launch of one run pairs with the k-th of the other. */
    gm_status st = GM_OK;
    size_t i = 0, j = 0;
    while (st == GM_OK && (i < na || j < nb)) {
        int c = i >= na ? 1 : j >= nb ? -1 : strcmp(a[i].name, b[j].name);
        if (c < 0) {
            stats->missing++;
            i++;
            continue;
        }
        if (c > 0) {
            stats->extra++;
            j++;
            continue;
        }
        gm_launch_counters *k = &set->launches[a[i].index];
        gm_inst_count *counts = NULL;
        size_t n = 0, unresolved = 0;
        st = host_sass_launch_counts(run, disasm, b[j].index, &counts, &n, &unresolved, err);
        if (st != GM_OK)
            break;
        if (unresolved && !stats->first_unresolved[0]) {
            const host_sass_launch *l = &run->launches[b[j].index];
            for (size_t r = 0; r < l->n; r++) {
                const host_sass_record *rec = &run->records[l->first + r];
                if (rec->executions > 0 && !lookup_opcode(run, disasm, rec)) {
                    snprintf(stats->first_unresolved, sizeof stats->first_unresolved,
                             "%.200s+0x%" PRIx32 " (cubin crc %" PRIx32 ")", rec->function,
                             rec->pc_offset, rec->crc);
                    break;
                }
            }
        }
        if (pass->from_counts(k, counts, n, unresolved, run->metric))
            stats->joined++;
        else
            stats->unresolved++;
        free(counts);
        i++;
        j++;
    }
    free(a);
    free(b);
    return st;
}
