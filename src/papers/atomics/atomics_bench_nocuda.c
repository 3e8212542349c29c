/* Built when no CUDA compiler was found at configure time: the scheduler
 * (atomics_sched.c) still works, every call that needs the GPU says why it cannot. */
#include "atomics_bench.h"

#define ATOMICS_NO_CUDA "gpuq was built without CUDA (no nvcc at configure time)"

int gb_atomics_available(void)
{
    return 0;
}

gm_status gb_atomics_open(int device, gb_atomics_context **out, gm_error *err)
{
    (void)device;
    *out = NULL;
    return gm_fail(err, GM_ERR_UNSUPPORTED, ATOMICS_NO_CUDA);
}

void gb_atomics_close(gb_atomics_context *ctx)
{
    (void)ctx;
}

gm_status gb_device_identity(int device, gm_mdata_meta *meta, gm_error *err)
{
    (void)device;
    (void)meta;
    return gm_fail(err, GM_ERR_UNSUPPORTED, ATOMICS_NO_CUDA);
}

void gb_atomics_device_meta(const gb_atomics_context *ctx, gm_atomics_table_meta *meta)
{
    (void)ctx;
    (void)meta;
}

int gb_atomics_cells_per_launch(const gb_atomics_context *ctx)
{
    (void)ctx;
    return 0;
}

gm_status gb_atomics_measure_sm_clock(gb_atomics_context *ctx, double *mhz, gm_error *err)
{
    (void)ctx;
    *mhz = 0;
    return gm_fail(err, GM_ERR_UNSUPPORTED, ATOMICS_NO_CUDA);
}

gm_status gb_atomics_run_launch(gb_atomics_context *ctx, const gb_atomics_launch *launch,
                                double *samples, gm_error *err)
{
    (void)ctx;
    (void)launch;
    (void)samples;
    return gm_fail(err, GM_ERR_UNSUPPORTED, ATOMICS_NO_CUDA);
}

void gb_atomics_run_options_default(gb_atomics_run_options *opt)
{
    *opt = (gb_atomics_run_options){.inner_reps = GB_ATOMICS_DEFAULT_INNER_REPS,
                                    .skew_fraction = GB_ATOMICS_DEFAULT_SKEW_FRACTION,
                                    .skew_floor = GB_ATOMICS_DEFAULT_SKEW_FLOOR};
}

gm_status gb_atomics_set_run_options(gb_atomics_context *ctx, const gb_atomics_run_options *opt,
                                     gm_error *err)
{
    (void)ctx;
    (void)opt;
    return gm_fail(err, GM_ERR_UNSUPPORTED, ATOMICS_NO_CUDA);
}

void gb_atomics_get_run_counters(const gb_atomics_context *ctx, gb_atomics_run_counters *out)
{
    (void)ctx;
    *out = (gb_atomics_run_counters){0};
}

gm_status gb_atomics_launch_detail(const gb_atomics_context *ctx, const gb_atomics_launch *launch,
                                   int rep, int cell, int inner, gb_atomics_cell_detail *out,
                                   gm_error *err)
{
    (void)ctx;
    (void)launch;
    (void)rep;
    (void)cell;
    (void)inner;
    (void)out;
    return gm_fail(err, GM_ERR_UNSUPPORTED, ATOMICS_NO_CUDA);
}

gm_status gb_atomics_launch_warps(const gb_atomics_context *ctx, const gb_atomics_launch *launch,
                                  int rep, int cell, int inner, gb_atomics_warp_detail *out,
                                  gm_error *err)
{
    (void)ctx;
    (void)launch;
    (void)rep;
    (void)cell;
    (void)inner;
    (void)out;
    return gm_fail(err, GM_ERR_UNSUPPORTED, ATOMICS_NO_CUDA);
}
