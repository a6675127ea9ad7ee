// The arithmetic grammar: the operator table, the reader of dataset lines and the reader of prompts.
#include "fone/tasks/expression.h"

#include <algorithm>

#include "fone/numbers/number_parser.h"
#include "tasks/line_text.h"

namespace fone {
namespace {

// The operator table: every way an operator may be written, in the order the messages list them. An
// operator's first spelling is its name (op_name): ASCII.
struct Spelling {
    std::string_view text;
    Op op;
};
constexpr Spelling kSpellings[] = {
    {"+", Op::plus},
    {"-", Op::minus},
    {"*", Op::times},
    {"\xC3\x97", Op::times},      // ×, U+00D7
    {"\xE2\x88\x92", Op::minus},  // −, U+2212
    {",", Op::comma},
    {"mod", Op::mod},
    {"/", Op::divide},
    {"\xC3\xB7", Op::divide},  // ÷, U+00F7
    {"max", Op::max},
};

// Operators written as words stand between spaces: "12 mod 7", "3 max 4".
bool is_word(std::string_view op) {
    return op == "mod" || op == "max";
}

bool is_sign(Op op) {
    return op == Op::plus || op == Op::minus;
}

// "+ - * × − , mod": the spellings, for messages.
std::string spellings_list() {
    std::string list;
    for (const Spelling& s : kSpellings)
        list += (list.empty() ? "" : " ") + std::string(s.text);
    return list;
}

// A cursor over an expression, reading operators (any spelling), "=" and numbers.
class Reader {
  public:
    explicit Reader(std::string_view s) : s_(s) {}

    bool at_end() const { return i_ == s_.size(); }
    std::string_view rest() const { return s_.substr(i_); }
    std::string_view read_so_far() const { return s_.substr(0, i_); }
    // The rest up to the next space.
    std::string_view word() const {
        std::size_t end = i_;
        while (end < s_.size() && !is_line_space(s_[end]))
            ++end;
        return s_.substr(i_, end - i_);
    }

    void skip_space() {
        while (i_ < s_.size() && is_line_space(s_[i_]))
            ++i_;
    }
    // Moves past `text` if the cursor is at it.
    bool take(std::string_view text) {
        if (s_.substr(i_, text.size()) != text) return false;
        i_ += text.size();
        return true;
    }
    // The operator written at the cursor, without moving; its spelling's length in *length.
    std::optional<Op> op_here(std::size_t* length = nullptr) const {
        for (const Spelling& s : kSpellings)
            if (s_.substr(i_, s.text.size()) == s.text) {
                if (length) *length = s.text.size();
                return s.op;
            }
        return std::nullopt;
    }
    std::optional<Op> take_op() {
        std::size_t length = 0;
        const auto op = op_here(&length);
        if (op) i_ += length;
        return op;
    }

    // A number of a dataset line: an optional sign right before the digits, then everything up to a space,
    // '=' or an operator; a '+' or '-' right after the 'e' of an exponent belongs to the number. `what`
    // names it in errors ("a number after '+'").
    Decimal line_number(const std::string& what) {
        std::string token;
        if (const auto op = op_here(); op && is_sign(*op)) token += sign_here();
        const std::size_t sign_len = token.size();
        while (i_ < s_.size() && !number_ends(token))
            token += op_here() ? sign_here() : s_[i_++];  // an operator here is an exponent's sign
        if (token.size() == sign_len) {
            if (at_end()) throw DatasetError("expected " + what + " at the end of the line");
            throw DatasetError("expected " + what + ", found " + quote_text(rest()));
        }
        Decimal d;
        std::string error;
        if (!Decimal::try_parse(token, d, &error)) throw DatasetError(error);
        return d;
    }

  private:
    // The sign at the cursor as ASCII ('−' reads as '-'), moved past.
    char sign_here() {
        const Op op = *take_op();
        return op == Op::plus ? '+' : '-';
    }
    bool number_ends(const std::string& token) const {
        if (is_line_space(s_[i_]) || s_.substr(i_, kEqualsSign.size()) == kEqualsSign) return true;
        const auto op = op_here();
        if (!op) return false;
        const std::size_t n = token.size();
        const bool after_exponent = n >= 2 && (token[n - 1] == 'e' || token[n - 1] == 'E') &&
                                    ((token[n - 2] >= '0' && token[n - 2] <= '9') || token[n - 2] == '.');
        return !(is_sign(*op) && after_exponent);
    }

    std::string_view s_;
    std::size_t i_ = 0;
};

// The forms the tasks have: a+b, a-b, a*b, a/b, a max b, n1,n2,... and a+b mod p.
void check_form(const std::vector<std::string>& ops) {
    if (ops.empty()) throw DatasetError("expected an operator between two numbers before '='");
    if (ops.size() == 1 && ops[0] != "," && ops[0] != "mod") return;
    if (std::all_of(ops.begin(), ops.end(), [](const std::string& op) { return op == ","; })) return;
    if (ops.size() == 2 && ops[0] == "+" && ops[1] == "mod") return;
    std::string form = "a";
    for (const std::string& op : ops)
        form += (is_word(op) ? " " + op + " " : op) + "a";
    throw DatasetError("unsupported form '" + form +
                       "=c': expected a+b, a-b, a*b, a×b, a−b, a/b, a max b, n1,n2,... or a+b mod p "
                       "before '='");
}

// a / b when the quotient ends within `max_frac` digits after the point, by long division on the digits
// (b not 0); nullopt when it does not end there.
std::optional<Decimal> exact_quotient(const Decimal& a, const Decimal& b, int max_frac) {
    // Both scaled to integers by the same power of ten: A / B = a / b.
    const int scale = std::max(a.frac_digit_count(), b.frac_digit_count());
    const Decimal big_a = (a * Decimal::power(10, scale)).abs(),
                  big_b = (b * Decimal::power(10, scale)).abs();
    const Decimal ten = Decimal::from_int(10);
    std::string int_digits, frac_digits;
    Decimal rest;
    // One quotient digit: the largest q with B·q <= rest, rest reduced by it.
    const auto next_digit = [&](int incoming) {
        rest = rest * ten + Decimal::from_int(incoming);
        int q = 0;
        while (q < 9 && big_b * Decimal::from_int(q + 1) <= rest)
            ++q;
        rest = rest - big_b * Decimal::from_int(q);
        return static_cast<char>('0' + q);
    };
    for (const char c : big_a.int_digits())
        int_digits += next_digit(c - '0');
    while (!rest.is_zero()) {
        if (static_cast<int>(frac_digits.size()) == max_frac) return std::nullopt;
        frac_digits += next_digit(0);
    }
    return Decimal::from_digits(a.negative() != b.negative(), int_digits, frac_digits);
}

// "+ - * , mod = and numbers": what a prompt may hold.
std::string prompt_words() {
    std::string list;
    for (const Op op : kOps)
        list += std::string(op_name(op)) + " ";
    return list + std::string(kEqualsSign) + " and numbers";
}

}  // namespace

std::string_view op_name(Op op) {
    for (const Spelling& s : kSpellings)
        if (s.op == op) return s.text;
    throw std::invalid_argument("op_name: " + std::to_string(static_cast<int>(op)) + " is no operator");
}

std::optional<Op> op_named(std::string_view name) {
    for (const Op op : kOps)
        if (op_name(op) == name) return op;
    return std::nullopt;
}

std::string Example::prompt() const {
    std::string s;
    for (std::size_t i = 0; i < operands.size(); ++i) {
        s += operands[i].to_string();
        if (i < ops.size()) s += is_word(ops[i]) ? " " + ops[i] + " " : ops[i];
    }
    s += kEqualsSign;
    return s;
}

std::string Example::line() const {
    return prompt() + answer.to_string();
}

namespace {

// Numbers joined by operators, up to '=' (taken: *equals true) or the end of the line (*equals false).
Example read_operands(Reader& r, bool* equals) {
    Example e;
    e.operands.push_back(r.line_number("a number"));
    for (;;) {
        r.skip_space();
        *equals = r.take(kEqualsSign);
        if (*equals || r.at_end()) return e;
        const auto op = r.take_op();
        if (!op)
            throw DatasetError("expected an operator (" + spellings_list() + ") or '=' after " +
                               quote_text(e.operands.back().to_string()) + ", found " + quote_text(r.rest()));
        e.ops.emplace_back(op_name(*op));
        r.skip_space();
        e.operands.push_back(r.line_number("a number after '" + e.ops.back() + "'"));
    }
}

}  // namespace

Example parse_example_line(std::string_view line) {
    Reader r(line);
    r.skip_space();
    if (r.at_end()) throw DatasetError("empty line");
    bool equals = false;
    Example e = read_operands(r, &equals);
    if (!equals) throw DatasetError("expected '=' and the answer after " + quote_text(r.read_so_far()));
    r.skip_space();
    if (r.at_end()) throw DatasetError("expected the answer after '='");
    e.answer = r.line_number("the answer after '='");
    r.skip_space();
    if (!r.at_end()) throw DatasetError("unexpected text after the answer: " + quote_text(r.rest()));
    check_form(e.ops);
    return e;
}

namespace {

// The word at the templ offset `at`, with the numbers the parser put placeholders for written back as the
// user wrote them ("/2=", never "/[NUM]=").
std::string original_word(const ParsedText& parsed, const std::string& templ, std::size_t at,
                          std::string_view word) {
    std::size_t k = 0;
    for (std::size_t p = templ.find(kNumPlaceholder); p != std::string::npos && p < at;
         p = templ.find(kNumPlaceholder, p + 1))
        ++k;
    std::string out;
    for (std::size_t i = 0; i < word.size();) {
        if (word.substr(i, kNumPlaceholder.size()) == kNumPlaceholder && k < parsed.numbers.size()) {
            out += parsed.numbers[k++].text;
            i += kNumPlaceholder.size();
        } else {
            out += word[i++];
        }
    }
    return out;
}

// Every word is a number, an operator or "=" (else the unknown word is the error), and there is a number.
void check_prompt_words(std::string_view prompt) {
    const ParsedText parsed = parse_numbers(prompt);  // NumberError for text holding the placeholder
    std::string text = parsed.templ;
    std::replace(text.begin(), text.end(), '\n', ' ');  // a prompt may span lines
    Reader r(text);
    std::size_t numbers = 0;
    for (r.skip_space(); !r.at_end(); r.skip_space()) {
        if (r.take(kNumPlaceholder)) {
            ++numbers;
        } else if (!r.take_op() && !r.take(kEqualsSign)) {
            const std::string word = original_word(parsed, text, r.read_so_far().size(), r.word());
            throw std::invalid_argument("the model has no token for " + quote_text(word) +
                                        " (it knows: " + prompt_words() + ")");
        }
    }
    if (numbers == 0) throw std::invalid_argument("the prompt has no number");
}

}  // namespace

std::vector<PromptTerm> parse_prompt(std::string_view prompt, PromptForm form) {
    check_prompt_words(prompt);
    // Read as a dataset line is read (so "120,450,900=" is three numbers and "5--3=" is 5 - (-3)).
    std::string text(prompt);
    std::replace(text.begin(), text.end(), '\n', ' ');  // a prompt may span lines
    Reader r(text);
    r.skip_space();
    bool equals = false;
    Example e;
    try {
        e = read_operands(r, &equals);
        r.skip_space();
        if (equals && !r.at_end())
            throw DatasetError("text after '=' (" + quote_text(r.rest()) + "): a prompt ends with its '='");
        if (form == PromptForm::question) {
            if (!equals)
                throw DatasetError("a prompt is a whole question that ends with '=' (such as 12+40=), not " +
                                   quote_text(prompt));
            check_form(e.ops);
        }
    } catch (const DatasetError& err) {
        throw std::invalid_argument(std::string("not a question the model can answer: ") + err.what());
    }
    std::vector<PromptTerm> terms;
    for (std::size_t i = 0; i < e.operands.size(); ++i) {
        if (i > 0) terms.push_back({PromptTerm::Kind::op, *op_named(e.ops[i - 1]), {}});
        terms.push_back({PromptTerm::Kind::number, Op::plus, e.operands[i]});
    }
    if (equals) terms.push_back({PromptTerm::Kind::equals, Op::plus, {}});
    return terms;
}

std::optional<Decimal> exact_answer(std::string_view prompt) {
    if (prompt.empty() || prompt.back() != '=') return std::nullopt;
    try {
        const Example e = parse_example_line(std::string(prompt) + "0");
        const auto& x = e.operands;
        for (const Decimal& operand : x)
            if (operand.int_digit_count() + operand.frac_digit_count() > kMaxExactAnswerDigits)
                return std::nullopt;
        if (e.ops.size() == 1 && x.size() == 2) {
            if (e.ops[0] == "+") return x[0] + x[1];
            if (e.ops[0] == "-") return x[0] - x[1];
            if (e.ops[0] == "*") return x[0] * x[1];
            if (e.ops[0] == "max") return std::max(x[0], x[1]);
            if (e.ops[0] == "/" && !x[1].is_zero()) return exact_quotient(x[0], x[1], 30);
        }
        if (e.ops.size() == 2 && e.ops[0] == "+" && e.ops[1] == "mod" && !x[2].is_zero())
            return Decimal::mod(x[0] + x[1], x[2]);
    } catch (const std::exception&) {  // not an expression, or a mod of fractions
    }
    return std::nullopt;
}

}  // namespace fone
