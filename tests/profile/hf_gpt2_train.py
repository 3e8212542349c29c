"""A Hugging Face training script as users write it: GPT2LMHeadModel built
from a small GPT2Config (random weights, nothing downloaded), a few AdamW
steps of forward, backward and optimizer update on random tokens.  Prints
the last loss, which depends on every step."""
import argparse

import torch
from transformers import GPT2Config, GPT2LMHeadModel

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--steps", type=int, default=3)
a = p.parse_args()
torch.manual_seed(0)
cfg = GPT2Config(n_layer=2, n_head=4, n_embd=256, vocab_size=8192, n_positions=256)
model = GPT2LMHeadModel(cfg).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
ids = torch.randint(0, cfg.vocab_size, (8, 128), device="cuda")
loss = None
for _ in range(a.steps):
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    loss = out.loss.item()
print("loss %.6f" % loss)
