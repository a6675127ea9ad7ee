// Choosing the next token from logits: greedy, or a draw from softmax(logits / temperature) among the
// top-k. One owner for every generator (a text run's model: schemes/text_scheme.cpp; a pretrained model
// folder: hf/generate.cpp), so that the same seed and settings draw the same way everywhere.
// Private to core/src/ (torch types).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <torch/torch.h>

namespace fone {

// The next token of every row of logits [n, vocab]: the most probable (temperature <= 0; the first of
// equal maxima, as torch.argmax), else a draw from softmax(logits / temperature), among the top_k most
// probable tokens when top_k > 0.
std::vector<int64_t> choose_tokens(const torch::Tensor& logits, double temperature, int top_k,
                                   std::mt19937_64& rng);

}  // namespace fone
