// How the token methods write a number as a row of tokens, and read one back: one owner for digit
// tokens, subword chunks (left to right as Llama-3 cuts them, or right to left as Singh & Strouse 2024
// recommend), NumeroLogic's digit-count prefix (Schwartz et al. 2024) and Abacus' reversed order. The
// training schemes (core/src/schemes/token_schemes.cpp), the text tokenizer's chunks and the encoding zoo
// (number_encodings.h) all write numbers through here. Plain C++.
//
//   digit        1234.5   ->  1 2 3 4 . 5
//   subword l2r  1234567  ->  123 456 7        (chunks are digit STRINGS: "007", "07" and "7" differ)
//   subword r2l  1234567  ->  1 234 567        (the integer part is cut from the point leftwards, the
//                                               fraction from the point rightwards: chunks align with
//                                               the thousands, whatever the number's length)
//   numerologic  42       ->  { 2 : 4 2 }      ({digit count:number}; a fraction adds its count after a
//                3.14     ->  { 1 . 2 : 3 . 1 4 }   point, NumeroLogic's "{1.2:3.14}"; a sign goes first:
//                -42      ->  - { 2 : 4 2 }          "-{2:42}")
//   reversed     1234.5   ->  5 . 4 3 2 1      (Abacus: least significant first; the sign stays first)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fone/numbers/decimal.h"

namespace fone {

enum class ChunkDirection { left_to_right, right_to_left };

struct NumberWriting {
    int chunk = 1;  // digits per piece at most: 1 (digit tokens) or 3 (subword chunks)
    ChunkDirection direction = ChunkDirection::left_to_right;
    bool numerologic = false;  // "{count:number}"
    bool reversed = false;     // least significant piece first (the sign stays first)
};

// The pieces NumeroLogic adds around a number.
inline constexpr std::string_view kCountOpen = "{", kCountEnd = ":", kCountClose = "}";

// `digits` (ASCII '0'..'9') cut into pieces of at most `chunk` digits: from the left, or from the right
// (then the FIRST piece is the short one: "1234567" -> "1", "234", "567").
std::vector<std::string> chunk_digits(std::string_view digits, int chunk, ChunkDirection direction);

// The pieces of x: "-" for a negative number, digit pieces (the integer part "0" when it has none), "."
// before the fraction's pieces, and NumeroLogic's braces, counts and ":" (see the table above).
std::vector<std::string> write_number_pieces(const Decimal& x, const NumberWriting& how);

// The inverse: the number that pieces written as `how` says hold, or nullopt when they are not one
// (an unknown piece, a misplaced sign or point, NumeroLogic braces missing). NumeroLogic's count is the
// model's plan, not part of the value: a count that disagrees with the digits still reads as the digits
// (its form is checked, its value is not).
std::optional<Decimal> read_number_pieces(const std::vector<std::string>& pieces, const NumberWriting& how);

}  // namespace fone
