#include "fone/numbers/number_encodings.h"

#include <cmath>
#include <cstdio>

#include "fone/numbers/float_bits.h"
#include "fone/numbers/number_pieces.h"

namespace fone {
namespace {

NumberEncoding fone_clocks(const Decimal& x, const FoneSpec& spec) {
    NumberEncoding e{"fone",
                     "one [NUM] token; each period T adds a clock hand (cos 2πx/T, sin 2πx/T)",
                     {"[NUM]"},
                     encode(x, spec),
                     {}};
    for (const Period& p : spec.periods()) {
        e.vector_labels.push_back("cos 2πx/" + p.to_string());
        e.vector_labels.push_back("sin 2πx/" + p.to_string());
    }
    if (spec.sign_feature) e.vector_labels.emplace_back("sign");
    return e;
}

NumberEncoding bit_pattern(const Decimal& x) {
    const double v = x.to_double();
    NumberEncoding e{"bittokens",
                     "one [NUM] token; the IEEE 754 float64 bits of x and of 1/x, each as +1 or -1",
                     {"[NUM]"},
                     std::vector<double>(static_cast<std::size_t>(bit_feature_width(true))),
                     {}};
    bit_features_into(v, true, e.vector.data());
    for (const char* of : {"x", "1/x"})
        for (int i = 0; i < kFloat64Bits; ++i) {
            const std::string field = i == 0    ? "sign"
                                      : i <= 11 ? "exponent bit " + std::to_string(i - 1)
                                                : "significand bit " + std::to_string(i - 12);
            e.vector_labels.push_back(std::string(of) + " " + field);
        }
    return e;
}

NumberEncoding scalar(const Decimal& x, const FoneSpec& spec) {
    const double scale = std::pow(static_cast<double>(spec.base), spec.int_digits);
    char label[64];
    std::snprintf(label, sizeof label, "x / %g", scale);
    return {"xval",
            "one [NUM] token whose embedding is multiplied by x scaled into [-1, 1]",
            {"[NUM]"},
            {x.to_double() / scale},
            {label}};
}

NumberEncoding pieces(std::string name, std::string summary, const Decimal& x, const NumberWriting& how) {
    return {std::move(name), std::move(summary), write_number_pieces(x, how), {}, {}};
}

}  // namespace

std::vector<NumberEncoding> encode_every_way(const Decimal& x, const FoneSpec& spec) {
    check_fits(x, spec);
    const NumberWriting digit{}, l2r{3, ChunkDirection::left_to_right, false, false},
        r2l{3, ChunkDirection::right_to_left, false, false},
        numerologic{1, ChunkDirection::left_to_right, true, false};
    return {
        fone_clocks(x, spec),
        bit_pattern(x),
        scalar(x, spec),
        pieces("digit", "one token per digit and point", x, digit),
        pieces("subword", "chunks of up to three digits from the left (Llama-3)", x, l2r),
        pieces("subword-r2l", "chunks of up to three digits from the point outwards (right to left)", x, r2l),
        pieces("numerologic", "digit tokens behind their count: {count:digits}", x, numerologic)};
}

}  // namespace fone
