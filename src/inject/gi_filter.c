/* Kernel launch filter: regex on the demangled name, then skip/count
 * (the semantics of Nsight Compute's -k regex:, -s and -c). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gi_filter.h"

gm_status gi_filter_init(gi_filter *f, const char *regex, uint64_t skip, uint64_t count,
                         gm_error *err)
{
    if (!f)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no filter given");
    memset(f, 0, sizeof *f);
    f->skip = skip;
    f->count = count;
    if (regex && regex[0]) {
        int rc = regcomp(&f->regex, regex, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[256];
            regerror(rc, &f->regex, why, sizeof why);
            return gm_fail(err, GM_ERR_PARSE, "kernel name regex '%s' is invalid: %s", regex, why);
        }
        f->has_regex = 1;
    }
    return GM_OK;
}

void gi_filter_free(gi_filter *f)
{
    if (f && f->has_regex) {
        regfree(&f->regex);
        f->has_regex = 0;
    }
}

int gi_filter_name_matches(const gi_filter *f, const char *name)
{
    if (!f->has_regex)
        return 1;
    return name && regexec(&f->regex, name, 0, NULL, 0) == 0;
}

int gi_is_collective_kernel(const char *name)
{
    /* NCCL 2.19+ names its kernels ncclDevKernel_<coll>_<op>_<type>_<algo>_<proto>,
     * earlier versions ncclKernel_...; both appear inside C++ mangled names. */
    return name && (strstr(name, "ncclDevKernel") != NULL || strstr(name, "ncclKernel") != NULL);
}

int gi_filter_exhausted(const gi_filter *f)
{
    return f->count > 0 && f->profiled >= f->count;
}

gi_filter_verdict gi_filter_next(gi_filter *f, const char *name)
{
    if (!gi_filter_name_matches(f, name))
        return GI_FILTER_NAME_MISMATCH;
    /* Only matching launches count toward skip and count, as in ncu. */
    f->matched++;
    if (f->matched <= f->skip)
        return GI_FILTER_SKIPPED;
    if (gi_filter_exhausted(f))
        return GI_FILTER_PAST_COUNT;
    f->profiled++;
    return GI_FILTER_PROFILE;
}

gm_status gi_parse_count(const char *what, const char *text, uint64_t fallback, uint64_t *out,
                         gm_error *err)
{
    if (!text || !text[0]) {
        *out = fallback;
        return GM_OK;
    }
    /* strtoull accepts a sign and leading blanks; a count has neither. */
    if (!isdigit((unsigned char)text[0]))
        return gm_fail(err, GM_ERR_PARSE, "%s must be a whole number >= 0, got '%s'", what, text);
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end != '\0')
        return gm_fail(err, GM_ERR_PARSE, "%s must be a whole number >= 0, got '%s'", what, text);
    *out = (uint64_t)v;
    return GM_OK;
}
