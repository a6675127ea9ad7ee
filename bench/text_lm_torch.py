#!/usr/bin/env python3
"""The text model of `fone train --task text` in PyTorch, for a side-by-side training speed (issue 30).

Run by hand (not a dependency of the build or the tests), with any PyTorch 2.x, e.g. the venv
/work/venvs/hf:

    nice -n 10 /work/venvs/hf/bin/python bench/text_lm_torch.py --vocab 2012 --steps 20

It builds the same Llama-style decoder as core/src/nn/model.cpp with the same shape (the text-factbook
experiment's cpu preset by default: hidden 64, 2 layers, 2 heads, 1 key-value head, head width 32, SwiGLU
width 256): token embedding (normal, std 0.02) tied to the LM head; per block RMSNorm (eps 1e-5, no bias)
-> one q/k/v projection without bias -> rotary positions (theta 500000, the two halves of each head
rotated, as model.cpp's rotate) -> causal grouped-query attention -> output projection; RMSNorm -> one
gate/up projection -> silu(gate) * up -> down projection; a final RMSNorm; the cross-entropy of the next
token over every position; AdamW (lr 3e-3 as the text runs' default, weight decay 0.01) with the gradient
norm clipped at 1. It trains on random tokens in windows of --context, --batch windows a step, on one
thread (torch.set_num_threads(1), as `--threads 1`), and prints the training tokens per second of wall
time and of process CPU time after --warmup untimed steps, as one JSON line.

`fone`'s own figure for the same shape is the training windows per second of a run's epoch (its eval
events' examples_per_second, times the window): docs/text.md, "Speed on the corpus".
"""
import argparse
import json
import math
import os
import platform
import time

import torch
import torch.nn.functional as F


class RMSNorm(torch.nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)


class Block(torch.nn.Module):
    def __init__(self, a):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = a.heads, a.kv_heads, a.head_dim
        self.attn_norm = RMSNorm(a.hidden, 1e-5)
        self.qkv = torch.nn.Linear(a.hidden, (a.heads + 2 * a.kv_heads) * a.head_dim, bias=False)
        self.o = torch.nn.Linear(a.heads * a.head_dim, a.hidden, bias=False)
        self.mlp_norm = RMSNorm(a.hidden, 1e-5)
        self.gate_up = torch.nn.Linear(a.hidden, 2 * a.intermediate, bias=False)
        self.down = torch.nn.Linear(a.intermediate, a.hidden, bias=False)
        for m in (self.qkv, self.o, self.gate_up, self.down):
            torch.nn.init.normal_(m.weight, 0.0, 0.02)

    def forward(self, x, cos, sin):
        b, l, _ = x.shape
        qw, kvw = self.heads * self.head_dim, self.kv_heads * self.head_dim
        proj = self.qkv(self.attn_norm(x))
        q = proj[..., :qw].reshape(b, l, self.heads, self.head_dim).transpose(1, 2)
        k = proj[..., qw:qw + kvw].reshape(b, l, self.kv_heads, self.head_dim).transpose(1, 2)
        v = proj[..., qw + kvw:].reshape(b, l, self.kv_heads, self.head_dim).transpose(1, 2)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        group = self.heads // self.kv_heads
        if group > 1:  # grouped-query attention, as model.cpp expands it
            k = k.repeat_interleave(group, dim=1)
            v = v.repeat_interleave(group, dim=1)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = x + self.o(out.transpose(1, 2).reshape(b, l, qw))
        gate, up = self.gate_up(self.mlp_norm(h)).chunk(2, -1)
        return h + self.down(F.silu(gate) * up)


class Model(torch.nn.Module):
    def __init__(self, a):
        super().__init__()
        self.embed = torch.nn.Embedding(a.vocab, a.hidden)
        torch.nn.init.normal_(self.embed.weight, 0.0, 0.02)
        self.blocks = torch.nn.ModuleList(Block(a) for _ in range(a.layers))
        self.final_norm = RMSNorm(a.hidden, 1e-5)
        inv = 500000.0 ** (-torch.arange(0, a.head_dim, 2, dtype=torch.float64) / a.head_dim)
        angles = torch.arange(a.context, dtype=torch.float64)[:, None] * inv[None, :]
        self.register_buffer("cos", angles.cos().float())
        self.register_buffer("sin", angles.sin().float())

    def forward(self, tokens):
        x = self.embed(tokens)
        for blk in self.blocks:
            x = blk(x, self.cos, self.sin)
        return self.final_norm(x) @ self.embed.weight.t()  # tied LM head


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--vocab", type=int, default=2012, help="vocabulary (a text run's vocab_size)")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--kv-heads", dest="kv_heads", type=int, default=1)
    p.add_argument("--head-dim", dest="head_dim", type=int, default=32)
    p.add_argument("--intermediate", type=int, default=256)
    p.add_argument("--context", type=int, default=256, help="window (tokens)")
    p.add_argument("--batch", type=int, default=32, help="windows per step")
    p.add_argument("--steps", type=int, default=20, help="timed steps")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    model = Model(a)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    data = torch.randint(a.vocab, (a.warmup + a.steps, a.batch, a.context + 1))

    def step(i):
        x, y = data[i, :, :-1], data[i, :, 1:]
        loss = F.cross_entropy(model(x).reshape(-1, a.vocab), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item()

    for i in range(a.warmup):
        step(i)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for i in range(a.warmup, a.warmup + a.steps):
        loss = step(i)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    tokens = a.steps * a.batch * a.context
    params = sum(t.numel() for t in model.parameters())
    print(json.dumps({
        "torch": torch.__version__, "python": platform.python_version(), "threads": torch.get_num_threads(),
        "params": params, "vocab": a.vocab, "context": a.context, "batch": a.batch, "steps": a.steps,
        "seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
        "tokens_per_second": round(tokens / wall), "tokens_per_cpu_second": round(tokens / cpu),
        "last_loss": round(loss, 4), "uniform_loss": round(math.log(a.vocab), 4), "load": os.getloadavg(),
    }))


if __name__ == "__main__":
    main()
