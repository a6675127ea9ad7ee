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

struct ParsedText {
    std::string original;
    std::string templ;  // the original with every number replaced by kNumPlaceholder
    std::vector<ParsedNumber> numbers;
    // Spans that look like numbers but were kept as text, with the reason ("1.2.3: more than one
    // decimal point", "1e999999: exponent out of range").
    std::vector<std::string> warnings;
};

// Throws NumberError when the text already contains the placeholder "[NUM]" (it could not be rendered
// back unambiguously). Never throws for any other input, valid UTF-8 or not.
ParsedText parse_numbers(std::string_view text);

// Puts numbers back into a template, in order: the k-th placeholder gets texts[k]. Throws NumberError
// when the counts differ.
std::string render_template(std::string_view templ, const std::vector<std::string>& texts);
// render_template with each number's original text: gives back the original exactly.
std::string render(const ParsedText& parsed);
// render_template with each number's canonical value ("1,234.50" comes back as "1234.5").
std::string render_canonical(const ParsedText& parsed);

}  // namespace fone
