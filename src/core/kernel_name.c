/* Kernel names as a report shows them (gpuq/kernel_name.h).
 *
 * The base name is found on a map of the demangled text: every character
 * gets its bracket depth, brackets their partners, and the symbols of
 * operator names ("operator()", "operator<") are marked as name characters
 * so that they never count as brackets.  Then, at depth 0: trailing
 * qualifiers and "[clone ...]" are dropped, the parameter list that ends
 * the text is dropped, template arguments and "[abi:...]" tags that end the
 * name are dropped, and what follows the last "::" (or the return type's
 * space) is the base name.  Angle brackets are weak: a ')' ']' '}' closes
 * any '<' still open inside its group, a '>' that closes nothing is text.
 * Whatever the input, the answer is a substring of it, or the whole of it
 * when no base name can be found.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/kernel_name.h"

static const char *const base_names[GM_NAME_BASE_COUNT] = {
    [GM_NAME_FUNCTION] = "function",
    [GM_NAME_DEMANGLED] = "demangled",
    [GM_NAME_MANGLED] = "mangled",
};

gm_status gm_name_base_parse(const char *text, gm_name_base *out)
{
    if (!text || !out)
        return GM_ERR_INVALID_ARG;
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        if (strcmp(text, base_names[b]) == 0) {
            *out = (gm_name_base)b;
            return GM_OK;
        }
    return GM_ERR_INVALID_ARG;
}

const char *gm_name_base_name(gm_name_base b)
{
    if ((int)b < 0 || b >= GM_NAME_BASE_COUNT)
        return "unknown";
    return base_names[b];
}

/* ------------------------------------------------------------------------
 * The map of a demangled name */

enum { F_BRACKET = 1, F_OPNAME = 2 };
#define NO_MATCH SIZE_MAX

typedef struct name_map {
    const char *s;
    size_t len;
    size_t *depth;    /* depth outside the bracket for brackets, else inside */
    size_t *match;    /* partner of a bracket, NO_MATCH if none */
    unsigned char *flags;
    int unbalanced;   /* a bracket never closed, or a closer with no opener */
} name_map;

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* Length of the operator symbol after the keyword "operator" at s (which
 * starts right after the keyword); 0 when none (conversion, new, delete). */
static size_t operator_symbol(const char *s)
{
    static const char *const ops[] = {
        "->*", "<=>", "<<=", ">>=", "()", "[]", "->", "<<", ">>", "<=", ">=", "==", "!=",
        "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<",
        ">", "=", "!", "+", "-", "*", "/", "%", "^", "&", "|", "~", ",",
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        size_t n = strlen(ops[i]);
        if (strncmp(s, ops[i], n) == 0)
            return n;
    }
    return 0;
}

/* 1 when the keyword "operator" starts at s + i (not part of an identifier). */
static int operator_at(const char *s, size_t len, size_t i)
{
    if (len - i < 8 || strncmp(s + i, "operator", 8) != 0)
        return 0;
    if (i > 0 && ident_char(s[i - 1]))
        return 0;
    return i + 8 == len || !ident_char(s[i + 8]);
}

static void map_free(name_map *m)
{
    free(m->depth);
    free(m->match);
    free(m->flags);
}

static int map_build(name_map *m, const char *s, size_t len)
{
    memset(m, 0, sizeof *m);
    m->s = s;
    m->len = len;
    size_t n = len ? len : 1;
    size_t *stack = malloc(n * sizeof *stack);
    m->depth = malloc(n * sizeof *m->depth);
    m->match = malloc(n * sizeof *m->match);
    m->flags = calloc(n, 1);
    if (!stack || !m->depth || !m->match || !m->flags) {
        free(stack);
        map_free(m);
        return -1;
    }
    size_t top = 0; /* stack height = current depth */
    m->unbalanced = 0;
    for (size_t i = 0; i < len; i++) {
        m->match[i] = NO_MATCH;
        if (operator_at(s, len, i)) {
            size_t j = i + 8;
            size_t sym = operator_symbol(s + j);
            if (!sym && strncmp(s + j, " new[]", 6) == 0)
                j += 4, sym = 2;
            else if (!sym && strncmp(s + j, " delete[]", 9) == 0)
                j += 7, sym = 2;
            for (size_t k = i; k < j + sym && k < len; k++) {
                m->depth[k] = top;
                m->match[k] = NO_MATCH;
                m->flags[k] = F_OPNAME;
            }
            i = j + sym - 1;
            continue;
        }
        char c = s[i];
        m->depth[i] = top;
        if (c == '(' || c == '[' || c == '{' || c == '<') {
            m->flags[i] = F_BRACKET;
            stack[top++] = i;
            continue;
        }
        if (c != ')' && c != ']' && c != '}' && c != '>')
            continue;
        char open = c == ')' ? '(' : c == ']' ? '[' : c == '}' ? '{' : '<';
        size_t t = top;
        /* Strong closers look through open '<'; '>' only closes a '<' on top. */
        while (t > 0 && s[stack[t - 1]] != open && open != '<' && s[stack[t - 1]] == '<')
            t--;
        if (t == 0 || s[stack[t - 1]] != open) {
            m->unbalanced |= open != '<'; /* a stray '>' is text ("operator>" aside) */
            continue;
        }
        top = t - 1;
        m->flags[i] = F_BRACKET;
        m->depth[i] = top;
        m->match[i] = stack[top];
        m->match[stack[top]] = i;
    }
    free(stack);
    m->unbalanced |= top > 0;
    return 0;
}

/* The char at i is a depth-0 closer whose partner exists. */
static int top_closer(const name_map *m, size_t i, char c)
{
    return m->s[i] == c && (m->flags[i] & F_BRACKET) && m->depth[i] == 0 &&
           m->match[i] != NO_MATCH;
}

static int ends_with(const name_map *m, size_t end, const char *tail)
{
    size_t n = strlen(tail);
    if (end < n || strncmp(m->s + end - n, tail, n) != 0)
        return 0;
    for (size_t k = end - n; k < end; k++)
        if (m->depth[k] != 0 || (m->flags[k] & F_OPNAME))
            return 0;
    return 1;
}

static size_t trim_spaces(const char *s, size_t end)
{
    while (end > 0 && s[end - 1] == ' ')
        end--;
    return end;
}

/* Drops what may follow a parameter list: cv/ref qualifiers, "[clone .x]". */
static size_t trim_qualifiers(const name_map *m, size_t end)
{
    static const char *const quals[] = {" const", " volatile", " &&", " &", " noexcept",
                                        " restrict", " transaction_safe"};
    for (;;) {
        end = trim_spaces(m->s, end);
        if (end > 0 && top_closer(m, end - 1, ']') && m->match[end - 1] > 0 &&
            m->s[m->match[end - 1] - 1] == ' ') {
            end = m->match[end - 1];
            continue;
        }
        size_t q = 0;
        while (q < sizeof quals / sizeof quals[0] && !ends_with(m, end, quals[q]))
            q++;
        if (q == sizeof quals / sizeof quals[0])
            return end;
        end -= strlen(quals[q]);
    }
}

/* [start, end) of the base name, or 0 when there is none. */
static int find_base(const name_map *m, size_t *start_out, size_t *end_out)
{
    const char *s = m->s;
    if (m->unbalanced)
        return 0;
    size_t end = trim_qualifiers(m, m->len);
    if (end > 0 && top_closer(m, end - 1, ')'))
        end = m->match[end - 1]; /* the parameter list */
    for (;;) {
        end = trim_spaces(s, end);
        if (end > 0 && top_closer(m, end - 1, '>')) {
            end = m->match[end - 1];
        } else if (end > 0 && top_closer(m, end - 1, ']') &&
                   strncmp(s + m->match[end - 1], "[abi:", 5) == 0) {
            end = m->match[end - 1];
        } else {
            break;
        }
    }
    size_t after_scope = 0, op = NO_MATCH;
    for (size_t i = 0; i + 1 < end; i++)
        if (s[i] == ':' && s[i + 1] == ':' && m->depth[i] == 0 && !(m->flags[i] & F_OPNAME))
            after_scope = i + 2;
    for (size_t i = 0; i < end; i++)
        if ((m->flags[i] & F_OPNAME) && m->depth[i] == 0 && operator_at(s, m->len, i))
            op = i;
    size_t start = after_scope;
    if (op != NO_MATCH) {
        /* "ns::operator()" or a conversion "operator ns::type": the operator
         * is the name unless a scope with brackets follows it. */
        int bracket_after = 0;
        for (size_t i = op; i < end; i++)
            if ((m->flags[i] & F_BRACKET) && m->depth[i] == 0)
                bracket_after = 1;
        if (op >= after_scope || !bracket_after)
            start = op;
        else
            op = NO_MATCH;
    }
    if (op == NO_MATCH) /* the return type ends at the last space */
        for (size_t i = start; i < end; i++)
            if (s[i] == ' ' && m->depth[i] == 0)
                start = i + 1;
    while (start < end && s[start] == ' ')
        start++;
    if (start >= end)
        return 0;
    *start_out = start;
    *end_out = end;
    return 1;
}

static void copy_out(char *buf, size_t len, const char *s, size_t n)
{
    if (n >= len)
        n = len - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

void gm_kernel_base_name(const char *demangled, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    if (!demangled) {
        buf[0] = '\0';
        return;
    }
    size_t n = strlen(demangled), start, end;
    name_map m;
    if (map_build(&m, demangled, n) != 0) {
        copy_out(buf, len, demangled, n);
        return;
    }
    if (find_base(&m, &start, &end))
        copy_out(buf, len, demangled + start, end - start);
    else
        copy_out(buf, len, demangled, n);
    map_free(&m);
}

/* ------------------------------------------------------------------------
 * Display names
 *
 * The rule: kernels are told apart by (demangled, mangled) text.  Each
 * distinct kernel gets its text in the chosen base, control characters
 * made spaces, cut to the width ("..." marks a cut).  Distinct kernels are
 * then taken in order of first appearance: the first to show a text keeps
 * it; a later one that shows the same text gets " #k" (k = 2, 3, ... the
 * first that is free), its text cut shorter so that the suffix fits the
 * width.  A suffixed name never takes a text some other kernel shows
 * unsuffixed.  When the width cannot hold one character plus the suffix,
 * the suffix wins: different kernels never share a name. */

static char *dup_range(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* text cut to width (0 = no limit); "..." marks the cut where it fits. */
static char *cut(const char *text, size_t width)
{
    size_t n = strlen(text);
    if (width == 0 || n <= width)
        return dup_range(text, n);
    char *d = malloc(width + 1);
    if (!d)
        return NULL;
    if (width > 3) {
        memcpy(d, text, width - 3);
        memcpy(d + width - 3, "...", 4);
    } else {
        memcpy(d, text, width);
        d[width] = '\0';
    }
    return d;
}

static int same_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0; /* NULL and "" are both no name */
}

/* FNV-1a of both names: launches of one kernel are found by hash first
 * (reports of 10^5 launches of long PyTorch names stay fast). */
static uint64_t names_hash(const char *dem, const char *mang)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = dem ? dem : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    h = (h ^ 0xffu) * 1099511628211ULL; /* a separator no name holds */
    for (const char *p = mang ? mang : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h;
}

typedef struct kernel_entry {
    size_t first;  /* index of its first launch */
    uint64_t hash; /* names_hash of its names */
    char *full;    /* text in the chosen base, sanitised */
    char *plain;   /* full cut to the width */
    char *shown;   /* the final name */
} kernel_entry;

static char *base_text(const char *dem, const char *mang, gm_name_base base)
{
    if (dem && !dem[0])
        dem = NULL;
    if (mang && !mang[0])
        mang = NULL;
    const char *src = base == GM_NAME_MANGLED ? (mang ? mang : dem) : (dem ? dem : mang);
    if (!src)
        src = "(unnamed kernel)";
    char *t;
    if (base == GM_NAME_FUNCTION) {
        size_t n = strlen(src) + 1;
        t = malloc(n);
        if (t)
            gm_kernel_base_name(src, t, n);
    } else {
        t = dup_range(src, strlen(src));
    }
    if (t)
        for (char *p = t; *p; p++)
            if (iscntrl((unsigned char)*p))
                *p = ' ';
    return t;
}

/* Sets of names, and the next suffix of a name, by hash: a profile of
 * 100,000 kernel names made the checks against every other name a
 * quadratic minute.  Open addressing of borrowed strings. */
typedef struct name_set {
    const char **s;
    size_t *num;  /* with nums: a value per name */
    size_t cap, n;
} name_set;

static uint64_t text_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = s; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h;
}

static size_t *set_slot(const name_set *t, const char *s, size_t *at)
{
    size_t i = text_hash(s) & (t->cap - 1);
    while (t->s[i] && strcmp(t->s[i], s) != 0)
        i = (i + 1) & (t->cap - 1);
    *at = i;
    return t->num ? &t->num[i] : NULL;
}

static int set_has(const name_set *t, const char *s)
{
    if (!t->cap)
        return 0;
    size_t i;
    set_slot(t, s, &i);
    return t->s[i] != NULL;
}

/* Adds s (kept, not copied); its value slot, or NULL when out of memory. */
static size_t *set_add(name_set *t, const char *s, int with_nums)
{
    static size_t no_value;
    if (2 * (t->n + 1) > t->cap) {
        name_set g = {calloc(t->cap ? 2 * t->cap : 64, sizeof *g.s), NULL,
                      t->cap ? 2 * t->cap : 64, 0};
        if (with_nums)
            g.num = calloc(g.cap, sizeof *g.num);
        if (!g.s || (with_nums && !g.num)) {
            free(g.s);
            free(g.num);
            return NULL;
        }
        for (size_t i = 0; i < t->cap; i++)
            if (t->s[i]) {
                size_t at;
                set_slot(&g, t->s[i], &at);
                g.s[at] = t->s[i];
                if (g.num)
                    g.num[at] = t->num[i];
                g.n++;
            }
        free(t->s);
        free(t->num);
        *t = g;
    }
    size_t i;
    size_t *v = set_slot(t, s, &i);
    if (!t->s[i]) {
        t->s[i] = s;
        t->n++;
    }
    return v ? v : &no_value;
}

static void set_free(name_set *t)
{
    free(t->s);
    free(t->num);
    memset(t, 0, sizeof *t);
}

/* The name of kernel i: plain when no earlier kernel shows it, else
 * suffixed " #2", " #3", ... with the first suffix no kernel shows or has
 * as its plain name.  shown: the names of kernels 0..i-1; plains: every
 * kernel's plain name; next: per full text, the suffix to try first (every
 * smaller one was taken when a kernel of that text last looked, and taken
 * names stay taken). */
static gm_status assign(kernel_entry *k, size_t i, size_t width, name_set *shown,
                        const name_set *plains, name_set *next)
{
    if (!set_has(shown, k[i].plain)) {
        k[i].shown = dup_range(k[i].plain, strlen(k[i].plain));
        return k[i].shown ? GM_OK : GM_ERR_NOMEM;
    }
    size_t *from = set_add(next, k[i].full, 1);
    if (!from)
        return GM_ERR_NOMEM;
    for (size_t num = *from > 2 ? *from : 2;; num++) {
        char suffix[32];
        int slen = snprintf(suffix, sizeof suffix, " #%zu", num);
        size_t room = width == 0 ? 0 : (width > (size_t)slen + 1 ? width - (size_t)slen : 1);
        char *head = cut(k[i].full, room);
        if (!head)
            return GM_ERR_NOMEM;
        size_t hlen = strlen(head);
        char *cand = malloc(hlen + (size_t)slen + 1);
        if (!cand) {
            free(head);
            return GM_ERR_NOMEM;
        }
        memcpy(cand, head, hlen);
        memcpy(cand + hlen, suffix, (size_t)slen + 1);
        free(head);
        if (!set_has(shown, cand) && !set_has(plains, cand)) {
            k[i].shown = cand;
            *from = num + 1;
            return GM_OK;
        }
        free(cand);
    }
}

gm_status gm_kernel_display_names(const char *const *demangled, const char *const *mangled,
                                  size_t n, gm_name_base base, size_t width, char **out)
{
    if (n == 0)
        return GM_OK;
    if (!out || (int)base < 0 || base >= GM_NAME_BASE_COUNT)
        return GM_ERR_INVALID_ARG;
    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    gm_status st = GM_ERR_NOMEM;
    size_t *kid = malloc(n * sizeof *kid), *slot = NULL;
    kernel_entry *k = calloc(n, sizeof *k);
    size_t d = 0;
    name_set shown = {0}, plains = {0}, next = {0};
    if (!kid || !k)
        goto done;
#define DEM(i) (demangled ? demangled[i] : NULL)
#define MANG(i) (mangled ? mangled[i] : NULL)
    /* kernels by their names' hash: the index of each one's entry */
    size_t cap = 64;
    while (cap < 2 * n)
        cap *= 2;
    slot = malloc(cap * sizeof *slot);
    if (!slot)
        goto done;
    for (size_t i = 0; i < cap; i++)
        slot[i] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = names_hash(DEM(i), MANG(i));
        size_t at = h & (cap - 1), j;
        while ((j = slot[at]) != SIZE_MAX &&
               !(k[j].hash == h && same_text(DEM(k[j].first), DEM(i)) &&
                 same_text(MANG(k[j].first), MANG(i))))
            at = (at + 1) & (cap - 1);
        if (j != SIZE_MAX) {
            kid[i] = j;
            continue;
        }
        j = d;
        slot[at] = d;
        kid[i] = j;
        k[d].first = i;
        k[d].hash = h;
        k[d].full = base_text(DEM(i), MANG(i), base);
        k[d].plain = k[d].full ? cut(k[d].full, width) : NULL;
        d++;
        if (!k[d - 1].plain)
            goto done;
    }
#undef DEM
#undef MANG
    for (size_t i = 0; i < d; i++)
        if (!set_add(&plains, k[i].plain, 0))
            goto done;
    for (size_t i = 0; i < d; i++) {
        if ((st = assign(k, i, width, &shown, &plains, &next)) != GM_OK)
            goto done;
        st = GM_ERR_NOMEM;
        if (!set_add(&shown, k[i].shown, 0))
            goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const char *name = k[kid[i]].shown;
        if (!(out[i] = dup_range(name, strlen(name)))) {
            st = GM_ERR_NOMEM;
            goto done;
        }
    }
    st = GM_OK;
done:
    if (st != GM_OK)
        for (size_t i = 0; i < n; i++) {
            free(out[i]);
            out[i] = NULL;
        }
    if (k)
        for (size_t i = 0; i < d; i++) {
            free(k[i].full);
            free(k[i].plain);
            free(k[i].shown);
        }
    free(k);
    free(kid);
    free(slot);
    set_free(&shown);
    set_free(&plains);
    set_free(&next);
    return st;
}
