/* Status codes shared by every gpuq library (model, benchmarks, collector).
 *
 * Library code never exits and never prints: it returns one of these codes
 * and, where the caller passed one, fills a gm_error with a one-line message
 * that says what failed and why ("line 12: e=33 outside 1..32").  Only the
 * command-line front end turns them into stderr lines and exit codes.
 */
#ifndef GPUQ_STATUS_H
#define GPUQ_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gm_status {
    GM_OK = 0,
    GM_ERR_INVALID_ARG,  /* caller passed NULL or a value outside the function's domain */
    GM_ERR_NOMEM,        /* an allocation failed */
    GM_ERR_IO,           /* open/read/write/rename failed (errno text is in the gm_error) */
    GM_ERR_PARSE,        /* malformed text: not a number, wrong column count, bad header */
    GM_ERR_RANGE,        /* a well-formed value outside its allowed range (n, e, c, NaN, < 0) */
    GM_ERR_MISSING,      /* a required cell, column or metadata key is absent */
    GM_ERR_DUPLICATE,    /* the same cell or key given twice */
    GM_ERR_MISMATCH,     /* data made for another GPU or another format version */
    GM_ERR_UNSUPPORTED,  /* the device, driver or build cannot do this */
    GM_ERR_NO_GPU,       /* no CUDA device is present or usable */
    GM_ERR_CUDA,         /* a CUDA runtime/driver call failed */
    GM_ERR_PROFILER,     /* a CUPTI call failed */
    GM_ERR_PERMISSION,   /* profiling counters not permitted (ERR_NVGPUCTRPERM) */
    GM_ERR_INTERRUPTED,  /* stopped by a signal; partial results were kept */
    GM_STATUS_COUNT
} gm_status;

/* Human-readable name of a status ("input out of range"); never NULL. */
const char *gm_strerror(gm_status status);

/* Detail for the last failure: one line, no trailing newline or period. */
typedef struct gm_error {
    char msg[512];
} gm_error;

/* Fills err->msg printf-style (err may be NULL) and returns status, so that
 * a failing path can be written `return gm_fail(err, GM_ERR_RANGE, "...")`. */
gm_status gm_fail(gm_error *err, gm_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
