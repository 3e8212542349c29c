"""A PyTorch program with NVTX ranges, for gpuq profile --nvtx-include
(tests/profile/nvtx_check.py): four identical MLP steps on the GPU, the
second inside a push/pop range "step" (torch.cuda.nvtx.range_push/pop), the
fourth inside a start/end range "phase" (range_start/range_end), the first
and third outside any range.  Prints a checksum of every step's result."""
import torch

torch.manual_seed(0)
x = torch.randn(256, 128, device="cuda")  # CUDA starts before any range
w1 = torch.randn(128, 256, device="cuda") * 0.05
w2 = torch.randn(256, 64, device="cuda") * 0.05


def step():
    h = torch.relu(x @ w1)
    return torch.tanh(h @ w2).sum()


total = step()  # outside
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("step")
total = total + step()
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()
total = total + step()  # outside
torch.cuda.synchronize()
rid = torch.cuda.nvtx.range_start("phase")
total = total + step()
torch.cuda.synchronize()
torch.cuda.nvtx.range_end(rid)
print("checksum %.4f" % total.item())
