/* Which kernel launches the collector profiles: a POSIX extended regular
 * expression searched in the demangled kernel name, then Nsight Compute's
 * launch-skip / launch-count rule (-s N -c M: of the launches whose name
 * matches, skip the first N, profile the next M, ignore the rest).
 *
 * Pure C, no CUDA: the collector uses it under its lock, and the unit tests
 * drive it with plain strings.
 */
#ifndef GPUQ_GI_FILTER_H
#define GPUQ_GI_FILTER_H

#include <regex.h>
#include <stdint.h>

#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gi_filter_verdict {
    GI_FILTER_PROFILE = 0,   /* profile this launch */
    GI_FILTER_NAME_MISMATCH, /* the name does not match the regex */
    GI_FILTER_SKIPPED,       /* matches, but is one of the first `skip` matching launches */
    GI_FILTER_PAST_COUNT     /* matches, but `count` launches were already profiled */
} gi_filter_verdict;

typedef struct gi_filter {
    int has_regex;
    regex_t regex;
    uint64_t skip;       /* matching launches to pass over before profiling */
    uint64_t count;      /* launches to profile after the skipped ones; 0 = no limit */
    uint64_t matched;    /* matching launches seen so far */
    uint64_t profiled;   /* launches given GI_FILTER_PROFILE so far */
} gi_filter;

/* regex may be NULL or "" (every name matches).  A bad regex fills err with
 * regerror's text and returns GM_ERR_PARSE. */
gm_status gi_filter_init(gi_filter *f, const char *regex, uint64_t skip, uint64_t count,
                         gm_error *err);
void gi_filter_free(gi_filter *f);

/* 1 when a name matches the regex (always 1 without one); does not count. */
int gi_filter_name_matches(const gi_filter *f, const char *name);

/* Decides one launch and advances the counters.  Not thread-safe: the
 * caller serializes launches. */
gi_filter_verdict gi_filter_next(gi_filter *f, const char *name);

/* 1 once `count` launches were profiled: nothing later can be profiled. */
int gi_filter_exhausted(const gi_filter *f);

/* 1 when a kernel is one of NCCL's collective kernels (mangled or plain
 * name holds "ncclDevKernel" or "ncclKernel"): it waits for its peers on
 * the other GPUs of the communicator.  In a process that drives several
 * GPUs the peers are launched by the same thread after this launch returns,
 * so the collector must neither replay it nor wait for it. */
int gi_is_collective_kernel(const char *name);

/* Parses a launch count from an environment variable's text: a decimal
 * integer >= 0; NULL or "" gives `fallback`.  GM_ERR_PARSE on anything else. */
gm_status gi_parse_count(const char *what, const char *text, uint64_t fallback, uint64_t *out,
                         gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
