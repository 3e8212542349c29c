/* Unit tests of the histogram example's pure-C part: the PPM parser, the
 * generated and tiled images, and the CPU reference histogram. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hist_image.h"

/* A 2x2 PPM with a comment in the header, and the bytes after it. */
static const char good_header[] = "P6\n# made by a test\n2 2\n255\n";
static const uint8_t good_pixels[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

static size_t make_ppm(uint8_t *buf, const char *header, const uint8_t *pixels, size_t npix)
{
    size_t h = strlen(header);
    memcpy(buf, header, h);
    memcpy(buf + h, pixels, npix);
    return h + npix;
}

static void test_ppm_good(void **state)
{
    uint8_t buf[128];
    size_t len = make_ppm(buf, good_header, good_pixels, sizeof good_pixels);
    hist_ppm ppm;
    gm_error err = {{0}};

    (void)state;
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, &err), GM_OK);
    assert_int_equal(ppm.width, 2);
    assert_int_equal(ppm.height, 2);
    assert_memory_equal(ppm.rgb, good_pixels, sizeof good_pixels);
    hist_ppm_free(&ppm);
    assert_null(ppm.rgb);
}

static void test_ppm_trailing_bytes_ignored(void **state)
{
    uint8_t buf[128];
    size_t len = make_ppm(buf, "P6 2 2 255 ", good_pixels, sizeof good_pixels);
    hist_ppm ppm;

    (void)state;
    buf[len++] = 0xaa; /* a second image may follow in a netpbm stream */
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, NULL), GM_OK);
    assert_int_equal(ppm.rgb[11], 12);
    hist_ppm_free(&ppm);
}

static void test_ppm_bad_magic(void **state)
{
    uint8_t buf[128];
    size_t len = make_ppm(buf, "P3\n2 2\n255\n", good_pixels, sizeof good_pixels);
    hist_ppm ppm;
    gm_error err = {{0}};

    (void)state;
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, &err), GM_ERR_PARSE);
    assert_non_null(strstr(err.msg, "P6"));
    len = make_ppm(buf, "P5\n2 2\n255\n", good_pixels, sizeof good_pixels);
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, &err), GM_ERR_PARSE);
    assert_int_equal(hist_ppm_parse((const uint8_t *)"P", 1, &ppm, &err), GM_ERR_PARSE);
    assert_int_equal(hist_ppm_parse((const uint8_t *)"", 0, &ppm, &err), GM_ERR_PARSE);
}

static void test_ppm_truncated(void **state)
{
    uint8_t buf[128];
    size_t len = make_ppm(buf, good_header, good_pixels, sizeof good_pixels);
    hist_ppm ppm;
    gm_error err = {{0}};

    (void)state;
    assert_int_equal(hist_ppm_parse(buf, len - 1, &ppm, &err), GM_ERR_PARSE);
    assert_non_null(strstr(err.msg, "truncated"));
    assert_non_null(strstr(err.msg, "11 of 12"));
    /* cut inside the header */
    assert_int_equal(hist_ppm_parse((const uint8_t *)"P6\n2 2\n", 7, &ppm, &err), GM_ERR_PARSE);
    assert_int_equal(hist_ppm_parse((const uint8_t *)"P6\n2 2\n255", 10, &ppm, &err),
                     GM_ERR_PARSE);
    assert_null(ppm.rgb);
}

static void test_ppm_wrong_maxval(void **state)
{
    uint8_t buf[128];
    size_t len = make_ppm(buf, "P6\n2 2\n65535\n", good_pixels, sizeof good_pixels);
    hist_ppm ppm;
    gm_error err = {{0}};

    (void)state;
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "65535"));
    len = make_ppm(buf, "P6\n2 2\n15\n", good_pixels, sizeof good_pixels);
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, &err), GM_ERR_RANGE);
}

static void test_ppm_bad_sizes(void **state)
{
    uint8_t buf[128];
    hist_ppm ppm;
    size_t len;

    (void)state;
    len = make_ppm(buf, "P6\n0 2\n255\n", good_pixels, sizeof good_pixels);
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, NULL), GM_ERR_RANGE);
    len = make_ppm(buf, "P6\n100000 100000\n255\n", good_pixels, sizeof good_pixels);
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, NULL), GM_ERR_RANGE);
    len = make_ppm(buf, "P6\n99999999999 2\n255\n", good_pixels, sizeof good_pixels);
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, NULL), GM_ERR_PARSE);
    len = make_ppm(buf, "P6\n-2 2\n255\n", good_pixels, sizeof good_pixels);
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, NULL), GM_ERR_PARSE);
    len = make_ppm(buf, "P6\n2 x\n255\n", good_pixels, sizeof good_pixels);
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, NULL), GM_ERR_PARSE);
    /* no whitespace between maxval and the pixels */
    len = make_ppm(buf, "P6\n2 2\n255", good_pixels, sizeof good_pixels);
    assert_int_equal(hist_ppm_parse(buf, len, &ppm, NULL), GM_ERR_PARSE);
}

static void test_ppm_load_files(void **state)
{
    char path[] = "/tmp/gpuq_test_ppm_XXXXXX";
    int fd = mkstemp(path);
    uint8_t buf[128];
    size_t len = make_ppm(buf, good_header, good_pixels, sizeof good_pixels);
    hist_ppm ppm;
    gm_error err = {{0}};

    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len - 3), (ssize_t)(len - 3)); /* truncated on disk */
    close(fd);
    assert_int_equal(hist_ppm_load(path, &ppm, &err), GM_ERR_PARSE);
    assert_non_null(strstr(err.msg, path)); /* the message names the file */
    unlink(path);
    assert_int_equal(hist_ppm_load(path, &ppm, &err), GM_ERR_IO);

    /* The committed photos (data/images/README.md). */
    assert_int_equal(hist_ppm_load(GPUQ_SOURCE_DIR "/data/images/astronaut.ppm", &ppm, &err),
                     GM_OK);
    assert_int_equal(ppm.width, 512);
    assert_int_equal(ppm.height, 512);
    hist_ppm_free(&ppm);
    assert_int_equal(hist_ppm_load(GPUQ_SOURCE_DIR "/data/images/homeworld.ppm", &ppm, &err),
                     GM_OK);
    assert_int_equal(ppm.width, 640);
    assert_int_equal(ppm.height, 480);
    hist_ppm_free(&ppm);
}

static void test_cpu_histogram_by_hand(void **state)
{
    /* 3 pixels: (1,2,3,4) twice and (1,9,3,200) */
    const uint8_t px[12] = {1, 2, 3, 4, 1, 2, 3, 4, 1, 9, 3, 200};
    uint32_t h[HIST_TOTAL_BINS];

    (void)state;
    hist_cpu(px, 3, h);
    assert_int_equal(h[0 * HIST_BINS + 1], 3);
    assert_int_equal(h[1 * HIST_BINS + 2], 2);
    assert_int_equal(h[1 * HIST_BINS + 9], 1);
    assert_int_equal(h[2 * HIST_BINS + 3], 3);
    assert_int_equal(h[3 * HIST_BINS + 4], 2);
    assert_int_equal(h[3 * HIST_BINS + 200], 1);
    {
        uint64_t total = 0;
        for (int i = 0; i < HIST_TOTAL_BINS; i++)
            total += h[i];
        assert_int_equal(total, 12); /* nothing else was counted */
    }
}

static void test_solid_image(void **state)
{
    hist_image img;
    uint32_t h[HIST_TOTAL_BINS];

    (void)state;
    assert_int_equal(hist_image_solid(1000, 0x336699ffu, &img, NULL), GM_OK);
    assert_int_equal(img.rgba[0], 0x33);
    assert_int_equal(img.rgba[3999], 0xff);
    assert_int_equal((uintptr_t)img.rgba % 16, 0);
    hist_cpu(img.rgba, img.pixels, h);
    assert_int_equal(h[0 * HIST_BINS + 0x33], 1000);
    assert_int_equal(h[1 * HIST_BINS + 0x66], 1000);
    assert_int_equal(h[2 * HIST_BINS + 0x99], 1000);
    assert_int_equal(h[3 * HIST_BINS + 0xff], 1000);
    hist_image_free(&img);
    assert_int_equal(hist_image_solid(0, 0, &img, NULL), GM_ERR_RANGE);
    assert_int_equal(hist_image_solid(HIST_MAX_PIXELS + 1, 0, &img, NULL), GM_ERR_RANGE);
}

static void test_uniform_image(void **state)
{
    const size_t n = 1 << 16;
    hist_image a, b, c;
    uint32_t h[HIST_TOTAL_BINS];

    (void)state;
    assert_int_equal(hist_image_uniform(n, 7, &a, NULL), GM_OK);
    assert_int_equal(hist_image_uniform(n / 2, 7, &b, NULL), GM_OK);
    assert_int_equal(hist_image_uniform(n, 8, &c, NULL), GM_OK);
    assert_memory_equal(a.rgba, b.rgba, n / 2 * 4); /* prefix property */
    assert_memory_not_equal(a.rgba, c.rgba, n * 4);  /* the seed matters */
    /* Every bin should hold about n/256 = 256: a bin outside 128..384 would
     * be 8 standard deviations out (binomial sd ~ 16). */
    hist_cpu(a.rgba, n, h);
    for (int i = 0; i < HIST_TOTAL_BINS; i++) {
        assert_in_range(h[i], 128, 384);
    }
    hist_image_free(&a);
    hist_image_free(&b);
    hist_image_free(&c);
}

static void test_image_from_ppm_tiles_and_crops(void **state)
{
    uint8_t rgb[2 * 3 * 3];
    hist_ppm ppm = {3, 2, rgb};
    hist_image small, big;
    uint32_t h[HIST_TOTAL_BINS];

    (void)state;
    for (int i = 0; i < (int)sizeof rgb; i++)
        rgb[i] = (uint8_t)(10 + i);
    assert_int_equal(hist_image_from_ppm(&ppm, 4, &small, NULL), GM_OK); /* crop */
    assert_int_equal(hist_image_from_ppm(&ppm, 15, &big, NULL), GM_OK);  /* 2.5 copies */
    for (size_t i = 0; i < 15; i++) {
        size_t j = i % 6;
        assert_int_equal(big.rgba[i * 4 + 0], rgb[j * 3 + 0]);
        assert_int_equal(big.rgba[i * 4 + 1], rgb[j * 3 + 1]);
        assert_int_equal(big.rgba[i * 4 + 2], rgb[j * 3 + 2]);
        assert_int_equal(big.rgba[i * 4 + 3], 255);
    }
    assert_memory_equal(small.rgba, big.rgba, 4 * 4);
    hist_cpu(big.rgba, 15, h);
    assert_int_equal(h[0 * HIST_BINS + 10], 3); /* pixel 0 appears at 0, 6, 12 */
    assert_int_equal(h[0 * HIST_BINS + 25], 2); /* pixel 5 at 5, 11 */
    assert_int_equal(h[3 * HIST_BINS + 255], 15);
    hist_image_free(&small);
    hist_image_free(&big);
}

static void test_compare(void **state)
{
    static uint32_t a[HIST_TOTAL_BINS], b[HIST_TOTAL_BINS];

    (void)state;
    assert_int_equal(hist_compare(a, b), -1);
    b[700] = 1;
    b[900] = 1;
    assert_int_equal(hist_compare(a, b), 700);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ppm_good),
        cmocka_unit_test(test_ppm_trailing_bytes_ignored),
        cmocka_unit_test(test_ppm_bad_magic),
        cmocka_unit_test(test_ppm_truncated),
        cmocka_unit_test(test_ppm_wrong_maxval),
        cmocka_unit_test(test_ppm_bad_sizes),
        cmocka_unit_test(test_ppm_load_files),
        cmocka_unit_test(test_cpu_histogram_by_hand),
        cmocka_unit_test(test_solid_image),
        cmocka_unit_test(test_uniform_image),
        cmocka_unit_test(test_image_from_ppm_tiles_and_crops),
        cmocka_unit_test(test_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
