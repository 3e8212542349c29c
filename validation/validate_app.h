/* What validate_app's parts share: exit codes, sizes, the device, options,
 * results, buffers, timer and launch types, and the functions one part
 * calls in another.  validate_cases.cu: the case table; validate_run.cu:
 * device, launch shape, timing, buffers and one case; validate_app.cu:
 * output, command line and main. */
#ifndef VALIDATE_APP_H
#define VALIDATE_APP_H

#include "vk.h"

#define VK_EXIT_USAGE 1
#define VK_EXIT_INPUT 2
#define VK_EXIT_CUDA 3
#define VK_EXIT_NO_GPU 77

#define VK_CHECK(call)                                                                       \
    do {                                                                                     \
        cudaError_t vk_err_ = (call);                                                        \
        if (vk_err_ != cudaSuccess) {                                                        \
            fprintf(stderr, "validate_app: %s failed at %s:%d (%s)\n", #call, __FILE__,      \
                    __LINE__, cudaGetErrorString(vk_err_));                                  \
            exit(VK_EXIT_CUDA);                                                              \
        }                                                                                    \
    } while (0)

/* Sizes.  The histogram image: 32 Mpixel RGBA (128 MiB) puts the paper's
 * kernels at roughly 0.1-0.6 ms on an H200 (hopper-probe.md has 4 Mpixel at
 * 12-75 us).  The load buffer is 256 MiB, five times an H200's 50 MiB L2. */
#define VK_IMAGE_PIXELS (1u << 25)
#define VK_GBUF_WORDS (1u << 26)
#define VK_GATOM_WORDS 1024
#define VK_ITERS_MIN 16u
#define VK_ITERS_MAX (1u << 24)
#define VK_TWIN_MIN_US 100.0  /* an atomics-only twin shorter than this is lengthened, */
#define VK_CASE_MAX_US 2000.0 /* unless that pushes the case itself past this */

typedef struct vk_device {
    int id;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    int max_warps_per_sm;
    int max_blocks_per_sm;
    size_t smem_per_sm, smem_reserved_per_block, smem_optin_per_block;
    int driver_version, runtime_version;
} vk_device;

typedef struct vk_options {
    int list, profile;
    int reps, warmup;
    double target_us;
    const char *iters_from;
    char **names;
    int n_names;
    char **groups;
    int n_groups;
} vk_options;

/* Per-case run results. */
typedef struct vk_result {
    unsigned blocks;
    size_t smem_bytes;
    unsigned iters;
    double t_med, t_min, t_max;      /* the case, microseconds */
    double a_med, a_min, a_max;      /* its atomics-only twin; NAN where none */
    double f_med;                    /* hash table: its twin without probing; NAN elsewhere */
    int reps;
    double n_atom_expected;          /* warp-level shared atomics by construction; NAN unknown */
    int launches;                    /* kernel launches per run of the case */
} vk_result;

/* Shared device buffers, created once (cudaMalloc/cudaMemcpy/cudaMemset only:
 * no kernel launch happens outside the cases, so that a profiler's launch
 * list maps one to one onto the case list). */
typedef struct vk_buffers {
    unsigned *gbuf, *gatom, *out;
    size_t out_words;
    unsigned *image_solid, *image_uniform;
    unsigned *hist, *sink;
    unsigned solid_rgba;
    vk_cub_state cub;
    int cub_ready;
} vk_buffers;

typedef struct vk_case_list {
    vk_case *v;
    int n, cap;
} vk_case_list;

typedef struct vk_timer {
    cudaStream_t stream;
    cudaEvent_t start, stop;
} vk_timer;

/* What one timed launch runs. */
typedef struct vk_launch {
    const vk_case *c;
    const vk_device *dev;
    vk_buffers *b;
    const void *kernel;
    unsigned blocks;
    size_t smem;
    unsigned iters;
    int replay;   /* histograms: the replay kernel */
} vk_launch;

typedef struct vk_iters_table {
    char **names;
    unsigned *iters;
    int n;
} vk_iters_table;

/* Names for the CSV and --list (validate_cases.cu). */
extern const char *const group_names[VK_GROUP_COUNT];
extern const char *const op_names[VK_OP_COUNT];
extern const char *const work_names[VK_WORK_COUNT];
extern const char *const family_kernels[VK_FAMILY_COUNT];

void vk_pattern_name(const vk_case *c, char *buf, size_t len);
/* The case table: sweeps of the four groups. */
void vk_build_cases(const vk_device *dev, vk_case_list *l);
int vk_device_open(vk_device *dev);
/* A device without one (--list) lists cases for an H100/H200-like shape. */
void vk_device_default(vk_device *dev);
void vk_buffers_create(vk_buffers *b, const vk_device *dev);
void vk_buffers_release(vk_buffers *b);
/* Runs one case; returns 0, or -1 when it cannot run on this device (the
 * reason is on stderr).  CUDA errors exit. */
int vk_run_case(const vk_case *c, const vk_device *dev, vk_buffers *b, vk_timer *t,
                const vk_options *opt, const vk_iters_table *iters_from, vk_result *r);

#endif
