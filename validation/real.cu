/* Real kernels of the validation suite: the paper's two histogram kernels
 * (Sec. 4, Listings 1 and 2) and CUB's DeviceHistogram, over 8-bit RGBA
 * images with 256 bins per channel.
 *
 * Differences from the listings, on purpose: a pixel is read as one 32-bit
 * word (coalesced, and Listing 2's offsets[chan] with a run-time chan would
 * put the offsets array in local memory); the channel value is the byte
 * (pixel >> 8 chan) & 255.  The atomic instruction stream is the listings':
 * four shared atomicAdds per pixel, bins 256 chan + value.
 *
 * The replay variant (replay = 1) issues the same atomic instruction stream,
 * word for word, without reading the image: the solid colour is a kernel
 * argument, and the uniform image is vk_pixel_hash(i), which is how the test
 * image was generated.  Its time is the "atomics-only" time of the real
 * group (docs/validation.md).
 */
#include <cub/device/device_histogram.cuh>

#include "vk.h"

#define VK_HIST_BINS 256
#define VK_HIST_CHANNELS 4

template <int REORDER, int USE_RESULT, int REPLAY>
__global__ void vk_hist(vk_hist_args p)
{
    __shared__ unsigned smem[VK_HIST_BINS * VK_HIST_CHANNELS];
    for (int b = threadIdx.x; b < VK_HIST_BINS * VK_HIST_CHANNELS; b += blockDim.x)
        smem[b] = 0u;
    __syncthreads();

    unsigned acc = 0;
    const unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < p.pixels; i += stride) {
        unsigned pixel;
        if (REPLAY)
            pixel = p.uniform ? vk_pixel_hash(i) : (p.solid_rgba ^ (i & p.zero));
        else
            pixel = p.image[i];
#pragma unroll
        for (int c = 0; c < VK_HIST_CHANNELS; c++) {
            /* Listing 2, line 14: chan = (c + tid % chans) % chans */
            int chan = REORDER ? (c + (int)(threadIdx.x % VK_HIST_CHANNELS)) % VK_HIST_CHANNELS : c;
            unsigned *addr = &smem[VK_HIST_BINS * chan + ((pixel >> (8 * chan)) & 255u)];
            if (USE_RESULT)
                acc += atomicAdd(addr, 1u); /* the paper's "dummy read": ATOMS.ADD */
            else
                atomicAdd(addr, 1u);        /* ATOMS.POPC.INC */
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < VK_HIST_BINS * VK_HIST_CHANNELS; b += blockDim.x)
        if (smem[b])
            atomicAdd(&p.hist[b], smem[b]);
    if (USE_RESULT && acc == 0xFFFFFFFFu)
        p.sink[0] = acc;
}

const void *vk_hist_kernel(int reorder, int use_result, int replay)
{
    static const void *const table[2][2][2] = {
        {{(const void *)vk_hist<0, 0, 0>, (const void *)vk_hist<0, 0, 1>},
         {(const void *)vk_hist<0, 1, 0>, (const void *)vk_hist<0, 1, 1>}},
        {{(const void *)vk_hist<1, 0, 0>, (const void *)vk_hist<1, 0, 1>},
         {(const void *)vk_hist<1, 1, 0>, (const void *)vk_hist<1, 1, 1>}},
    };
    return table[reorder != 0][use_result != 0][replay != 0];
}

cudaError_t vk_hist_launch(const void *kernel, unsigned blocks, unsigned threads,
                           cudaStream_t stream, const vk_hist_args *args)
{
    void *params[] = {(void *)args};
    return cudaLaunchKernel(kernel, dim3(blocks), dim3(threads), params, 0, stream);
}

static cudaError_t vk_cub_call(vk_cub_state *st, const unsigned *image, unsigned pixels,
                               cudaStream_t stream)
{
    ::cuda::std::array<unsigned *, VK_HIST_CHANNELS> hist;
    ::cuda::std::array<int, VK_HIST_CHANNELS> num_levels, lower, upper;
    for (int c = 0; c < VK_HIST_CHANNELS; c++) {
        hist[c] = st->hist[c];
        num_levels[c] = VK_HIST_BINS + 1;
        lower[c] = 0;
        upper[c] = VK_HIST_BINS;
    }
    return cub::DeviceHistogram::MultiHistogramEven<VK_HIST_CHANNELS, VK_HIST_CHANNELS>(
        st->temp, st->temp_bytes, (const unsigned char *)image, hist, num_levels, lower, upper,
        (int)pixels, stream);
}

cudaError_t vk_cub_prepare(vk_cub_state *st, const unsigned *image, unsigned pixels)
{
    cudaError_t err;
    st->temp = NULL;
    st->temp_bytes = 0;
    for (int c = 0; c < VK_HIST_CHANNELS; c++)
        st->hist[c] = NULL;
    for (int c = 0; c < VK_HIST_CHANNELS; c++) {
        err = cudaMalloc((void **)&st->hist[c], VK_HIST_BINS * sizeof(unsigned));
        if (err != cudaSuccess)
            return err;
    }
    err = vk_cub_call(st, image, pixels, 0); /* d_temp_storage NULL: only sizes */
    if (err != cudaSuccess)
        return err;
    return cudaMalloc(&st->temp, st->temp_bytes);
}

cudaError_t vk_cub_run(vk_cub_state *st, const unsigned *image, unsigned pixels, cudaStream_t stream)
{
    return vk_cub_call(st, image, pixels, stream);
}

void vk_cub_release(vk_cub_state *st)
{
    cudaFree(st->temp);
    for (int c = 0; c < VK_HIST_CHANNELS; c++)
        cudaFree(st->hist[c]);
}
