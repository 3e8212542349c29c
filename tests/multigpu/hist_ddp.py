"""One process per GPU, started as torchrun starts them (GPU test multigpu,
case b): each rank counts its own random image with the paper's histogram
kernel (hist_two_devices.KERNEL, via CuPy; torch.bincount without CuPy) on
device LOCAL_RANK, then torch.distributed (NCCL backend) all-reduces the
histograms.  Rank 0 prints a summary that depends on every count; every rank
exits 0 only when the sum equals the CPU's.

  torchrun --nproc_per_node 2 hist_ddp.py [--reps N] [--pixels N]
  python3 -m torch.distributed.run --nproc_per_node 2 hist_ddp.py"""
import argparse
import os
import sys

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import numpy as np
import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hist_two_devices as h2  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pixels", type=int, default=1 << 22)
    a = ap.parse_args()
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    dev = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", device_id=torch.device(f"cuda:{dev}"))
    try:
        import cupy
        with cupy.cuda.Device(dev):
            kernel = {dev: cupy.RawKernel(h2.KERNEL, "hist_add")}
        which = "hist_add (Listing 1, NVRTC)"
    except ImportError:
        kernel = None
        which = "torch.bincount (CuPy not installed)"
    images = [np.random.default_rng(2026 + r).integers(0, 256, a.pixels * h2.HIST_CHANNELS,
                                                       dtype=np.uint8) for r in range(world)]
    hist = h2.histogram_on(dev, images[rank], a.reps, kernel)
    dist.all_reduce(hist)
    torch.cuda.synchronize(dev)
    total = sum(np.concatenate([np.bincount(img[c::h2.HIST_CHANNELS], minlength=h2.HIST_BINS)
                                for c in range(h2.HIST_CHANNELS)]) for img in images)
    ok = np.array_equal(hist.cpu().numpy(), total)
    flag = torch.tensor([0 if ok else 1], device=f"cuda:{dev}")
    dist.all_reduce(flag)
    dist.destroy_process_group()
    if flag.item():
        print(f"hist_ddp: rank {rank}: all-reduced histogram is wrong" if not ok else
              f"hist_ddp: rank {rank}: another rank's histogram is wrong")
        return 1
    if rank == 0:
        digest = int((total.astype(np.int64) * np.arange(1, total.size + 1)).sum())
        print(f"hist_ddp: kernel {which}, {a.reps} reps x {world} ranks, {a.pixels} pixels "
              f"each; all-reduced histogram sums to {int(total.sum())}, weighted sum {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
