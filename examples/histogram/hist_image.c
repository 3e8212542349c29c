/* Images and the CPU reference histogram (see hist_image.h). */
#include "hist_image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The GPU kernels read the image 16 bytes at a time; host buffers are
 * aligned the same way so that a copy never needs staging. */
#define HIST_IMAGE_ALIGN 16

static int is_ppm_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips whitespace and '#' comments (netpbm: a comment runs to end of line). */
static void skip_space_and_comments(const uint8_t *buf, size_t len, size_t *pos)
{
    while (*pos < len) {
        if (is_ppm_space(buf[*pos])) {
            (*pos)++;
        } else if (buf[*pos] == '#') {
            while (*pos < len && buf[*pos] != '\n' && buf[*pos] != '\r')
                (*pos)++;
        } else {
            break;
        }
    }
}

/* Reads one header number; *ok = 0 when none is there or it overflows. */
static long read_header_number(const uint8_t *buf, size_t len, size_t *pos, int *ok)
{
    long value = 0;
    size_t start;

    skip_space_and_comments(buf, len, pos);
    start = *pos;
    while (*pos < len && buf[*pos] >= '0' && buf[*pos] <= '9') {
        if (value > 100000000L) { /* far past any limit below: stop before overflow */
            *ok = 0;
            return 0;
        }
        value = value * 10 + (buf[*pos] - '0');
        (*pos)++;
    }
    *ok = *pos > start;
    return value;
}

gm_status hist_ppm_parse(const uint8_t *buf, size_t len, hist_ppm *out, gm_error *err)
{
    size_t pos = 2, bytes;
    long width, height, maxval;
    int ok;

    if (!buf || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no buffer or output");
    memset(out, 0, sizeof *out);
    if (len < 2 || buf[0] != 'P' || buf[1] != '6')
        return gm_fail(err, GM_ERR_PARSE, "not a binary PPM (magic is not P6)");
    width = read_header_number(buf, len, &pos, &ok);
    if (!ok)
        return gm_fail(err, GM_ERR_PARSE, "width missing or too large in the PPM header");
    height = read_header_number(buf, len, &pos, &ok);
    if (!ok)
        return gm_fail(err, GM_ERR_PARSE, "height missing or too large in the PPM header");
    maxval = read_header_number(buf, len, &pos, &ok);
    if (!ok)
        return gm_fail(err, GM_ERR_PARSE, "maxval missing in the PPM header");
    if (width < 1 || height < 1 || (size_t)width * (size_t)height > HIST_PPM_MAX_PIXELS)
        return gm_fail(err, GM_ERR_RANGE, "image size %ldx%ld outside 1..%zu pixels", width,
                       height, HIST_PPM_MAX_PIXELS);
    if (maxval != 255)
        return gm_fail(err, GM_ERR_RANGE, "maxval %ld is not 255 (only 8-bit channels)",
                       maxval);
    /* Exactly one whitespace byte ends the header; the pixels follow. */
    if (pos >= len || !is_ppm_space(buf[pos]))
        return gm_fail(err, GM_ERR_PARSE, "no whitespace after maxval in the PPM header");
    pos++;
    bytes = (size_t)width * (size_t)height * 3;
    if (len - pos < bytes)
        return gm_fail(err, GM_ERR_PARSE, "truncated: %zu of %zu pixel bytes present",
                       len - pos, bytes);
    out->rgb = malloc(bytes);
    if (!out->rgb)
        return gm_fail(err, GM_ERR_NOMEM, "%zu bytes for the pixels", bytes);
    memcpy(out->rgb, buf + pos, bytes);
    out->width = (int)width;
    out->height = (int)height;
    return GM_OK;
}

gm_status hist_ppm_load(const char *path, hist_ppm *out, gm_error *err)
{
    /* Header (at most a few hundred bytes with comments) plus the largest
     * pixel block the parser accepts. */
    const size_t max_file = HIST_PPM_MAX_PIXELS * 3 + 4096;
    FILE *f;
    uint8_t *buf;
    size_t len;
    gm_status st;

    if (!path || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no path or output");
    memset(out, 0, sizeof *out);
    f = fopen(path, "rb");
    if (!f)
        return gm_fail(err, GM_ERR_IO, "cannot open '%s' (%s)", path, strerror(errno));
    buf = malloc(max_file + 1);
    if (!buf) {
        fclose(f);
        return gm_fail(err, GM_ERR_NOMEM, "%zu bytes to read '%s'", max_file, path);
    }
    len = fread(buf, 1, max_file + 1, f);
    if (ferror(f)) {
        st = gm_fail(err, GM_ERR_IO, "cannot read '%s' (%s)", path, strerror(errno));
    } else if (len > max_file) {
        st = gm_fail(err, GM_ERR_RANGE, "'%s' is larger than %zu bytes", path, max_file);
    } else {
        st = hist_ppm_parse(buf, len, out, err);
        if (st != GM_OK && err) {
            /* Prefix the file name, keeping the parser's reason. */
            char reason[sizeof err->msg];
            snprintf(reason, sizeof reason, "%s", err->msg);
            gm_fail(err, st, "'%s': %s", path, reason);
        }
    }
    free(buf);
    fclose(f);
    return st;
}

void hist_ppm_free(hist_ppm *ppm)
{
    if (!ppm)
        return;
    free(ppm->rgb);
    memset(ppm, 0, sizeof *ppm);
}

static gm_status image_alloc(size_t pixels, hist_image *out, gm_error *err)
{
    size_t bytes;

    if (!out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no output image");
    memset(out, 0, sizeof *out);
    if (pixels < 1 || pixels > HIST_MAX_PIXELS)
        return gm_fail(err, GM_ERR_RANGE, "%zu pixels outside 1..%zu", pixels,
                       HIST_MAX_PIXELS);
    /* aligned_alloc wants a size that is a multiple of the alignment. */
    bytes = (pixels * HIST_CHANNELS + HIST_IMAGE_ALIGN - 1) / HIST_IMAGE_ALIGN * HIST_IMAGE_ALIGN;
    out->rgba = aligned_alloc(HIST_IMAGE_ALIGN, bytes);
    if (!out->rgba)
        return gm_fail(err, GM_ERR_NOMEM, "%zu bytes for %zu pixels", bytes, pixels);
    out->pixels = pixels;
    return GM_OK;
}

gm_status hist_image_solid(size_t pixels, uint32_t rgba, hist_image *out, gm_error *err)
{
    gm_status st = image_alloc(pixels, out, err);
    uint8_t px[HIST_CHANNELS] = {(uint8_t)(rgba >> 24), (uint8_t)(rgba >> 16),
                                 (uint8_t)(rgba >> 8), (uint8_t)rgba};

    if (st != GM_OK)
        return st;
    for (size_t i = 0; i < pixels; i++)
        memcpy(out->rgba + i * HIST_CHANNELS, px, HIST_CHANNELS);
    return GM_OK;
}

gm_status hist_image_uniform(size_t pixels, uint64_t seed, hist_image *out, gm_error *err)
{
    gm_status st = image_alloc(pixels, out, err);
    /* xorshift64* (Vigna); a zero state would stay zero, so map it away. */
    uint64_t x = seed ? seed : 0x9E3779B97F4A7C15ull;

    if (st != GM_OK)
        return st;
    for (size_t i = 0; i < pixels; i++) {
        uint64_t r;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        r = (x * 0x2545F4914F6CDD1Dull) >> 32; /* high bits are the good ones */
        out->rgba[i * 4 + 0] = (uint8_t)r;
        out->rgba[i * 4 + 1] = (uint8_t)(r >> 8);
        out->rgba[i * 4 + 2] = (uint8_t)(r >> 16);
        out->rgba[i * 4 + 3] = (uint8_t)(r >> 24);
    }
    return GM_OK;
}

gm_status hist_image_from_ppm(const hist_ppm *ppm, size_t pixels, hist_image *out,
                              gm_error *err)
{
    size_t photo;
    gm_status st;

    if (!ppm || !ppm->rgb || ppm->width < 1 || ppm->height < 1)
        return gm_fail(err, GM_ERR_INVALID_ARG, "empty photo");
    st = image_alloc(pixels, out, err);
    if (st != GM_OK)
        return st;
    photo = (size_t)ppm->width * (size_t)ppm->height;
    for (size_t i = 0, j = 0; i < pixels; i++) {
        out->rgba[i * 4 + 0] = ppm->rgb[j * 3 + 0];
        out->rgba[i * 4 + 1] = ppm->rgb[j * 3 + 1];
        out->rgba[i * 4 + 2] = ppm->rgb[j * 3 + 2];
        out->rgba[i * 4 + 3] = 255;
        if (++j == photo)
            j = 0;
    }
    return GM_OK;
}

void hist_image_free(hist_image *img)
{
    if (!img)
        return;
    free(img->rgba);
    memset(img, 0, sizeof *img);
}

void hist_cpu(const uint8_t *rgba, size_t pixels, uint32_t out[HIST_TOTAL_BINS])
{
    memset(out, 0, HIST_TOTAL_BINS * sizeof out[0]);
    for (size_t i = 0; i < pixels; i++)
        for (int c = 0; c < HIST_CHANNELS; c++)
            out[c * HIST_BINS + rgba[i * HIST_CHANNELS + c]]++;
}

int hist_compare(const uint32_t a[HIST_TOTAL_BINS], const uint32_t b[HIST_TOTAL_BINS])
{
    for (int i = 0; i < HIST_TOTAL_BINS; i++)
        if (a[i] != b[i])
            return i;
    return -1;
}
