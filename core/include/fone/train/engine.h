// The training engine: trains, evaluates and queries runs in the run store. The API is plain C++ and
// JSON (LibTorch stays inside core's .cpp files), so the CLI and the workbench can both use it.
//
// Events (one JSON object each, the same objects `fone train` prints one per line on stdout):
//   {"event":"start",    "run", "dir", "config", "params", "params_without_embedding", "device", ...}
//   {"event":"progress", "step", "total_steps", "epoch", "loss", "lr", "examples_per_second",
//                        "elapsed_seconds", "eta_seconds"}
//   {"event":"eval",     "step", "epoch", "split", "method", "n", "exact_match", "digit_accuracy",
//                        "malformed", "r2", "rmse", "epoch_seconds", "eval_seconds", "tokens_per_number",
//                        "epoch_cpu_seconds", "eval_cpu_seconds" (CPU time of the process: on a shared
//                        machine steadier than wall time; epoch_* are per whole epoch, scaled up when the
//                        evaluation comes mid-epoch),
//                        "examples_per_second", "val_exact_match", "elapsed_seconds"}
//   {"event":"end",      "status", "run", "dir", "message", "step", "best_exact_match", "elapsed_seconds"}
// metrics.jsonl holds the progress and eval events of the run, in order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/numbers/decimal.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"

namespace fone {

using EventSink = std::function<void(const nlohmann::json&)>;

struct TrainOutcome {
    std::string status;  // kStatusFinished, kStatusStopped or kStatusFailed
    std::string run_dir;
    std::string message;
};

// Creates a run in the store and trains it to the end, a stop request, or a failure (NaN/Inf loss).
// Throws RunError / std::invalid_argument before the run starts (bad config, no CUDA).
TrainOutcome train_new(const TrainConfig& config, RunStore& store, const EventSink& sink);
// Continues a run from its last checkpoint; with the same seed and device, the final weights are the
// ones an uninterrupted run reaches. A run killed before its first checkpoint starts again from its
// config.json in the same directory (it had nothing to lose).
// threads >= 0 overrides the run's thread count (the only setting a resume may change: it does not
// change what is computed, only how fast).
TrainOutcome train_resume(const std::string& run_dir, const EventSink& sink, int threads = -1);

// Opens a checkpoint as evaluate/predict/resume do: its format, meta data and config, then its weights
// against the model the config builds. {"config", "step", "epoch", "params", "weights_digest"}. A corrupt,
// truncated or mismatched file is a RunError naming it, never a crash (tests/fuzz/fuzz_checkpoint.cpp).
nlohmann::json inspect_checkpoint(const std::string& path);

// Asks the training loop to checkpoint and stop at the next step. Async-signal-safe.
void request_stop();

// Metrics of a run's model (its best checkpoint, else the last) on its test split, or on a dataset file
// of "a+b=c" lines: {"n", "exact_match", "digit_accuracy", "digit_accuracy_by_position", "malformed"
// (outputs that are not numbers), "r2", "rmse", "method", "tokens_per_number", "eval_seconds",
// "eval_examples_per_second", "eval_cpu_seconds", "epoch_seconds" and "epoch_cpu_seconds" (the run's
// recorded training time per epoch, null when it has none), "checkpoint", "data"}; with max_mispredictions >
// 0 also "mispredictions": the first ones as {"prompt", "expected", "predicted"}. Token schemes are scored by
// free greedy generation, never teacher-forced.
nlohmann::json evaluate_run(const std::string& run_dir, const std::string& data_file = "", int threads = 0,
                            std::size_t max_mispredictions = 0);

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

// Training throughput of a config's model on its task, outside any run: `steps` optimiser steps after
// `warmup_steps` untimed ones. {"examples_per_second", "flops_per_example", "gflops_per_second",
// "seconds", and the time split into "batching_seconds", "forward_seconds", "backward_seconds",
// "optimizer_seconds"}.
nlohmann::json measure_training_throughput(TrainConfig config, int steps, int warmup_steps = 3);

// Inference speed of a config's (untrained) model: {"single_latency_ms" (one prompt, one forward pass,
// median of `repeats`), "eval_examples_per_second" (batched evaluation of `eval_examples`)}.
nlohmann::json measure_inference_speed(TrainConfig config, int repeats = 50,
                                       std::size_t eval_examples = 20000);

// "cpu" or "cuda" for "auto"; throws std::invalid_argument for "cuda" in a build or on a machine without it.
std::string resolve_device(const std::string& requested);
bool cuda_available();
std::string torch_version();
// {"libtorch": "1.13.1", "cuda_build": "" (a CPU-only LibTorch) or "12.1", "cuda_available", "gpus"}.
nlohmann::json torch_build_info();

}  // namespace fone

namespace fone {

// How a run's model represents numbers, for the analyses (Fourier spectra, PCA, probes; docs/analysis.md).
// Number-token methods (fone, fone-direct, xval): the residual stream at the number's position for the
// prompt "[BOS] x", after the input embedding (layer 0) and after every block (layer L, before the final
// norm). Token methods (digit, subword, ...): the embedding rows of the number tokens that spell x
// exactly as one token ("7"; "123" for subword), one layer.
struct NumberRepresentations {
    std::string source;                                   // "hidden_states" or "token_embeddings"
    std::vector<std::string> numbers;                     // as given, canonical
    std::vector<std::vector<std::vector<float>>> layers;  // [layer][number][dimension]
};
// Throws std::invalid_argument for a number the run cannot take (too many digits for its slots; for token
// methods, a number that is not one of its tokens) and RunError for an unreadable run.
NumberRepresentations number_representations(const std::string& run_dir, const std::vector<Decimal>& numbers,
                                             int threads = 0);

// Copies a run's model for shipping (a bundled demo, a colleague): out_dir gets config.json, summary.json, a
// "finished" status.json and checkpoint-best.pt with the weights and the config but without the optimiser
// state (a third of the size). The copy is a run directory: `fone eval/predict --run out_dir` take it.
// Throws RunError for an unreadable run or an existing out_dir.
void export_model(const std::string& run_dir, const std::string& out_dir);

}  // namespace fone
