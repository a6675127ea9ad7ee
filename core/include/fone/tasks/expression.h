// Arithmetic as the tasks write it: numbers joined by operators, then "=" and, in a dataset line, the
// answer ("12+40=52", "1,2,3=1", "12+40 mod 97=52"). One table of operators and one reader serve the two
// places where such text comes in:
//   - dataset lines (parse_example_line; the dataset files of dataset_file.h read them), and
//   - prompts that users type (parse_prompt; the number schemes turn them into tokens).
// The two differ only in where a number is. A dataset line holds nothing but numbers and operators, so a
// number runs up to the next space, '=' or operator, and a '-' right after a number is the operator
// ("5--3=8"; "1,234=5" is the classify line of 1 and 234). A prompt is read the same way, once each of
// its words is known to be a number, an operator or "=".
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fone/numbers/decimal.h"

namespace fone {

// The operators. The first five are every number model's words, in the order its vocabulary lists them
// (kBaseOps); divide and max (the div and compare tasks, issue 19) came later and get a token only in the
// runs whose task uses them, after the method's own tokens, so that earlier runs keep their vocabulary.
enum class Op { plus, minus, times, comma, mod, divide, max };
inline constexpr std::array<Op, 7> kOps = {Op::plus, Op::minus,  Op::times, Op::comma,
                                           Op::mod,  Op::divide, Op::max};
inline constexpr std::array<Op, 5> kBaseOps = {Op::plus, Op::minus, Op::times, Op::comma, Op::mod};

// How examples store and write an operator: "+", "-", "*", ",", "mod", "/" and "max" (ASCII). The readers
// also take the Unicode minus sign − (U+2212) for "-", the multiplication sign × (U+00D7) for "*" and the
// division sign ÷ (U+00F7) for "/".
std::string_view op_name(Op op);
// The operator op_name gives `name`; nullopt for any other text.
std::optional<Op> op_named(std::string_view name);
// Between the question and the answer.
inline constexpr std::string_view kEqualsSign = "=";

// One example: operands joined by operators, then "=" and the answer. The operator list has one entry
// fewer than the operands: "+", "-", "*", "/", "max" or "," (classify); mod-add uses {"+", "mod"} with the
// modulus as the third operand.
struct Example {
    std::vector<Decimal> operands;
    std::vector<std::string> ops;  // op_name of each operator
    Decimal answer;

    std::string prompt() const;  // "12.5+3=", "7 max 12=" (word operators stand between spaces)
    std::string line() const;    // "12.5+3=15.5"
    friend bool operator==(const Example&, const Example&) = default;
};

// A malformed dataset line or file; the message says what is wrong (and, from the file reader, where).
class DatasetError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// One dataset line: "a+b=c" with + - * (also the Unicode − and ×) or "," between operands, optional
// spaces around tokens, and numbers in any form Decimal::parse accepts. Throws DatasetError (without
// file or line context) saying what is wrong.
//   Accepted forms: a+b=c, a-b=c, a*b=c, a×b=c, a−b=c, a/b=c, a÷b=c, a max b=c, n1,n2,...=c (two or
//   more numbers) and a+b mod p=c. A negative number carries a '-' (or '−') right before its digits:
//   "-5+-3=-8", "5--3=8" (the first '-' after a number is the operator). Operators are stored as op_name
//   writes them, so line() writes ASCII. The answer is not checked against the operands (a file may hold any
//   labels).
Example parse_example_line(std::string_view line);

// One word of a prompt: a number, an operator or "=".
struct PromptTerm {
    enum class Kind { number, op, equals };
    Kind kind = Kind::number;
    Op op = Op::plus;  // kind == op
    Decimal number;    // kind == number
};

// What parse_prompt accepts: a question a user asks (`fone predict`), or the operands alone (a number, or
// numbers and operators with or without the final "=": the inputs of a representation dump).
enum class PromptForm { question, operands };

// A prompt as its words, in order, read as the start of a dataset line (so "120,450,900=" is three numbers
// and "5--3=" is 5 - (-3)). A question is of one of the tasks' forms (a+b=, a-b=, a*b=, n1,n2,...=,
// a+b mod p=) and ends with "=" ("1+2", "5", "1+2=3=4+5" are refused). Throws std::invalid_argument naming
// the first word that is no number, operator or "=" and listing the known ones ("the model has no token
// for 'plus' (it knows: + - * , mod = and numbers)"), saying that the prompt has no number, or what is not
// a question in it; NumberError for text that already holds the placeholder "[NUM]". The user's text in a
// message is cut and escaped (shown_text).
std::vector<PromptTerm> parse_prompt(std::string_view prompt, PromptForm form = PromptForm::question);

// The exact answer of an arithmetic prompt "a+b=", "a-b=", "a*b=", "a max b=", "a/b=" (when the quotient
// ends within 30 digits after the point) or "a+b mod p=" (p not 0), read as the start of a dataset line;
// nullopt for anything else (a classify prompt asks for a label, not a result; 1/3 never ends), and for
// an operand of more than kMaxExactAnswerDigits digits: the window works the answer out as the user
// types, and schoolbook multiplication and long division cost the product of the operands' lengths
// (1e7888/1e9811= took 1.8 s, issue 33); within the bound an answer costs milliseconds.
inline constexpr int kMaxExactAnswerDigits = 1000;
std::optional<Decimal> exact_answer(std::string_view prompt);

}  // namespace fone
