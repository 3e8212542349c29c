/* Output names by pattern, as Nsight Compute's -o names its reports, so that
 * each process of a multi-process job (torchrun, mpirun, a server and its
 * workers) writes its counters to a file of its own:
 *   %p        the process id
 *   %h        the host name
 *   %i        a sequence number: the first one whose name is not taken
 *   %q{VAR}   the value of environment variable VAR (a rank, a job id);
 *             an unset VAR is an error
 *   %%        a '%'
 * Any other '%' sequence is an error.  Pure C: tested on the CPU
 * (tests/profile/test_gi_pattern.c). */
#ifndef GPUQ_GI_PATTERN_H
#define GPUQ_GI_PATTERN_H

#include <stddef.h>

#include "gpuq/status.h"

/* Where %q{VAR} looks VAR up (getenv in the program; a table in tests). */
typedef const char *(*gi_env_lookup)(const char *name, void *ctx);

typedef struct gi_pattern_values {
    long pid;
    const char *host;
    unsigned seq;           /* %i */
    gi_env_lookup env;      /* NULL: getenv */
    void *env_ctx;
} gi_pattern_values;

/* 1 when the pattern has a '%' (it then names a file per process). */
int gi_pattern_is_pattern(const char *pattern);
/* 1 when the pattern uses %i. */
int gi_pattern_uses_seq(const char *pattern);
/* Checks the syntax (unknown specifiers, %q without {NAME}); the variables
 * need not be set. */
gm_status gi_pattern_check(const char *pattern, gm_error *err);
/* Expands the pattern into out (len bytes). */
gm_status gi_pattern_expand(const char *pattern, const gi_pattern_values *v, char *out,
                            size_t len, gm_error *err);

#endif
