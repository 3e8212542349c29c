/* The small output layer every writer shares (reports, counters files,
 * tables): CSV field quoting, number formatting, JSON strings.  Keeping it
 * here, below model, report and table code, is what keeps those modules
 * from including each other. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"
#include "writer.h"

int gm_csv_write_field(FILE *out, const char *text)
{
    if (!text)
        text = "";
    size_t len = strlen(text);
    int needs_quotes = strpbrk(text, ",\"\r\n") != NULL ||
                       (len > 0 && (isspace((unsigned char)text[0]) ||
                                    isspace((unsigned char)text[len - 1])));
    if (!needs_quotes)
        return fputs(text, out) < 0 ? -1 : 0;
    if (fputc('"', out) == EOF)
        return -1;
    for (const char *p = text; *p; p++) {
        if (*p == '"' && fputc('"', out) == EOF)
            return -1;
        if (fputc(*p, out) == EOF)
            return -1;
    }
    return fputc('"', out) == EOF ? -1 : 0;
}

/* An integral v below limit in magnitude as printf's %g and %.0f print it
 * (all digits, a sign, "-0" for negative zero): 1 when written.  Counters
 * are mostly whole numbers, and snprintf costs most of a million-launch
 * report. */
static int fmt_integral(char *buf, size_t len, double v, double limit)
{
    if (!(fabs(v) < limit) || v != floor(v) || len < 24)
        return 0;
    char digits[24];
    size_t n = 0;
    unsigned long long u = (unsigned long long)fabs(v);
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t k = 0;
    if (signbit(v))
        buf[k++] = '-';
    while (n)
        buf[k++] = digits[--n];
    buf[k] = '\0';
    return 1;
}

void gm_csv_format_double(char *buf, size_t len, double v)
{
    if (isnan(v)) {
        if (len)
            buf[0] = '\0';
        return;
    }
    /* %.15g prints a whole number of at most 15 digits exactly, and it
     * reads back as itself */
    if (fmt_integral(buf, len, v, 1e15))
        return;
    if (len >= 32 && gm_numfmt_shortest_g(buf, v))
        return;
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* html: also the characters that mean something to an HTML parser inside a
 * <script> element (and the two line separators old JavaScript parsers
 * take for line ends). */
/* The bytes a JSON string escapes (1), and those it escapes inside HTML too (2). */
static const unsigned char json_special[256] = {
    [0] = 3,    [1] = 3,    [2] = 3,    [3] = 3,    [4] = 3,    [5] = 3,    [6] = 3,
    [7] = 3,    [8] = 3,    [9] = 3,    [10] = 3,   [11] = 3,   [12] = 3,   [13] = 3,
    [14] = 3,   [15] = 3,   [16] = 3,   [17] = 3,   [18] = 3,   [19] = 3,   [20] = 3,
    [21] = 3,   [22] = 3,   [23] = 3,   [24] = 3,   [25] = 3,   [26] = 3,   [27] = 3,
    [28] = 3,   [29] = 3,   [30] = 3,   [31] = 3,   ['"'] = 3,  ['\\'] = 3, ['<'] = 2,
    ['>'] = 2,  ['&'] = 2,  [0xe2] = 2,
};

static void json_string(FILE *out, const char *s, int html)
{
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;
    const unsigned char mask = html ? 3 : 1;
    for (;; p++) {
        /* what needs no escape goes out as one run: a character at a time,
         * each through the stream's lock, took most of a JSON report's time */
        while (!(json_special[*p] & mask))
            p++;
        if (p > run)
            fwrite(run, 1, (size_t)(p - run), out);
        run = p + 1;
        if (*p == '\0')
            break;
        if (html && (*p == '<' || *p == '>' || *p == '&')) {
            fprintf(out, "\\u%04x", *p);
            continue;
        }
        /* U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8 */
        if (*p == 0xe2) {
            if (p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
                fprintf(out, "\\u%04x", p[2] == 0xa8 ? 0x2028 : 0x2029);
                p += 2;
                run = p + 1;
            } else {
                fputc(*p, out);
            }
            continue;
        }
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        default:
            fprintf(out, "\\u%04x", *p);
        }
    }
    fputc('"', out);
}

void gm_json_write_string(FILE *out, const char *s)
{
    json_string(out, s, 0);
}

void gm_json_write_string_html(FILE *out, const char *s)
{
    json_string(out, s, 1);
}

void gm_html_write_text(FILE *out, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            fputc(*p, out);
        }
    }
}

void gm_json_write_num(FILE *out, double v)
{
    char buf[40];
    if (!isfinite(v)) {
        fputs("null", out);
        return;
    }
    gm_csv_format_double(buf, sizeof buf, v);
    fputs(buf, out);
}

void gm_copy_text(char *dst, size_t len, const char *src)
{
    if (len == 0)
        return;
    size_t n = strnlen(src ? src : "", len - 1);
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}

void gm_fmt_num(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
        snprintf(buf, len, "%.3g", v);
    else if (fmt_integral(buf, len, v, 1e6)) /* as %.0f, and %.4g below 1000 */
        return;
    else if (len < 16) /* the fast forms need at most 10 bytes */
        snprintf(buf, len, fabs(v) >= 1000 ? "%.0f" : "%.4g", v);
    else if (fabs(v) >= 1000)
        gm_numfmt_fixed0(buf, v); /* "%.0f" */
    else
        gm_numfmt_g4(buf, v); /* "%.4g" */
}

void gm_fmt_pct(char *buf, size_t len, double v)
{
    /* Like gm_fmt_num: a percentage beyond a million reads 1.2e+06%, never
     * a number cut off by the buffer; inf says so. */
    if (isnan(v)) {
        snprintf(buf, len, "-");
    } else if (!isfinite(v) || fabs(100 * v) >= 1e6) {
        snprintf(buf, len, "%.3g%%", 100 * v);
    } else if (len < 12) { /* "-999999%" and its NUL fit in 9 */
        snprintf(buf, len, "%.0f%%", 100 * v);
    } else {
        gm_numfmt_fixed0(buf, 100 * v); /* "%.0f%%" */
        strcat(buf, "%");
    }
}
