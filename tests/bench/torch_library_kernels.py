"""A short PyTorch program of large library kernels, for measuring what
profiling costs on the kernels ML programs spend their time in
(scripts/bench_profile_vs_ncu.sh): cuBLAS GEMMs in bf16 and fp32, cuDNN
flash attention forward, a cuDNN convolution, layer norm, softmax, a CUB
radix sort and a reduction, each called --reps times on inputs made once.
Prints one checksum that depends on every result."""
import argparse

import torch
import torch.nn.functional as F

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--reps", type=int, default=2, help="calls of each operation (2)")
a = p.parse_args()
torch.manual_seed(0)
dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
g = torch.Generator(device=dev).manual_seed(0)
A = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16, generator=g)
B = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16, generator=g)
X = torch.randn(2048, 2048, device=dev, generator=g)
q, k, v = (torch.randn(8, 16, 2048, 64, device=dev, dtype=torch.bfloat16, generator=g)
           for _ in range(3))
img = torch.randn(32, 64, 56, 56, device=dev, generator=g)
w = torch.randn(64, 64, 3, 3, device=dev, generator=g)
rows = torch.randn(8192, 1024, device=dev, generator=g)
keys = torch.randn(1 << 22, device=dev, generator=g)
acc = torch.zeros((), device=dev)
for _ in range(a.reps):
    acc += (A @ B).float().mean()
    acc += (X @ X).mean()
    acc += F.scaled_dot_product_attention(q, k, v, is_causal=True).float().mean()
    acc += F.conv2d(img, w, padding=1).mean()
    acc += F.layer_norm(rows, (1024,)).mean()
    acc += torch.softmax(rows, dim=-1).max()
    acc += torch.sort(keys).values[-1]
print("checksum %.6f" % acc.item())
