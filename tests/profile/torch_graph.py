"""A PyTorch program with a CUDA graph, for the gpuq profile GPU test
(graph_check.py): a few elementwise steps and a reduction run eagerly once,
then are captured into torch.cuda.CUDAGraph and replayed 3 times.  Prints
the results so that the work is used."""
import torch

x = torch.linspace(0.0, 1.0, 1 << 20, device="cuda")


def step():
    y = x * 2.0 + 1.0
    z = torch.sin(y)
    return (z * z).sum()


eager = step()
torch.cuda.synchronize()
# Warm-up on a side stream, as torch.cuda.graphs documents, then capture.
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    step()
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    out = step()
for _ in range(3):
    g.replay()
torch.cuda.synchronize()
print(f"torch_graph: eager {float(eager):.3f}, graph {float(out):.3f}")
