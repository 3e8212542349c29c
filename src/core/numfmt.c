/* Numbers as printf prints them, without printf (numfmt.h): a
 * million-launch report formats some 40 million numbers, and printf's
 * general conversion (and, for the CSV and JSON, strtod to check that a
 * number reads back) took most of the time.  A double is m x 2^e with
 * m < 2^53, so v x 10^k (k <= 21) is an integer m x 10^k below 2^123
 * shifted right, whose remainder gives printf's rounding exactly: to
 * nearest, ties to even, on the exact binary value; and whether a decimal
 * reads back as v is whether it lies within half an ulp of it, an integer
 * comparison too. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "numfmt.h"

typedef unsigned __int128 u128;

static const uint64_t p10[20] = {1ull,
                                 10ull,
                                 100ull,
                                 1000ull,
                                 10000ull,
                                 100000ull,
                                 1000000ull,
                                 10000000ull,
                                 100000000ull,
                                 1000000000ull,
                                 10000000000ull,
                                 100000000000ull,
                                 1000000000000ull,
                                 10000000000000ull,
                                 100000000000000ull,
                                 1000000000000000ull,
                                 10000000000000000ull,
                                 100000000000000000ull,
                                 1000000000000000000ull,
                                 10000000000000000000ull};

/* 10^k for k <= 38 (u128). */
static u128 pow10_128(int k)
{
    return k < 20 ? (u128)p10[k] : (u128)p10[19] * pow10_128(k - 19);
}

/* m and e of a finite, non-zero |v| = m x 2^e, m < 2^53. */
static void split_double(double v, uint64_t *m, int *e)
{
    int ex;
    double f = frexp(fabs(v), &ex); /* f in [0.5, 1) */
    *m = (uint64_t)ldexp(f, 53);
    *e = ex - 53;
}

/* round(m x 10^k x 2^e) to nearest, ties to even (k <= 21), and its floor;
 * 0 when the shift is beyond 127 bits (the value is then far below 0.5). */
static u128 scaled_round(uint64_t m, int e, int k, u128 *floor_out)
{
    u128 x = (u128)m * pow10_128(k);
    if (e >= 0) {
        /* the callers' values keep m x 10^k x 2^e below 2^127 */
        *floor_out = x << e;
        return x << e;
    }
    int s = -e;
    if (s >= 127) {
        *floor_out = 0;
        return 0;
    }
    u128 q = x >> s, r = x & ((((u128)1) << s) - 1), half = ((u128)1) << (s - 1);
    *floor_out = q;
    return q + (r > half || (r == half && (q & 1)));
}

static size_t put_uint(char *out, u128 u)
{
    char d[48];
    size_t n = 0;
    while (u >> 64) { /* 128-bit division only for what needs it */
        d[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    }
    uint64_t w = (uint64_t)u;
    do {
        d[n++] = (char)('0' + (int)(w % 10));
        w /= 10;
    } while (w);
    for (size_t i = 0; i < n; i++)
        out[i] = d[n - 1 - i];
    return n;
}

void gm_numfmt_fixed0(char *buf, double v)
{
    size_t k = 0;
    if (signbit(v))
        buf[k++] = '-';
    u128 q = 0;
    if (v != 0) {
        uint64_t m;
        int e;
        split_double(v, &m, &e);
        u128 fl;
        q = scaled_round(m, e, 0, &fl);
    }
    k += put_uint(buf + k, q);
    buf[k] = '\0';
}

/* %g's layout of the p digits of D (10^(p-1) <= D < 10^p) times 10^X:
 * fixed with p - 1 - X decimals where -4 <= X < p, else d.ddde+XX;
 * trailing zeros (and a bare point) dropped. */
static void layout_g(char *buf, int negative, u128 D, int p, int X)
{
    char dig[48];
    size_t nd = put_uint(dig, D), k = 0;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--; /* zeros at the end are dropped in either style */
    if (negative)
        buf[k++] = '-';
    if (X < -4 || X >= p) {
        buf[k++] = dig[0];
        if (nd > 1) {
            buf[k++] = '.';
            memcpy(buf + k, dig + 1, nd - 1);
            k += nd - 1;
        }
        buf[k++] = 'e';
        buf[k++] = X < 0 ? '-' : '+';
        int ax = X < 0 ? -X : X;
        if (ax < 10)
            buf[k++] = '0';
        k += put_uint(buf + k, (u128)ax);
    } else if (X >= 0) {
        size_t ip = (size_t)X + 1; /* digits before the point */
        for (size_t i = 0; i < ip; i++)
            buf[k++] = i < nd ? dig[i] : '0';
        if (nd > ip) {
            buf[k++] = '.';
            memcpy(buf + k, dig + ip, nd - ip);
            k += nd - ip;
        }
    } else {
        buf[k++] = '0';
        buf[k++] = '.';
        for (int i = 0; i < -X - 1; i++)
            buf[k++] = '0';
        memcpy(buf + k, dig, nd);
        k += nd;
    }
    buf[k] = '\0';
}

/* 10^E <= |v| < 10^(E+1) for m x 2^e, from a guess, checked exactly on
 * the floor of the 17-digit scaling; 0 when E leaves lo..hi. */
static int exact_exponent(uint64_t m, int e, double a, int lo, int hi, int *E_out)
{
    int E = (int)floor(log10(a));
    for (int tries = 0; tries < 4; tries++) {
        if (E < lo || E > hi)
            return 0;
        u128 fl;
        scaled_round(m, e, 16 - E, &fl);
        if (fl < (u128)p10[16])
            E--;
        else if (fl >= (u128)p10[16] * 10)
            E++;
        else {
            *E_out = E;
            return 1;
        }
    }
    return 0;
}

int gm_numfmt_shortest_g(char *buf, double v)
{
    double a = fabs(v);
    if (!(a >= 1e-5 && a < 1e15))
        return 0;
    uint64_t m;
    int e, E;
    split_double(v, &m, &e);
    if (e >= 0 || !exact_exponent(m, e, a, -5, 14, &E))
        return 0;
    /* s <= 69 from 1e-5 up and k <= 21: m x 10^k < 2^123, D x 2^s < 2^126 */
    int s = -e;
    for (int p = 15; p <= 17; p++) {
        int k = p - 1 - E; /* 0 .. 21 */
        u128 X = (u128)m * pow10_128(k), tk = pow10_128(k);
        u128 fl, D = scaled_round(m, e, k, &fl);
        /* reads back as v: within half an ulp (a quarter below a power of
         * two, whose lower neighbour is nearer); on the edge, ties go to
         * the even mantissa */
        u128 Ds = D << s;
        int below = Ds < X;
        u128 gap = below ? X - Ds : Ds - X;
        u128 twice = gap * ((below && m == ((uint64_t)1 << 52)) ? 4 : 2);
        if (twice > tk || (twice == tk && (m & 1)))
            continue;
        int Xe = E;
        if (D == (u128)p10[p - 1] * 10) { /* rounded up to the next power of ten */
            D /= 10;
            Xe++;
        }
        layout_g(buf, signbit(v) != 0, D, p, Xe);
        return 1;
    }
    return 0;
}

void gm_numfmt_g4(char *buf, double v)
{
    uint64_t m;
    int e;
    split_double(v, &m, &e);
    /* E: 10^E <= |v| < 10^(E+1), found by the exact floor of the scaled value */
    double a = fabs(v);
    int E = a >= 100 ? 2 : a >= 10 ? 1 : a >= 1 ? 0 : a >= 0.1 ? -1 : a >= 0.01 ? -2 : -3;
    u128 fl, n = 0;
    for (int tries = 0;; tries++) {
        n = scaled_round(m, e, 3 - E, &fl);
        if (tries < 4 && fl < 1000 && E > -3)
            E--;
        else if (tries < 4 && fl >= 10000 && E < 2)
            E++;
        else
            break;
    }
    int X = E;
    if (n >= 10000) { /* rounded up to the next power of ten */
        n /= 10;
        X++;
    }
    int decimals = 3 - X;
    unsigned N = (unsigned)n, ip = N / (unsigned)p10[decimals], fp = N % (unsigned)p10[decimals];
    size_t k = 0;
    if (signbit(v))
        buf[k++] = '-';
    k += put_uint(buf + k, ip);
    if (fp) {
        char f[8];
        for (int i = decimals - 1; i >= 0; i--, fp /= 10)
            f[i] = (char)('0' + fp % 10);
        int used = decimals;
        while (used > 0 && f[used - 1] == '0')
            used--;
        buf[k++] = '.';
        memcpy(buf + k, f, (size_t)used);
        k += (size_t)used;
    }
    buf[k] = '\0';
}
