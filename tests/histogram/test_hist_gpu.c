/* GPU test: every histogram kernel (the paper's four, hist_fast and its
 * ablations, CUB) against the CPU histogram, on solid (two colours: one whose
 * channels fall in different banks, one grey whose channels share a bank),
 * uniform random and both committed photos, at sizes that hit every edge of
 * the kernels (1 pixel, not a multiple of 4, not a multiple of a warp's 128,
 * big), and at several launch shapes (block sizes, one block, odd grids).
 *
 * Exit 0 all passed, 1 a mismatch or CUDA error, 77 no usable GPU (skipped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist_gpu.h"
#include "hist_image.h"

#define EXIT_SKIP 77

static const size_t sizes[] = {1, 3, 32, 129, 1000, 4099, 65536, (1u << 20) + 5};
static const int threads_list[] = {128, 1024};
static const int fixed_blocks[] = {0 /* default grid */, 1, 7};

typedef struct image_case {
    const char *name;
    hist_image img;
} image_case;

static int make_images(image_case *cases, int *count, size_t pixels)
{
    gm_error err = {{0}};
    hist_ppm ppm;
    const char *photos[] = {GPUQ_SOURCE_DIR "/data/images/astronaut.ppm",
                            GPUQ_SOURCE_DIR "/data/images/homeworld.ppm"};
    int n = 0;

    cases[n].name = "solid 336699ff";
    if (hist_image_solid(pixels, 0x336699ffu, &cases[n++].img, &err) != GM_OK)
        goto fail;
    cases[n].name = "solid 80808080";
    if (hist_image_solid(pixels, 0x80808080u, &cases[n++].img, &err) != GM_OK)
        goto fail;
    cases[n].name = "uniform";
    if (hist_image_uniform(pixels, 1, &cases[n++].img, &err) != GM_OK)
        goto fail;
    for (int i = 0; i < 2; i++) {
        if (hist_ppm_load(photos[i], &ppm, &err) != GM_OK)
            goto fail;
        cases[n].name = i == 0 ? "astronaut" : "homeworld";
        if (hist_image_from_ppm(&ppm, pixels, &cases[n++].img, &err) != GM_OK) {
            hist_ppm_free(&ppm);
            goto fail;
        }
        hist_ppm_free(&ppm);
    }
    *count = n;
    return 0;
fail:
    fprintf(stderr, "test_hist_gpu: making images failed (%s)\n", err.msg);
    *count = n;
    return -1;
}

/* One kernel on one image size and launch shape: 0 pass, 1 mismatch,
 * 2 skipped, -1 CUDA error (which poisons the context: the caller stops). */
static int run_case(hist_gpu *gpu, hist_kernel_id k, const char *image, size_t n, int threads,
                    int blocks, const uint32_t want[HIST_TOTAL_BINS])
{
    uint32_t got[HIST_TOTAL_BINS];
    gm_error err = {{0}};
    gm_status st = GM_OK;
    int bad;

    if (!blocks)
        st = hist_gpu_default_blocks(gpu, k, threads, &blocks, &err);
    if (st == GM_OK)
        st = hist_gpu_run(gpu, k, n, threads, blocks, &err);
    /* A kernel refuses shapes it cannot run (block size above its launch
     * bounds, shared memory this GPU lacks, 16-bit counters that could
     * overflow): skipped, not failed. */
    if (st == GM_ERR_UNSUPPORTED)
        return 2;
    if (st == GM_OK)
        st = hist_gpu_result(gpu, got, &err);
    if (st != GM_OK) {
        fprintf(stderr, "FAIL %s on %s, %zu pixels, %d threads: %s (%s)\n",
                hist_kernel_table[k].name, image, n, threads, gm_strerror(st), err.msg);
        return -1;
    }
    bad = hist_compare(got, want);
    if (bad < 0)
        return 0;
    fprintf(stderr, "FAIL %s on %s, %zu pixels, %d threads x %d blocks: channel %d bin %d "
            "GPU %u CPU %u\n", hist_kernel_table[k].name, image, n, threads, blocks,
            bad / HIST_BINS, bad % HIST_BINS, got[bad], want[bad]);
    return 1;
}

int main(void)
{
    const size_t max_pixels = sizes[sizeof sizes / sizeof sizes[0] - 1];
    image_case images[5];
    int nimages = 0, passed = 0, failed = 0, skipped = 0;
    hist_gpu *gpu = NULL;
    gm_error err = {{0}};
    gm_status st;

    st = hist_gpu_create(max_pixels, &gpu, &err);
    if (st == GM_ERR_NO_GPU) {
        printf("skipped: no usable CUDA GPU (%s)\n", err.msg);
        return EXIT_SKIP;
    }
    if (st != GM_OK) {
        fprintf(stderr, "test_hist_gpu: GPU setup failed (%s)\n", err.msg);
        return 1;
    }
    printf("device: %s, %d SMs\n", hist_gpu_device(gpu)->name, hist_gpu_device(gpu)->sm_count);
    if (make_images(images, &nimages, max_pixels) != 0) {
        failed++;
        goto done;
    }
    for (int im = 0; im < nimages; im++) {
        if ((st = hist_gpu_upload(gpu, &images[im].img, &err)) != GM_OK) {
            fprintf(stderr, "FAIL upload %s (%s)\n", images[im].name, err.msg);
            failed++;
            goto done;
        }
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            uint32_t want[HIST_TOTAL_BINS];

            hist_cpu(images[im].img.rgba, sizes[si], want);
            for (int k = 0; k < HIST_K_COUNT; k++)
                for (size_t ti = 0; ti < sizeof threads_list / sizeof threads_list[0]; ti++)
                    for (size_t bi = 0; bi < sizeof fixed_blocks / sizeof fixed_blocks[0]; bi++) {
                        int r;
                        if (k == HIST_K_CUB && (ti > 0 || bi > 0))
                            continue; /* CUB picks its own launch shape */
                        r = run_case(gpu, (hist_kernel_id)k, images[im].name, sizes[si],
                                     threads_list[ti], fixed_blocks[bi], want);
                        if (r == 0)
                            passed++;
                        else if (r == 2)
                            skipped++;
                        else
                            failed++;
                        if (r < 0)
                            goto done;
                    }
        }
    }
done:
    for (int im = 0; im < nimages; im++)
        hist_image_free(&images[im].img);
    hist_gpu_destroy(gpu);
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
