// GPT-3's arithmetic benchmark (Brown et al. 2020, section 3.9.1), as lm-evaluation-harness runs it
// ("arithmetic_2da" ... "arithmetic_1dc"): ten tasks of questions in words, "What is 98 plus 45?", answered
// " 143". Generated here from a seed with the published files' distributions (they carry no licence):
// operands uniform on [0, 10^n) (not forced to n digits, so about half of the differences are negative),
// 2Dx two operands in [0, 100), 1DC three single digits with the first two bracketed, "(9 + 8) * 2".
// How a prompt is built and scored is docs/pretrained.md's "The arithmetic benchmark".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fone {

struct Gpt3ArithmeticTask {
    std::string_view name;          // "2D+", "2D-", ..., "2Dx", "1DC" (the GPT-3 paper's names)
    std::string_view lm_eval_name;  // "arithmetic_2da", "arithmetic_2ds", ..., "arithmetic_1dc"
    int digits = 0;                 // operands in [0, 10^digits)
    char op = '+';                  // '+', '-', '*'; 'c' for 1DC (two operators drawn per problem)
};

// The ten tasks in the paper's order: 2D+, 2D-, 3D+, 3D-, 4D+, 4D-, 5D+, 5D-, 2Dx, 1DC.
const std::vector<Gpt3ArithmeticTask>& gpt3_arithmetic_tasks();
// A task by either name ("4D-", "4d-", "arithmetic_4ds"); std::invalid_argument listing the names otherwise.
const Gpt3ArithmeticTask& gpt3_arithmetic_task(std::string_view name);

struct Gpt3Problem {
    std::string question;  // "What is 98 plus 45?", "What is (9 + 8) * 2?"
    long long answer = 0;  // 143, 34, -51
};

// The problem of given operands: two for +, -, * ("plus", "minus", "times"); three and two operators
// ('+', '-', '*') for 1DC, evaluated as (a op1 b) op2 c. std::invalid_argument for the wrong counts.
Gpt3Problem gpt3_problem(const Gpt3ArithmeticTask& task, const std::vector<long long>& operands,
                         const std::vector<char>& operators = {});

// `count` problems of a task drawn from `seed` (std::mt19937_64 seeded with the seed and the task's index,
// operands as raw draws modulo 10^n: the same problems on every platform). The same seed and task always
// give the same list, and a shorter count is a prefix of a longer one.
std::vector<Gpt3Problem> gpt3_arithmetic_problems(const Gpt3ArithmeticTask& task, std::size_t count,
                                                  std::uint64_t seed);

// How the question is put to the model:
//  gpt3:    the published files' context without its leading blank line, "Q: What is 98 plus 45?\n\nA:"
//  lm_eval: what lm-evaluation-harness's EleutherAI/arithmetic loader makes of it (strip, "\n\n" -> "\n",
//           "Q:" -> "Question:", "A:" -> "Answer:"): "Question: What is 98 plus 45?\nAnswer:"
enum class Gpt3PromptStyle { gpt3, lm_eval };
std::string gpt3_context(const Gpt3Problem& p, Gpt3PromptStyle style);
// The completion scored: a space and the answer, " 143", " -51" (nothing is added between context and it).
std::string gpt3_completion(const Gpt3Problem& p);
// k-shot: each shot's context and completion, then the question's context, joined by "\n\n".
std::string gpt3_prompt(const std::vector<Gpt3Problem>& shots, const Gpt3Problem& p, Gpt3PromptStyle style);

}  // namespace fone
