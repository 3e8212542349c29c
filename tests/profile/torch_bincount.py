"""A PyTorch program for the gpuq profile GPU test: torch.bincount over a
uniform random 8-bit image, whose histogram kernel counts into shared memory
with atomics.  Prints the histogram's total so that the work is used."""
import torch

values = torch.randint(0, 256, (1 << 22,), device="cuda", dtype=torch.int64)
counts = torch.bincount(values, minlength=256)
torch.cuda.synchronize()
print(f"torch_bincount: {int(counts.sum())} values in {counts.numel()} bins")
