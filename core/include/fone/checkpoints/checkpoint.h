// A run's checkpoint files from outside the training loop: what one holds, a copy of a run's model for
// shipping, and the one-time conversion of an older build's checkpoints.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fone {

// Opens a checkpoint as evaluate/predict/resume do: its format, metadata and config, that it belongs to the
// run of the config.json beside it (its identity), then its weights (and optimiser state) against the model
// the config builds (a text run's tokenizer: the one in the checkpoint's folder).
// {"config", "step", "epoch", "params", "weights_digest", "identity", "optimizer"}. A corrupt, truncated or
// mismatched file is a RunError naming it, never a crash (tests/fuzz/fuzz_checkpoint.cpp).
nlohmann::json inspect_checkpoint(const std::string& path);

// Copies a run's model for shipping (a bundled demo, a colleague): out_dir gets config.json, summary.json, a
// "finished" status.json and checkpoint-best.safetensors with the weights and the config but without the
// optimiser state (a third of the size). The copy is a run directory: `fone eval/predict --run out_dir` take
// it. Throws RunError for an unreadable run or an existing out_dir.
void export_model(const std::string& run_dir, const std::string& out_dir);

// `fone export --format hf`: a fone-adapter run as a standard Hugging Face model folder: config.json (the
// pretrained one, float32, tie_word_embeddings false), model.safetensors (the run's weights under the
// family's names, the adapter merged into the embedding table: schemes/adapter_scheme.h, merged_embedding;
// the output head the run's own) and the tokenizer files the run kept. Throws RunError for an unreadable
// run or an existing out_dir, std::invalid_argument for a run of another method.
void export_hf_model(const std::string& run_dir, const std::string& out_dir);

// `fone runs convert RUN --trust`: rewrites an older build's checkpoints (checkpoint-last.pt,
// checkpoint-best.pt: LibTorch archives) as safetensors checkpoints with the same weights, optimiser state,
// config and position, and the run's identity. The only code that opens such an archive: opening one can
// run code stored in it, so the caller must trust where the run came from. A .pt file whose .safetensors
// twin exists is skipped; the .pt files are left in place (remove them once the run works). Returns
// {"run", "converted": [{"from", "to", "step", "weights_digest"}], "skipped": [...]}. RunError when the run
// has no such checkpoint or one is damaged.
nlohmann::json convert_legacy_checkpoints(const std::string& run_dir);

}  // namespace fone
