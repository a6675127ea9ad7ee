#include "fone/numbers/fourier.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace fone {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;
using u128 = unsigned __int128;

std::string limits_of(const FoneSpec& spec) {
    std::string s = "m=" + std::to_string(spec.int_digits) +
                    " integer digits, n=" + std::to_string(spec.frac_digits) + " fractional digits";
    if (spec.base != 10) s += ", base " + std::to_string(spec.base);
    return s;
}

// Integer Decimal divided by a small positive integer: quotient digits and remainder.
Decimal divmod_small(const Decimal& integer, int divisor, int& remainder) {
    std::string q(integer.int_digits().size(), '0');
    long long r = 0;
    for (std::size_t i = 0; i < q.size(); ++i) {
        r = r * 10 + (integer.int_digits()[i] - '0');
        q[i] = static_cast<char>('0' + r / divisor);
        r %= divisor;
    }
    remainder = static_cast<int>(r);
    return Decimal::from_digits(false, q, "");
}

// a / divisor as a finite decimal; throws when there is none (e.g. 1/7).
Decimal divide_exact(const Decimal& a, int divisor) {
    std::string digits = a.int_digits() + a.frac_digits();
    const int frac = a.frac_digit_count();
    std::string q;
    long long r = 0;
    std::size_t i = 0;
    int extra = 0;  // digits taken beyond the end of `digits`
    while (i < digits.size() || r != 0) {
        const int d = i < digits.size() ? digits[i] - '0' : 0;
        if (i >= digits.size() && ++extra > Decimal::kMaxDigits)
            throw NumberError(a.to_string() + " / " + std::to_string(divisor) +
                              " has no finite decimal form");
        r = r * 10 + d;
        q += static_cast<char>('0' + r / divisor);
        r %= divisor;
        ++i;
    }
    const std::size_t split = digits.size() - static_cast<std::size_t>(frac);
    const std::string qi = q.substr(0, std::min(split, q.size()));
    const std::string qf = split < q.size() ? q.substr(split) : "";
    return Decimal::from_digits(a.negative(), qi, qf);
}

// N mod D for the integer N = |x|·10^f given by x's digits, with D < 2^64.
std::uint64_t scaled_mod(const Decimal& x, std::uint64_t d) {
    u128 r = 0;
    for (char c : x.int_digits())
        r = (r * 10 + static_cast<unsigned>(c - '0')) % d;
    for (char c : x.frac_digits())
        r = (r * 10 + static_cast<unsigned>(c - '0')) % d;
    return static_cast<std::uint64_t>(r);
}

// base^e as an unsigned 64-bit integer, or false on overflow.
bool pow_u64(std::uint64_t base, int e, std::uint64_t& out) {
    u128 p = 1;
    for (int i = 0; i < e; ++i) {
        p *= base;
        if (p >> 63) return false;
    }
    out = static_cast<std::uint64_t>(p);
    return true;
}

// frac(|x| / T) for T = c·10^e, from the digits: y = |x|/10^e = Q + L, frac(y/c) = ((Q mod c) + L)/c.
double phase_base10(const Decimal& x, int c, int e) {
    long long q = 0;
    if (c > 1)
        for (int p = x.int_digit_count() - 1; p >= e; --p)
            q = (q * 10 + x.digit(p)) % c;
    // L = 0.d_{e-1} d_{e-2} ...: only about 20 digits can reach a double.
    double l = 0.0;
    const int lowest = std::max(-x.frac_digit_count(), e - 20);
    for (int p = lowest; p <= e - 1; ++p)
        l = (l + x.digit(p)) / 10.0;
    return (static_cast<double>(q) + l) / c;
}

// frac(|x| / T) for T = c·base^e with base != 10, exactly through 128-bit modular arithmetic.
double phase_other_base(const Decimal& x, const Period& t) {
    std::uint64_t ten_f = 0, be = 0;
    const int f = x.frac_digit_count();
    bool ok = pow_u64(10, f, ten_f);
    const int ae = std::abs(t.exponent);
    ok = ok && pow_u64(static_cast<std::uint64_t>(t.base), ae, be);
    // x/T = N / (10^f · c · base^e), or N · base^-e / (10^f · c) for negative e.
    u128 den = static_cast<u128>(ten_f) * static_cast<u128>(t.multiplier);
    if (ok && t.exponent > 0) den *= be;
    if (!ok || (den >> 63))
        throw NumberError("period " + t.to_string() + " with " + std::to_string(f) +
                          " fractional digits is too large for exact phases in base " +
                          std::to_string(t.base));
    const std::uint64_t d = static_cast<std::uint64_t>(den);
    u128 r = scaled_mod(x, d);
    if (t.exponent < 0) r = (r * (be % d)) % d;
    return static_cast<double>(static_cast<long double>(r) / static_cast<long double>(d));
}

// cos and sin of 2π·j/10^(k+1) for k < kLevels and every j < 10^(k+1).
struct PhaseTables {
    static constexpr int kLevels = 4;
    std::vector<double> values[kLevels];
    PhaseTables() {
        int size = 10;
        for (int k = 0; k < kLevels; ++k, size *= 10) {
            values[k].resize(2 * static_cast<std::size_t>(size));
            for (int j = 0; j < size; ++j) {
                const double a = kTwoPi * static_cast<double>(j) / size;
                values[k][2 * j] = std::cos(a);
                values[k][2 * j + 1] = std::sin(a);
            }
        }
    }
    const double* at(int k, int j) const { return values[k].data() + 2 * j; }
};

const PhaseTables& phase_tables() {
    static const PhaseTables tables;
    return tables;
}

template <typename Out>
void write_pair(Out* out, int k, double phase, bool negative) {
    double s, c;
    ::sincos(kTwoPi * phase, &s, &c);
    out[2 * k] = static_cast<Out>(c);
    out[2 * k + 1] = static_cast<Out>(negative && s != 0.0 ? -s : s);  // no "-0"
}

template <typename Out>
void encode_impl(const Decimal& x, const FoneSpec& spec, Out* out) {
    const int pairs = spec.pair_count();
    const bool neg = x.negative();
    if (spec.method == EncodeMethod::float64) {
        const double xd = x.to_double();
        const auto periods = spec.periods();
        for (int k = 0; k < pairs; ++k) {
            const double w = kTwoPi / periods[k].value();
            out[2 * k] = static_cast<Out>(std::cos(w * xd));
            out[2 * k + 1] = static_cast<Out>(std::sin(w * xd) + 0.0);  // + 0.0: no "-0"
        }
    } else if (spec.method == EncodeMethod::chunked) {
        // Digit k of N = |x|·10^n sits in chunk k/5; the chunk is embedded with periods 10^1..10^5
        // alone, in float64, as in the paper's appendix F.
        const int n = spec.frac_digits;
        for (int k = 0; k < pairs; ++k) {
            const int chunk_low = (k / 5) * 5;
            double chunk = 0.0;
            for (int p = k; p >= chunk_low; --p)
                chunk = chunk * 10.0 + x.digit(p - n);
            const double t = std::pow(10.0, k - chunk_low + 1);
            const double v = neg ? -chunk : chunk;
            out[2 * k] = static_cast<Out>(std::cos(kTwoPi / t * v));
            out[2 * k + 1] = static_cast<Out>(std::sin(kTwoPi / t * v) + 0.0);
        }
    } else if (spec.plain() && spec.base == 10) {
        // Hot path: frac(x/10^e) = (d_{e-1} + frac(x/10^{e-1})) / 10, from the lowest digit up; the
        // number fits, so frac(x/10^-n) = 0. The lowest pairs have phase j/10^(k+1) for a small
        // integer j: their cos and sin come from a table made once from those exact fractions.
        const PhaseTables& tables = phase_tables();
        double f = 0.0;
        int j = 0, scale = 1;
        for (int k = 0; k < pairs; ++k) {
            const int d = x.digit(k - spec.frac_digits);
            f = (f + d) * 0.1;
            if (k < PhaseTables::kLevels) {
                j += d * scale;
                scale *= 10;
                const double* cs = tables.at(k, j);
                out[2 * k] = static_cast<Out>(cs[0]);
                out[2 * k + 1] = static_cast<Out>(neg && cs[1] != 0.0 ? -cs[1] : cs[1]);
            } else {
                write_pair(out, k, f, neg);
            }
        }
    } else {
        const auto periods = spec.periods();
        for (int k = 0; k < pairs; ++k) {
            const Period& t = periods[k];
            const double f =
                t.base == 10 ? phase_base10(x, t.multiplier, t.exponent) : phase_other_base(x, t);
            write_pair(out, k, f, neg);
        }
    }
    if (spec.sign_feature) out[2 * pairs] = static_cast<Out>(neg ? 1.0 : 0.0);
}

template <typename In>
Decimal decode_impl(std::span<const In> e, const FoneSpec& spec) {
    spec.validate();
    if (!spec.plain())
        throw NumberError("decode needs plain periods base^i; mixed periods carry no digit per pair");
    if (static_cast<int>(e.size()) != spec.width())
        throw NumberError("embedding has " + std::to_string(e.size()) + " entries, expected " +
                          std::to_string(spec.width()) + " for " + limits_of(spec));
    const int pairs = spec.pair_count();
    const bool negative = spec.sign_feature && e[2 * pairs] > 0.5;
    const double b = spec.base;
    std::vector<int> digits(pairs);
    double previous = 0.0;  // phase of the next smaller period (0 below the lowest)
    for (int k = 0; k < pairs; ++k) {
        const double c = e[2 * k], s = negative ? -e[2 * k + 1] : e[2 * k + 1];
        if (!std::isfinite(c) || !std::isfinite(s) || std::hypot(c, s) < 0.5)
            throw NumberError("pair " + std::to_string(k) + " of the embedding is not on the unit circle");
        double phase = std::atan2(s, c) / kTwoPi;
        if (phase < 0) phase += 1.0;
        const bool chunk_start = spec.method == EncodeMethod::chunked && k % 5 == 0;
        if (chunk_start) previous = 0.0;
        // phase = (d + previous)/b, so d = b·phase - previous, rounded: robust to noise < 1/(2b) turn.
        long long d = std::llround(b * phase - previous);
        d = ((d % spec.base) + spec.base) % spec.base;
        digits[k] = static_cast<int>(d);
        previous = phase;
    }
    return assemble_digits(digits, negative, spec);
}

std::vector<double> softmax(std::span<const double> logits) {
    const double mx = *std::max_element(logits.begin(), logits.end());
    std::vector<double> p(logits.size());
    double sum = 0.0;
    for (std::size_t j = 0; j < logits.size(); ++j)
        sum += p[j] = std::exp(logits[j] - mx);
    for (double& v : p)
        v /= sum;
    return p;
}

void check_hidden(std::span<const float> hidden, const FoneSpec& spec) {
    spec.validate();
    if (static_cast<int>(hidden.size()) < spec.width())
        throw NumberError("hidden state has " + std::to_string(hidden.size()) + " entries, the head needs " +
                          std::to_string(spec.width()));
}

}  // namespace

double Period::value() const {
    return multiplier * std::pow(static_cast<double>(base), exponent);
}

std::string Period::to_string() const {
    std::string s = multiplier == 1 ? "" : std::to_string(multiplier) + "*";
    return s + std::to_string(base) + "^" + std::to_string(exponent);
}

void FoneSpec::validate() const {
    auto bad = [](const std::string& why) { throw NumberError("invalid FoNE settings: " + why); };
    if (int_digits < 0 || frac_digits < 0) bad("digit counts must not be negative");
    // Each count alone first: m + n of two ints near INT_MAX would overflow (and wrap to a "valid" sum).
    if (int_digits > Decimal::kMaxDigits || frac_digits > Decimal::kMaxDigits ||
        int_digits + frac_digits > Decimal::kMaxDigits)
        bad("m + n is larger than " + std::to_string(Decimal::kMaxDigits));
    if (int_digits + frac_digits <= 0) bad("m + n must be at least 1");
    if (base < 2 || base > 36) bad("base must be in 2..36");
    if (!multipliers.empty()) {
        if (base != 10) bad("mixed periods need base 10");
        if (method != EncodeMethod::exact) bad("mixed periods need the exact method");
        for (int c : multipliers)
            if (c < 1 || c > 1000) bad("period multipliers must be in 1..1000");
    }
    if (method == EncodeMethod::chunked && base != 10) bad("the chunked scheme is base 10");
}

FoneSpec fitted_spec(FoneSpec spec, const std::vector<Decimal>& numbers) {
    int m = 1, n = 0;
    for (const Decimal& x : numbers) {
        if (spec.base == 10) {
            m = std::max(m, x.int_digit_count());
            n = std::max(n, x.frac_digit_count());
            continue;
        }
        Decimal limit = Decimal::from_int(spec.base);
        int digits = 1;
        while (compare_abs(x, limit) >= 0 && digits < Decimal::kMaxDigits) {
            limit = limit * Decimal::from_int(spec.base);
            ++digits;
        }
        m = std::max(m, digits);
    }
    if (spec.int_digits < 0) spec.int_digits = m;
    if (spec.frac_digits < 0) spec.frac_digits = n;
    spec.validate();
    return spec;
}

std::vector<Period> FoneSpec::periods() const {
    std::vector<Period> out;
    if (multipliers.empty()) {
        for (int i = -frac_digits + 1; i <= int_digits; ++i)
            out.push_back({1, base, i});
        return out;
    }
    for (int k = -frac_digits; k <= int_digits - 1; ++k)
        for (int c : multipliers) {
            Period p{c, 10, k};
            // 10·10^k is 10^(k+1): keep one spelling per period so that duplicates collapse.
            while (p.multiplier % 10 == 0)
                p = {p.multiplier / 10, 10, p.exponent + 1};
            out.push_back(p);
        }
    std::sort(out.begin(), out.end(), [](const Period& a, const Period& b) { return a.value() < b.value(); });
    out.erase(std::unique(out.begin(), out.end(),
                          [](const Period& a, const Period& b) {
                              return a.multiplier == b.multiplier && a.exponent == b.exponent;
                          }),
              out.end());
    return out;
}

int FoneSpec::pair_count() const {
    return multipliers.empty() ? int_digits + frac_digits : static_cast<int>(periods().size());
}

int FoneSpec::width() const {
    return 2 * pair_count() + (sign_feature ? 1 : 0);
}

void check_fits(const Decimal& x, const FoneSpec& spec) {
    spec.validate();
    const std::string name = "number " + x.to_string();
    if (x.negative() && !spec.sign_feature)
        throw NumberError(name + " is negative and the sign feature is off");
    if (spec.base == 10) {
        if (x.int_digit_count() > spec.int_digits)
            throw NumberError(name + " has " + std::to_string(x.int_digit_count()) +
                              " integer digits; the limit is " + limits_of(spec));
        if (x.frac_digit_count() > spec.frac_digits)
            throw NumberError(name + " has " + std::to_string(x.frac_digit_count()) +
                              " fractional digits that would be lost; the limit is " + limits_of(spec));
        return;
    }
    if (compare_abs(x, Decimal::power(spec.base, spec.int_digits)) >= 0)
        throw NumberError(name + " does not fit " + std::to_string(spec.int_digits) + " digits in base " +
                          std::to_string(spec.base) + "; the limit is " + limits_of(spec));
    const Decimal scaled = x.abs() * Decimal::power(spec.base, spec.frac_digits);
    if (scaled.frac_digit_count() > 0)
        throw NumberError(name + " has fractional digits that would be lost in base " +
                          std::to_string(spec.base) + " with n=" + std::to_string(spec.frac_digits));
}

void encode_into(const Decimal& x, const FoneSpec& spec, double* out) {
    encode_impl(x, spec, out);
}
void encode_into(const Decimal& x, const FoneSpec& spec, float* out) {
    encode_impl(x, spec, out);
}

std::vector<double> encode(const Decimal& x, const FoneSpec& spec) {
    check_fits(x, spec);
    std::vector<double> out(spec.width());
    encode_impl(x, spec, out.data());
    return out;
}

std::vector<double> encode_padded(const Decimal& x, const FoneSpec& spec, int dim) {
    if (dim < spec.width())
        throw NumberError("model width " + std::to_string(dim) + " is smaller than the FoNE width " +
                          std::to_string(spec.width()));
    std::vector<double> out = encode(x, spec);
    out.resize(dim, 0.0);
    return out;
}

Decimal decode(std::span<const double> embedding, const FoneSpec& spec) {
    return decode_impl(embedding, spec);
}
Decimal decode(std::span<const float> embedding, const FoneSpec& spec) {
    return decode_impl(embedding, spec);
}

std::vector<double> digit_prototypes(int base) {
    std::vector<double> p(2 * base);
    for (int j = 0; j < base; ++j) {
        p[2 * j] = std::cos(kTwoPi * j / base);
        p[2 * j + 1] = std::sin(kTwoPi * j / base);
    }
    return p;
}

std::vector<double> digit_logits(std::span<const float> hidden, const FoneSpec& spec, double scale) {
    check_hidden(hidden, spec);
    const int slots = spec.pair_count(), b = spec.base;
    const auto proto = digit_prototypes(b);
    std::vector<double> logits(static_cast<std::size_t>(slots) * b);
    for (int k = 0; k < slots; ++k)
        for (int j = 0; j < b; ++j)
            logits[k * b + j] = scale * (hidden[2 * k] * proto[2 * j] + hidden[2 * k + 1] * proto[2 * j + 1]);
    return logits;
}

std::vector<int> label_digits(const Decimal& y, const FoneSpec& spec) {
    check_fits(y, spec);
    const int slots = spec.pair_count();
    std::vector<int> digits(slots, 0);
    if (spec.base == 10 && spec.plain()) {
        for (int k = 0; k < slots; ++k)
            digits[k] = y.digit(k - spec.frac_digits);
        return digits;
    }
    if (!spec.plain()) throw NumberError("label digits need plain periods base^i");
    Decimal n = y.abs() * Decimal::power(spec.base, spec.frac_digits);
    for (int k = 0; k < slots; ++k)
        n = divmod_small(n, spec.base, digits[k]);
    return digits;
}

double digit_loss(std::span<const float> hidden, const Decimal& y, const FoneSpec& spec, double scale) {
    const auto labels = label_digits(y, spec);
    const auto logits = digit_logits(hidden, spec, scale);
    const int b = spec.base;
    double total = 0.0;
    for (std::size_t k = 0; k < labels.size(); ++k) {
        std::span<const double> row(logits.data() + k * b, b);
        const double mx = *std::max_element(row.begin(), row.end());
        double sum = 0.0;
        for (double v : row)
            sum += std::exp(v - mx);
        total += (mx + std::log(sum)) - row[labels[k]];
    }
    double terms = static_cast<double>(labels.size());
    if (spec.sign_feature) {
        // Binary cross-entropy of the sign logit z: softplus(z) - [negative]·z, computed stably.
        const double z = scale * hidden[2 * spec.pair_count()];
        total += std::max(z, 0.0) + std::log1p(std::exp(-std::abs(z))) - (y.negative() ? z : 0.0);
        terms += 1.0;
    }
    return total / terms;
}

DigitReadout read_digits(std::span<const float> hidden, const FoneSpec& spec, double scale) {
    const auto logits = digit_logits(hidden, spec, scale);
    const int slots = spec.pair_count(), b = spec.base;
    DigitReadout r;
    for (int k = 0; k < slots; ++k) {
        std::span<const double> row(logits.data() + static_cast<std::size_t>(k) * b, b);
        r.digits.push_back(static_cast<int>(std::max_element(row.begin(), row.end()) - row.begin()));
        r.probs.push_back(softmax(row));
    }
    if (spec.sign_feature) {
        const double z = scale * hidden[2 * slots];
        r.p_negative = 1.0 / (1.0 + std::exp(-z));
        r.negative = z > 0.0;
    }
    if (spec.plain()) r.value = assemble_digits(r.digits, r.negative, spec);
    return r;
}

Decimal assemble_digits(std::span<const int> digits, bool negative, const FoneSpec& spec) {
    const int b = spec.base, n = spec.frac_digits;
    for (int d : digits)
        if (d < 0 || d >= b)
            throw NumberError("digit " + std::to_string(d) + " is out of range for base " +
                              std::to_string(b));
    if (b == 10) {
        std::string all(digits.size(), '0');
        for (std::size_t k = 0; k < digits.size(); ++k)
            all[digits.size() - 1 - k] = static_cast<char>('0' + digits[k]);
        const std::size_t split = all.size() > static_cast<std::size_t>(n) ? all.size() - n : 0;
        std::string frac = all.substr(split);
        frac.insert(0, static_cast<std::size_t>(n) - frac.size(), '0');
        return Decimal::from_digits(negative, all.substr(0, split), frac);
    }
    Decimal v;
    const Decimal base = Decimal::from_int(b);
    for (std::size_t k = digits.size(); k-- > 0;)
        v = v * base + Decimal::from_int(digits[k]);
    for (int i = 0; i < n; ++i)
        v = divide_exact(v, b);
    return negative ? -v : v;
}

}  // namespace fone
