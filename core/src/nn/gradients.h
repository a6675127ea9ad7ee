// Gradient-norm clipping that never waits for the device. LibTorch's torch::nn::utils::clip_grad_norm_
// returns the norm as a CPU double, so on a GPU every call waits for the whole backward pass to finish before
// the CPU can queue the next kernel (its own comment says so). The trainer never reads the norm: this is the
// same arithmetic (each gradient's 2-norm, their 2-norm, the clamped scale applied in place), the same
// operations in the same order, without the read. Private to core/src/ (nn, train).
#pragma once

#include <vector>

#include <torch/torch.h>

namespace fone {

// Scales the parameters' gradients in place so that their joint 2-norm is at most max_norm (no gradient, no
// change): torch::nn::utils::clip_grad_norm_(parameters, max_norm), bit for bit, without its return value.
void clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm);

}  // namespace fone
