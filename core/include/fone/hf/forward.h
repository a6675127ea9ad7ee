// A pretrained model folder's forward pass (fone/pretrained/model_folder.h), in float32 whatever the
// weights' dtype, on the CPU, one block's weights in memory at a time. Results follow transformers'
// conventions so that they can be compared with it directly: hidden states for the embeddings and after
// every block, the last one after the final norm (output_hidden_states). Plain C++ here; the torch code is
// core/src/hf/decoder.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "fone/analysis/number_representations.h"
#include "fone/numbers/decimal.h"
#include "fone/pretrained/model_folder.h"
#include "fone/pretrained/tokenizer.h"

namespace fone::pretrained {

struct ForwardResult {
    std::vector<float> logits_last;               // [vocab] at the last position
    std::vector<std::vector<float>> hidden_last;  // layers + 1 entries of [hidden] at the last position
};

// One sequence of token ids. `threads` torch threads (0: auto, the CPUs free now). Throws PretrainedError for
// an empty list, an id outside the vocabulary, or more tokens than GPT-2's learned positions.
ForwardResult forward_last(const ModelFolder& folder, const std::vector<int64_t>& ids, int threads = 0);

// The prompt a number is read from in the analyses: the tokenizer's tokens of the number's text (its
// canonical decimal, "1234", "-0.5"), after the beginning of text (the post-processor's prefix, Llama-3's
// <|begin_of_text|>; else config.json's bos_token_id, GPT-2's and Pythia's <|endoftext|>; else nothing).
std::vector<int64_t> number_prompt(const ModelFolder& folder, const BpeTokenizer& tokenizer,
                                   const Decimal& x);

// The representations of numbers for the analyses (fone/analysis): each number's hidden state at the last
// token of its prompt, layer 0 the embeddings, layer k after block k, the last after the final norm.
// source is "model_hidden_states"; hidden_layer_names (model_folder.h) names the layers. Prompts of equal
// length run as one batch. `progress` hears the fraction done. Throws PretrainedError (no tokenizer.json,
// ...) and TokenizerError.
NumberRepresentations number_hidden_states(const ModelFolder& folder, const std::vector<Decimal>& numbers,
                                           int threads = 0, const std::function<void(double)>& progress = {});

}  // namespace fone::pretrained
