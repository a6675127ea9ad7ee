// The encoding zoo: one number under every encoding the workbench trains, side by side, with its tokens
// and the vector the model reads: FoNE's clocks, BitTokens' bits, xVal's scalar, digits, subword chunks
// left to right and right to left, NumeroLogic. `fone tokenize --all` prints it and the playground's zoo
// draws it. Plain C++; each encoding is computed by its owner (fourier.h, float_bits.h, number_pieces.h).
#pragma once

#include <string>
#include <vector>

#include "fone/numbers/decimal.h"
#include "fone/numbers/fourier.h"

namespace fone {

struct NumberEncoding {
    std::string name;                 // its --method ("subword-r2l": subword with --subword-direction r2l)
    std::string summary;              // one line: what the model sees
    std::vector<std::string> tokens;  // the tokens of the number, in order ("[NUM]" for one-token methods)
    // One-token methods: the vector added to (or, xVal, multiplying) the [NUM] embedding; token methods
    // have none (each token's embedding is a learned row of the model).
    std::vector<double> vector;
    std::vector<std::string> vector_labels;  // what each entry of `vector` is ("cos 2πx/10^1", "sign", ...)
};

// Every encoding of x, in a fixed order: fone, bittokens, xval, digit, subword, subword-r2l, numerologic.
// `spec` gives FoNE's periods and xVal's scale (10^m, as the xval method divides by); x must fit it
// (check_fits throws NumberError naming the limits). BitTokens' vector is its 64 bits as ±1 (sign,
// exponent, significand) and the 64 bits of 1/x, the configuration of the BitTokens paper's runs.
std::vector<NumberEncoding> encode_every_way(const Decimal& x, const FoneSpec& spec);

}  // namespace fone
