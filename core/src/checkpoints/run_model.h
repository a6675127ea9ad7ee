// The one place where a run's config becomes its model: the data, the digit slots, the number scheme (text
// runs: with the run's tokenizer) and the FoneTransformer, new or with a checkpoint's weights. Training,
// inference, checkpoint inspection, export and the measurements all open their model here.
// Private to core/src/ (the torch folders).
#pragma once

#include <memory>
#include <string>

#include <torch/torch.h>

#include "checkpoints/checkpoint_file.h"
#include "fone/store/run_kind.h"
#include "fone/store/train_config.h"
#include "fone/tasks/tasks.h"
#include "fone/text/text_data.h"
#include "nn/model.h"
#include "schemes/adapter_scheme.h"
#include "schemes/scheme.h"
#include "schemes/text_scheme.h"

namespace fone {

// What of a run's data open_run_model reads.
enum class RunData {
    none,     // nothing (a file task reads its file all the same: the file defines its digit slots)
    splits,   // the train, val and test examples
    batches,  // the examples, and the splits as batches
};

struct RunModel {
    // The run's config with what opening settles: model.vocab_size (the scheme's vocabulary); for a new
    // model max_seq (fitted to the batches); for a new text run the digit slots (from its corpus).
    TrainConfig config;
    RunKind kind = RunKind::arithmetic;  // what every command asks first (fone/store/run_kind.h)
    FoneSpec spec;                       // the digit slots
    Splits splits;                       // arithmetic runs, with RunData::splits or batches
    TextSplits text_splits;              // text runs, likewise
    Batch train, val, test;              // with RunData::batches (train: with swapped operands if asked)
    std::unique_ptr<NumberScheme> scheme;
    const TextLmScheme* text = nullptr;      // the scheme of a text run; nullptr for the other kinds
    const AdapterScheme* adapter = nullptr;  // the scheme of a fone-adapter run; nullptr for the others
    FoneTransformer model{nullptr};          // on the CPU
    std::string data_note;                   // "" or why the run's data file is not the one it was trained on
};

// A run's model from its config:
//   weights == nullptr  a new model, initialised from torch's current seed; with batches, max_seq grows to
//                       the longest one (text runs: twice the longest training sequence, room to generate).
//                       A new text run trains its tokenizer on its train split and keeps it in run_dir.
//                       With config.init_from, the model takes the pretrained folder's shape, and with
//                       batches (a run about to train) its weights (core/src/hf/init_from.h).
//   weights             a trained run's: config is the checkpoint's, the model gets its weights, and a text
//                       run's tokenizer is the one in run_dir.
// The model's memory is checked against the machine before it is built (check_model_memory: 16 bytes per
// parameter for a model that will train, 4 for one that answers). A file task's data file is checked
// against the digest recorded when the run started (config "data_digest"): training on a changed file is a
// RunError; answering notes it in data_note.
// Throws std::invalid_argument for a config the model or scheme cannot take, NumberError for data that does
// not fit the digit slots, RunError for a damaged checkpoint or a missing tokenizer.
RunModel open_run_model(TrainConfig config, const std::string& run_dir, RunData data,
                        const Checkpoint* weights = nullptr);
// A trained run's model as its config builds it, without weights (the caller loads them: the conversion
// of an older build's checkpoints). A text run's tokenizer is the one in run_dir.
RunModel open_trained_model_shape(TrainConfig config, const std::string& run_dir);

// A trained run ready to answer: its best checkpoint (else its last), on the run's device (the CPU where
// the run's CUDA is not available), in eval mode, torch on `threads` threads (0: auto, the CPUs free now).
struct AnsweringRun {
    RunModel run;
    torch::Device device{torch::kCPU};
    std::string checkpoint;  // the file the weights came from
};
AnsweringRun open_for_answers(const std::string& run_dir, int threads, RunData data);

}  // namespace fone
