/* Output names by pattern (gi_pattern.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gi_pattern.h"

int gi_pattern_is_pattern(const char *pattern)
{
    return pattern && strchr(pattern, '%') != NULL;
}

/* Walks the pattern; with v == NULL only checks it.  Appends to out when
 * out != NULL. */
static gm_status walk(const char *pattern, const gi_pattern_values *v, char *out, size_t len,
                      int *uses_seq, gm_error *err)
{
    size_t used = 0;
    if (out && len)
        out[0] = '\0';
#define PUT(s, n)                                                                            \
    do {                                                                                     \
        if (out) {                                                                           \
            if (used + (n) >= len)                                                           \
                return gm_fail(err, GM_ERR_RANGE, "output name from '%s' is too long",        \
                               pattern);                                                     \
            memcpy(out + used, (s), (n));                                                    \
            used += (n);                                                                     \
            out[used] = '\0';                                                                \
        }                                                                                    \
    } while (0)
    for (const char *p = pattern; *p; p++) {
        if (*p != '%') {
            PUT(p, 1);
            continue;
        }
        char num[32];
        switch (p[1]) {
        case '%':
            PUT("%", 1);
            p++;
            break;
        case 'p':
            snprintf(num, sizeof num, "%ld", v ? v->pid : 0L);
            PUT(num, strlen(num));
            p++;
            break;
        case 'i':
            if (uses_seq)
                *uses_seq = 1;
            snprintf(num, sizeof num, "%u", v ? v->seq : 0u);
            PUT(num, strlen(num));
            p++;
            break;
        case 'h': {
            const char *h = v && v->host ? v->host : "";
            PUT(h, strlen(h));
            p++;
            break;
        }
        case 'q': {
            if (p[2] != '{')
                return gm_fail(err, GM_ERR_PARSE, "'%s': %%q needs a variable name in braces, "
                               "as in %%q{RANK}", pattern);
            const char *name = p + 3, *close = strchr(name, '}');
            size_t n = close ? (size_t)(close - name) : 0;
            if (!close || n == 0 || n >= 256)
                return gm_fail(err, GM_ERR_PARSE, "'%s': %%q{ has no closing brace or no name",
                               pattern);
            char var[256];
            memcpy(var, name, n);
            var[n] = '\0';
            if (v) {
                const char *value = v->env ? v->env(var, v->env_ctx) : getenv(var);
                if (!value)
                    return gm_fail(err, GM_ERR_MISSING, "'%s': environment variable %s is not "
                                   "set", pattern, var);
                PUT(value, strlen(value));
            }
            p = close;
            break;
        }
        case '\0':
            return gm_fail(err, GM_ERR_PARSE, "'%s' ends with a lone %%", pattern);
        default:
            return gm_fail(err, GM_ERR_PARSE, "'%s': unknown %%%c (known: %%p %%h %%i %%q{VAR} "
                           "%%%%)", pattern, p[1]);
        }
    }
#undef PUT
    return GM_OK;
}

int gi_pattern_uses_seq(const char *pattern)
{
    int uses = 0;
    gm_error err = {{0}};
    return pattern && walk(pattern, NULL, NULL, 0, &uses, &err) == GM_OK && uses;
}

gm_status gi_pattern_check(const char *pattern, gm_error *err)
{
    if (!pattern || !pattern[0])
        return gm_fail(err, GM_ERR_INVALID_ARG, "empty output name");
    return walk(pattern, NULL, NULL, 0, NULL, err);
}

gm_status gi_pattern_expand(const char *pattern, const gi_pattern_values *v, char *out,
                            size_t len, gm_error *err)
{
    if (!pattern || !v || !out || len == 0)
        return gm_fail(err, GM_ERR_INVALID_ARG, "gi_pattern_expand: bad arguments");
    return walk(pattern, v, out, len, NULL, err);
}
