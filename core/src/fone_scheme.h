// The FoNE number scheme: how examples become model inputs and targets. Every number is ONE [NUM] token
// plus FoNE(value) at its position; the answer is read from the final position's hidden state by the
// digit head, and the LM head learns that the next token there is [NUM]. Private to core.
#pragma once

#include <string>
#include <vector>

#include <torch/torch.h>

#include "fone/fourier.h"
#include "fone/tasks.h"

namespace fone {

// Token ids of the arithmetic vocabulary. Numbers never have tokens of their own.
enum Token : int64_t { kPad = 0, kBos, kEos, kNum, kPlus, kMinus, kTimes, kComma, kMod, kEquals, kVocabSize };
const std::vector<std::string>& vocab_names();

struct EncodedSplit {
    int64_t n = 0;
    torch::Tensor tokens;    // [N, L] int64, left-padded with kPad
    torch::Tensor fone;      // [N, L, width] float32, zero except at number positions
    torch::Tensor num_mask;  // [N, L] bool
    torch::Tensor key_mask;  // [N, L] bool, false at padding; undefined when nothing is padded
    torch::Tensor digits;    // [N, slots] int64 label digits, least significant first
    torch::Tensor signs;     // [N] int64, 1 for a negative answer
    torch::Tensor answers;   // [N] float64, for R² and RMSE
    std::vector<Decimal> answer_values;
};

// Encodes examples; throws NumberError naming the first number that does not fit the spec.
EncodedSplit encode_examples(const std::vector<Example>& examples, const FoneSpec& spec);

// A prompt as tokens and numbers: "12+5=" or "12 + 5 =" (the numbers found by the number parser, the
// rest matched against the vocabulary, spaces ignored). Throws std::invalid_argument naming an unknown
// word and listing the known ones.
struct TokenizedPrompt {
    std::vector<int64_t> tokens;   // starts with kBos
    std::vector<Decimal> numbers;  // one per kNum, in order
};
TokenizedPrompt tokenize_prompt(const std::string& prompt);
EncodedSplit encode_prompt(const TokenizedPrompt& prompt, const FoneSpec& spec);

// Index slices of an encoded split (the rows of a batch), on `device`.
EncodedSplit select_rows(const EncodedSplit& s, const torch::Tensor& rows);
EncodedSplit to_device(const EncodedSplit& s, const torch::Device& device);

}  // namespace fone
