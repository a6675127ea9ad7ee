// Batch FoNE encoding into LibTorch tensors, for training. This header includes torch: include it only
// from core and CLI sources, never from Qt code (see docs/CONTRIBUTING.md, "the torch firewall").
#pragma once

#include <span>

#include <torch/types.h>

#include "fone/numbers/decimal.h"
#include "fone/numbers/fourier.h"

namespace fone {

// [batch, dim] float32 on the CPU: row b is FoNE(numbers[b]) zero-padded to dim (dim = 0: spec.width()).
// Computed from the exact representation. Throws NumberError naming the first number that does not fit.
torch::Tensor encode_batch(std::span<const Decimal> numbers, const FoneSpec& spec, int64_t dim = 0);

// [batch, m+n] int64 label digits (slot 0 = least significant) and [batch] int64 signs (1 = negative).
torch::Tensor label_digits_batch(std::span<const Decimal> numbers, const FoneSpec& spec);
torch::Tensor label_signs_batch(std::span<const Decimal> numbers);

}  // namespace fone
