// Setting up LibTorch for a computation: threads, and bf16 autocast. Private to core/src/ (the torch
// folders: checkpoints, hf, nn, train).
#pragma once

#include <torch/torch.h>

#include "fone/nn/device.h"

namespace fone {

// torch's intra-op threads (and OpenBLAS's): `threads`, or for threads <= 0 the CPUs free now
// (choose_threads, fone/nn/device.h, over at least `min_seconds` of the machine's load).
ThreadChoice set_threads(int threads, double min_seconds = 0.05);
// The same count for LibTorch's intra-op pool and OpenBLAS: one pool, never two oversubscribing each other.
void apply_threads(int threads);

// bf16 mixed precision (`--precision bf16`, docs/gpu.md, "bf16"): while it lives, LibTorch's autocast runs
// the matrix products of `device` (CUDA, or the CPU) in bf16 and keeps reductions, norms and the loss in
// fp32; the weights, their gradients and AdamW's moments stay fp32. Wrap the forward pass and the loss only:
// backward runs each product in the type its forward used. Nothing happens when `on` is false.
class Bf16Autocast {
  public:
    Bf16Autocast(const torch::Device& device, bool on);
    ~Bf16Autocast();
    Bf16Autocast(const Bf16Autocast&) = delete;
    Bf16Autocast& operator=(const Bf16Autocast&) = delete;

  private:
    bool on_;
    bool cuda_;
};

}  // namespace fone
