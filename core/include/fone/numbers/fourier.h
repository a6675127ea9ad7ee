// Fourier Number Embedding (paper section 3): the encoding FoNE(x; m, n), its exact inverse, and the
// Fourier digit head that reads a number back from a hidden state. Plain C++: no LibTorch, no Qt.
//
// Layout of an embedding (interleaved, smallest period first, as the paper and its reference code):
//   [cos 2πx/T_0, sin 2πx/T_0, cos 2πx/T_1, sin 2πx/T_1, ..., (sign)]
// With the default periods T_i = base^i for i = -n+1..m, pair k carries digit k-n of x (base `base`):
// pair 0 the last fractional digit, pair n the units digit, pair m+n-1 the highest integer digit.
//
// Exactness: the phase x/T mod 1 is taken from x's digits (exact rational arithmetic); only the final
// angle 2π·(x mod T)/T goes through double. So a number of any length embeds exactly, unlike the paper's
// float64 computation, which breaks past about 15 digits (kept here as EncodeMethod::float64).
//
// Negative numbers (the paper is silent): the Fourier pairs are the paper's φ(x, T) for the negative x
// itself (so FoNE(-x) is FoNE(x) with every sine negated), and one sign entry follows the pairs: 1 for
// x < 0, 0 otherwise. The head has a matching sign logit. See docs/fone-encoding.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fone/numbers/decimal.h"

namespace fone {

enum class EncodeMethod {
    exact,    // phases from the digits (default)
    float64,  // the paper's reference: cos(2π·double(x)/T) in float64, wrong past ~15 digits
    chunked,  // the paper's appendix F: 5-digit chunks of x·10^n, each FoNE'd on its own in float64
};

// One period T = multiplier · base^exponent (exponent may be negative).
struct Period {
    int multiplier = 1;
    int base = 10;
    int exponent = 0;
    double value() const;
    std::string to_string() const;  // "10^-2", "5·10^3", "7^4"
};

struct FoneSpec {
    int int_digits = 7;   // m
    int frac_digits = 3;  // n
    int base = 10;        // periods base^i, i = -n+1..m, unless `multipliers` is set
    // Mixed periods as in the paper's ablation: {2, 5, 10} gives c·10^k for each c and k = -n..m-1,
    // sorted ascending. Empty: the plain base^i periods. Only with base 10.
    std::vector<int> multipliers;
    bool sign_feature = true;  // one entry after the pairs: 1 for x < 0, else 0
    EncodeMethod method = EncodeMethod::exact;

    // Throws NumberError for a spec that makes no sense (m + n = 0, base < 2, ...).
    void validate() const;
    std::vector<Period> periods() const;
    int pair_count() const;                             // number of (cos, sin) pairs
    int width() const;                                  // 2·pair_count() + sign entry
    bool plain() const { return multipliers.empty(); }  // digits readable one per pair
};

// A spec for a list of numbers: `spec` as given, except that int_digits and frac_digits below 0 become just
// enough for every number: m integer digits in spec.base (at least 1) and, in base 10, n fractional
// digits (other bases: 0). Throws NumberError when the result is not valid (FoneSpec::validate).
FoneSpec fitted_spec(FoneSpec spec, const std::vector<Decimal>& numbers);

// Checks that x fits the spec and throws NumberError naming the number and the limits if not: too many
// integer digits, fractional digits that would be lost, a negative number without a sign feature.
void check_fits(const Decimal& x, const FoneSpec& spec);

// Writes spec.width() floats. Precondition: check_fits(x, spec) (encode() checks it).
void encode_into(const Decimal& x, const FoneSpec& spec, double* out);
void encode_into(const Decimal& x, const FoneSpec& spec, float* out);
std::vector<double> encode(const Decimal& x, const FoneSpec& spec);
// Zero-padded to `dim` entries (dim >= spec.width()).
std::vector<double> encode_padded(const Decimal& x, const FoneSpec& spec, int dim);

// Exact inverse of encode() for plain specs: reads each digit off its phase, robust to float noise of
// up to a quarter digit. decode(encode(x)) == x for every x that fits. Throws NumberError for a wrong
// length or a non-plain spec.
Decimal decode(std::span<const double> embedding, const FoneSpec& spec);
Decimal decode(std::span<const float> embedding, const FoneSpec& spec);

// ---- The Fourier digit head (paper section 3.3, Algorithms 2 and 3) --------------------------------
// Digit slot k (k = 0..m+n-1) reads the pair [h[2k], h[2k+1]] and scores digit j by its dot product
// with φ(j, base) = (cos 2πj/base, sin 2πj/base). `scale` multiplies every logit (a temperature).
// With a sign feature, h[2(m+n)] is the logit of "negative".

// The base x 2 prototype matrix, row j = φ(j, base).
std::vector<double> digit_prototypes(int base);
// (m+n) x base logits, slot-major.
std::vector<double> digit_logits(std::span<const float> hidden, const FoneSpec& spec, double scale = 1.0);
// The label digits of y, one per slot (slot 0 = least significant), and its sign.
std::vector<int> label_digits(const Decimal& y, const FoneSpec& spec);
// Mean over slots of the per-slot cross-entropy; with a sign feature the sign's binary cross-entropy is
// one more term of the mean.
double digit_loss(std::span<const float> hidden, const Decimal& y, const FoneSpec& spec, double scale = 1.0);

struct DigitReadout {
    std::vector<int> digits;                 // argmax per slot, slot 0 = least significant
    std::vector<std::vector<double>> probs;  // softmax per slot
    bool negative = false;
    double p_negative = 0.0;
    Decimal value;  // the digits assembled exactly (base 10, or an integer spec in another base)
};
DigitReadout read_digits(std::span<const float> hidden, const FoneSpec& spec, double scale = 1.0);
// Digits (slot 0 = least significant, in spec.base) assembled into an exact decimal.
Decimal assemble_digits(std::span<const int> digits, bool negative, const FoneSpec& spec);

}  // namespace fone
