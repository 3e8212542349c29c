#!/usr/bin/env python3
"""PyTorch scatter workloads for the "global atomics" section: index_add_ and
scatter_add_ lower to global float atomics (RED.E.ADD.F32 / ATOMG) on CUDA.

  python3 torch_scatter.py [--n N] [--reps R]

Cases (each run R times after one warm-up, times printed in ms):
  index_add_one     every source row added into one float (one address)
  index_add_1k      into 1024 bins, indices uniform random
  scatter_add_1m    scatter_add_ into 1M floats, indices uniform random
"""
import argparse
import sys

import torch


def timed(fn, reps):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch_scatter: no CUDA device", file=sys.stderr)
        return 77
    g = torch.Generator(device="cuda").manual_seed(1)
    src = torch.rand(args.n, device="cuda", generator=g)
    zeros = torch.zeros(args.n, dtype=torch.long, device="cuda")
    idx_1k = torch.randint(0, 1024, (args.n,), device="cuda", generator=g)
    idx_1m = torch.randint(0, 1 << 20, (args.n,), device="cuda", generator=g)
    one = torch.zeros(1, device="cuda")
    bins = torch.zeros(1024, device="cuda")
    big = torch.zeros(1 << 20, device="cuda")
    cases = [
        ("index_add_one", lambda: one.index_add_(0, zeros, src)),
        ("index_add_1k", lambda: bins.index_add_(0, idx_1k, src)),
        ("scatter_add_1m", lambda: big.scatter_add_(0, idx_1m, src)),
    ]
    for name, fn in cases:
        print("%s,%.4f" % (name, timed(fn, args.reps)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
