/* Status codes and error messages shared by every gpuq library. */
#include <stdarg.h>
#include <stdio.h>

#include "gpuq/status.h"

static const char *const status_names[GM_STATUS_COUNT] = {
    [GM_OK] = "ok",
    [GM_ERR_INVALID_ARG] = "invalid argument",
    [GM_ERR_NOMEM] = "out of memory",
    [GM_ERR_IO] = "input/output error",
    [GM_ERR_PARSE] = "malformed input",
    [GM_ERR_RANGE] = "value out of range",
    [GM_ERR_MISSING] = "missing data",
    [GM_ERR_DUPLICATE] = "duplicate data",
    [GM_ERR_MISMATCH] = "made for another GPU or format",
    [GM_ERR_UNSUPPORTED] = "not supported here",
    [GM_ERR_NO_GPU] = "no usable CUDA GPU",
    [GM_ERR_CUDA] = "CUDA error",
    [GM_ERR_PROFILER] = "profiler error",
    [GM_ERR_PERMISSION] = "profiling not permitted",
    [GM_ERR_INTERRUPTED] = "interrupted",
};

const char *gm_strerror(gm_status status)
{
    if ((int)status < 0 || status >= GM_STATUS_COUNT || !status_names[status])
        return "unknown status";
    return status_names[status];
}

gm_status gm_fail(gm_error *err, gm_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        /* One line whatever the input quoted in it held: a newline or escape
         * sequence from a file must not reach the terminal or break a log. */
        for (char *p = err->msg; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = *p == '\t' ? ' ' : '?';
    }
    return status;
}
