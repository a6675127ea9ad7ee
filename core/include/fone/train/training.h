// Training runs of the run store: a new run, a resumed one, a stop request. The API is plain C++ and JSON
// (LibTorch stays inside core/src/train/), so the CLI and the workbench can both use it.
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
//                        "examples_per_second", "val_exact_match", "elapsed_seconds",
//                        "typed" (runs with --sampling typed, the default of dec-add, int-add and sub:
//                        exact match per shape of the typed suite,
//                        {"round": ..., ...}; fone/tasks/typed_sums.h)}
//   The best checkpoint and --target-acc go by the test exact match; a run trained on typed sums by the
//   lowest of it and the typed shapes' (summary.json's best_exact_match is that one).
//   {"event":"end",      "status", "run", "dir", "message", "step", "best_exact_match", "elapsed_seconds"}
// metrics.jsonl holds the progress and eval events of the run, in order.
#pragma once

#include <string>

#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "fone/train/distributed.h"
#include "fone/train/events.h"

namespace fone {

struct TrainOutcome {
    std::string status;  // kStatusFinished, kStatusStopped or kStatusFailed
    std::string run_dir;
    std::string message;
};

// Creates a run in the store and trains it to the end, a stop request, or a failure (NaN/Inf loss).
// Throws RunError / std::invalid_argument before the run starts (bad config, no CUDA).
// With dist.active(), this process is one rank of a data-parallel run (fone/train/distributed.h): rank 0
// makes the run and holds its lock, the others train the folder it names and write nothing; only rank 0's
// sink gets events. Throws RunError when this build has no distributed training.
TrainOutcome train_new(const TrainConfig& config, RunStore& store, const EventSink& sink,
                       const DistributedSetup& dist = {});
// Continues a run from its last checkpoint; with the same seed and device, the final weights are the
// ones an uninterrupted run reaches. A run killed before its first checkpoint starts again from its
// config.json in the same directory (it had nothing to lose).
// threads >= 0 overrides the run's thread count (the only setting a resume may change: it does not
// change what is computed, only how fast).
// A data-parallel resume (dist.active()) may use another number of processes than the run started with.
TrainOutcome train_resume(const std::string& run_dir, const EventSink& sink, int threads = -1,
                          const DistributedSetup& dist = {});

// Asks the training loop to checkpoint and stop at the next step. Async-signal-safe.
void request_stop();

}  // namespace fone
