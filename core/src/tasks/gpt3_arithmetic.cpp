#include "fone/tasks/gpt3_arithmetic.h"

#include <cctype>
#include <random>
#include <stdexcept>

namespace fone {
namespace {

long long power_of_ten(int n) {
    long long p = 1;
    for (int i = 0; i < n; ++i)
        p *= 10;
    return p;
}

long long apply(char op, long long a, long long b) {
    switch (op) {
        case '+':
            return a + b;
        case '-':
            return a - b;
        case '*':
            return a * b;
        default:
            throw std::invalid_argument(std::string("an arithmetic operator is +, - or *, not '") + op + "'");
    }
}

std::string word(char op) {
    return op == '+' ? "plus" : op == '-' ? "minus" : "times";
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

}  // namespace

const std::vector<Gpt3ArithmeticTask>& gpt3_arithmetic_tasks() {
    static const std::vector<Gpt3ArithmeticTask> tasks = {
        {"2D+", "arithmetic_2da", 2, '+'}, {"2D-", "arithmetic_2ds", 2, '-'},
        {"3D+", "arithmetic_3da", 3, '+'}, {"3D-", "arithmetic_3ds", 3, '-'},
        {"4D+", "arithmetic_4da", 4, '+'}, {"4D-", "arithmetic_4ds", 4, '-'},
        {"5D+", "arithmetic_5da", 5, '+'}, {"5D-", "arithmetic_5ds", 5, '-'},
        {"2Dx", "arithmetic_2dm", 2, '*'}, {"1DC", "arithmetic_1dc", 1, 'c'}};
    return tasks;
}

const Gpt3ArithmeticTask& gpt3_arithmetic_task(std::string_view name) {
    std::string names;
    for (const Gpt3ArithmeticTask& t : gpt3_arithmetic_tasks()) {
        if (lower(name) == lower(t.name) || name == t.lm_eval_name) return t;
        names += (names.empty() ? "" : ", ") + std::string(t.name);
    }
    throw std::invalid_argument("no arithmetic task '" + std::string(name) + "' (the tasks: " + names + ")");
}

Gpt3Problem gpt3_problem(const Gpt3ArithmeticTask& task, const std::vector<long long>& operands,
                         const std::vector<char>& operators) {
    if (task.op != 'c') {
        if (operands.size() != 2 || !operators.empty())
            throw std::invalid_argument(std::string(task.name) + " takes two operands and no operators");
        return {"What is " + std::to_string(operands[0]) + " " + word(task.op) + " " +
                    std::to_string(operands[1]) + "?",
                apply(task.op, operands[0], operands[1])};
    }
    if (operands.size() != 3 || operators.size() != 2)
        throw std::invalid_argument("1DC takes three operands and two operators");
    const long long answer = apply(operators[1], apply(operators[0], operands[0], operands[1]), operands[2]);
    return {"What is (" + std::to_string(operands[0]) + " " + operators[0] + " " +
                std::to_string(operands[1]) + ") " + operators[1] + " " + std::to_string(operands[2]) + "?",
            answer};
}

std::vector<Gpt3Problem> gpt3_arithmetic_problems(const Gpt3ArithmeticTask& task, std::size_t count,
                                                  std::uint64_t seed) {
    std::size_t index = 0;
    while (gpt3_arithmetic_tasks()[index].name != task.name)
        ++index;
    // Each task its own stream: golden-ratio spacing keeps seed s of task i away from seed s+1 of task i-1.
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + index + 1);
    const auto modulo = static_cast<std::uint64_t>(power_of_ten(task.digits));
    const auto draw = [&] { return static_cast<long long>(rng() % modulo); };
    static constexpr char kOps[] = {'+', '-', '*'};
    std::vector<Gpt3Problem> problems;
    problems.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        if (task.op != 'c') {
            const long long a = draw(), b = draw();
            problems.push_back(gpt3_problem(task, {a, b}));
            continue;
        }
        const long long a = draw(), b = draw(), c = draw();
        const char op1 = kOps[rng() % 3], op2 = kOps[rng() % 3];
        problems.push_back(gpt3_problem(task, {a, b, c}, {op1, op2}));
    }
    return problems;
}

std::string gpt3_context(const Gpt3Problem& p, Gpt3PromptStyle style) {
    std::string context = "Q: " + p.question + "\n\nA:";
    if (style == Gpt3PromptStyle::gpt3) return context;
    replace_all(context, "\n\n", "\n");
    replace_all(context, "Q:", "Question:");
    replace_all(context, "A:", "Answer:");
    return context;
}

std::string gpt3_completion(const Gpt3Problem& p) {
    return " " + std::to_string(p.answer);
}

std::string gpt3_prompt(const std::vector<Gpt3Problem>& shots, const Gpt3Problem& p, Gpt3PromptStyle style) {
    std::string prompt;
    for (const Gpt3Problem& s : shots)
        prompt += gpt3_context(s, style) + gpt3_completion(s) + "\n\n";
    return prompt + gpt3_context(p, style);
}

}  // namespace fone
