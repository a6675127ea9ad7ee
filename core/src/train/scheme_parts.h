// Pieces the number schemes share: the arithmetic vocabulary, prompts as operators and numbers, and
// left-padded token rows. Private to core/src/*scheme*.cpp.
#pragma once

#include <string>
#include <vector>

#include <torch/torch.h>

#include "fone/numbers/decimal.h"
#include "fone/tasks/tasks.h"

namespace fone {

// The words of the arithmetic tasks, the first ids of every scheme's vocabulary: the operators in the
// order of fone::Op (fone/tasks/expression.h), then "=". Token schemes add their number tokens after
// kBaseVocab.
enum Token : int64_t { kPad = 0, kBos, kEos, kNum, kPlus, kMinus, kTimes, kComma, kMod, kEquals, kBaseVocab };
const std::vector<std::string>& base_vocabulary();

// A prompt as the model's words in order: an operator (token id) or a number (token kNum + its value).
struct PromptItem {
    int64_t token;
    Decimal number;  // when token == kNum
};
// [BOS] a op b ... = for an example.
std::vector<PromptItem> example_items(const Example& e);
// [BOS] + a user's prompt, word by word as parse_prompt (fone/tasks/expression.h) reads it: its numbers,
// operators and "=". Throws what parse_prompt throws.
std::vector<PromptItem> prompt_items(const std::string& prompt);

// Token rows left-padded with kPad to the longest: [N, L] int64.
torch::Tensor left_padded(const std::vector<std::vector<int64_t>>& rows);
// false at padding; undefined when no row is padded.
torch::Tensor key_mask_of(const torch::Tensor& tokens);

}  // namespace fone
