#include "fone/numbers/decimal.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace fone {
namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

std::string quoted(std::string_view text) {
    constexpr std::size_t kShown = 60;
    std::string s(text.substr(0, kShown));
    if (text.size() > kShown) s += "...";
    return "'" + s + "'";
}

// Magnitude as one digit string with an implied decimal point `frac` digits from the right.
struct Scaled {
    std::string digits;  // most significant first
    int frac = 0;
};

Scaled scaled(const Decimal& d, int frac) {
    Scaled s{d.int_digits() + d.frac_digits(), frac};
    s.digits.append(static_cast<std::size_t>(frac - d.frac_digit_count()), '0');
    return s;
}

Decimal from_scaled_digits(bool negative, std::string digits, int frac) {
    if (static_cast<int>(digits.size()) < frac)
        digits.insert(0, static_cast<std::size_t>(frac) - digits.size(), '0');
    const std::size_t split = digits.size() - static_cast<std::size_t>(frac);
    return Decimal::from_digits(negative, std::string_view(digits).substr(0, split),
                                std::string_view(digits).substr(split));
}

// |a| + |b| or |a| - |b| (|a| >= |b|) on aligned digit strings of equal length.
std::string add_digits(const std::string& a, const std::string& b) {
    std::string r(a.size() + 1, '0');
    int carry = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::size_t k = a.size() - 1 - i;
        const int s = (a[k] - '0') + (b[k] - '0') + carry;
        r[r.size() - 1 - i] = static_cast<char>('0' + s % 10);
        carry = s / 10;
    }
    r[0] = static_cast<char>('0' + carry);
    return r;
}

std::string sub_digits(const std::string& a, const std::string& b) {
    std::string r(a.size(), '0');
    int borrow = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::size_t k = a.size() - 1 - i;
        int s = (a[k] - '0') - (b[k] - '0') - borrow;
        borrow = s < 0;
        if (s < 0) s += 10;
        r[k] = static_cast<char>('0' + s);
    }
    return r;
}

void pad_left(std::string& s, std::size_t n) {
    if (s.size() < n) s.insert(0, n - s.size(), '0');
}

}  // namespace

bool Decimal::try_parse(std::string_view text, Decimal& out, std::string* error) {
    auto fail = [&](const std::string& why) {
        if (error) *error = "not a number " + quoted(text) + ": " + why;
        return false;
    };
    std::size_t i = 0;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    const std::size_t int_begin = i;
    while (i < text.size() && is_digit(text[i]))
        ++i;
    std::string_view int_part = text.substr(int_begin, i - int_begin);
    std::string_view frac_part;
    if (i < text.size() && text[i] == '.') {
        const std::size_t frac_begin = ++i;
        while (i < text.size() && is_digit(text[i]))
            ++i;
        frac_part = text.substr(frac_begin, i - frac_begin);
    }
    if (int_part.empty() && frac_part.empty()) return fail("expected digits");
    long long exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool exp_negative = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
        const std::size_t exp_begin = i;
        while (i < text.size() && is_digit(text[i])) {
            exponent = exponent * 10 + (text[i] - '0');
            if (exponent > kMaxDigits) return fail("exponent out of range");
            ++i;
        }
        if (i == exp_begin) return fail("expected digits after the exponent mark");
        if (exp_negative) exponent = -exponent;
    }
    if (i != text.size()) return fail("unexpected character at offset " + std::to_string(i));

    // Shift the decimal point by the exponent, on the digit strings.
    std::string digits(int_part);
    digits += frac_part;
    long long frac = static_cast<long long>(frac_part.size()) - exponent;
    // Count only significant digits against the limit, so "1e-5" or "0.000...1" are fine while
    // "1e999999" is not.
    const auto first = digits.find_first_not_of('0');
    const auto last = digits.find_last_not_of('0');
    if (first == std::string::npos) {
        out = Decimal();
        return true;
    }
    const long long top = static_cast<long long>(digits.size()) - static_cast<long long>(first) - frac;
    const long long bottom = static_cast<long long>(digits.size()) - 1 - static_cast<long long>(last) - frac;
    const long long span = std::max(top, 1LL) - std::min(bottom, 0LL);
    if (span > kMaxDigits) return fail("more than " + std::to_string(kMaxDigits) + " digits");
    if (frac < 0) {
        digits.append(static_cast<std::size_t>(-frac), '0');
        frac = 0;
    }
    out = from_scaled_digits(negative, std::move(digits), static_cast<int>(frac));
    return true;
}

Decimal Decimal::parse(std::string_view text) {
    Decimal d;
    std::string error;
    if (!try_parse(text, d, &error)) throw NumberError(error);
    return d;
}

Decimal Decimal::from_digits(bool negative, std::string_view int_digits, std::string_view frac_digits) {
    Decimal d;
    d.negative_ = negative;
    d.int_digits_ = int_digits;
    d.frac_digits_ = frac_digits;
    for (char c : d.int_digits_)
        if (!is_digit(c)) throw NumberError("not a digit string: " + quoted(int_digits));
    for (char c : d.frac_digits_)
        if (!is_digit(c)) throw NumberError("not a digit string: " + quoted(frac_digits));
    d.normalize();
    return d;
}

Decimal Decimal::from_int(std::int64_t value) {
    const bool negative = value < 0;
    // Through unsigned so that INT64_MIN works.
    std::uint64_t magnitude =
        negative ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
    return from_digits(negative, std::to_string(magnitude), "");
}

Decimal Decimal::from_scaled(std::int64_t value, int scale) {
    const Decimal whole = from_int(value);
    if (scale <= 0) return from_digits(whole.negative_, whole.int_digits_ + std::string(-scale, '0'), "");
    return from_scaled_digits(whole.negative_, whole.int_digits_, scale);
}

void Decimal::normalize() {
    const auto first = int_digits_.find_first_not_of('0');
    int_digits_.erase(0, first == std::string::npos ? int_digits_.size() : first);
    const auto last = frac_digits_.find_last_not_of('0');
    frac_digits_.resize(last == std::string::npos ? 0 : last + 1);
    if (is_zero()) negative_ = false;
}

int Decimal::digit(int position) const {
    if (position >= 0) {
        if (position >= int_digit_count()) return 0;
        return int_digits_[int_digits_.size() - 1 - static_cast<std::size_t>(position)] - '0';
    }
    const int k = -position - 1;
    if (k >= frac_digit_count()) return 0;
    return frac_digits_[static_cast<std::size_t>(k)] - '0';
}

std::string Decimal::to_string() const {
    std::string s;
    s.reserve(int_digits_.size() + frac_digits_.size() + 3);
    if (negative_) s += '-';
    s += int_digits_.empty() ? "0" : int_digits_;
    if (!frac_digits_.empty()) {
        s += '.';
        s += frac_digits_;
    }
    return s;
}

double Decimal::to_double() const {
    return std::strtod(to_string().c_str(), nullptr);
}

Decimal Decimal::abs() const {
    Decimal d = *this;
    d.negative_ = false;
    return d;
}

Decimal Decimal::operator-() const {
    Decimal d = *this;
    if (!d.is_zero()) d.negative_ = !d.negative_;
    return d;
}

std::strong_ordering compare_abs(const Decimal& a, const Decimal& b) {
    if (a.int_digit_count() != b.int_digit_count()) return a.int_digit_count() <=> b.int_digit_count();
    if (auto c = a.int_digits().compare(b.int_digits()); c != 0) return c <=> 0;
    // Fractional strings have no trailing zeros, so plain string order is numeric order.
    return a.frac_digits().compare(b.frac_digits()) <=> 0;
}

std::strong_ordering operator<=>(const Decimal& a, const Decimal& b) {
    if (a.negative() != b.negative())
        return a.negative() ? std::strong_ordering::less : std::strong_ordering::greater;
    const auto c = compare_abs(a, b);
    return a.negative() ? 0 <=> c : c;
}

Decimal operator+(const Decimal& a, const Decimal& b) {
    const int frac = std::max(a.frac_digit_count(), b.frac_digit_count());
    Scaled x = scaled(a, frac), y = scaled(b, frac);
    const std::size_t width = std::max(x.digits.size(), y.digits.size());
    pad_left(x.digits, width);
    pad_left(y.digits, width);
    if (a.negative() == b.negative())
        return from_scaled_digits(a.negative(), add_digits(x.digits, y.digits), frac);
    if (compare_abs(a, b) >= 0) return from_scaled_digits(a.negative(), sub_digits(x.digits, y.digits), frac);
    return from_scaled_digits(b.negative(), sub_digits(y.digits, x.digits), frac);
}

Decimal operator-(const Decimal& a, const Decimal& b) {
    return a + (-b);
}

Decimal operator*(const Decimal& a, const Decimal& b) {
    const std::string x = a.int_digits() + a.frac_digits();
    const std::string y = b.int_digits() + b.frac_digits();
    if (x.empty() || y.empty()) return Decimal();
    std::vector<int> acc(x.size() + y.size(), 0);
    for (std::size_t i = x.size(); i-- > 0;)
        for (std::size_t j = y.size(); j-- > 0;)
            acc[i + j + 1] += (x[i] - '0') * (y[j] - '0');
    for (std::size_t k = acc.size(); k-- > 1;) {
        acc[k - 1] += acc[k] / 10;
        acc[k] %= 10;
    }
    std::string digits(acc.size(), '0');
    for (std::size_t k = 0; k < acc.size(); ++k)
        digits[k] = static_cast<char>('0' + acc[k]);
    return from_scaled_digits(a.negative() != b.negative(), std::move(digits),
                              a.frac_digit_count() + b.frac_digit_count());
}

Decimal Decimal::power(std::int64_t base, int exponent) {
    if (exponent < 0)
        throw NumberError("power needs an exponent of at least 0: " + std::to_string(base) + "^" +
                          std::to_string(exponent));
    // Square and multiply: exact like repeated multiplication, with log2(exponent) products.
    Decimal result = from_int(1), square = from_int(base);
    for (int e = exponent; e > 0; e /= 2) {
        if (e % 2) result = result * square;
        if (e > 1) square = square * square;
    }
    return result;
}

Decimal Decimal::mod(const Decimal& a, const Decimal& m) {
    if (a.frac_digit_count() || m.frac_digit_count() || m.negative() || m.is_zero())
        throw NumberError("mod needs integers and a positive modulus: " + a.to_string() + " mod " +
                          m.to_string());
    // Long division by repeated subtraction per digit; moduli are small in every use here.
    Decimal r;
    const Decimal ten = from_int(10);
    for (char c : a.int_digits()) {
        r = r * ten + from_int(c - '0');
        while (compare_abs(r, m) >= 0)
            r = r - m;
    }
    if (a.negative() && !r.is_zero()) r = m - r;
    return r;
}

}  // namespace fone
