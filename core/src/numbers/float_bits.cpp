#include "fone/numbers/float_bits.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace fone {

Float64Bits float64_bits(double x) {
    const auto word = std::bit_cast<std::uint64_t>(x);
    Float64Bits bits{};
    for (int i = 0; i < kFloat64Bits; ++i)
        bits[static_cast<std::size_t>(i)] = ((word >> (kFloat64Bits - 1 - i)) & 1u) != 0;
    return bits;
}

double from_float64_bits(const Float64Bits& bits) {
    std::uint64_t word = 0;
    for (int i = 0; i < kFloat64Bits; ++i)
        word = (word << 1) | (bits[static_cast<std::size_t>(i)] ? 1u : 0u);
    return std::bit_cast<double>(word);
}

int bit_feature_width(bool reciprocal) {
    return reciprocal ? 2 * kFloat64Bits : kFloat64Bits;
}

template <class T>
void bit_features_into(double x, bool reciprocal, T* out) {
    const auto put = [&](double v, T* to) {
        const Float64Bits bits = float64_bits(v);
        for (std::size_t i = 0; i < bits.size(); ++i)
            to[i] = bits[i] ? T(1) : T(-1);
    };
    put(x, out);
    if (reciprocal) put(1.0 / x, out + kFloat64Bits);
}
template void bit_features_into<float>(double, bool, float*);
template void bit_features_into<double>(double, bool, double*);

std::optional<Decimal> decimal_of_double(double x) {
    if (!std::isfinite(x) || std::fabs(x) > 1e300) return std::nullopt;
    char text[64];
    std::snprintf(text, sizeof text, "%.13e", x);  // 14 significant digits, correctly rounded
    Decimal d;
    if (!Decimal::try_parse(text, d)) return std::nullopt;
    return d;
}

}  // namespace fone
