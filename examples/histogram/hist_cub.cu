/* CUB baseline: cub::DeviceHistogram::MultiHistogramEven<4, 4> from the
 * toolkit's CCCL headers.  The only C++ in the example; C callers see two
 * extern "C" functions (hist_gpu.h). */
#include <cub/device/device_histogram.cuh>
#include <cuda/std/array>

#include "hist_gpu.h"

using channel_counters = ::cuda::std::array<uint32_t *, HIST_CHANNELS>;
using channel_ints = ::cuda::std::array<int, HIST_CHANNELS>;

/* 257 evenly spaced levels over [0, 256): one bin per 8-bit value, the same
 * layout as the shared-memory kernels (channel c at c * HIST_BINS). */
static const channel_ints cub_num_levels = {HIST_BINS + 1, HIST_BINS + 1, HIST_BINS + 1,
                                            HIST_BINS + 1};
static const channel_ints cub_lower = {0, 0, 0, 0};
static const channel_ints cub_upper = {HIST_BINS, HIST_BINS, HIST_BINS, HIST_BINS};

extern "C" int hist_cub_temp_bytes(size_t pixels, size_t *bytes)
{
    const channel_counters bins = {nullptr, nullptr, nullptr, nullptr};

    *bytes = 0;
    return (int)cub::DeviceHistogram::MultiHistogramEven<HIST_CHANNELS, HIST_CHANNELS>(
        nullptr, *bytes, static_cast<const unsigned char *>(nullptr), bins, cub_num_levels,
        cub_lower, cub_upper, static_cast<int>(pixels));
}

extern "C" int hist_cub_run(void *temp, size_t temp_bytes, const uint8_t *rgba, size_t pixels,
                            uint32_t *hist, void *stream)
{
    channel_counters bins;

    for (int c = 0; c < HIST_CHANNELS; c++)
        bins[c] = hist + c * HIST_BINS;
    return (int)cub::DeviceHistogram::MultiHistogramEven<HIST_CHANNELS, HIST_CHANNELS>(
        temp, temp_bytes, static_cast<const unsigned char *>(rgba), bins, cub_num_levels,
        cub_lower, cub_upper, static_cast<int>(pixels), static_cast<cudaStream_t>(stream));
}
