// The numbering of unordered pairs a <= b that the uniform tasks draw from (tasks.cpp) and that typed sums
// (typed_sums.cpp) use to tell examples apart: rank(a, b) = b(b+1)/2 + a. Private to tasks/.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace fone::detail {

inline constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

// Unordered pairs a <= b of values in [0, n): n(n+1)/2, saturated.
inline std::uint64_t pair_count(std::uint64_t n) {
    if (n == kU64Max) return kU64Max;
    std::uint64_t x = n, y = n + 1;  // one of them is even
    if (x % 2 == 0)
        x /= 2;
    else
        y /= 2;
    return x != 0 && y > kU64Max / x ? kU64Max : x * y;
}

// The rank of the pair {a, b}, in either order.
inline std::uint64_t rank_pair(std::uint64_t a, std::uint64_t b) {
    if (a > b) std::swap(a, b);
    return b * (b + 1) / 2 + a;
}

// The pair (a, b), a <= b, of rank r: the inverse of rank_pair.
inline std::pair<std::uint64_t, std::uint64_t> unrank_pair(std::uint64_t r) {
    auto tri = [](std::uint64_t b) { return b * (b + 1) / 2; };
    std::uint64_t b = static_cast<std::uint64_t>((std::sqrt(8.0 * static_cast<double>(r) + 1.0) - 1.0) / 2.0);
    while (tri(b) > r)
        --b;
    while (tri(b + 1) <= r)
        ++b;
    return {r - tri(b), b};
}

}  // namespace fone::detail
