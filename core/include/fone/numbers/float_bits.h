// The IEEE 754 binary64 bit pattern of a number: what BitTokens (Kreitner et al., arXiv 2510.06824;
// KreitnerL/BitTokens, networks/number_embedding_modules/bittoken_embedding.py) feeds a model and reads back
// bit by bit. Bit 0 is the sign, bits 1-11 the exponent (biased by 1023), bits 12-63 the significand, most
// significant first: the order BitTokens' `(x.view(int64) >> arange(63, -1, -1)) & 1` gives. Plain C++.
#pragma once

#include <array>
#include <optional>

#include "fone/numbers/decimal.h"

namespace fone {

inline constexpr int kFloat64Bits = 64;
using Float64Bits = std::array<bool, kFloat64Bits>;

// The bits of x, sign first.
Float64Bits float64_bits(double x);
// The double whose bits these are (NaN and the infinities included).
double from_float64_bits(const Float64Bits& bits);

// BitTokens' input features of x (their combine_embeds): each bit b as 2b - 1, so +1 or -1; with
// `reciprocal` the 64 bits of 1/x follow (1/0 is +inf: its bits like any other). 64 or 128 entries.
int bit_feature_width(bool reciprocal);
template <class T>
void bit_features_into(double x, bool reciprocal, T* out);

// BitTokens' exact-match reading of a predicted double: its value to 14 significant digits (their
// exact_number_acc counts a prediction right when it agrees with the answer to 14 significant digits),
// as a Decimal. nullopt for NaN, the infinities and magnitudes Decimal cannot hold (beyond 1e300).
std::optional<Decimal> decimal_of_double(double x);

}  // namespace fone
