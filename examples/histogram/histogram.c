/* histogram: the case-study program of paper 000, Sec. 4.  Builds an RGBA
 * image (solid, uniform random, or a PPM photo tiled/cropped to size), runs
 * one histogram kernel with warm-up and timed repetitions (CUDA events),
 * prints median and spread, and with --check compares against the CPU.
 * --bench puts the fast histogram, CUB and two bandwidth probes side by side.
 *
 * Exit codes: 0 ok, 1 usage, 2 input (bad image file), 3 GPU/CUDA error
 * (including no GPU), 4 --check found a wrong histogram.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist_gpu.h"
#include "hist_image.h"

#define EXIT_USAGE 1
#define EXIT_INPUT 2
#define EXIT_GPU 3
#define EXIT_MISMATCH 4

#define GB_GATOMICS_DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_SEED 1
#define DEFAULT_COLOR 0x336699ffu /* channels fall in banks 19, 6, 25, 31 */

/* Goals of the fast histogram (the issue): */
#define GOAL_READ_BW_FRACTION 0.80 /* of the measured DRAM read bandwidth */
#define GOAL_CUB_SPEEDUP 2.0

typedef struct options {
    const hist_kernel_desc *kernel;
    const char *image;      /* "solid", "uniform" or a path */
    size_t pixels;          /* --pixels, or the top of --sizes */
    size_t sizes_lo;        /* --sizes LO:HI (powers of two); 0 = one size */
    int threads, blocks;
    int reps, warmup;
    int check, csv, quiet, bench, ablation;
    uint64_t seed;
    uint32_t color;
} options;

static void error_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void error_line(const char *fmt, ...)
{
    va_list ap;
    fputs("histogram: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("histogram: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\ntry 'histogram --help'\n", stderr);
    return EXIT_USAGE;
}

static int exit_code_for(gm_status st)
{
    switch (st) {
    case GM_ERR_IO:
    case GM_ERR_PARSE:
    case GM_ERR_RANGE:
    case GM_ERR_NOMEM: return EXIT_INPUT;
    case GM_ERR_INVALID_ARG: return EXIT_USAGE;
    default: return EXIT_GPU;
    }
}

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: histogram --kernel NAME --image solid|uniform|FILE.ppm --pixels N\n"
            "                 --threads T [--blocks B] [--reps R] [--warmup W] [--check] [--csv]\n"
            "       histogram --bench --image ... --pixels N [--ablation] [--reps R] [--csv]\n"
            "\n"
            "Computes a 4 x 256-bin histogram of an 8-bit RGBA image on the GPU (paper 000,\n"
            "Sec. 4), timing R runs after W warm-up runs with CUDA events (each run = zero\n"
            "the output + the kernel; CUB's call zeroes its own; a spinning kernel queued\n"
            "first keeps host launch latency out of the interval), and prints the median,\n"
            "min, max and spread = (max - min) / median.\n"
            "\n"
            "  --kernel NAME     one of:\n");
    for (int i = 0; i < HIST_K_COUNT; i++)
        fprintf(out, "                      %-16s %s\n", hist_kernel_table[i].name,
                hist_kernel_table[i].what);
    fprintf(out,
            "  --image KIND      solid (every pixel --color), uniform (random channels, --seed),\n"
            "                    or a binary PPM (P6) photo: pixel i is photo pixel i mod W*H\n"
            "                    (cropped to the top rows or tiled), alpha 255\n"
            "  --pixels N        image size, 1..%zu\n"
            "  --sizes LO:HI     every power of two from LO to HI instead of --pixels, one\n"
            "                    result per size (the sweep); the image is made once at HI\n"
            "  --threads T       threads per block, a multiple of 32 (not used by cub)\n"
            "  --blocks B        blocks (default: SM count x blocks per SM that fit)\n"
            "  --reps R          timed runs (default %d)\n"
            "  --warmup W        untimed runs first (default %d)\n"
            "  --check           compare with the CPU histogram; exit 4 on a mismatch\n"
            "  --csv             one CSV row per result (notes go to stderr)\n"
            "  --quiet           print nothing on success (for runs under a profiler)\n"
            "  --seed S          uniform image seed (default %d)\n"
            "  --color RRGGBBAA  solid image colour, hex (default %08x)\n"
            "  --bench           DRAM read probe, D2D copy, cub and hist_fast side by side;\n"
            "                    checks the goals hist_fast >= %.0f%% of read bandwidth and\n"
            "                    >= %.0fx cub (--threads defaults to 1024)\n"
            "  --ablation        with --bench: also every hist_fast_* variant and the\n"
            "                    paper's kernels\n"
            "\n"
            "Exit codes: 0 ok, 1 usage, 2 input, 3 GPU or CUDA error, 4 check mismatch.\n",
            HIST_MAX_PIXELS, GB_GATOMICS_DEFAULT_REPS, DEFAULT_WARMUP, DEFAULT_SEED, DEFAULT_COLOR,
            100 * GOAL_READ_BW_FRACTION, GOAL_CUB_SPEEDUP);
}

/* Parses a decimal count in lo..hi; 0 on a bad value (message printed). */
static int parse_size(const char *opt, const char *text, size_t lo, size_t hi, size_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v < lo || v > hi) {
        usage_error("%s: '%s' is not a whole number in %zu..%zu", opt, text, lo, hi);
        return 0;
    }
    *out = (size_t)v;
    return 1;
}

static int parse_int(const char *opt, const char *text, int lo, int hi, int *out)
{
    size_t v;
    if (!parse_size(opt, text, (size_t)lo, (size_t)hi, &v))
        return 0;
    *out = (int)v;
    return 1;
}

static int is_power_of_two(size_t v)
{
    return v && !(v & (v - 1));
}

static int parse_options(int argc, char **argv, options *o, int *done)
{
    enum { OPT_SIZES = 256, OPT_WARMUP, OPT_QUIET, OPT_SEED, OPT_COLOR, OPT_BENCH, OPT_ABLATION };
    static const struct option longopts[] = {
        {"kernel", required_argument, NULL, 'k'}, {"image", required_argument, NULL, 'i'},
        {"pixels", required_argument, NULL, 'n'}, {"sizes", required_argument, NULL, OPT_SIZES},
        {"threads", required_argument, NULL, 't'}, {"blocks", required_argument, NULL, 'b'},
        {"reps", required_argument, NULL, 'r'}, {"warmup", required_argument, NULL, OPT_WARMUP},
        {"check", no_argument, NULL, 'c'}, {"csv", no_argument, NULL, 'C'},
        {"quiet", no_argument, NULL, OPT_QUIET}, {"seed", required_argument, NULL, OPT_SEED},
        {"color", required_argument, NULL, OPT_COLOR}, {"bench", no_argument, NULL, OPT_BENCH},
        {"ablation", no_argument, NULL, OPT_ABLATION}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int ch;
    size_t v;

    memset(o, 0, sizeof *o);
    o->reps = GB_GATOMICS_DEFAULT_REPS;
    o->warmup = DEFAULT_WARMUP;
    o->seed = DEFAULT_SEED;
    o->color = DEFAULT_COLOR;
    *done = 0;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'k':
            o->kernel = hist_kernel_find(optarg);
            if (!o->kernel)
                return usage_error("--kernel: unknown kernel '%s' (see --help)", optarg);
            break;
        case 'i': o->image = optarg; break;
        case 'n':
            if (!parse_size("--pixels", optarg, 1, HIST_MAX_PIXELS, &o->pixels))
                return EXIT_USAGE;
            break;
        case OPT_SIZES: {
            char lo[32], hi[32];
            const char *colon = strchr(optarg, ':');
            if (!colon || (size_t)(colon - optarg) >= sizeof lo || strlen(colon + 1) >= sizeof hi)
                return usage_error("--sizes: '%s' is not LO:HI", optarg);
            memcpy(lo, optarg, (size_t)(colon - optarg));
            lo[colon - optarg] = '\0';
            strcpy(hi, colon + 1);
            if (!parse_size("--sizes", lo, 1, HIST_MAX_PIXELS, &o->sizes_lo) ||
                !parse_size("--sizes", hi, 1, HIST_MAX_PIXELS, &o->pixels))
                return EXIT_USAGE;
            if (!is_power_of_two(o->sizes_lo) || !is_power_of_two(o->pixels) ||
                o->sizes_lo > o->pixels)
                return usage_error("--sizes: need powers of two with LO <= HI, got '%s'",
                                   optarg);
            break;
        }
        case 't':
            if (!parse_int("--threads", optarg, 32, 1024, &o->threads))
                return EXIT_USAGE;
            if (o->threads % 32)
                return usage_error("--threads: %d is not a multiple of 32", o->threads);
            break;
        case 'b':
            if (!parse_int("--blocks", optarg, 1, 1 << 20, &o->blocks))
                return EXIT_USAGE;
            break;
        case 'r':
            if (!parse_int("--reps", optarg, 1, 100000, &o->reps))
                return EXIT_USAGE;
            break;
        case OPT_WARMUP:
            if (!parse_int("--warmup", optarg, 0, 100000, &o->warmup))
                return EXIT_USAGE;
            break;
        case 'c': o->check = 1; break;
        case 'C': o->csv = 1; break;
        case OPT_QUIET: o->quiet = 1; break;
        case OPT_SEED:
            if (!parse_size("--seed", optarg, 0, SIZE_MAX, &v))
                return EXIT_USAGE;
            o->seed = v;
            break;
        case OPT_COLOR: {
            char *end;
            unsigned long c;
            errno = 0;
            c = strtoul(optarg, &end, 16);
            if (errno || *end || strlen(optarg) != 8)
                return usage_error("--color: '%s' is not 8 hex digits RRGGBBAA", optarg);
            o->color = (uint32_t)c;
            break;
        }
        case OPT_BENCH: o->bench = 1; break;
        case OPT_ABLATION: o->ablation = 1; break;
        case 'h':
            print_help(stdout);
            *done = 1;
            return 0;
        default:
            if (optopt)
                return usage_error("option '-%c' is unknown or needs a value", optopt);
            return usage_error("option '%s' is unknown or needs a value", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (!o->image)
        return usage_error("--image is required");
    if (!o->pixels)
        return usage_error("--pixels (or --sizes) is required");
    if (o->bench) {
        if (o->kernel)
            return usage_error("--bench runs its own kernels: drop --kernel");
        if (o->sizes_lo)
            return usage_error("--bench takes --pixels, not --sizes");
        if (!o->threads)
            o->threads = 1024;
    } else {
        if (!o->kernel)
            return usage_error("--kernel is required");
        if (!o->threads && o->kernel->id != HIST_K_CUB)
            return usage_error("--threads is required");
        if (o->ablation)
            return usage_error("--ablation goes with --bench");
    }
    return 0;
}

/* Name of the image for reports: "solid", "uniform", or the file's base name
 * without extension. */
static void image_label(const char *image, char *out, size_t len)
{
    const char *base = strrchr(image, '/'), *dot;
    size_t n;

    base = base ? base + 1 : image;
    dot = strrchr(base, '.');
    n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (n >= len)
        n = len - 1;
    memcpy(out, base, n);
    out[n] = '\0';
}

static gm_status make_image(const options *o, hist_image *img, gm_error *err)
{
    hist_ppm ppm;
    gm_status st;
    size_t photo;

    if (strcmp(o->image, "solid") == 0)
        return hist_image_solid(o->pixels, o->color, img, err);
    if (strcmp(o->image, "uniform") == 0)
        return hist_image_uniform(o->pixels, o->seed, img, err);
    st = hist_ppm_load(o->image, &ppm, err);
    if (st != GM_OK)
        return st;
    photo = (size_t)ppm.width * (size_t)ppm.height;
    /* Say how the photo became an N-pixel image (stderr: CSV stays clean). */
    if (!o->quiet)
        fprintf(stderr,
                "histogram: note: %s is %dx%d (%zu pixels); %s to %zu pixels "
                "(pixel i = photo pixel i mod %zu), alpha 255\n",
                o->image, ppm.width, ppm.height, photo,
                o->pixels < photo ? "cropped (top rows)"
                : o->pixels == photo ? "used whole"
                                     : "tiled",
                o->pixels, photo);
    st = hist_image_from_ppm(&ppm, o->pixels, img, err);
    hist_ppm_free(&ppm);
    return st;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct stats {
    double median, min, max, spread;
} stats;

static stats summarize(double *us, int n)
{
    stats s;
    qsort(us, (size_t)n, sizeof *us, compare_double);
    s.min = us[0];
    s.max = us[n - 1];
    s.median = n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
    s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
    return s;
}

/* Runs --check for one size: 0 ok, EXIT_MISMATCH or an error code. */
static int check_result(hist_gpu *gpu, const hist_image *img, size_t pixels, const char *what)
{
    uint32_t got[HIST_TOTAL_BINS], want[HIST_TOTAL_BINS];
    gm_error err = {{0}};
    gm_status st = hist_gpu_result(gpu, got, &err);
    int bad;

    if (st != GM_OK) {
        error_line("%s: reading the result failed (%s)", what, err.msg);
        return exit_code_for(st);
    }
    hist_cpu(img->rgba, pixels, want);
    bad = hist_compare(got, want);
    if (bad >= 0) {
        error_line("%s: check failed at %zu pixels (channel %d bin %d: GPU %" PRIu32
                   ", CPU %" PRIu32 ")",
                   what, pixels, bad / HIST_BINS, bad % HIST_BINS, got[bad], want[bad]);
        return EXIT_MISMATCH;
    }
    return 0;
}

/* Sum of all bins of the last run: read back so that the timed work is
 * consumed, and compared with 4 x pixels even without --check. */
static int total_check(hist_gpu *gpu, size_t pixels, const char *what)
{
    uint32_t got[HIST_TOTAL_BINS];
    gm_error err = {{0}};
    gm_status st = hist_gpu_result(gpu, got, &err);
    uint64_t total = 0;

    if (st != GM_OK) {
        error_line("%s: reading the result failed (%s)", what, err.msg);
        return exit_code_for(st);
    }
    for (int i = 0; i < HIST_TOTAL_BINS; i++)
        total += got[i];
    if (total != (uint64_t)pixels * HIST_CHANNELS) {
        error_line("%s: bins add up to %" PRIu64 ", expected %zu", what, total,
                   pixels * HIST_CHANNELS);
        return EXIT_MISMATCH;
    }
    return 0;
}

static int run_kernel(const options *o, hist_gpu *gpu, const hist_image *img, const char *label)
{
    const hist_device_info *dev = hist_gpu_device(gpu);
    const hist_kernel_id k = o->kernel->id;
    double *us = malloc((size_t)o->reps * sizeof *us);
    gm_error err = {{0}};
    gm_status st;
    int blocks = o->blocks, rc = 0;
    size_t lo = o->sizes_lo ? o->sizes_lo : o->pixels;

    if (!us) {
        error_line("out of memory");
        return EXIT_GPU;
    }
    if (!blocks && (st = hist_gpu_default_blocks(gpu, k, o->threads, &blocks, &err)) != GM_OK) {
        error_line("%s: %s (%s)", o->kernel->name, gm_strerror(st), err.msg);
        free(us);
        return st == GM_ERR_CUDA ? EXIT_GPU : EXIT_USAGE;
    }
    if (o->csv && !o->quiet)
        printf("device,kernel,image,pixels,threads,blocks,warmup,reps,median_us,min_us,max_us,"
               "spread,gpixels_per_s,gbytes_per_s,check\n");
    for (size_t n = lo; n <= o->pixels && rc == 0; n *= 2) {
        stats s;
        const char *check = "total";

        st = hist_gpu_time(gpu, k, n, o->threads, blocks, o->warmup, o->reps, us, &err);
        if (st != GM_OK) {
            error_line("%s at %zu pixels: %s (%s)", o->kernel->name, n, gm_strerror(st), err.msg);
            rc = exit_code_for(st) == EXIT_INPUT ? EXIT_GPU : exit_code_for(st);
            break;
        }
        s = summarize(us, o->reps);
        if (o->check) {
            rc = check_result(gpu, img, n, o->kernel->name);
            check = rc ? "mismatch" : "ok";
        } else {
            rc = total_check(gpu, n, o->kernel->name);
            check = rc ? "mismatch" : "total";
        }
        if (o->quiet)
            continue;
        if (o->csv) {
            printf("%s,%s,%s,%zu,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.4f,%.3f,%.2f,%s\n", dev->name,
                   o->kernel->name, label, n, k == HIST_K_CUB ? 0 : o->threads, blocks, o->warmup,
                   o->reps, s.median, s.min, s.max, s.spread, n / s.median * 1e-3,
                   n * HIST_CHANNELS / s.median * 1e-3, check);
        } else {
            printf("%s on %s, %zu pixels, ", o->kernel->name, label, n);
            if (k == HIST_K_CUB)
                printf("CUB's own grid");
            else
                printf("%d threads x %d blocks", o->threads, blocks);
            printf(", %s (%d SMs)\n", dev->name, dev->sm_count);
            printf("  time   median %.2f us, min %.2f, max %.2f, spread %.1f%% "
                   "(%d runs after %d warm-up)\n",
                   s.median, s.min, s.max, 100 * s.spread, o->reps, o->warmup);
            printf("  rate   %.2f Gpixel/s, %.1f GB/s of image read\n", n / s.median * 1e-3,
                   n * HIST_CHANNELS / s.median * 1e-3);
            printf("  check  %s\n", o->check ? (rc ? "MISMATCH" : "ok: equals the CPU histogram")
                                             : (rc ? "MISMATCH" : "bins add up to 4 x pixels "
                                                                  "(use --check for every bin)"));
        }
    }
    free(us);
    return rc;
}

/* --bench: one process, one image, everything side by side. */
static int run_bench(const options *o, hist_gpu *gpu, const hist_image *img, const char *label)
{
    const hist_device_info *dev = hist_gpu_device(gpu);
    const size_t n = o->pixels, bytes = n * HIST_CHANNELS;
    double *us = malloc((size_t)o->reps * sizeof *us);
    stats read, copy, zero, cub = {0, 0, 0, 0}, fast = {0, 0, 0, 0};
    char shape[160] = "";
    uint32_t checksum = 0;
    gm_error err = {{0}};
    gm_status st;
    int rc = 0;
    double read_gbs;

    if (!us) {
        error_line("out of memory");
        return EXIT_GPU;
    }
    if ((st = hist_gpu_read_bandwidth(gpu, n, o->warmup, o->reps, us, &checksum, shape,
                                      sizeof shape, &err)) != GM_OK)
        goto gpu_fail;
    read = summarize(us, o->reps);
    read_gbs = bytes / read.median * 1e-3;
    if ((st = hist_gpu_copy_bandwidth(gpu, n, o->warmup, o->reps, us, &err)) != GM_OK)
        goto gpu_fail;
    copy = summarize(us, o->reps);
    if ((st = hist_gpu_zero_time(gpu, o->warmup, o->reps, us, &err)) != GM_OK)
        goto gpu_fail;
    zero = summarize(us, o->reps);
    if (o->csv)
        printf("device,image,pixels,what,threads,blocks,median_us,min_us,max_us,spread,gbytes_per_s,"
               "pct_of_read_bw,speedup_vs_cub,check\n%s,%s,%zu,read_probe,,,%.3f,%.3f,%.3f,%.4f,"
               "%.1f,100.0,,checksum %08" PRIx32 "\n%s,%s,%zu,d2d_copy,,,%.3f,%.3f,%.3f,%.4f,%.1f,"
               ",,read+write\n%s,%s,%zu,zero_output,,,%.3f,%.3f,%.3f,%.4f,,,,\n",
               dev->name, label, n, read.median, read.min, read.max, read.spread, read_gbs,
               checksum, dev->name, label, n, copy.median, copy.min, copy.max, copy.spread,
               2.0 * bytes / copy.median * 1e-3, dev->name, label, n, zero.median, zero.min,
               zero.max, zero.spread);
    else
        printf("bench on %s, %zu pixels (%.1f MB), %s (%d SMs), %d runs after %d warm-up\n"
               "  DRAM read probe  median %8.2f us  spread %5.1f%%  %7.1f GB/s  (%s; checksum "
               "%08" PRIx32 ")\n"
               "  D2D cudaMemcpy   median %8.2f us  spread %5.1f%%  %7.1f GB/s read+write "
               "(%.1f GB/s each way)\n"
               "  zero output      median %8.2f us  spread %5.1f%%  (cudaMemsetAsync of 4 KiB, "
               "part of every shared-memory kernel's time below)\n"
               "  %-20s %10s %7s %9s %8s %7s %12s  %s\n",
               label, n, bytes * 1e-6, dev->name, dev->sm_count, o->reps, o->warmup, read.median,
               100 * read.spread, read_gbs, shape, checksum, copy.median, 100 * copy.spread,
               2.0 * bytes / copy.median * 1e-3, bytes / copy.median * 1e-3, zero.median,
               100 * zero.spread, "kernel", "median us", "spread", "GB/s", "%readBW", "x cub",
               "grid", "check");
    /* CUB first: every later row is compared with it. */
    for (int i = -1; i < HIST_K_COUNT; i++) {
        const hist_kernel_desc *kd = &hist_kernel_table[i < 0 ? HIST_K_CUB : i];
        int show = kd->id == HIST_K_CUB || kd->id == HIST_K_FAST || o->ablation;
        int blocks = 0, threads = o->threads, krc;
        stats s;

        if (!show || (i >= 0 && kd->id == HIST_K_CUB))
            continue;
        if (kd->id != HIST_K_CUB &&
            (st = hist_gpu_default_blocks(gpu, kd->id, threads, &blocks, &err)) != GM_OK) {
            error_line("%s: skipped (%s)", kd->name, err.msg);
            continue;
        }
        if ((st = hist_gpu_time(gpu, kd->id, n, threads, blocks, o->warmup, o->reps, us, &err)) !=
            GM_OK)
            goto gpu_fail;
        s = summarize(us, o->reps);
        krc = check_result(gpu, img, n, kd->name); /* the bench always checks every bin */
        if (krc && !rc)
            rc = krc;
        if (kd->id == HIST_K_CUB)
            cub = s;
        if (kd->id == HIST_K_FAST)
            fast = s;
        if (o->csv)
            printf("%s,%s,%zu,%s,%d,%d,%.3f,%.3f,%.3f,%.4f,%.1f,%.1f,%.2f,%s\n", dev->name, label,
                   n, kd->name, kd->id == HIST_K_CUB ? 0 : threads, blocks, s.median, s.min,
                   s.max, s.spread, bytes / s.median * 1e-3, 100 * read.median / s.median,
                   cub.median > 0 ? cub.median / s.median : 0.0, krc ? "mismatch" : "ok");
        else
        {
            char grid[32] = "CUB's own";
            if (kd->id != HIST_K_CUB)
                snprintf(grid, sizeof grid, "%dx%d", blocks, threads);
            printf("  %-20s %10.2f %6.1f%% %9.1f %7.1f%% %6.2fx %12s  %s\n", kd->name, s.median,
                   100 * s.spread, bytes / s.median * 1e-3, 100 * read.median / s.median,
                   cub.median > 0 ? cub.median / s.median : 0.0, grid, krc ? "MISMATCH" : "ok");
        }
    }
    if (!o->csv && fast.median > 0 && cub.median > 0) {
        double frac = read.median / fast.median, speedup = cub.median / fast.median;
        printf("goals: hist_fast at %.1f%% of the read probe's bandwidth (goal >= %.0f%%): %s; "
               "%.2fx cub (goal >= %.1fx): %s\n",
               100 * frac, 100 * GOAL_READ_BW_FRACTION,
               frac >= GOAL_READ_BW_FRACTION ? "PASS" : "FAIL", speedup, GOAL_CUB_SPEEDUP,
               speedup >= GOAL_CUB_SPEEDUP ? "PASS" : "FAIL");
    }
    free(us);
    return rc;
gpu_fail:
    error_line("bench: %s (%s)", gm_strerror(st), err.msg);
    free(us);
    return exit_code_for(st) == EXIT_INPUT ? EXIT_GPU : exit_code_for(st);
}

int main(int argc, char **argv)
{
    options o;
    hist_image img = {0, NULL};
    hist_gpu *gpu = NULL;
    gm_error err = {{0}};
    gm_status st;
    char label[64];
    int done, rc = parse_options(argc, argv, &o, &done);

    if (rc || done)
        return rc;
    image_label(o.image, label, sizeof label);
    /* The image first: a bad file is an input error even without a GPU. */
    if ((st = make_image(&o, &img, &err)) != GM_OK) {
        error_line("image '%s': %s (%s)", o.image, gm_strerror(st), err.msg);
        return exit_code_for(st);
    }
    if ((st = hist_gpu_create(o.pixels, &gpu, &err)) != GM_OK) {
        error_line("GPU: %s (%s)", gm_strerror(st), err.msg);
        hist_image_free(&img);
        return EXIT_GPU;
    }
    if ((st = hist_gpu_upload(gpu, &img, &err)) != GM_OK) {
        error_line("GPU upload: %s (%s)", gm_strerror(st), err.msg);
        rc = EXIT_GPU;
    } else {
        rc = o.bench ? run_bench(&o, gpu, &img, label) : run_kernel(&o, gpu, &img, label);
    }
    hist_gpu_destroy(gpu);
    hist_image_free(&img);
    return rc;
}
