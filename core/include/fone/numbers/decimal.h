// Exact decimal numbers: sign, integer digits and fractional digits, parsed from text, never through a
// binary float. FoNE takes every residue `x mod 10^i` from these digits, so a number of any length
// embeds exactly.
#pragma once

#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fone {

// Thrown for text that is not a number, or a number out of the supported range. The message names the
// input and what is wrong with it.
class NumberError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

class Decimal {
  public:
    // Longest number (integer plus fractional digits) that parse() accepts. Guards against inputs such
    // as "1e999999" that would otherwise allocate a megabyte of zeros.
    static constexpr int kMaxDigits = 10000;

    Decimal() = default;  // zero

    // Parses `[+|-]digits[.digits][(e|E)[+|-]digits]`, also ".5" and "5.". Leading and trailing
    // spaces are not accepted. Throws NumberError naming the text on anything else.
    static Decimal parse(std::string_view text);
    // Same as parse(), but returns false (and the reason in *error, if given) instead of throwing.
    static bool try_parse(std::string_view text, Decimal& out, std::string* error = nullptr);

    // Builds a number from its digit strings (ASCII '0'..'9', most significant first). Leading
    // integer zeros and trailing fractional zeros are dropped; -0 becomes 0.
    static Decimal from_digits(bool negative, std::string_view int_digits, std::string_view frac_digits);
    static Decimal from_int(std::int64_t value);
    // value · 10^-scale, e.g. from_scaled(4170, 3) == 4.17.
    static Decimal from_scaled(std::int64_t value, int scale);

    bool negative() const { return negative_; }
    bool is_zero() const { return int_digits_.empty() && frac_digits_.empty(); }
    // Significant digits, most significant first: no leading integer zeros (zero has none) and no
    // trailing fractional zeros.
    const std::string& int_digits() const { return int_digits_; }
    const std::string& frac_digits() const { return frac_digits_; }
    int int_digit_count() const { return static_cast<int>(int_digits_.size()); }
    int frac_digit_count() const { return static_cast<int>(frac_digits_.size()); }

    // Digit at decimal position p: p = 0 is the units digit, p = -1 the tenths, p = 2 the hundreds.
    // Positions outside the stored digits are 0.
    int digit(int position) const;

    // Canonical text: "-12.5", "0", "0.001", "1000".
    std::string to_string() const;
    // Nearest double (correctly rounded by strtod).
    double to_double() const;

    Decimal abs() const;
    Decimal operator-() const;
    friend Decimal operator+(const Decimal& a, const Decimal& b);
    friend Decimal operator-(const Decimal& a, const Decimal& b);
    friend Decimal operator*(const Decimal& a, const Decimal& b);
    // base^exponent, exactly; NumberError for exponent < 0 (most bases have no finite decimal inverse).
    static Decimal power(std::int64_t base, int exponent);
    // Truncating integer remainder for integers: a mod m with 0 <= result < m (m > 0). Throws
    // NumberError for fractional operands or m <= 0.
    static Decimal mod(const Decimal& a, const Decimal& m);

    friend bool operator==(const Decimal& a, const Decimal& b) = default;
    friend std::strong_ordering operator<=>(const Decimal& a, const Decimal& b);

  private:
    bool negative_ = false;
    std::string int_digits_;
    std::string frac_digits_;

    void normalize();
};

// Compares magnitudes only.
std::strong_ordering compare_abs(const Decimal& a, const Decimal& b);

}  // namespace fone
