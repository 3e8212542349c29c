"""A PyTorch program of a fixed number of kernel launches, for measuring what
profiling costs per launch on a framework program (docs/profile.md,
"Measured cost"; scripts/bench_profile_overhead.sh times it).

Steps of a small two-layer MLP update on a 512 x 256 float32 batch: two
matrix products (cuBLAS), the bias add, the ReLU, tanh, the scale and the
residual add.  Then --pad in-place scalings (one elementwise kernel each)
and one sum (float32: a float64 sum of a float32 tensor would add a cast
kernel).  Inputs are made on the CPU from a fixed seed and copied to the GPU
(copies, no kernel).

Seven operations per step, but not seven kernels: with torch 2.11.0+cu130
(CUDA 13.0) on an H100 a step launches 9 kernels.  Measured there as the
rows of gpuq profile's counters file (2026-11-25): 57 steps, no pad, 514
rows; 1 step, no pad, 10 rows; so 9 per step and 1 (the sum) outside them.
The defaults, 44 steps and 3 pads, make 44 x 9 + 3 + 1 = 400 launches.  Other
library versions may launch another number per step:
scripts/gpu_bench_overhead.sh counts them and picks --steps/--pad for 400,
and the GPU test tests/profile/torch400_check.py fails, naming the count.

Prints the checksum, which depends on every launch's result; the same
digits in every run (cuBLAS is deterministic for one GPU model and shapes).
"""
import argparse

import torch

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--steps", type=int, default=44,
               help="MLP steps, 9 launches each with torch 2.11 on an H100 (44)")
p.add_argument("--pad", type=int, default=3, help="extra one-kernel scalings (3)")
a = p.parse_args()
if a.steps < 0 or a.pad < 0:
    p.error("--steps and --pad must be >= 0")

gen = torch.Generator().manual_seed(14)
B, D, H = 512, 256, 256
x = (torch.rand(B, D, generator=gen) - 0.5).cuda()
w1 = ((torch.rand(D, H, generator=gen) - 0.5) * (2.0 / D ** 0.5)).cuda()
b1 = ((torch.rand(H, generator=gen) - 0.5) * 0.1).cuda()
w2 = ((torch.rand(H, D, generator=gen) - 0.5) * (2.0 / H ** 0.5)).cuda()

for _ in range(a.steps):
    h = torch.mm(x, w1)           # 9 launches in all per step (see above)
    h = h + b1
    h = torch.relu(h)
    y = torch.mm(h, w2)
    x = x + 0.1 * torch.tanh(y)
for _ in range(a.pad):
    x.mul_(0.999)                 # 1
total = float(x.sum())            # 1, then a copy to the host
print(f"torch_steps: {a.steps} steps, pad {a.pad}: checksum {total:.6e}")
