// A single forward scan over the bytes, no regex: std::regex backtracks, is slow and recurses deeply
// enough to overflow the stack on long inputs. Every byte is looked at a bounded number of times, so
// parsing is linear. The rules are documented, with examples, in docs/number-parsing.md.
#include "fone/numbers/number_parser.h"

namespace fone {
namespace {

constexpr std::string_view kUnicodeMinus = "\xE2\x88\x92";  // U+2212
// Long tokens (a 20,000-digit number) are cut in warnings so that one bad span cannot flood the log.
constexpr std::size_t kWarningTextBytes = 60;

bool is_digit(std::string_view s, std::size_t i) {
    return i < s.size() && s[i] >= '0' && s[i] <= '9';
}
bool is_char(std::string_view s, std::size_t i, char c) {
    return i < s.size() && s[i] == c;
}

std::size_t skip_digits(std::string_view s, std::size_t i) {
    while (is_digit(s, i))
        ++i;
    return i;
}

// Length of the well-formed UTF-8 sequence at i (RFC 3629: no overlongs, surrogates or code points past
// U+10FFFF), or 1 for a byte that does not start one, so that invalid bytes count as one code point each.
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) return 1;
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 1;
    }
    if (i + len > s.size()) return 1;
    for (std::size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return 1;
    }
    return len;
}

// Converts increasing byte offsets to code-point offsets incrementally, keeping the whole parse linear.
// Numbers start on an ASCII byte or on the lead byte of U+2212 and end after an ASCII digit, so a
// target never falls inside a multi-byte sequence.
class CodePointCursor {
  public:
    explicit CodePointCursor(std::string_view s) : s_(s) {}
    std::size_t at(std::size_t byte) {
        while (byte_ < byte) {
            byte_ += utf8_length(s_, byte_);
            ++code_points_;
        }
        return code_points_;
    }

  private:
    std::string_view s_;
    std::size_t byte_ = 0;
    std::size_t code_points_ = 0;
};

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// A sign belongs to the number only after a separator or an operator, so that "3-5" stays a range,
// "COVID-19" a name and "--5" a dash, while "x = -5", "(-5)" and "a, -5" keep their sign.
bool sign_may_follow(char c) {
    return is_space(c) || std::string_view("([{=<>:;,/*^~").find(c) != std::string_view::npos;
}

// Bytes taken by a sign at i that may belong to a number (1 for '-' or '+', 3 for U+2212), else 0.
std::size_t sign_length(std::string_view s, std::size_t i) {
    std::size_t len = 0;
    if (s[i] == '-' || s[i] == '+')
        len = 1;
    else if (s.substr(i, kUnicodeMinus.size()) == kUnicodeMinus)
        len = kUnicodeMinus.size();
    if (len == 0 || (i > 0 && !sign_may_follow(s[i - 1]))) return 0;
    return len;
}

// Letters, digits and '_' make words ("x86_64", "CO2", "c65e6079fc9"): digits glued to a word on their
// left, or followed by letters and then more digits, are part of a name, not a number (measured on two
// corpora: docs/number-parsing.md, "Digits glued to letters"). Only ASCII counts: other bytes are not
// letters here.
bool is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_word(std::string_view s, std::size_t i) {
    return i < s.size() && is_word_char(s[i]);
}

// ".5" is a number, but a '.' right after a digit ends one ("5." is 5 and a full stop), a '.' after
// another '.' is an ellipsis ("wait...5" is 5, not 0.5) and a '.' after a letter ends an abbreviation
// ("No.5", "Fig.3" are 5 and 3, not 0.5 and 0.3).
bool fraction_starts(std::string_view s, std::size_t i) {
    return is_char(s, i, '.') && is_digit(s, i + 1) &&
           (i == 0 || (!is_word_char(s[i - 1]) && s[i - 1] != '.'));
}

// The end of the word that goes on at i: word characters, and a '.' between two of them ("v1.2rc1",
// "file2.txt").
std::size_t skip_word(std::string_view s, std::size_t i) {
    while (is_word(s, i) || (is_char(s, i, '.') && i > 0 && is_word_char(s[i - 1]) && is_word(s, i + 1)))
        ++i;
    return i;
}

bool has_digit(std::string_view s) {
    return s.find_first_of("0123456789") != std::string_view::npos;
}

// A hash or a hexadecimal constant: "0x1F", or seven or more hexadecimal digits, letters of one case,
// with digits and letters both ("c65e6079fc9", "5E10AB3"; "deadbeef" has no digit and is a word).
bool is_hexadecimal(std::string_view w) {
    if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X'))
        return w.substr(2).find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
    if (w.size() < 7) return false;
    const bool lower = w.find_first_not_of("0123456789abcdef") == std::string_view::npos;
    const bool upper = w.find_first_not_of("0123456789ABCDEF") == std::string_view::npos;
    return (lower || upper) && has_digit(w) && w.find_first_not_of("0123456789") != std::string_view::npos;
}

bool is_thousands_group(std::string_view s, std::size_t i) {
    return is_char(s, i, ',') && is_digit(s, i + 1) && is_digit(s, i + 2) && is_digit(s, i + 3) &&
           !is_digit(s, i + 4);
}

// One candidate number: its byte span and the same digits in the form Decimal::try_parse reads.
struct Token {
    std::size_t start = 0, end = 0;
    std::string normalized;    // e.g. "-1234567.5e3": no commas, ASCII sign
    std::string_view problem;  // non-empty when the span must stay text
    AsTextKind kind = AsTextKind::dotted;
};

// Integer digits with optional thousands separators ("1,234,567"); a first group of four or more
// digits ("1234,567") means the commas are list separators, not grouping.
std::size_t scan_integer(std::string_view s, std::size_t i, std::string& out) {
    const std::size_t first = i;
    i = skip_digits(s, i);
    out.append(s.substr(first, i - first));
    if (i - first == 0 || i - first > 3) return i;
    while (is_thousands_group(s, i)) {
        out.append(s.substr(i + 1, 3));
        i += 4;
    }
    return i;
}

std::size_t scan_fraction(std::string_view s, std::size_t i, std::string& out) {
    if (!is_char(s, i, '.') || !is_digit(s, i + 1)) return i;
    const std::size_t end = skip_digits(s, i + 1);
    out.append(s.substr(i, end - i));
    return end;
}

// "e", optional ASCII sign, at least one digit, and then no letter or digit; otherwise the 'e' is text
// ("2e", "2ex") or the start of a word ("5e10ab3", "2e3f": hexadecimal, not 5 x 10^10).
std::size_t scan_exponent(std::string_view s, std::size_t i, std::string& out) {
    if (!is_char(s, i, 'e') && !is_char(s, i, 'E')) return i;
    std::size_t k = i + 1;
    if (is_char(s, k, '+') || is_char(s, k, '-')) ++k;
    if (!is_digit(s, k)) return i;
    const std::size_t end = skip_digits(s, k);
    if (is_word(s, end)) return i;
    out.append(s.substr(i, end - i));
    return end;
}

// Versions, dates and addresses ("1.2.3", "2024.01.05", "192.168.0.1") have no single value: the whole
// run of digits and dots stays text.
std::size_t skip_dotted_run(std::string_view s, std::size_t i) {
    while (is_digit(s, i) || (is_char(s, i, '.') && is_digit(s, i + 1)))
        ++i;
    return i;
}

// Digits inside a word: the whole word stays text, as a name ("CO2", "x86_64", "3x4") or a hash.
Token word_token(std::string_view s, std::size_t start, std::size_t end) {
    Token t;
    t.start = start;
    t.end = end;
    const bool hex = is_hexadecimal(s.substr(start, end - start));
    t.kind = hex ? AsTextKind::hexadecimal : AsTextKind::in_word;
    t.problem = hex ? "hexadecimal" : "digits inside a word";
    return t;
}

// The candidate at `begin` (a sign, a digit or a leading '.'). Digits after a letter or '_' start no
// number: their word stays text. A number followed by letters keeps them as text ("19th", "1990s",
// "10km") unless a digit follows in the same word ("8a3f2c1", "1920x1080"): then the word stays text.
Token scan_number(std::string_view s, std::size_t begin, std::size_t sign_len) {
    if (sign_len == 0 && begin > 0 && is_word_char(s[begin - 1])) {
        std::size_t start = begin;
        while (start > 0 && is_word_char(s[start - 1]))
            --start;
        return word_token(s, start, skip_word(s, begin));
    }
    Token t;
    t.start = begin;
    if (sign_len > 0) t.normalized += s[begin] == '+' ? '+' : '-';
    std::size_t i = scan_integer(s, begin + sign_len, t.normalized);
    i = scan_fraction(s, i, t.normalized);
    if (is_char(s, i, '.') && is_digit(s, i + 1)) {
        t.end = skip_word(s, skip_dotted_run(s, i));  // "1.2.3rc1": the whole version
        t.problem = "more than one decimal point";
        return t;
    }
    t.end = scan_exponent(s, i, t.normalized);
    if (!is_word(s, t.end)) return t;
    const std::size_t word_end = skip_word(s, t.end);
    const std::string_view word = s.substr(begin + sign_len, word_end - begin - sign_len);
    if (has_digit(s.substr(t.end, word_end - t.end)) || is_hexadecimal(word))
        return word_token(s, begin + sign_len, word_end);
    return t;
}

std::string warning(std::string_view span, std::string_view reason) {
    std::string w(span.substr(0, kWarningTextBytes));
    if (span.size() > kWarningTextBytes) w += "...";
    w += ": ";
    w += reason;
    return w;
}

// Decimal owns the range limits (kMaxDigits, exponent size); its message ends with ": <reason>". The
// normalized token holds no ':', so the last ": " is the one before the reason.
std::string range_reason(const std::string& error) {
    const auto colon = error.rfind(": ");
    return colon == std::string::npos ? error : error.substr(colon + 2);
}

void reject_placeholder(std::string_view text) {
    const auto at = text.find(kNumPlaceholder);
    if (at == std::string_view::npos) return;
    throw NumberError("text already contains the placeholder " + std::string(kNumPlaceholder) + " at byte " +
                      std::to_string(at) + "; it could not be told apart from a parsed number");
}

std::size_t count_placeholders(std::string_view templ) {
    std::size_t n = 0;
    for (auto at = templ.find(kNumPlaceholder); at != std::string_view::npos;
         at = templ.find(kNumPlaceholder, at + kNumPlaceholder.size()))
        ++n;
    return n;
}

std::string slots_reason(const NumberLimits& limits) {
    return "more digits than the slots hold (" + std::to_string(limits.int_digits) + " integer, " +
           std::to_string(limits.frac_digits) + " fractional)";
}

}  // namespace

std::string as_text_kind_name(AsTextKind kind) {
    switch (kind) {
        case AsTextKind::dotted:
            return "dotted";
        case AsTextKind::in_word:
            return "in a word";
        case AsTextKind::hexadecimal:
            return "hexadecimal";
        case AsTextKind::out_of_range:
            return "out of range";
        case AsTextKind::beyond_slots:
            return "beyond the slots";
    }
    return "?";
}

ParsedText parse_numbers(std::string_view text, const NumberLimits& limits) {
    reject_placeholder(text);
    ParsedText out;
    out.original = text;
    out.templ.reserve(text.size());
    CodePointCursor cursor(text);
    std::size_t copied = 0;  // bytes of `text` already in the template
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t sign_len = sign_length(text, i);
        if (!is_digit(text, i + sign_len) && !fraction_starts(text, i + sign_len)) {
            ++i;
            continue;
        }
        Token t = scan_number(text, i, sign_len);
        Decimal value;
        std::string problem(t.problem);
        if (problem.empty() && !Decimal::try_parse(t.normalized, value, &problem)) {
            problem = range_reason(problem);
            t.kind = AsTextKind::out_of_range;
        } else if (problem.empty() && !limits.holds(value)) {
            problem = slots_reason(limits);
            t.kind = AsTextKind::beyond_slots;
        }
        if (!problem.empty()) {
            // Kept as text: it stays in the template between the surrounding placeholders.
            const std::string_view whole = text.substr(t.start, t.end - t.start);
            out.warnings.push_back(warning(whole, problem));
            out.as_text.push_back({t.kind,
                                   std::string(whole.substr(0, kWarningTextBytes)) +
                                       (whole.size() > kWarningTextBytes ? "..." : ""),
                                   problem, t.start, t.end});
        } else {
            const std::string_view span = text.substr(i, t.end - i);
            out.templ.append(text.substr(copied, i - copied));
            out.templ += kNumPlaceholder;
            copied = t.end;
            const std::size_t start = cursor.at(i);
            out.numbers.push_back({std::string(span), std::move(value), start, cursor.at(t.end), i, t.end});
        }
        i = t.end;
    }
    out.templ.append(text.substr(copied));
    return out;
}

std::string render_template(std::string_view templ, const std::vector<std::string>& texts) {
    const std::size_t placeholders = count_placeholders(templ);
    if (placeholders != texts.size())
        throw NumberError("template has " + std::to_string(placeholders) + " " +
                          std::string(kNumPlaceholder) + " placeholders but " + std::to_string(texts.size()) +
                          " numbers were given");
    std::string out;
    std::size_t copied = 0;
    for (const auto& number : texts) {
        const auto at = templ.find(kNumPlaceholder, copied);
        out.append(templ.substr(copied, at - copied));
        out += number;
        copied = at + kNumPlaceholder.size();
    }
    out.append(templ.substr(copied));
    return out;
}

std::string render(const ParsedText& parsed) {
    std::vector<std::string> texts;
    texts.reserve(parsed.numbers.size());
    for (const auto& n : parsed.numbers)
        texts.push_back(n.text);
    return render_template(parsed.templ, texts);
}

std::string render_canonical(const ParsedText& parsed) {
    std::vector<std::string> texts;
    texts.reserve(parsed.numbers.size());
    for (const auto& n : parsed.numbers)
        texts.push_back(n.value.to_string());
    return render_template(parsed.templ, texts);
}

}  // namespace fone
