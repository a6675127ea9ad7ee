// The checkpoint file (checkpoint-last.pt, checkpoint-best.pt): a LibTorch archive of the weights, the
// optimiser state (none in an exported model), the config and the training position, written atomically.
// Private to core/src/train/.
#pragma once

#include <string>

#include <torch/torch.h>

#include "fone/store/train_config.h"
#include "train/model.h"

namespace fone {

// Where training stands: what a resumed run continues from.
struct Position {
    int64_t step = 0, epoch = 0, batch_in_epoch = 0;
    double best_exact_match = -1.0;
    double train_seconds = 0.0;    // pure training time so far, over every session of the run
    double elapsed_seconds = 0.0;  // wall time so far, over every session
    double time_to_target = -1.0;
};

struct Checkpoint {
    std::string path;
    TrainConfig config;
    Position pos;
    torch::serialize::InputArchive archive;  // the weights ("optimizer": the optimiser state)
};

// Writes path through a temporary file (fsync, rename): a kill mid-write leaves the old file whole.
// opt == nullptr: no optimiser state (an exported model).
void save_checkpoint(const std::string& path, FoneTransformer& model, torch::optim::AdamW* opt,
                     const TrainConfig& config, const Position& pos);
// Reads a checkpoint's archive and meta data; a corrupt or truncated file, or a config no run could have
// been trained with, is a RunError that names it.
Checkpoint open_checkpoint(const std::string& path);
// The checkpoint's weights into a model built from its config; weights of other shapes are a RunError.
void load_weights(Checkpoint& c, FoneTransformer& model);

// A run's best checkpoint, else its last: the model evaluation, prediction and export use.
std::string model_checkpoint(const std::string& run_dir);

// FNV-1a over the raw bytes of every parameter, in order: equal digests mean bit-identical weights
// (how the tests check that a resumed run ends where an uninterrupted one does).
std::string weights_digest(FoneTransformer& model);

}  // namespace fone
