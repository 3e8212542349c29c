"""One process, two GPUs (GPU test multigpu, case a): the paper's histogram
kernel (Listing 1, ATOMS.ADD flavour: examples/histogram's hist_add) counts
a different random image on each device, then NCCL sums the two histograms
across the devices (torch.cuda.nccl.all_reduce: one process driving both
GPUs, no process group).  Prints a summary that depends on every count, so
that the work is used and a profiled run can be compared with a plain one
byte for byte; exits 0 only when the all-reduced histogram equals the sum of
the two images' histograms counted on the CPU.

  python3 hist_two_devices.py [--reps N] [--pixels N]

The kernel is compiled at run time by CuPy (NVRTC); without CuPy it falls
back to torch.bincount and says so (then the kernel is PyTorch's)."""
import argparse
import os
import sys

# NVLink multicast stays off (it can take the host's GPUs out of service).
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import numpy as np
import torch
import torch.cuda.nccl as nccl

HIST_BINS = 256
HIST_CHANNELS = 4

# Listing 1 of paper 000 (Sec. 4), as examples/histogram/hist_paper.cu's
# paper_histogram with rotate = 0, read_result = 1: the atomicAdd results
# are summed and kept live, so the compiler emits ATOMS.ADD (not POPC.INC).
KERNEL = r"""
extern "C" __global__ void hist_add(const unsigned char *__restrict__ in,
                                    unsigned long long pixels,
                                    unsigned int *__restrict__ hist,
                                    unsigned int *__restrict__ sink)
{
    __shared__ unsigned int smem[256 * 4];
    const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long nt = (unsigned long long)gridDim.x * blockDim.x;
    unsigned int seen = 0;
    for (unsigned j = threadIdx.x; j < 256 * 4; j += blockDim.x)
        smem[j] = 0;
    __syncthreads();
    for (unsigned long long i = t; i < pixels; i += nt) {
        unsigned int off[4];
#pragma unroll
        for (int c = 0; c < 4; ++c)
            off[c] = in[i * 4 + c];
#pragma unroll
        for (int c = 0; c < 4; ++c)
            seen += atomicAdd(&smem[256 * c + off[c]], 1u);
    }
    __syncthreads();
    for (unsigned j = threadIdx.x; j < 256 * 4; j += blockDim.x)
        if (smem[j])
            atomicAdd(&hist[j], smem[j]);
    if (seen == 0xffffffffu)
        sink[0] = seen;
}
"""


def histogram_on(dev, image, reps, kernel):
    """The image's 4 x 256 histogram counted on device dev, reps times (the
    histogram is zeroed before each); returns the last as a torch tensor."""
    with torch.cuda.device(dev):
        src = torch.from_numpy(image).to(f"cuda:{dev}")
        hist = torch.zeros(HIST_BINS * HIST_CHANNELS, dtype=torch.int32, device=f"cuda:{dev}")
        if kernel is None:
            for _ in range(reps):
                hist.zero_()
                for c in range(HIST_CHANNELS):
                    hist[c * HIST_BINS:(c + 1) * HIST_BINS] = torch.bincount(
                        src[c::HIST_CHANNELS].long(), minlength=HIST_BINS).int()
            return hist
        import cupy
        with cupy.cuda.Device(dev):
            fn = kernel[dev]
            sink = torch.zeros(1, dtype=torch.int32, device=f"cuda:{dev}")
            pixels = image.size // HIST_CHANNELS
            blocks = torch.cuda.get_device_properties(dev).multi_processor_count * 2
            stream = cupy.cuda.ExternalStream(torch.cuda.current_stream(dev).cuda_stream)
            with stream:
                for _ in range(reps):
                    hist.zero_()
                    fn((blocks,), (1024,), (cupy.asarray(src), np.uint64(pixels),
                                           cupy.asarray(hist), cupy.asarray(sink)))
        return hist


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pixels", type=int, default=1 << 22)
    a = ap.parse_args()
    if torch.cuda.device_count() < 2:
        print("hist_two_devices: needs 2 GPUs, found", torch.cuda.device_count())
        return 77
    try:
        import cupy
        kernel = {}
        for dev in (0, 1):
            with cupy.cuda.Device(dev):
                kernel[dev] = cupy.RawKernel(KERNEL, "hist_add")
        which = "hist_add (Listing 1, NVRTC)"
    except ImportError:
        kernel = None
        which = "torch.bincount (CuPy not installed)"
    rng = np.random.default_rng(2026)
    images = [rng.integers(0, 256, a.pixels * HIST_CHANNELS, dtype=np.uint8) for _ in (0, 1)]
    hists = [histogram_on(dev, images[dev], a.reps, kernel) for dev in (0, 1)]
    for dev in (0, 1):
        torch.cuda.synchronize(dev)
    # Per-device check against the CPU before the sum.
    want = []
    for img in images:
        w = np.concatenate([np.bincount(img[c::HIST_CHANNELS], minlength=HIST_BINS)
                            for c in range(HIST_CHANNELS)])
        want.append(w)
    for dev in (0, 1):
        if not np.array_equal(hists[dev].cpu().numpy(), want[dev]):
            print(f"hist_two_devices: device {dev}: histogram differs from the CPU's")
            return 1
    nccl.all_reduce(hists)  # in place: both become the sum
    for dev in (0, 1):
        torch.cuda.synchronize(dev)
    total = want[0] + want[1]
    for dev in (0, 1):
        if not np.array_equal(hists[dev].cpu().numpy(), total):
            print(f"hist_two_devices: device {dev}: all-reduced histogram is wrong")
            return 1
    digest = int((total.astype(np.int64) * np.arange(1, total.size + 1)).sum())
    print(f"hist_two_devices: kernel {which}, {a.reps} reps x 2 devices, "
          f"{a.pixels} pixels each; all-reduced histogram sums to {int(total.sum())}, "
          f"weighted sum {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
