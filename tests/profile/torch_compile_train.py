"""A torch.compile'd model as PyTorch users write it: a small MLP, compiled
(TorchInductor: Triton kernels generated and compiled at run time), trained
for a few AdamW steps on random data.  --mode reduce-overhead makes
Inductor capture the steps into CUDA graphs.  Prints the last loss, which
depends on every step."""
import argparse

import torch

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--steps", type=int, default=4)
p.add_argument("--mode", default="default", choices=("default", "reduce-overhead"))
a = p.parse_args()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.GELU(),
                            torch.nn.LayerNorm(1024), torch.nn.Linear(1024, 512)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(256, 512, device="cuda")
y = torch.randn(256, 512, device="cuda")


@torch.compile(mode=a.mode)
def step_loss(inp, target):
    return torch.nn.functional.mse_loss(model(inp), target)


loss = None
for _ in range(a.steps):
    if a.mode == "reduce-overhead":
        # a replay of the step's CUDA graphs overwrites the last step's
        # outputs: torch.compile asks for this mark before each step
        torch.compiler.cudagraph_mark_step_begin()
    out = step_loss(x, y)
    out.backward()
    opt.step()
    opt.zero_grad(set_to_none=False)
    loss = out.item()
print("loss %.6f" % loss)
