// Fused CPU kernels for the small model's element-wise work, each one autograd node with a hand-written
// backward. A small model's step was half LibTorch's per-op loops and bookkeeping (docs/training.md,
// Throughput): one pass over the data here replaces 5 to 15 LibTorch operations and their backward nodes.
// Each has a composite reference (the plain LibTorch formula) that tests compare it with, and callers use
// the composite form wherever a kernel does not apply (CUDA, dtypes other than float32).
#pragma once

#include <torch/torch.h>

namespace fone {

// True when the fused kernels can take this tensor: float32 on the CPU.
bool fused_kernels_apply(const torch::Tensor& x);

// Rotary embedding, halves convention, of x [..., L, N, hd] (any leading dims, N heads; last dim
// contiguous): (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin) with cos, sin [L, hd / 2]. Bitwise the
// composite formula.
torch::Tensor fused_rotary(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);

// RMSNorm over the last dim: x * rsqrt(mean(x^2) + eps) * weight.
torch::Tensor fused_rms_norm(const torch::Tensor& x, const torch::Tensor& weight, double eps);

// SwiGLU's gate: silu(a) * b, where gate_up [..., 2I] holds a then b.
torch::Tensor fused_swiglu(const torch::Tensor& gate_up);

// Attention for few keys, computed per query row (scores, softmax, weighted values in one pass):
// q [B, Lq, H, hd], k and v [B, L, KV, hd] (views with any strides; H a multiple of KV: grouped-query),
// key_mask [B, L] bool or undefined. Query i sits at position L - Lq + i and sees keys up to it; padding
// keys are hidden except a query's own position (a padding query sees itself). Returns [B, Lq, H, hd]
// contiguous.
torch::Tensor fused_short_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                    const torch::Tensor& key_mask, double scale);

}  // namespace fone
