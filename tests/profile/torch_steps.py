"""A PyTorch program of a fixed number of kernel launches, for measuring what
profiling costs per launch on a framework program (docs/profile.md,
"Measured cost"; scripts/bench_profile_overhead.sh times it).

Steps of a small two-layer MLP update on a 512 x 256 float32 batch, each
step 7 launches: two matrix products (cuBLAS, one kernel each for these
shapes), the bias add, the ReLU, tanh, the scale and the residual add.
Then --pad in-place scalings (one elementwise kernel each) and one sum
(float32: a float64 sum of a float32 tensor would add a cast kernel).  Inputs are made on the CPU from a fixed seed and copied to the GPU
(copies, no kernel), so with the defaults, 57 steps and no pad, the program
launches 57 x 7 + 1 = 400 kernels and nothing else.  gpuq profile counts them
as the rows of its counters file; if a library version launches another
number per step, the benchmark says so and --pad makes up the difference.

Prints the checksum, which depends on every launch's result; the same
digits in every run (cuBLAS is deterministic for one GPU model and shapes).
"""
import argparse

import torch

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--steps", type=int, default=57, help="MLP steps, 7 launches each (57)")
p.add_argument("--pad", type=int, default=0, help="extra one-kernel scalings (0)")
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
    h = torch.mm(x, w1)           # 1 launch
    h = h + b1                    # 1
    h = torch.relu(h)             # 1
    y = torch.mm(h, w2)           # 1
    x = x + 0.1 * torch.tanh(y)   # 3: tanh, scale, add
for _ in range(a.pad):
    x.mul_(0.999)                 # 1
total = float(x.sum())            # 1, then a copy to the host
print(f"torch_steps: {a.steps} steps, pad {a.pad}: checksum {total:.6e}")
