// fone-adapter's number pieces (docs/pretrained.md): the tokens of a pretrained tokenizer that FoNE gives a
// value. One rule for the adapter's scheme (schemes/adapter_scheme.cpp) and for `fone model inspect`, which
// counts them so that the window's model-folder box can say what a folder offers before a run starts. Kept
// out of tokenizer.h, which much of core includes.
#pragma once

#include <cstdint>
#include <string_view>

#include "fone/pretrained/tokenizer.h"

namespace fone::pretrained {

// A token whose text, less one leading space, is one to three ASCII digits ("007" is 7): the piece's value,
// else -1.
int number_piece_value(std::string_view token_text);
// How many of the tokenizer's tokens are number pieces (Llama-3: 1,110; the tiny test Llama: 34).
int64_t count_number_pieces(const BpeTokenizer& tokenizer);

}  // namespace fone::pretrained
