"""A torch.compile'd model as PyTorch users write it: a small MLP, compiled
(TorchInductor: Triton kernels generated and compiled at run time), trained
for a few AdamW steps on random data.  --mode reduce-overhead makes
Inductor capture the compiled code into CUDA graphs; there the trained
model's compiled forward runs a few steps under torch.no_grad (CUDA graphs
of a training step would have their outputs overwritten by the next replay
while autograd still holds them), each step marked as torch.compile asks.
Prints the last loss, which depends on every step."""
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
loss = None
if a.mode == "default":
    @torch.compile
    def step_loss(inp, target):
        return torch.nn.functional.mse_loss(model(inp), target)

    for _ in range(a.steps):
        out = step_loss(x, y)
        out.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)
        loss = out.item()
else:
    forward = torch.compile(model, mode="reduce-overhead")
    with torch.no_grad():
        for i in range(a.steps):
            torch.compiler.cudagraph_mark_step_begin()
            loss = torch.nn.functional.mse_loss(forward(x + i), y).item()
print("loss %.6f" % loss)
