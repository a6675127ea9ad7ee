// What a trained run's model says: its metrics on data, its answer to a prompt, the text it writes. Each
// call opens the run's best checkpoint (else its last).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fone/tasks/typed_sums.h"
#include "fone/train/events.h"

namespace fone {

// Metrics of a run's model (its best checkpoint, else the last) on its test split, or on a dataset file
// of "a+b=c" lines: {"n", "exact_match", "digit_accuracy", "digit_accuracy_by_position", "malformed"
// (outputs that are not numbers), "r2", "rmse", "method", "tokens_per_number", "eval_seconds",
// "eval_examples_per_second", "eval_cpu_seconds", "epoch_seconds" and "epoch_cpu_seconds" (the run's
// recorded training time per epoch, null when it has none), "checkpoint", "data"}; with max_mispredictions >
// 0 also "mispredictions": the first ones as {"prompt", "expected", "predicted"}. Token schemes are scored by
// free greedy generation, never teacher-forced.
nlohmann::json evaluate_run(const std::string& run_dir, const std::string& data_file = "", int threads = 0,
                            std::size_t max_mispredictions = 0);

// The typed suite (fone/tasks/typed_sums.h: sums with the shapes people type) on a run's model, shape by
// shape: {"suite": "typed", "task", "seed", "per_shape", "n", "typed": {"round": exact match, ...} (as in
// the eval events), "shapes": {"round": {"exact_match", "digit_accuracy", "n", "in_train" (examples of the
// shape that are in the run's training split), "examples" (the first three, as a+b=c)}, ...},
// "exact_match" (the whole suite), "lowest": {"shape", "exact_match"}, "method", "checkpoint",
// "eval_seconds"}; with max_mispredictions > 0 every shape also lists its first wrong answers. Throws
// std::invalid_argument for a run whose task has no typed sums.
nlohmann::json evaluate_typed_suite(const std::string& run_dir, int threads = 0,
                                    std::size_t per_shape = kTypedSuitePerShape,
                                    std::uint64_t seed = kTypedSuiteSeed, std::size_t max_mispredictions = 0);

// The model's answer to a prompt ("123.456+654.321=" or text made of the task's tokens and numbers):
// {"prompt", "tokens", "next_token", "value" (exact decimal string), "digits": [{"position", "digit",
// "probabilities": [10]}], "negative_probability"}.
nlohmann::json predict_run(const std::string& run_dir, const std::string& prompt, int threads = 0);

// Text runs (fone train --task text|word-problems|units|tables): what a model writes after a prompt.
struct GenerateRequest {
    std::string prompt;
    double temperature = 0.0;  // 0: greedy; > 0: sampling from softmax(logits / temperature)
    int top_k = 0;             // > 0: sampling among the k most probable tokens
    int max_tokens = 64;       // new tokens at most
    std::uint64_t seed = 0;    // of the sampling
    // Runs trained on prompts and answers get "[BOS] prompt [ANS]" and write the answer; with
    // continue_text (and always for runs on plain-text documents) the model continues "[BOS] prompt".
    bool continue_text = false;
    int threads = 0;
};
// Streams {"event": "token", "index", "id", "piece", "text" (what the token adds to the text, "" while a
// character is incomplete), "probability", "number" (fone [NUM]: its value)} to on_token, one per new
// token, and returns {"event": "end", "prompt", "text" (the whole generated text, numbers written by
// write_number), "numbers" (the numbers in it, exact decimal strings), "tokens", "stop" ("eos",
// "max_tokens" or "max_seq"), "method", "checkpoint"}. With a fone model, [NUM]'s value comes from the
// digit head and the next step sees [NUM] + FoNE(value) (the KV cache keeps earlier positions).
// Throws std::invalid_argument for a run that is not a text run, an empty prompt (answer runs), bad
// options, and NumberError for a prompt number that does not fit the run's digit slots; RunError for an
// unreadable run.
nlohmann::json generate_run(const std::string& run_dir, const GenerateRequest& request,
                            const EventSink& on_token = {});

}  // namespace fone
