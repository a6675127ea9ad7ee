// `fone eval --benchmark arithmetic`: GPT-3's arithmetic tasks (fone/tasks/gpt3_arithmetic.h) put to a
// pretrained model folder or to a text run, scored by exact match of the greedy completion. How prompts
// are built and scored, and how that compares with lm-evaluation-harness: docs/pretrained.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/tasks/gpt3_arithmetic.h"

namespace fone {

struct ArithmeticBenchmarkSettings {
    std::vector<std::string> tasks;  // names (gpt3_arithmetic_task); empty: all ten
    std::size_t problems = 2000;     // per task
    std::uint64_t seed = 0;          // of the problems (the shots come from seed + 1)
    int shots = 0;                   // k-shot: k solved problems of the same task before each question
    Gpt3PromptStyle style = Gpt3PromptStyle::gpt3;
    std::size_t examples = 3;  // per task, the first problems shown with what the model wrote
    int threads = 0;
};

// Each task's result as it finishes: {"task", "lm_eval_name", "n", "correct", "exact_match",
// "negative_answers", "examples": [{"prompt", "expected", "output", "correct"}]}.
using BenchmarkTaskSink = std::function<void(const nlohmann::json&)>;

// A model folder: {"benchmark": "arithmetic", "source": "model", "model", "prompt_style", "shots", "seed",
// "problems", "tasks": [...], "mean_exact_match", "seconds"}. A problem is right when greedy decoding after
// the prompt's tokens writes exactly the tokens that tokenizing prompt + completion adds after the prompt
// (lm-eval's is_greedy). The gpt3 style encodes with the tokenizer's special tokens (BOS), the lm_eval
// style without (lm-eval's HFLM default). Throws std::invalid_argument (bad settings) and PretrainedError.
nlohmann::json arithmetic_benchmark_model(const std::string& dir, const ArithmeticBenchmarkSettings& s,
                                          const BenchmarkTaskSink& on_task = {});

// A text run (fone train --task text|word-problems|...): the same JSON with "source": "run", "run",
// "method". The run writes greedily after the prompt (with [ANS] for runs trained on prompts and answers);
// a problem is right when the written text, less leading spaces, starts with the answer and no digit or
// decimal point follows it. A prompt with a number wider than the run's digit slots (FoNE runs: m integer
// digits) is counted wrong, and each task says how many there were ("unreadable"). Throws
// std::invalid_argument for an arithmetic run.
nlohmann::json arithmetic_benchmark_run(const std::string& run_dir, const ArithmeticBenchmarkSettings& s,
                                        const BenchmarkTaskSink& on_task = {});

}  // namespace fone
