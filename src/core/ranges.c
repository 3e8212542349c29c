/* The physical range of every loaded quantity (gpuq/ranges.h) and the one
 * number parser of the loaders.  Bounds come from physics, not from the
 * shipped data: each is far beyond any GPU's reach yet small enough that
 * the models' arithmetic cannot overflow (docs/input-ranges.md). */
#include "gpuq/ranges.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 2^63: a count below it fits an int64_t; one day of cycles at 5 GHz on
 * 10,000 SMs is 4.3e18, still below. */
#define TWO63 9223372036854775808.0
#define DAY_S 86400.0

const gm_quantity_range gm_quantity_table[GM_QUANTITY_COUNT] = {
    [GM_Q_EVENTS] = {"events", 0, TWO63, 0, 1, "an event count"},
    [GM_Q_BYTES] = {"bytes", 0, TWO63, 0, 1, "a byte count"},
    [GM_Q_CYCLES] = {"cycles", 0, TWO63, 0, 1, "a cycle count"},
    [GM_Q_MEAN] = {"mean", 0, TWO63, 0, 0, "an average count"},
    [GM_Q_PERCENT] = {"percent", 0, 100, 0, 0, "a percentage of a peak"},
    [GM_Q_DURATION_NS] = {"duration_ns", 0, DAY_S * 1e9, 0, 0, "a duration in ns, under a day"},
    [GM_Q_DURATION_MS] = {"duration_ms", 0, DAY_S * 1e3, 0, 0, "a duration in ms, under a day"},
    [GM_Q_CLOCKS] = {"clocks", 0, DAY_S * 5e9, 0, 0, "a time in clocks, under a day at 5 GHz"},
    /* per clock per SM, GB/s or G/s: 1e7 GB/s is 10 PB/s, 3,000 times an H100's DRAM */
    [GM_Q_RATE] = {"rate", 0, 1e7, 1, 0, "a rate, finite and positive"},
    [GM_Q_CLOCK_MHZ] = {"clock_mhz", 0, 1e5, 0, 0, "a clock in MHz, 0 unknown"},
    [GM_Q_WARPS] = {"warps", 0, 64, 0, 1, "warps, at most 64 on an SM"},
    [GM_Q_WARPS_PER_BLOCK] = {"warps_per_block", 1, 64, 0, 1, "warps per block"},
    [GM_Q_WARPS_PER_SM] = {"warps_per_sm", 1, 64, 0, 1, "warps per SM, at most 64"},
    [GM_Q_BLOCKS_PER_SM] = {"blocks_per_sm", 0, 64, 0, 1,
                            "blocks per SM, at most 64: one warp each, 64 warps an SM"},
    [GM_Q_BLOCKS] = {"blocks", 0, 2147483647.0, 0, 1, "blocks, at most 2^31-1 in a grid"},
    [GM_Q_REGS] = {"regs", 0, 255, 0, 1, "registers per thread, at most 255"},
    [GM_Q_SMEM_BYTES] = {"smem_bytes", 0, 16777216.0, 0, 1,
                         "shared-memory bytes per block, at most 16 MiB"},
    [GM_Q_SM_INDEX] = {"sm_index", 0, 65535, 0, 1, "an SM index"},
    [GM_Q_ACCESS_BYTES] = {"access_bytes", 0, 1024, 0, 1, "bytes per access, at most 1024"},
    [GM_Q_INDEX] = {"index", 0, 2147483647.0, 0, 1, "an index or a repeat count"},
    [GM_Q_RATIO] = {"ratio", 0, 1e9, 0, 0, "a ratio"},
    [GM_Q_REAL] = {"real", -TWO63, TWO63, 0, 0, "a measured number"},
};

/* The exact powers of ten a double holds (10^22 is the last). */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* 10^f as a 128-bit integer (f <= 22). */
static unsigned __int128 pow10_u128(int f)
{
    static const uint64_t lo[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull,
                                    1000000ull, 10000000ull, 100000000ull, 1000000000ull,
                                    10000000000ull, 100000000000ull, 1000000000000ull,
                                    10000000000000ull, 100000000000000ull, 1000000000000000ull,
                                    10000000000000000ull, 100000000000000000ull,
                                    1000000000000000000ull, 10000000000000000000ull};
    return f < 20 ? (unsigned __int128)lo[f] : (unsigned __int128)lo[19] * lo[f - 19];
}

static int bit_length(unsigned __int128 x)
{
    uint64_t hi = (uint64_t)(x >> 64), low = (uint64_t)x;
    return hi ? 128 - __builtin_clzll(hi) : low ? 64 - __builtin_clzll(low) : 0;
}

/* m / 10^frac (m < 2^64, frac <= 22) rounded to the nearest double, ties
 * to even, exactly: m shifted left so that the quotient has 54 or 55 bits
 * (the numerator then stays below 2^128), the bits below the 53 kept and
 * the remainder deciding the rounding as strtod does on the exact value. */
static double exact_quotient(uint64_t m, int frac)
{
    unsigned __int128 d = pow10_u128(frac);
    int k = 54 + bit_length(d) - bit_length(m);
    unsigned __int128 n = k >= 0 ? (unsigned __int128)m << k : (unsigned __int128)m >> -k;
    /* k < 0 only when m has more bits than 54 + those of 10^frac: never for
     * the callers' m (< 2^64) with frac >= 11; below, the shift is exact
     * whenever the low bits are zero, and otherwise they go to the sticky */
    int sticky = k < 0 && (m & ((((uint64_t)1) << -k) - 1)) != 0;
    unsigned __int128 q = n / d, r = n % d;
    sticky |= r != 0;
    int sh = bit_length(q) - 53; /* 1 or 2 (q has 54 or 55 bits) */
    uint64_t mant = (uint64_t)(q >> sh), low = (uint64_t)(q & ((((unsigned __int128)1) << sh) - 1)),
             half = (uint64_t)1 << (sh - 1);
    if (low > half || (low == half && (sticky || (mant & 1))))
        mant++;
    return ldexp((double)mant, sh - k);
}

/* A decimal number of at most 19 significant digits without an exponent,
 * read without strtod.  Up to 15 digits: the digits as an integer (exact
 * below 2^53) divided by an exact power of ten, one correctly rounded
 * operation (Clinger's fast path); 16 to 19: the same quotient in integer
 * arithmetic (exact_quotient).  Either is the value strtod gives.  0 when
 * text is anything else (signs, exponents, more digits go to strtod).
 * Counters files hold millions of such numbers, averages among them with
 * 17 digits, and strtod took a fifth of reading one. */
static int fast_decimal(const char *text, double *out)
{
    const unsigned char *p = (const unsigned char *)text;
    uint64_t m = 0; /* wraps past 19 digits: then not used */
    int any = 0;
    while (*p == '0') /* leading zeros are no significant digits */
        p++, any = 1;
    const unsigned char *sig = p;
    while ((unsigned)(*p - '0') < 10)
        m = 10 * m + (uint64_t)(*p++ - '0');
    int digits = (int)(p - sig), frac = 0;
    any |= digits > 0;
    if (*p == '.') {
        const unsigned char *f0 = ++p;
        if (digits == 0)
            while (*p == '0') /* neither: 0.000123 has three digits */
                p++;
        const unsigned char *s2 = p;
        while ((unsigned)(*p - '0') < 10)
            m = 10 * m + (uint64_t)(*p++ - '0');
        digits += (int)(p - s2);
        frac = (int)(p - f0);
        any |= frac > 0;
    }
    if (*p != '\0' || !any || digits > 19 || frac > 22)
        return 0;
    if (digits <= 15)
        *out = (double)m / pow10_exact[frac];
    else if (frac == 0)
        *out = (double)m; /* an integer below 2^64: one rounding, as strtod's */
    else
        *out = exact_quotient(m, frac);
    return 1;
}

int gm_number_parse(const char *text, double *out)
{
    if (!text)
        return -1;
    /* Digits with at most one point (no sign, no exponent): read at once. */
    double fast;
    if (fast_decimal(text, &fast)) {
        *out = fast;
        return 0;
    }
    /* The grammar first, so that strtod's extras (hex, inf, nan, blanks)
     * never pass: [+-] digits [. digits] [(e|E) [+-] digits]. */
    const char *p = text;
    if (*p == '+' || *p == '-')
        p++;
    size_t digits = 0;
    while (isdigit((unsigned char)*p))
        p++, digits++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p))
            p++, digits++;
    }
    if (digits == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p != '\0')
        return -1;
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (end != p)
        return -1;
    if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1))
        return -2;
    if (v == 0)
        v = 0; /* -0 and underflow read as 0 */
    *out = v;
    return 0;
}

int gm_quantity_ok(gm_quantity q, double v)
{
    if ((unsigned)q >= GM_QUANTITY_COUNT || !isfinite(v))
        return 0;
    const gm_quantity_range *r = &gm_quantity_table[q];
    if (v < r->min || v > r->max || (r->min_open && v == r->min))
        return 0;
    return !r->integer || v == floor(v);
}

gm_status gm_quantity_check(gm_quantity q, double v, const char *where, const char *field,
                            gm_error *err)
{
    if ((unsigned)q >= GM_QUANTITY_COUNT)
        return gm_fail(err, GM_ERR_INVALID_ARG, "%s: %s: no such quantity", where, field);
    if (gm_quantity_ok(q, v))
        return GM_OK;
    const gm_quantity_range *r = &gm_quantity_table[q];
    if (!isfinite(v))
        return gm_fail(err, GM_ERR_RANGE, "%s: %s is %g, not a finite number (%s)", where, field,
                       v, r->meaning);
    if (v >= r->min && v <= r->max && !(r->min_open && v == r->min))
        return gm_fail(err, GM_ERR_RANGE, "%s: %s %.17g is not a whole number (%s)", where,
                       field, v, r->meaning);
    return gm_fail(err, GM_ERR_RANGE, "%s: %s %.6g outside %s%.6g..%.6g (%s)", where, field, v,
                   r->min_open ? "above " : "", r->min, r->max, r->meaning);
}

gm_status gm_quantity_parse(gm_quantity q, const char *text, const char *where,
                            const char *field, double *out, gm_error *err)
{
    double v;
    int rc = gm_number_parse(text, &v);
    if (rc == -2)
        return gm_fail(err, GM_ERR_RANGE, "%s: %s '%.40s' is beyond a double's range", where,
                       field, text);
    if (rc != 0)
        return gm_fail(err, GM_ERR_PARSE, "%s: %s '%.40s' is not a number (plain decimal only)",
                       where, field, text);
    gm_status st = gm_quantity_check(q, v, where, field, err);
    if (st == GM_OK)
        *out = v;
    return st;
}
