// Setting up LibTorch for a computation: threads, and bf16 autocast on CUDA. Private to core/src/train/.
#pragma once

#include <torch/torch.h>

namespace fone {

// torch's intra-op threads: `threads`, or every core this process may use (available_cores) for threads <= 0.
void set_threads(int threads);

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
