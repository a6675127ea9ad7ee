#include "fone/numbers/number_pieces.h"

#include <algorithm>

namespace fone {
namespace {

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Integer digits, "." and fraction digits of x, each part chunked, least significant first if reversed.
std::vector<std::string> digit_pieces(const Decimal& x, const NumberWriting& how) {
    const std::string int_part = x.int_digits().empty() ? std::string("0") : x.int_digits();
    std::vector<std::string> pieces = chunk_digits(int_part, how.chunk, how.direction);
    if (!x.frac_digits().empty()) {
        pieces.emplace_back(".");
        // The fraction is cut from the point rightwards in both directions: right-to-left chunking aligns
        // chunks with the point, and the point is the fraction's left end.
        const auto frac = chunk_digits(x.frac_digits(), how.chunk, ChunkDirection::left_to_right);
        pieces.insert(pieces.end(), frac.begin(), frac.end());
    }
    if (how.reversed) std::reverse(pieces.begin(), pieces.end());
    return pieces;
}

// NumeroLogic's count of x's digits: "2" for 42, "1.2" for 3.14 (integer digits, then fraction digits).
std::string digit_count(const Decimal& x) {
    const int int_count = std::max(1, x.int_digit_count());  // "0.5" writes one integer digit
    std::string count = std::to_string(int_count);
    if (x.frac_digit_count() > 0) count += "." + std::to_string(x.frac_digit_count());
    return count;
}

// A number's digit pieces (and point) joined, as the text they write; nullopt for any other piece.
std::optional<std::string> joined_digits(std::vector<std::string> pieces, bool reversed) {
    if (reversed) std::reverse(pieces.begin(), pieces.end());
    std::string text;
    for (const std::string& p : pieces) {
        if (p != "." && !all_digits(p)) return std::nullopt;
        text += p;
    }
    return text;
}

}  // namespace

std::vector<std::string> chunk_digits(std::string_view digits, int chunk, ChunkDirection direction) {
    const std::size_t step = static_cast<std::size_t>(std::max(1, chunk));
    std::vector<std::string> out;
    std::size_t at = 0;
    if (direction == ChunkDirection::right_to_left && digits.size() % step != 0) {
        at = digits.size() % step;  // the short piece comes first
        out.emplace_back(digits.substr(0, at));
    }
    for (; at < digits.size(); at += step)
        out.emplace_back(digits.substr(at, step));
    return out;
}

std::vector<std::string> write_number_pieces(const Decimal& x, const NumberWriting& how) {
    std::vector<std::string> out;
    if (x.negative()) out.emplace_back("-");
    if (!how.numerologic) {
        const auto digits = digit_pieces(x, how);
        out.insert(out.end(), digits.begin(), digits.end());
        return out;
    }
    out.emplace_back(kCountOpen);
    const std::string count = digit_count(x);
    const auto dot = count.find('.');
    const auto int_count = chunk_digits(std::string_view(count).substr(0, dot), how.chunk, how.direction);
    out.insert(out.end(), int_count.begin(), int_count.end());
    if (dot != std::string::npos) {
        out.emplace_back(".");
        const auto frac_count =
            chunk_digits(std::string_view(count).substr(dot + 1), how.chunk, ChunkDirection::left_to_right);
        out.insert(out.end(), frac_count.begin(), frac_count.end());
    }
    out.emplace_back(kCountEnd);
    const auto digits = digit_pieces(x, how);
    out.insert(out.end(), digits.begin(), digits.end());
    out.emplace_back(kCountClose);
    return out;
}

std::optional<Decimal> read_number_pieces(const std::vector<std::string>& pieces, const NumberWriting& how) {
    auto begin = pieces.begin(), end = pieces.end();
    const bool negative = begin != end && *begin == "-";
    if (negative) ++begin;
    if (how.numerologic) {
        // { count : digits }: the count is digit pieces with at most one point.
        if (end - begin < 5 || *begin != kCountOpen || *(end - 1) != kCountClose) return std::nullopt;
        const auto colon = std::find(begin + 1, end - 1, std::string(kCountEnd));
        if (colon == end - 1) return std::nullopt;
        const auto count = joined_digits({begin + 1, colon}, false);
        if (!count || count->empty() || count->front() == '.' || count->back() == '.' ||
            std::count(count->begin(), count->end(), '.') > 1)
            return std::nullopt;
        begin = colon + 1;
        --end;
    }
    if (begin == end) return std::nullopt;
    const auto text = joined_digits({begin, end}, how.reversed);
    if (!text) return std::nullopt;
    Decimal d;
    if (!Decimal::try_parse((negative ? "-" : "") + *text, d)) return std::nullopt;
    return d;
}

}  // namespace fone
