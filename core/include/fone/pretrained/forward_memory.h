// What a forward pass of a model folder will allocate, checked before anything is allocated: the same kind
// of check training has (fone/store/model_config.h, check_model_memory). A config.json from someone else
// decides the shapes (heads, intermediate size, vocabulary, positions), and a long input multiplies them:
// without the check `fone model forward` asked LibTorch for whatever that came to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fone/pretrained/model_folder.h"

namespace fone::pretrained {

// One batch of token rows: `rows` sequences of `length` tokens each.
struct BatchShape {
    int64_t rows = 0, length = 0;
};

// The bytes a forward of these batches holds at its peak, all float32 (4 bytes):
//   weights converted at once: one block's (all_weights: every weight, as a generation session converts
//     them), counted from the folder's weight shapes whatever their stored dtype;
//   every batch's hidden states [rows, length, hidden] (kept between blocks) and, per row, the last
//     position's state after each block and the final norm ((layers + 2) * hidden) and the logits (vocab);
//   the largest batch's work inside a block: per position 5 * hidden + 3 * intermediate (the MLP's gate, up
//     and product) + q + 2 * kv (the projections) + 2 * heads * length (the attention scores and their
//     softmax).
uint64_t forward_memory_bytes(const ModelFolder& m, const std::vector<BatchShape>& batches, bool logits,
                              bool all_weights);

// PretrainedError, one line, when forward_memory_bytes is more than this machine's physical memory:
// "<dir>: this forward needs about 37.5 GB (1 row of 80000 tokens; 16 heads ...), more than this machine's
// 23.4 GB of memory".
void check_forward_memory(const ModelFolder& m, const std::vector<BatchShape>& batches, bool logits,
                          bool all_weights);

}  // namespace fone::pretrained
