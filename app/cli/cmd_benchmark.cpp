// fone eval --benchmark arithmetic: GPT-3's arithmetic tasks put to a model folder (--model DIR) or a text
// run (--run RUN); a table of the tasks' exact match as each finishes, or one JSON object (--json).
//
//   fone eval --benchmark arithmetic --model DIR [--problems 2000] [--shots 0] [--seed 0] [--tasks 4D+,4D-]
//   fone eval --benchmark arithmetic --run RUN --json
#include <cstdio>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "fone/store/run_store.h"
#include "fone/train/arithmetic_benchmark.h"
#include "json_io.h"
#include "model_command.h"

namespace fone::cli {

void add_benchmark_options(CLI::App* eval, BenchmarkOptions& o) {
    eval->add_option(
            "--benchmark", o.benchmark,
            "arithmetic: GPT-3's ten arithmetic tasks (2D+ ... 1DC) as lm-eval runs them, exact match "
            "of the greedy completion, on --model DIR or a text --run (docs/pretrained.md)")
        ->check(CLI::IsMember({"arithmetic"}));
    eval->add_option("--model", o.model, "--benchmark: a Hugging Face model folder instead of a run");
    eval->add_option("--problems", o.settings.problems, "--benchmark: problems per task")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    eval->add_option("--shots", o.settings.shots,
                     "--benchmark: solved problems of the task before each question")
        ->check(CLI::Range(0, 100))
        ->capture_default_str();
    eval->add_option("--seed", o.settings.seed, "--benchmark: seed of the problems (the shots: seed + 1)")
        ->check(CLI::NonNegativeNumber)  // CLI11 reads -1 into an unsigned option as 2^64-1
        ->capture_default_str();
    eval->add_option("--tasks", o.tasks, "--benchmark: tasks, comma-separated (default: all ten)")
        ->delimiter(',');
    eval->add_option(
            "--prompt-style", o.style,
            "--benchmark: gpt3 (\"Q: What is 98 plus 45?\\n\\nA:\", with BOS) or lm-eval (\"Question: "
            "What is 98 plus 45?\\nAnswer:\", no special tokens: lm-eval's loader and HFLM)")
        ->check(CLI::IsMember({"gpt3", "lm-eval"}))
        ->capture_default_str();
    eval->add_flag("--json", o.json, "--benchmark: one JSON object instead of the table");
}

namespace {

void print_row(const nlohmann::json& t) {
    std::printf("%-5s %-16s %7zu %7zu %8.2f%%\n", t["task"].get<std::string>().c_str(),
                t["lm_eval_name"].get<std::string>().c_str(), t["n"].get<std::size_t>(),
                t["correct"].get<std::size_t>(), 100.0 * t["exact_match"].get<double>());
    std::fflush(stdout);
}

}  // namespace

void run_benchmark(const BenchmarkOptions& o, const std::string& run, const std::string& runs_dir,
                   int threads) {
    if (run.empty() == o.model.empty())
        throw std::invalid_argument(
            "--benchmark takes a model folder (--model DIR) or a run (--run RUN), one of them");
    ArithmeticBenchmarkSettings s = o.settings;
    s.tasks = o.tasks;
    s.style = o.style == "lm-eval" ? Gpt3PromptStyle::lm_eval : Gpt3PromptStyle::gpt3;
    s.threads = threads;
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
        gpt3_arithmetic_task(s.tasks[i]);  // a wrong name is the one error, before the table starts
        for (std::size_t k = 0; k < i; ++k)
            if (s.tasks[k] == s.tasks[i])
                throw std::invalid_argument("--tasks names " + s.tasks[i] +
                                            " twice (the mean is over distinct tasks)");
    }
    bool header = false;  // printed with the first row, so that an error leaves stdout empty
    const BenchmarkTaskSink on_task = [&](const nlohmann::json& t) {
        if (o.json) return;
        if (!header) std::printf("%-5s %-16s %7s %7s %9s\n", "task", "lm-eval", "n", "correct", "exact");
        header = true;
        print_row(t);
    };
    nlohmann::json result;
    if (!o.model.empty())
        run_model_command("eval", [&] { result = arithmetic_benchmark_model(o.model, s, on_task); });
    else
        result = arithmetic_benchmark_run(open_store(runs_dir, false).resolve(run), s, on_task);
    if (o.json) {
        print_json_line(std::cout, result);
        return;
    }
    std::printf("mean of %zu tasks: %.2f%% (%s prompts, %d-shot, seed %llu, %.1f s)\n",
                result["tasks"].size(), 100.0 * result["mean_exact_match"].get<double>(),
                result["prompt_style"].get<std::string>().c_str(), s.shots,
                static_cast<unsigned long long>(s.seed), result["seconds"].get<double>());
}

}  // namespace fone::cli
