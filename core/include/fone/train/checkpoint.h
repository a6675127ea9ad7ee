// A run's checkpoint files from outside the training loop: what one holds, and a copy of a run's model for
// shipping.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fone {

// Opens a checkpoint as evaluate/predict/resume do: its format, meta data and config, then its weights
// against the model the config builds (a text run's tokenizer: the one in the checkpoint's folder).
// {"config", "step", "epoch", "params", "weights_digest"}. A corrupt, truncated or mismatched file is a
// RunError naming it, never a crash (tests/fuzz/fuzz_checkpoint.cpp).
nlohmann::json inspect_checkpoint(const std::string& path);

// Copies a run's model for shipping (a bundled demo, a colleague): out_dir gets config.json, summary.json, a
// "finished" status.json and checkpoint-best.pt with the weights and the config but without the optimiser
// state (a third of the size). The copy is a run directory: `fone eval/predict --run out_dir` take it.
// Throws RunError for an unreadable run or an existing out_dir.
void export_model(const std::string& run_dir, const std::string& out_dir);

}  // namespace fone
