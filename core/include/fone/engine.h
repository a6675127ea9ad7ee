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

#include "fone/decimal.h"
#include "fone/run_store.h"
#include "fone/train_config.h"

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
// ones an uninterrupted run reaches.
// threads >= 0 overrides the run's thread count (the only setting a resume may change: it does not
// change what is computed, only how fast).
TrainOutcome train_resume(const std::string& run_dir, const EventSink& sink, int threads = -1);

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
