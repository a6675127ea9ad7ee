// Pieces the number schemes share: the arithmetic vocabulary, prompts as operators and numbers, and
// left-padded token rows. Private to core/src/*scheme*.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "fone/numbers/decimal.h"
#include "fone/numbers/fourier.h"
#include "fone/tasks/tasks.h"

namespace fone {

// The words of the arithmetic tasks, the first ids of every scheme's vocabulary: the operators in the
// order of fone::kBaseOps (fone/tasks/expression.h), then "=". Token schemes add their number tokens after
// kBaseVocab.
enum Token : int64_t { kPad = 0, kBos, kEos, kNum, kPlus, kMinus, kTimes, kComma, kMod, kEquals, kBaseVocab };
const std::vector<std::string>& base_vocabulary();

// A prompt as the model's words in order: an operator (token id) or a number (token kNum + its value).
struct PromptItem {
    int64_t token;
    Decimal number;  // when token == kNum
};

// A scheme's words: the base words (ids 0..kBaseVocab-1, the start of every scheme's vocabulary) and the
// operators beyond kBaseOps that the run's task uses (task_extra_ops: "/" for div, "max" for compare),
// whose ids follow the scheme's own tokens from `first_extra` on, so that the vocabularies of runs
// without them stay as they were.
class Words {
  public:
    Words() = default;
    Words(std::vector<Op> extra, int64_t first_extra);
    // The operator's token id. Throws std::invalid_argument naming an operator the model has no token
    // for and listing those it has.
    int64_t token(Op op) const;
    // The extra operators' names, in id order: the scheme appends them to its vocabulary at first_extra.
    std::vector<std::string> extra_names() const;
    // [BOS] a op b ... = for an example.
    std::vector<PromptItem> items(const Example& e) const;
    // [BOS] + a user's prompt, word by word as parse_prompt (fone/tasks/expression.h) reads it: its
    // numbers, operators and "=". Throws what parse_prompt and token() throw.
    std::vector<PromptItem> items(const std::string& prompt) const;
    // The same from the prompt's words already read by parse_prompt. Throws what token() throws.
    std::vector<PromptItem> items(const std::vector<PromptTerm>& terms) const;

  private:
    std::vector<Op> extra_;
    int64_t first_extra_ = kBaseVocab;
};

// The token ids of prompts' items, left-padded (PromptItem::token; kNum for numbers).
torch::Tensor item_tokens(const std::vector<std::vector<PromptItem>>& rows);

// Calls fn(number, flat position) for every number of rows of items left-padded to length l.
template <class Fn>
void for_each_number(const std::vector<std::vector<PromptItem>>& rows, int64_t l, Fn fn) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const int64_t offset = l - static_cast<int64_t>(rows[i].size());
        for (std::size_t j = 0; j < rows[i].size(); ++j)
            if (rows[i][j].token == kNum)
                fn(rows[i][j].number, static_cast<int64_t>(i) * l + offset + static_cast<int64_t>(j));
    }
}

// xVal's pieces (xval_head.cpp, the head of arithmetic and text runs alike): values are divided by the
// largest magnitude the digit slots hold, base^int_digits, so that the scaled [NUM] embedding and the
// regression target stay within [-1, 1] (xVal normalises each data set by hand); a regressed value v
// (already multiplied back) is rounded to the slots' fractional digits, nullopt when it is not finite or
// 10 x that magnitude or more.
double xval_scale(const FoneSpec& spec);
std::optional<Decimal> xval_rounded(double v, const FoneSpec& spec);

// BitTokens' pieces (bittokens_head.cpp, the head of arithmetic and text runs alike): the head's loss weight
// (num_loss_weight in every config of their runs), the factor of the ±1 input features (zero_pad's
// sqrt(hidden / features)), the doubles whose bits are the signs of logits [N, 64], and the 0/1 float labels
// [N, 64] of values [N] (float64, any device; the labels on the same device).
inline constexpr double kBitTokensLossWeight = 10.0;
double bittokens_input_scale(int64_t hidden, bool reciprocal);
std::vector<double> doubles_of_bit_logits(const torch::Tensor& logits);
torch::Tensor bit_labels(const torch::Tensor& values);

// Token rows left-padded with kPad to the longest: [N, L] int64.
torch::Tensor left_padded(const std::vector<std::vector<int64_t>>& rows);
// false at padding; undefined when no row is padded.
torch::Tensor key_mask_of(const torch::Tensor& tokens);

}  // namespace fone
