/* Input images for the histogram case study (paper 000, Sec. 4): 8-bit RGBA
 * pixels, generated (solid, uniform random) or loaded from a binary PPM (P6)
 * photo, plus the CPU reference histogram every GPU kernel is checked against.
 * Pure C: the unit tests run it on machines without a GPU.
 */
#ifndef HIST_IMAGE_H
#define HIST_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include "gpuq/status.h"

#define HIST_CHANNELS 4    /* R, G, B, A: the paper's 4 x 8-bit pixels */
#define HIST_BINS 256      /* one bin per 8-bit value */
#define HIST_TOTAL_BINS (HIST_CHANNELS * HIST_BINS)

/* Largest image the program makes: 2^26 pixels (256 MiB of RGBA), the top of
 * the sweep; the limit keeps 32-bit bin counters from overflowing. */
#define HIST_MAX_PIXELS ((size_t)1 << 26)

/* Largest PPM the parser accepts (width x height); real photos are tiled up
 * to the requested size, so a big file buys nothing. */
#define HIST_PPM_MAX_PIXELS ((size_t)1 << 24)

/* An RGB photo as read from a PPM file. */
typedef struct hist_ppm {
    int width, height;
    uint8_t *rgb;   /* width * height * 3 bytes, row-major; owned */
} hist_ppm;

/* Parses a binary PPM ("P6", maxval 255) held in memory.  Header comments
 * ('#' to end of line) are allowed; exactly one whitespace byte separates
 * maxval from the pixels, and the pixel bytes must be all there (trailing
 * bytes are ignored, as the format allows several images per file).
 * GM_ERR_PARSE: bad magic, malformed or truncated; GM_ERR_RANGE: zero or
 * oversized dimensions, maxval other than 255. */
gm_status hist_ppm_parse(const uint8_t *buf, size_t len, hist_ppm *out, gm_error *err);

/* Reads and parses a PPM file (GM_ERR_IO when it cannot be read). */
gm_status hist_ppm_load(const char *path, hist_ppm *out, gm_error *err);

void hist_ppm_free(hist_ppm *ppm);

/* RGBA pixels, HIST_CHANNELS bytes each. */
typedef struct hist_image {
    size_t pixels;
    uint8_t *rgba;  /* owned; 16-byte aligned (the GPU copy is read with 16-byte loads) */
} hist_image;

/* Every pixel the same colour: the paper's "solid" image, maximum contention. */
gm_status hist_image_solid(size_t pixels, uint32_t rgba, hist_image *out, gm_error *err);

/* Every channel of every pixel uniformly random (xorshift64*, seeded): the
 * paper's "uniform" image, minimum contention.  Same seed, same image, and a
 * shorter image is a prefix of a longer one. */
gm_status hist_image_uniform(size_t pixels, uint64_t seed, hist_image *out, gm_error *err);

/* A photo turned into an N-pixel RGBA image: pixel i is photo pixel
 * (i mod width*height) in row-major order (crops to the top rows when N is
 * smaller, repeats the photo when larger) and alpha is 255, as a PPM has no
 * alpha.  A shorter image is a prefix of a longer one. */
gm_status hist_image_from_ppm(const hist_ppm *ppm, size_t pixels, hist_image *out,
                              gm_error *err);

void hist_image_free(hist_image *img);

/* CPU reference: out[c * HIST_BINS + v] = number of pixels whose channel c is v. */
void hist_cpu(const uint8_t *rgba, size_t pixels, uint32_t out[HIST_TOTAL_BINS]);

/* Index of the first bin where a and b differ, or -1 if they agree. */
int hist_compare(const uint32_t a[HIST_TOTAL_BINS], const uint32_t b[HIST_TOTAL_BINS]);

#endif
