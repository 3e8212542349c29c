/* The calibrate launcher: runs gb_atomics_launch plans on the GPU (CUDA runtime API,
 * host code in C; the kernels are in atomics_kernels.cu).
 *
 * One launch carries one cell per SM.  Blocks find their cell by %smid.  For
 * n <= 32 the kernel asks for so much dynamic shared memory that one block
 * fits per SM; for n > 32, two blocks of ceil(n/2) warps share an SM (shared
 * memory sized so that at most two fit).  The grid has one spare wave of
 * blocks, so that an SM missed by the first wave still gets its block(s);
 * blocks beyond the first one or two on an SM leave at once.  Each SM makes
 * opt.inner_reps measurements of its cell per launch; the launcher judges
 * each (blocks together, started on time, inside its window, arrival skew)
 * and keeps the shortest valid one as the launch's sample.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomics_bench.h"
#include "atomics_kernels.h"

/* Cycles between the rendezvous and the common start: enough for the later
 * block to read the agreed start time back through global memory. */
#define ATOMICS_START_MARGIN_CYCLES 8192ull
/* Cycles a block waits for its partner before it gives the sample up. */
#define ATOMICS_RENDEZVOUS_TIMEOUT_CYCLES (1ull << 22)
/* Quiet window of one measurement (cycles): an upper bound on T.  Measured
 * T per warp-instruction stays below 2 cycles per same-address lane plus ~30
 * (docs/calibration.md: CAS e=32 ~66, ADD e=32 ~34, ADD e=1 n=1 29); the
 * bound doubles that, and a measurement that still overruns is discarded
 * (GB_ATOMICS_OVERRUN), never kept. */
#define ATOMICS_WINDOW_PER_LANE_CYCLES 4u
#define ATOMICS_WINDOW_PER_WARP_CYCLES 64u
#define ATOMICS_WINDOW_BASE_CYCLES 4096u
/* From the window's close to the next start: every warp reduces and stores
 * its clock readings and the block re-zeroes its target words.  A block
 * that needs longer starts late and that measurement is discarded. */
#define ATOMICS_READOUT_CYCLES 8192u
/* Duration of the SM-clock kernel. */
#define ATOMICS_CLOCK_KERNEL_NS 10000000ull

struct gb_atomics_context {
    int device;
    struct cudaDeviceProp prop;
    int driver_version, runtime_version;
    unsigned nsmid;                  /* %nsmid: bound of %smid */
    int n_slots;                     /* SMs seen by the probe */
    unsigned *slot_smid;             /* [n_slots] */
    gb_atomics_cell_desc *h_cells;   /* [(GB_ATOMICS_MAX_REPS + 1) * nsmid], pinned */
    gb_atomics_sm_result *h_results; /* same */
    gb_atomics_cell_desc *d_cells;
    gb_atomics_sm_result *d_results;
    cudaStream_t stream;
    gb_atomics_run_options opt;
    gb_atomics_run_counters counters;
    /* Per-warp times of the last launch (opt.keep_warp_times):
     * [(GB_ATOMICS_MAX_REPS + 1) * nsmid * inner_reps * GB_ATOMICS_MAX_CELL_WARPS]. */
    gb_atomics_warp_times *h_diag, *d_diag;
    int diag_inner_reps;             /* inner_reps the diag buffers were laid out for */
    /* The last launch's layout, for gb_atomics_launch_detail and gb_atomics_launch_warps. */
    int last_blocks_per_cell;
    int last_rounds;
};

_Static_assert(GB_ATOMICS_MAX_INNER == GB_ATOMICS_MAX_INNER_REPS,
               "atomics_bench.h and atomics_kernels.h disagree");

int gb_atomics_available(void)
{
    return 1;
}

void gb_atomics_run_options_default(gb_atomics_run_options *opt)
{
    *opt = (gb_atomics_run_options){.inner_reps = GB_ATOMICS_DEFAULT_INNER_REPS,
                                    .skew_fraction = GB_ATOMICS_DEFAULT_SKEW_FRACTION,
                                    .skew_floor = GB_ATOMICS_DEFAULT_SKEW_FLOOR};
}

static gm_status cuda_fail(gm_error *err, cudaError_t rc, const char *what)
{
    return gm_fail(err, GM_ERR_CUDA, "%s: %s", what, cudaGetErrorString(rc));
}

#define ATOMICS_CUDA_TRY(call)                                                                     \
    do {                                                                                           \
        cudaError_t rc_ = (call);                                                                  \
        if (rc_ != cudaSuccess) {                                                                  \
            st = cuda_fail(err, rc_, #call);                                                       \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

static const gb_atomics_kernel_row *find_row(gm_atomics_job_class cls, int mixes_cas)
{
    for (int i = 0; i < gb_atomics_kernel_row_count; i++)
        if (gb_atomics_kernel_rows[i].cls == cls && gb_atomics_kernel_rows[i].mixes_cas == mixes_cas)
            return &gb_atomics_kernel_rows[i];
    return NULL;
}

/* The most dynamic shared memory a block of `threads` threads may ask for so
 * that exactly `blocks` of them fit on one SM (occupancy calculator). */
static gm_status size_shared(const gb_atomics_context *ctx, const void *kernel, int threads,
                             int blocks, size_t *out, gm_error *err)
{
    struct cudaFuncAttributes attr;
    cudaError_t rc = cudaFuncGetAttributes(&attr, kernel);
    if (rc != cudaSuccess)
        return cuda_fail(err, rc, "cudaFuncGetAttributes");
    size_t per_sm = ctx->prop.sharedMemPerMultiprocessor;
    size_t reserved = ctx->prop.reservedSharedMemPerBlock;
    size_t limit = ctx->prop.sharedMemPerBlockOptin - attr.sharedSizeBytes;
    size_t dyn = per_sm / (size_t)blocks - reserved - attr.sharedSizeBytes;
    if (dyn > limit)
        dyn = limit;
    dyn &= ~(size_t)1023;
    for (; dyn >= GB_ATOMICS_TARGET_WORDS * sizeof(unsigned); dyn -= 1024) {
        int fit = 0;
        rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, threads, dyn);
        if (rc != cudaSuccess)
            return cuda_fail(err, rc, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
        if (fit == blocks) {
            *out = dyn;
            return GM_OK;
        }
        if (fit > blocks)
            break;
    }
    return gm_fail(err, GM_ERR_UNSUPPORTED,
                   "no shared-memory size puts exactly %d block(s) of %d threads on one SM", blocks,
                   threads);
}

static gm_status probe_smids(gb_atomics_context *ctx, gm_error *err)
{
    gm_status st = GM_OK;
    int n_blocks = 4 * ctx->prop.multiProcessorCount;
    unsigned *d_out = NULL, *h_out = NULL;
    size_t bytes = 2 * sizeof(unsigned) * (size_t)n_blocks;
    h_out = malloc(bytes);
    if (!h_out)
        return gm_fail(err, GM_ERR_NOMEM, "SM probe");
    ATOMICS_CUDA_TRY(cudaMalloc((void **)&d_out, bytes));
    void *args[] = {&d_out};
    ATOMICS_CUDA_TRY(cudaLaunchKernel(gb_atomics_smid_kernel, (dim3){(unsigned)n_blocks, 1, 1},
                                      (dim3){32, 1, 1}, args, 0, ctx->stream));
    ATOMICS_CUDA_TRY(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, ctx->stream));
    ATOMICS_CUDA_TRY(cudaStreamSynchronize(ctx->stream));
    ctx->nsmid = 0;
    for (int b = 0; b < n_blocks; b++)
        if (h_out[2 * b + 1] > ctx->nsmid)
            ctx->nsmid = h_out[2 * b + 1];
    if (ctx->nsmid == 0 || ctx->nsmid > 4096) {
        st = gm_fail(err, GM_ERR_UNSUPPORTED, "implausible %%nsmid %u", ctx->nsmid);
        goto fail;
    }
    unsigned char *seen = calloc(ctx->nsmid, 1);
    ctx->slot_smid = malloc(ctx->nsmid * sizeof *ctx->slot_smid);
    if (!seen || !ctx->slot_smid) {
        free(seen);
        st = gm_fail(err, GM_ERR_NOMEM, "SM probe");
        goto fail;
    }
    for (int b = 0; b < n_blocks; b++)
        if (h_out[2 * b] < ctx->nsmid)
            seen[h_out[2 * b]] = 1;
    ctx->n_slots = 0;
    for (unsigned s = 0; s < ctx->nsmid; s++)
        if (seen[s])
            ctx->slot_smid[ctx->n_slots++] = s;
    free(seen);
fail:
    cudaFree(d_out);
    free(h_out);
    return st;
}

/* Whether CUDA sees a device `device` (GM_ERR_NO_GPU, said why, if not). */
static gm_status device_exists(int device, gm_error *err)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count == 0)
        return gm_fail(err, GM_ERR_NO_GPU, "no CUDA device found (%s)",
                       rc != cudaSuccess ? cudaGetErrorString(rc) : "device count 0");
    if (device < 0 || device >= count)
        return gm_fail(err, GM_ERR_NO_GPU, "device %d does not exist (%d device%s found)", device,
                       count, count == 1 ? "" : "s");
    return GM_OK;
}

gm_status gb_atomics_open(int device, gb_atomics_context **out, gm_error *err)
{
    *out = NULL;
    gm_status st = device_exists(device, err);
    if (st != GM_OK)
        return st;
    gb_atomics_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return gm_fail(err, GM_ERR_NOMEM, "context");
    ctx->device = device;
    gb_atomics_run_options_default(&ctx->opt);
    ATOMICS_CUDA_TRY(cudaSetDevice(device));
    ATOMICS_CUDA_TRY(cudaGetDeviceProperties(&ctx->prop, device));
    ATOMICS_CUDA_TRY(cudaDriverGetVersion(&ctx->driver_version));
    ATOMICS_CUDA_TRY(cudaRuntimeGetVersion(&ctx->runtime_version));
    if (ctx->prop.warpSize != 32 || ctx->prop.maxThreadsPerMultiProcessor / 32 > 64) {
        st = gm_fail(err, GM_ERR_UNSUPPORTED, "%s: warp size %d, %d threads per SM not handled",
                     ctx->prop.name, ctx->prop.warpSize, ctx->prop.maxThreadsPerMultiProcessor);
        goto fail;
    }
    ATOMICS_CUDA_TRY(cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
    for (int i = 0; i < gb_atomics_kernel_row_count; i++)
        for (int m = 0; m < GM_ATOMICS_METHOD_COUNT; m++) {
            const void *k = gb_atomics_kernel_rows[i].kernel[m];
            struct cudaFuncAttributes attr;
            ATOMICS_CUDA_TRY(cudaFuncGetAttributes(&attr, k));
            ATOMICS_CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                                                  cudaSharedmemCarveoutMaxShared));
            ATOMICS_CUDA_TRY(cudaFuncSetAttribute(
                k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                (int)(ctx->prop.sharedMemPerBlockOptin - attr.sharedSizeBytes)));
        }
    st = probe_smids(ctx, err);
    if (st != GM_OK)
        goto fail;
    size_t slots = (size_t)(GB_ATOMICS_MAX_REPS + 1) * ctx->nsmid;
    ATOMICS_CUDA_TRY(cudaMallocHost((void **)&ctx->h_cells, slots * sizeof *ctx->h_cells));
    ATOMICS_CUDA_TRY(cudaMallocHost((void **)&ctx->h_results, slots * sizeof *ctx->h_results));
    ATOMICS_CUDA_TRY(cudaMalloc((void **)&ctx->d_cells, slots * sizeof *ctx->d_cells));
    ATOMICS_CUDA_TRY(cudaMalloc((void **)&ctx->d_results, slots * sizeof *ctx->d_results));
    *out = ctx;
    return GM_OK;
fail:
    gb_atomics_close(ctx);
    return st;
}

void gb_atomics_close(gb_atomics_context *ctx)
{
    if (!ctx)
        return;
    cudaFreeHost(ctx->h_cells);
    cudaFreeHost(ctx->h_results);
    cudaFree(ctx->d_cells);
    cudaFree(ctx->d_results);
    cudaFreeHost(ctx->h_diag);
    cudaFree(ctx->d_diag);
    if (ctx->stream)
        cudaStreamDestroy(ctx->stream);
    free(ctx->slot_smid);
    free(ctx);
}

gm_status gb_device_identity(int device, gm_mdata_meta *meta, gm_error *err)
{
    gm_status st = device_exists(device, err);
    if (st != GM_OK)
        return st;
    cudaError_t rc;
    struct cudaDeviceProp prop;
    if ((rc = cudaGetDeviceProperties(&prop, device)) != cudaSuccess ||
        (rc = cudaDriverGetVersion(&meta->driver_version)) != cudaSuccess ||
        (rc = cudaRuntimeGetVersion(&meta->runtime_version)) != cudaSuccess)
        return gm_fail(err, GM_ERR_CUDA, "device %d: %s", device, cudaGetErrorString(rc));
    size_t len = strnlen(prop.name, sizeof meta->gpu_name - 1);
    memcpy(meta->gpu_name, prop.name, len);
    meta->gpu_name[len] = '\0';
    meta->cc_major = prop.major;
    meta->cc_minor = prop.minor;
    meta->sm_count = prop.multiProcessorCount;
    return GM_OK;
}

void gb_atomics_device_meta(const gb_atomics_context *ctx, gm_atomics_table_meta *meta)
{
    size_t len = strnlen(ctx->prop.name, sizeof meta->gpu_name - 1);
    memcpy(meta->gpu_name, ctx->prop.name, len);
    meta->gpu_name[len] = '\0';
    meta->cc_major = ctx->prop.major;
    meta->cc_minor = ctx->prop.minor;
    meta->sm_count = ctx->prop.multiProcessorCount;
    meta->warp_size = ctx->prop.warpSize;
    meta->max_warps_per_sm = ctx->prop.maxThreadsPerMultiProcessor / ctx->prop.warpSize;
    meta->driver_version = ctx->driver_version;
    meta->runtime_version = ctx->runtime_version;
}

int gb_atomics_cells_per_launch(const gb_atomics_context *ctx)
{
    return ctx->n_slots;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

gm_status gb_atomics_measure_sm_clock(gb_atomics_context *ctx, double *mhz, gm_error *err)
{
    gm_status st = GM_OK;
    int n_blocks = ctx->n_slots;
    size_t bytes = 2 * sizeof(unsigned long long) * (size_t)n_blocks;
    unsigned long long *d_out = NULL;
    unsigned long long *h_out = malloc(bytes);
    double *rates = malloc((size_t)n_blocks * sizeof *rates);
    if (!h_out || !rates) {
        st = gm_fail(err, GM_ERR_NOMEM, "clock probe");
        goto fail;
    }
    ATOMICS_CUDA_TRY(cudaMalloc((void **)&d_out, bytes));
    unsigned long long duration = ATOMICS_CLOCK_KERNEL_NS;
    void *args[] = {&duration, &d_out};
    ATOMICS_CUDA_TRY(cudaLaunchKernel(gb_atomics_clock_kernel, (dim3){(unsigned)n_blocks, 1, 1},
                                      (dim3){32, 1, 1}, args, 0, ctx->stream));
    ATOMICS_CUDA_TRY(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, ctx->stream));
    ATOMICS_CUDA_TRY(cudaStreamSynchronize(ctx->stream));
    for (int b = 0; b < n_blocks; b++)
        rates[b] = h_out[2 * b + 1] ? 1e3 * (double)h_out[2 * b] / (double)h_out[2 * b + 1] : 0;
    qsort(rates, (size_t)n_blocks, sizeof *rates, compare_double);
    *mhz = rates[n_blocks / 2];
fail:
    cudaFree(d_out);
    free(h_out);
    free(rates);
    return st;
}

/* Which of the n warps issue CAS when c of them do: warp w does when
 * floor((w+1) c / n) > floor(w c / n), which spreads the c CAS warps evenly
 * over the n (and so over both blocks when n > 32). */
static unsigned long long gb_cas_mask(int n, int c)
{
    unsigned long long mask = 0;
    for (int w = 0; w < n && w < 64; w++)
        if (((w + 1) * c) / n != (w * c) / n)
            mask |= 1ull << w;
    return mask;
}

gm_status gb_atomics_set_run_options(gb_atomics_context *ctx, const gb_atomics_run_options *opt,
                                     gm_error *err)
{
    if (opt->inner_reps < 1 || opt->inner_reps > GB_ATOMICS_MAX_INNER)
        return gm_fail(err, GM_ERR_INVALID_ARG, "inner repetitions %d outside 1..%d",
                       opt->inner_reps, GB_ATOMICS_MAX_INNER);
    if (!(opt->skew_fraction >= 0) || !(opt->skew_floor >= 0))
        return gm_fail(err, GM_ERR_INVALID_ARG, "skew limit must be >= 0");
    if (opt->variant & ~(GB_ATOMICS_VARIANT_IMMEDIATE | GB_ATOMICS_VARIANT_GLOBAL_NOW | GB_ATOMICS_VARIANT_ALL_SPIN))
        return gm_fail(err, GM_ERR_INVALID_ARG, "unknown kernel variant 0x%x", opt->variant);
    gm_status st = GM_OK;
    if (opt->keep_warp_times &&
        (!ctx->d_diag || ctx->diag_inner_reps < opt->inner_reps)) {
        cudaFreeHost(ctx->h_diag);
        cudaFree(ctx->d_diag);
        ctx->h_diag = NULL;
        ctx->d_diag = NULL;
        size_t bytes = (size_t)(GB_ATOMICS_MAX_REPS + 1) * ctx->nsmid * (size_t)opt->inner_reps *
                       GB_ATOMICS_MAX_CELL_WARPS * sizeof *ctx->h_diag;
        ATOMICS_CUDA_TRY(cudaMallocHost((void **)&ctx->h_diag, bytes));
        ATOMICS_CUDA_TRY(cudaMalloc((void **)&ctx->d_diag, bytes));
        ctx->diag_inner_reps = opt->inner_reps;
    }
    ctx->opt = *opt;
    return GM_OK;
fail:
    return st;
}

void gb_atomics_get_run_counters(const gb_atomics_context *ctx, gb_atomics_run_counters *out)
{
    *out = ctx->counters;
}

/* Quiet window for one cell: see ATOMICS_WINDOW_*. */
static unsigned cell_window(int n, int e, int rounds)
{
    return (unsigned)rounds * (unsigned)n *
               (ATOMICS_WINDOW_PER_LANE_CYCLES * (unsigned)e + ATOMICS_WINDOW_PER_WARP_CYCLES) +
           ATOMICS_WINDOW_BASE_CYCLES;
}

static const gb_atomics_sm_result *result_of(const gb_atomics_context *ctx, int run, int cell)
{
    const unsigned smid = ctx->slot_smid[(cell + run) % ctx->n_slots];
    return &ctx->h_results[(size_t)run * ctx->nsmid + smid];
}

static const gb_atomics_cell_desc *desc_of(const gb_atomics_context *ctx, int run, int cell)
{
    const unsigned smid = ctx->slot_smid[(cell + run) % ctx->n_slots];
    return &ctx->h_cells[(size_t)run * ctx->nsmid + smid];
}

/* Judges measurement k of one SM's result; fills *t (whole T, cycles). */
static gb_atomics_verdict judge(const gb_atomics_context *ctx, const gb_atomics_cell_desc *d,
                                const gb_atomics_sm_result *res, int k, double *t, double *first,
                                double *last_arrival, double *last)
{
    const gb_atomics_inner_result *m = &res->inner[k];
    *first = (double)~m->first_inv;
    *last_arrival = (double)m->last_arrival;
    *last = (double)m->last;
    *t = *last - *first;
    if (res->ok != (unsigned)ctx->last_blocks_per_cell || m->first_inv == 0 || m->last <= ~m->first_inv)
        return GB_ATOMICS_NOT_CORESIDENT;
    if (m->late)
        return GB_ATOMICS_LATE;
    if (m->last > d->window)
        return GB_ATOMICS_OVERRUN;
    /* The whole interval, steady state included: there the warps' first
     * atomics are spread over ~360 cycles by instruction issue alone
     * (n = 64), against a T of thousands of cycles. */
    if (*last_arrival - *first > ctx->opt.skew_floor + ctx->opt.skew_fraction * *t)
        return GB_ATOMICS_SKEWED;
    return GB_ATOMICS_VALID;
}

gm_status gb_atomics_run_launch(gb_atomics_context *ctx, const gb_atomics_launch *launch,
                                double *samples, gm_error *err)
{
    gm_status st = GM_OK;
    const int max_warps = ctx->prop.maxThreadsPerMultiProcessor / ctx->prop.warpSize;
    const int block_warps_max = ctx->prop.maxThreadsPerBlock / ctx->prop.warpSize;
    if (launch->n < 1 || launch->n > max_warps || launch->n > GB_ATOMICS_MAX_CELL_WARPS ||
        launch->reps < 1 || launch->reps > GB_ATOMICS_MAX_REPS || launch->n_cells < 1 ||
        launch->n_cells > ctx->n_slots)
        return gm_fail(err, GM_ERR_INVALID_ARG, "launch n=%d reps=%d cells=%d out of range",
                       launch->n, launch->reps, launch->n_cells);
    const gb_atomics_kernel_row *row = find_row(launch->cls, launch->mixes_cas);
    if (!row || launch->method < 0 || launch->method >= GM_ATOMICS_METHOD_COUNT)
        return gm_fail(err, GM_ERR_UNSUPPORTED, "no kernel for class %s (mixes_cas=%d)",
                       gm_atomics_class_name(launch->cls), launch->mixes_cas);
    const void *kernel = row->kernel[launch->method];
    const int blocks_per_cell = launch->n > block_warps_max ? 2 : 1;
    const int block_warps = (launch->n + blocks_per_cell - 1) / blocks_per_cell;
    const int threads = block_warps * ctx->prop.warpSize;
    const int rounds = launch->method == GM_ATOMICS_METHOD_STEADY_STATE ? GB_ATOMICS_STEADY_ROUNDS : 1;
    const int inner = ctx->opt.inner_reps;
    size_t dyn = 0;
    st = size_shared(ctx, kernel, threads, blocks_per_cell, &dyn, err);
    if (st != GM_OK)
        return st;

    /* Launch 0 warms up; launches 1..reps are kept.  Cell i sits on SM slot
     * (i + r) mod n_slots in launch r, so its samples come from different SMs. */
    const int runs = launch->reps + 1;
    const size_t per_run = ctx->nsmid;
    memset(ctx->h_cells, 0, (size_t)runs * per_run * sizeof *ctx->h_cells);
    for (int r = 0; r < runs; r++)
        for (int i = 0; i < launch->n_cells; i++) {
            const gb_atomics_launch_cell *cell = &launch->cells[i];
            const int same = cell->pattern == GM_ATOMICS_PATTERN_SAME_ADDRESS;
            unsigned smid = ctx->slot_smid[(i + r) % ctx->n_slots];
            unsigned long long cas_mask = gb_cas_mask(launch->n, cell->c);
            const unsigned window = cell_window(launch->n, cell->e, rounds);
            ctx->h_cells[(size_t)r * per_run + smid] = (gb_atomics_cell_desc){
                .active = 1,
                .n = launch->n,
                .e = cell->e,
                .c = cell->c,
                .lane_stride = same ? 0 : 1,
                .warp_stride = same ? 0 : ctx->prop.warpSize,
                .rounds = rounds,
                .cas_mask_lo = (unsigned)cas_mask,
                .cas_mask_hi = (unsigned)(cas_mask >> 32),
                .one = 1,
                .zero_mask = 0,
                .window = window,
                .period = window + ATOMICS_READOUT_CYCLES,
            };
        }
    const int keep = ctx->opt.keep_warp_times && ctx->d_diag;
    const size_t diag_per_run = per_run * (size_t)inner * GB_ATOMICS_MAX_CELL_WARPS;
    const size_t cell_bytes = (size_t)runs * per_run * sizeof *ctx->d_cells;
    const size_t result_bytes = (size_t)runs * per_run * sizeof *ctx->d_results;
    const size_t diag_bytes = (size_t)runs * diag_per_run * sizeof *ctx->d_diag;
    ATOMICS_CUDA_TRY(cudaMemcpyAsync(ctx->d_cells, ctx->h_cells, cell_bytes, cudaMemcpyHostToDevice,
                                     ctx->stream));
    ATOMICS_CUDA_TRY(cudaMemsetAsync(ctx->d_results, 0, result_bytes, ctx->stream));
    if (keep)
        ATOMICS_CUDA_TRY(cudaMemsetAsync(ctx->d_diag, 0xff, diag_bytes, ctx->stream));
    const dim3 grid = {(unsigned)((blocks_per_cell + 1) * ctx->n_slots), 1, 1};
    const dim3 block = {(unsigned)threads, 1, 1};
    for (int r = 0; r < runs; r++) {
        gb_atomics_kernel_params p = {
            .cells = ctx->d_cells + (size_t)r * per_run,
            .results = ctx->d_results + (size_t)r * per_run,
            .diag = keep ? ctx->d_diag + (size_t)r * diag_per_run : NULL,
            .nsmid = ctx->nsmid,
            .blocks_per_cell = (unsigned)blocks_per_cell,
            .inner_reps = (unsigned)inner,
            .variant = ctx->opt.variant,
            .start_margin = ATOMICS_START_MARGIN_CYCLES,
            .rendezvous_timeout = ATOMICS_RENDEZVOUS_TIMEOUT_CYCLES,
        };
        void *args[] = {&p};
        ATOMICS_CUDA_TRY(cudaLaunchKernel(kernel, grid, block, args, dyn, ctx->stream));
    }
    ATOMICS_CUDA_TRY(cudaMemcpyAsync(ctx->h_results, ctx->d_results, result_bytes,
                                     cudaMemcpyDeviceToHost, ctx->stream));
    if (keep)
        ATOMICS_CUDA_TRY(cudaMemcpyAsync(ctx->h_diag, ctx->d_diag, diag_bytes,
                                         cudaMemcpyDeviceToHost, ctx->stream));
    ATOMICS_CUDA_TRY(cudaStreamSynchronize(ctx->stream));
    ctx->last_blocks_per_cell = blocks_per_cell;
    ctx->last_rounds = rounds;

    /* A sample is the smallest valid T of the cell's inner measurements:
     * whatever disturbs a measurement (a late warp, a start skew between
     * the blocks) can only lengthen it. */
    for (int r = 1; r < runs; r++)
        for (int i = 0; i < launch->n_cells; i++) {
            const gb_atomics_sm_result *res = result_of(ctx, r, i);
            const gb_atomics_cell_desc *d = desc_of(ctx, r, i);
            double best = NAN;
            int skewed = 0;
            for (int k = 0; k < inner; k++) {
                double t, first, last_arrival, last;
                gb_atomics_verdict v = judge(ctx, d, res, k, &t, &first, &last_arrival, &last);
                ctx->counters.measurements++;
                switch (v) {
                case GB_ATOMICS_VALID:
                    if (isnan(best) || t < best)
                        best = t;
                    break;
                case GB_ATOMICS_NOT_CORESIDENT:
                    ctx->counters.not_coresident++;
                    break;
                case GB_ATOMICS_LATE:
                    ctx->counters.late++;
                    break;
                case GB_ATOMICS_OVERRUN:
                    ctx->counters.overrun++;
                    break;
                case GB_ATOMICS_SKEWED:
                    ctx->counters.skewed++;
                    skewed = 1;
                    break;
                }
            }
            double sample = isnan(best) ? (skewed ? GB_ATOMICS_SAMPLE_SKEWED : NAN) : best / rounds;
            samples[(size_t)(r - 1) * launch->n_cells + i] = sample;
        }
    return GM_OK;
fail:
    return st;
}

gm_status gb_atomics_launch_detail(const gb_atomics_context *ctx, const gb_atomics_launch *launch,
                                   int rep, int cell, int inner, gb_atomics_cell_detail *out,
                                   gm_error *err)
{
    if (rep < 0 || rep >= launch->reps || cell < 0 || cell >= launch->n_cells || inner < 0 ||
        inner >= ctx->opt.inner_reps)
        return gm_fail(err, GM_ERR_INVALID_ARG, "repetition %d, cell %d or measurement %d out of range",
                       rep, cell, inner);
    const int r = rep + 1; /* run 0 is the warm-up */
    const gb_atomics_sm_result *res = result_of(ctx, r, cell);
    const gb_atomics_cell_desc *d = desc_of(ctx, r, cell);
    out->blocks_ok = res->ok;
    out->verdict = judge(ctx, d, res, inner, &out->t, &out->first_arrival, &out->last_arrival,
                         &out->last_completion);
    out->window = d->window;
    return GM_OK;
}

gm_status gb_atomics_launch_warps(const gb_atomics_context *ctx, const gb_atomics_launch *launch,
                                  int rep, int cell, int inner, gb_atomics_warp_detail *out,
                                  gm_error *err)
{
    if (!ctx->opt.keep_warp_times || !ctx->h_diag)
        return gm_fail(err, GM_ERR_INVALID_ARG, "per-warp times were not kept");
    if (rep < 0 || rep >= launch->reps || cell < 0 || cell >= launch->n_cells || inner < 0 ||
        inner >= ctx->opt.inner_reps)
        return gm_fail(err, GM_ERR_INVALID_ARG, "repetition %d, cell %d or measurement %d out of range",
                       rep, cell, inner);
    const int r = rep + 1;
    const unsigned smid = ctx->slot_smid[(cell + r) % ctx->n_slots];
    const gb_atomics_warp_times *w = ctx->h_diag + (((size_t)r * ctx->nsmid + smid) * ctx->opt.inner_reps +
                                                    (size_t)inner) * GB_ATOMICS_MAX_CELL_WARPS;
    for (int i = 0; i < launch->n; i++) {
        const int valid = w[i].first_arrival != ~0u;
        out[i] = (gb_atomics_warp_detail){
            .first_arrival = valid ? (double)w[i].first_arrival : NAN,
            .last_arrival = valid ? (double)w[i].last_arrival : NAN,
            .completion = valid ? (double)w[i].completion : NAN,
            .role = (int)((w[i].hw >> 8) & 0xffu),
            .hw_warp = (int)(w[i].hw & 0xffu),
            .late = (int)(w[i].hw >> 31),
        };
    }
    return GM_OK;
}
