// Setting up LibTorch for a computation: threads, and bf16 autocast on CUDA. Private to core/src/ (the
// torch folders: checkpoints, hf, nn, train).
#pragma once

#include <torch/torch.h>

#include "fone/nn/device.h"

namespace fone {

// torch's intra-op threads (and OpenBLAS's): `threads`, or for threads <= 0 the CPUs free now
// (choose_threads, fone/nn/device.h, over at least `min_seconds` of the machine's load).
ThreadChoice set_threads(int threads, double min_seconds = 0.05);
// The same count for LibTorch's intra-op pool and OpenBLAS: one pool, never two oversubscribing each other.
void apply_threads(int threads);

// bf16 mixed precision on CUDA (matmuls in bf16, reductions and the loss in fp32) while it lives; nothing on
// the CPU. Not in use at present: the training loop lost its one use when the number schemes came in
// (commit 3e759c2), though docs/building-torch2.md describes it as on. Putting it back changes what CUDA
// runs compute: a change of its own, to be checked on a GPU.
class CudaAutocast {
  public:
    explicit CudaAutocast(const torch::Device& device);
    ~CudaAutocast();
    CudaAutocast(const CudaAutocast&) = delete;
    CudaAutocast& operator=(const CudaAutocast&) = delete;

  private:
    bool on_;
};

}  // namespace fone
