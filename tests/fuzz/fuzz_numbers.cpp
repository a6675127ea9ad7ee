// libFuzzer target for the number parser, the decimal reader and the arithmetic grammar built on them
// (fone/tasks/expression.h). Any input may be thrown at them: the parser must never throw (except
// NumberError for text holding "[NUM]"), the grammar only its documented errors, nothing may crash, and
// the results must satisfy the invariants below; a violation traps so that libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fone/numbers/decimal.h"
#include "fone/numbers/number_parser.h"
#include "fone/tasks/expression.h"

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

bool round_trips(const fone::Decimal& d) {
    return fone::Decimal::parse(d.to_string()) == d;
}

// A number's text is ASCII apart from an optional leading U+2212 (three bytes, one code point).
std::size_t code_points_of(std::string_view number_text) {
    return number_text.rfind("\xE2\x88\x92", 0) == 0 ? number_text.size() - 2 : number_text.size();
}

void check_number(std::string_view text, const fone::ParsedNumber& n) {
    check(n.byte_start < n.byte_end && n.byte_end <= text.size());
    check(n.start < n.end && n.start <= n.byte_start && n.end <= n.byte_end);
    check(text.substr(n.byte_start, n.byte_end - n.byte_start) == n.text);
    check(n.end - n.start == code_points_of(n.text));
    check(round_trips(n.value));
}

void check_parser(std::string_view text) {
    const bool has_placeholder = text.find(fone::kNumPlaceholder) != std::string_view::npos;
    fone::ParsedText parsed;
    try {
        parsed = fone::parse_numbers(text);
    } catch (const fone::NumberError&) {
        check(has_placeholder);
        return;
    }
    check(!has_placeholder);
    check(parsed.original == text);
    check(fone::render(parsed) == text);
    (void)fone::render_canonical(parsed);
    std::size_t prev_end = 0, prev_byte_end = 0;
    for (const auto& n : parsed.numbers) {
        check_number(text, n);
        check(n.start >= prev_end && n.byte_start >= prev_byte_end);
        // Bytes beyond code points never shrink: the two offsets come from one left-to-right count.
        check(n.byte_start - n.start >= prev_byte_end - prev_end);
        prev_end = n.end;
        prev_byte_end = n.byte_end;
    }
}

void check_decimal(std::string_view text) {
    fone::Decimal d;
    if (fone::Decimal::try_parse(text, d)) check(round_trips(d));
}

// A dataset line is a DatasetError or an example that its own line() reads back to; a prompt is
// std::invalid_argument (NumberError among them) or words holding a number.
void check_grammar(std::string_view text) {
    std::optional<fone::Example> e;
    try {
        e = fone::parse_example_line(text);
    } catch (const fone::DatasetError&) {
    }
    if (e) {
        check(e->operands.size() == e->ops.size() + 1);
        check(fone::parse_example_line(e->line()) == *e);  // a throw here escapes: libFuzzer reports it
    }
    try {
        bool number = false;
        for (const fone::PromptTerm& t : fone::parse_prompt(text))
            number = number || t.kind == fone::PromptTerm::Kind::number;
        check(number);
    } catch (const std::invalid_argument&) {
    }
    (void)fone::exact_answer(text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    check_decimal(text);
    check_parser(text);
    check_grammar(text);
    return 0;
}
