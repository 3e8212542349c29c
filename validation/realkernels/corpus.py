"""Real library kernels for checking gpuq's models against ncu (issue: the
bottleneck model on the kernels real programs run).

One deterministic pass over the operations PyTorch programs spend their time
in: cuBLAS GEMMs (bf16, fp16, tf32, fp32, fp8; compute-bound square and
memory-bound skinny shapes), attention forward and backward (flash, cuDNN,
efficient), convolution forward and backward (cuDNN), layer and RMS norm,
softmax, reductions, scans, sort (CUB radix sort), unique, gather, scatter
and index_add with atomics, embedding backward, Triton kernels (a tl.dot
matmul and an elementwise kernel) and small elementwise launches.

Every operation runs --reps times after one untimed warm-up call made before
the NVTX-free measured region; the launches are the same, in the same order,
in every run of the script on one GPU and library set, so that the rows of
gpuq's counters file and ncu's rows can be matched by launch order and name.
Prints one checksum that depends on every result.
"""
import argparse
import sys

import torch
import torch.nn.functional as F

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--reps", type=int, default=2, help="calls of each operation (2)")
p.add_argument("--list", action="store_true", help="print the operations and exit")
a = p.parse_args()

torch.manual_seed(0)
dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
acc = []


def keep(t):
    # One scalar per result, so no operation can be dropped as dead.
    acc.append(t.float().sum() if t.is_floating_point() else t.float().sum())


def rnd(*shape, dtype=torch.bfloat16):
    return torch.randn(*shape, device=dev, dtype=torch.float32).to(dtype)


ops = []


def op(name):
    def deco(fn):
        ops.append((name, fn))
        return fn
    return deco


X = {}
X["a8k"], X["b8k"] = rnd(8192, 8192), rnd(8192, 8192)
X["a4k16"], X["b4k16"] = rnd(4096, 4096, dtype=torch.float16), rnd(4096, 4096, dtype=torch.float16)
X["a4kf"], X["b4kf"] = rnd(4096, 4096, dtype=torch.float32), rnd(4096, 4096, dtype=torch.float32)
X["skinny"], X["wbig"] = rnd(16, 8192), rnd(8192, 16384)


@op("gemm_bf16_8192")
def _():
    keep(X["a8k"] @ X["b8k"])


@op("gemm_fp16_4096")
def _():
    keep(X["a4k16"] @ X["b4k16"])


@op("gemm_tf32_4096")
def _():
    torch.backends.cuda.matmul.allow_tf32 = True
    keep(X["a4kf"] @ X["b4kf"])
    torch.backends.cuda.matmul.allow_tf32 = False


@op("gemm_fp32_4096")
def _():
    keep(X["a4kf"] @ X["b4kf"])


@op("gemm_bf16_skinny_m16")
def _():
    keep(X["skinny"] @ X["wbig"])


@op("gemm_fp8_4096")
def _():
    a8 = X["a4k16"].to(torch.float8_e4m3fn)
    b8 = X["b4k16"].to(torch.float8_e4m3fn).t().contiguous().t()
    one = torch.ones((), device=dev)
    keep(torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))


@op("linear_bias_bf16")
def _():
    x, w, b = rnd(2048, 4096), rnd(4096, 4096), rnd(4096)
    keep(F.linear(x, w, b))


def attn(backend, causal, backward):
    from torch.nn.attention import sdpa_kernel
    q, k, v = (rnd(8, 16, 2048, 128).requires_grad_(backward) for _ in range(3))
    with sdpa_kernel(backend):
        o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        if backward:
            o.backward(torch.ones_like(o))
            keep(q.grad)
    keep(o.detach())


@op("sdpa_flash_fwd_bwd")
def _():
    from torch.nn.attention import SDPBackend
    attn(SDPBackend.FLASH_ATTENTION, True, True)


@op("sdpa_cudnn_fwd")
def _():
    from torch.nn.attention import SDPBackend
    attn(SDPBackend.CUDNN_ATTENTION, False, False)


@op("sdpa_efficient_fwd")
def _():
    from torch.nn.attention import SDPBackend
    attn(SDPBackend.EFFICIENT_ATTENTION, False, False)


@op("conv2d_bf16_fwd_bwd")
def _():
    x = rnd(32, 256, 56, 56).to(memory_format=torch.channels_last).requires_grad_(True)
    w = rnd(256, 256, 3, 3).to(memory_format=torch.channels_last).requires_grad_(True)
    y = F.conv2d(x, w, padding=1)
    y.backward(torch.ones_like(y))
    keep(y.detach()); keep(x.grad); keep(w.grad)


@op("conv2d_fp32_fwd")
def _():
    x, w = rnd(16, 64, 112, 112, dtype=torch.float32), rnd(64, 64, 3, 3, dtype=torch.float32)
    keep(F.conv2d(x, w, padding=1))


@op("layer_norm")
def _():
    x = rnd(16384, 4096)
    keep(F.layer_norm(x, (4096,), rnd(4096), rnd(4096)))


@op("rms_norm")
def _():
    x = rnd(16384, 4096)
    keep(F.rms_norm(x, (4096,), rnd(4096)))


@op("softmax")
def _():
    keep(torch.softmax(rnd(16384, 4096, dtype=torch.float32), dim=-1))


@op("reduce_sum_max")
def _():
    x = rnd(64, 1 << 20, dtype=torch.float32)
    keep(x.sum(dim=1)); keep(x.amax(dim=0))


@op("cumsum")
def _():
    keep(torch.cumsum(rnd(1 << 26, dtype=torch.float32), 0))


@op("sort")
def _():
    keep(torch.sort(torch.rand(1 << 24, device=dev))[0])


@op("topk")
def _():
    keep(torch.topk(torch.rand(4096, 32768, device=dev), 64, dim=1)[0])


@op("unique")
def _():
    keep(torch.unique(torch.randint(0, 1 << 16, (1 << 24,), device=dev)))


@op("gather")
def _():
    src = rnd(1 << 24, dtype=torch.float32)
    keep(src[torch.randint(0, 1 << 24, (1 << 24,), device=dev)])


@op("scatter_add_atomics")
def _():
    idx = torch.randint(0, 4096, (1 << 24,), device=dev)
    out = torch.zeros(4096, device=dev)
    keep(out.index_add_(0, idx, torch.ones(1 << 24, device=dev)))


@op("embedding_bwd")
def _():
    emb = torch.nn.Embedding(50257, 1024, device=dev)
    ids = torch.randint(0, 50257, (64, 512), device=dev)
    y = emb(ids)
    y.backward(torch.ones_like(y))
    keep(emb.weight.grad)


@op("elementwise_big")
def _():
    x, y = rnd(1 << 28, dtype=torch.float32), rnd(1 << 28, dtype=torch.float32)
    keep(x + y)


@op("elementwise_small")
def _():
    x = rnd(4096, dtype=torch.float32)
    y = torch.relu(x * 2.0 + 1.0)
    keep(y); keep(torch.zeros(1024, device=dev) + 1)


@op("gelu_bf16")
def _():
    keep(F.gelu(rnd(1 << 26)))


@op("cross_entropy")
def _():
    logits = rnd(4096, 50257, dtype=torch.float32).requires_grad_(True)
    loss = F.cross_entropy(logits, torch.randint(0, 50257, (4096,), device=dev))
    loss.backward()
    keep(loss.detach()); keep(logits.grad)


def triton_ops():
    try:
        import triton
        import triton.language as tl
    except Exception as e:  # pragma: no cover - device image has triton
        print(f"corpus: triton unavailable ({e})", file=sys.stderr)
        return

    @triton.jit
    def mm(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc_ = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a_ = tl.load(A + rm[:, None] * K + (k + rk)[None, :])
            b_ = tl.load(B + (k + rk)[:, None] * N + rn[None, :])
            acc_ += tl.dot(a_, b_)
        tl.store(C + rm[:, None] * N + rn[None, :], acc_.to(tl.bfloat16))

    @triton.jit
    def axpy(X_, Y_, O_, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        tl.store(O_ + i, 2.0 * tl.load(X_ + i, mask=m) + tl.load(Y_ + i, mask=m), mask=m)

    @op("triton_dot_bf16_4096")
    def _():
        M = N = K = 4096
        A, B = rnd(M, K), rnd(K, N)
        C = torch.empty(M, N, device=dev, dtype=torch.bfloat16)
        mm[(M // 128, N // 128)](A, B, C, M, N, K, BM=128, BN=128, BK=64, num_warps=8, num_stages=3)
        keep(C)

    @op("triton_axpy")
    def _():
        n = 1 << 26
        x_, y_ = rnd(n, dtype=torch.float32), rnd(n, dtype=torch.float32)
        o = torch.empty_like(x_)
        axpy[(triton.cdiv(n, 1024),)](x_, y_, o, n, BLOCK=1024)
        keep(o)


triton_ops()

if a.list:
    print("\n".join(n for n, _ in ops))
    sys.exit(0)

skipped = []
for name, fn in ops:
    try:
        fn()  # warm-up: autotuning, JIT, cuDNN plan choice, workspace
    except Exception as e:
        skipped.append(name)
        print(f"corpus: {name} skipped ({type(e).__name__}: {str(e).splitlines()[0][:120]})",
              file=sys.stderr)
torch.cuda.synchronize()
acc.clear()
# The measured region: the launches gpuq's -s skips up to are the warm-up's.
torch.cuda.nvtx.range_push("corpus")
for name, fn in ops:
    if name in skipped:
        continue
    for _ in range(a.reps):
        fn()
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()
print("checksum %.6e" % float(torch.stack(acc).double().sum().item()))
