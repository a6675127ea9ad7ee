// Finds every number in free text, replaces it with the [NUM] placeholder and keeps its exact value
// (paper section 3.4). The decisions for ambiguous text are listed in docs/number-parsing.md and each
// has a test in tests/test_number_parser.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "fone/numbers/decimal.h"

namespace fone {

inline constexpr std::string_view kNumPlaceholder = "[NUM]";

struct ParsedNumber {
    std::string text;       // the number exactly as written, e.g. "1,234.5" or "−3" (Unicode minus)
    Decimal value;          // its canonical exact value
    std::size_t start = 0;  // span in the original text, in Unicode code points, [start, end)
    std::size_t end = 0;
    std::size_t byte_start = 0;  // the same span in UTF-8 bytes
    std::size_t byte_end = 0;
};

// Why digits stayed text (docs/number-parsing.md, "Digits that stay text"): a run of digits and dots
// with no single value ("1.2.3", "2024.01.05"), digits inside a word ("CO2", "x86_64", "v1.2", "3x4"),
// a hexadecimal word ("0x1F", "c65e6079fc9"), a number out of Decimal's range ("1e999999"), a number
// with more digits than a run's slots hold (NumberLimits).
enum class AsTextKind { dotted, in_word, hexadecimal, out_of_range, beyond_slots };
inline constexpr AsTextKind kAsTextKinds[] = {AsTextKind::dotted, AsTextKind::in_word,
                                              AsTextKind::hexadecimal, AsTextKind::out_of_range,
                                              AsTextKind::beyond_slots};
// "dotted", "in a word", "hexadecimal", "out of range", "beyond the slots": the corpus report's keys.
std::string as_text_kind_name(AsTextKind kind);

// A span that looks like a number (or holds digits) and stays text.
struct AsTextSpan {
    AsTextKind kind = AsTextKind::dotted;
    std::string text;    // its first 60 bytes, "..." after them when it is longer
    std::string reason;  // "more than one decimal point", "digits inside a word", ...
    std::size_t byte_start = 0, byte_end = 0;
};

// The digits a number may have to be a number (a text run's slots, chosen from its corpus: text_spec);
// a number with more integer or more fractional digits stays text (AsTextKind::beyond_slots), for every
// method alike. Negative: no limit.
struct NumberLimits {
    int int_digits = -1, frac_digits = -1;
    bool holds(const Decimal& x) const {
        return (int_digits < 0 || x.int_digit_count() <= int_digits) &&
               (frac_digits < 0 || x.frac_digit_count() <= frac_digits);
    }
    friend bool operator==(const NumberLimits&, const NumberLimits&) = default;
};

struct ParsedText {
    std::string original;
    std::string templ;  // the original with every number replaced by kNumPlaceholder
    std::vector<ParsedNumber> numbers;
    // Spans that look like numbers but were kept as text, with the reason ("1.2.3: more than one
    // decimal point", "1e999999: exponent out of range", "CO2: digits inside a word"); as_text holds the
    // same spans with their kind and place.
    std::vector<std::string> warnings;
    std::vector<AsTextSpan> as_text;
};

// Throws NumberError when the text already contains the placeholder "[NUM]" (it could not be rendered
// back unambiguously). Never throws for any other input, valid UTF-8 or not. A number that `limits` do
// not hold stays text.
ParsedText parse_numbers(std::string_view text, const NumberLimits& limits = {});

// Puts numbers back into a template, in order: the k-th placeholder gets texts[k]. Throws NumberError
// when the counts differ.
std::string render_template(std::string_view templ, const std::vector<std::string>& texts);
// render_template with each number's original text: gives back the original exactly.
std::string render(const ParsedText& parsed);
// render_template with each number's canonical value ("1,234.50" comes back as "1234.5").
std::string render_canonical(const ParsedText& parsed);

}  // namespace fone
