// The checkpoint file (checkpoint-last.safetensors, checkpoint-best.safetensors): a safetensors file
// (fone/io/safetensors.h), which holds data and cannot carry code. Private to core/src/ (checkpoints, train).
//
//   tensors   every parameter and buffer of the model under its own name ("embed.weight", ...), and for a
//             training checkpoint AdamW's state per parameter, in parameter order:
//             "optimizer/<name>/exp_avg", "optimizer/<name>/exp_avg_sq" (float32, the parameter's shape)
//             and "optimizer/<name>/step" (int64 scalar)
//   metadata  "format" "fone-checkpoint/2", "config" (the run's settled config, JSON), "position" and
//             "times" (JSON: where training stands), "identity" (the run's, run_identity of its config.json),
//             "optimizer" ("adamw", or "none" in an exported model)
//
// Written atomically (tmp, fsync, rename); a write that fails (a full disk) names the file and the free space
// and leaves the previous file whole. Reading is a bounded parse: the header and every size are checked
// against the file, the metadata against what a run can hold, and every tensor's dtype and shape against the
// model the config builds before a byte of it is copied.
#pragma once

#include <functional>

#include <optional>
#include <string>

#include <torch/torch.h>

#include "fone/io/safetensors.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "nn/model.h"

namespace fone {

// Where training stands: what a resumed run continues from.
struct Position {
    int64_t step = 0, epoch = 0, batch_in_epoch = 0;
    double best_exact_match = -1.0;
    double train_seconds = 0.0;    // pure training time so far, over every session of the run
    double elapsed_seconds = 0.0;  // wall time so far, over every session
    double time_to_target = -1.0;
    double train_cpu_seconds = 0.0;  // CPU time of the training steps so far (the --cpu-seconds budget's)
};

struct Checkpoint {
    std::string path;
    TrainConfig config;
    Position pos;
    std::string identity;                   // the run it belongs to (run_identity)
    bool has_optimizer = false;             // AdamW's state is in it (a training checkpoint)
    std::optional<safetensors::File> file;  // the tensors, memory-mapped (always set by open_checkpoint)
};

// Whether every parameter's AdamW state holds both moments: a legacy .pt read by another LibTorch (2.x
// reading 1.13's archive) can leave a state without them, which save_checkpoint refuses.
bool optimizer_state_complete(FoneTransformer& model, torch::optim::AdamW& opt);

// Writes path through a temporary file (fsync, rename): a kill mid-write leaves the old file whole.
// opt == nullptr: no optimiser state (an exported model). RunError naming the file and the free space when
// the write fails.
void save_checkpoint(const std::string& path, FoneTransformer& model, torch::optim::AdamW* opt,
                     const TrainConfig& config, const Position& pos, const std::string& identity);
// Opens a checkpoint and checks its metadata; a damaged or truncated file, a config no run could have been
// trained with, or an older build's LibTorch archive is a RunError that names it.
Checkpoint open_checkpoint(const std::string& path);
// open_checkpoint, refused unless it belongs to the run in run_dir (the identity of its config.json).
Checkpoint open_run_checkpoint(const std::string& run_dir, const std::string& path);

// The checkpoint's weights into a model built from its config: every tensor's dtype and shape is compared
// with the model's first (a missing, extra or mismatched one is a RunError), then the bytes are copied.
void load_weights(const Checkpoint& c, FoneTransformer& model);
// The checkpoint's AdamW state into opt (built on model's parameters, after the model is on its device).
// RunError when the checkpoint has none or it does not match the parameters.
void load_optimizer(const Checkpoint& c, FoneTransformer& model, torch::optim::AdamW& opt);

// A run's best checkpoint, else its last: the model evaluation, prediction and export use. RunError when
// the run has only an older build's checkpoint (never opened; the message gives the conversion command).
std::string model_checkpoint(const std::string& run_dir);
// The RunError for an older build's checkpoint at path: what it is and how to convert it.
RunError legacy_checkpoint_error(const std::string& path);

// FNV-1a over the raw bytes of every parameter, in order: equal digests mean bit-identical weights
// (how the tests check that a resumed run ends where an uninterrupted one does).
std::string weights_digest(FoneTransformer& model);

// Makes the new folder `out_dir` whole or not at all: `fill` writes into a folder of its own made beside it
// (an existing name, a link planted there, is never written into), removed when `fill` throws, renamed into
// place when it returns. Used by both exports.
void write_new_folder(const std::string& out_dir, const std::function<void(const std::string& folder)>& fill);
// The folder an export makes, checked before anything is opened: the name as given without trailing
// slashes; RunError when it is empty or names anything that exists (a link, even a dangling one, included).
std::string export_target(const std::string& out_dir);

}  // namespace fone
