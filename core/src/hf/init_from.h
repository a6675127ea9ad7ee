// A new run that starts from a pretrained Llama or Qwen2 (`fone train --init-from DIR`): the run's
// transformer (nn/model.h, itself a Llama) takes the folder's shape and weights. The run keeps its
// method's own small vocabulary ([BOS], the operators, "=", ".", digits or chunks of up to three digits,
// [NUM]); each of its tokens gets the pretrained embedding row of the text that spells it (several tokens:
// the mean of their rows; [PAD] and [NUM], which no text spells, the mean of all rows), and the LM head the
// same rows of the pretrained head. The model is then the pretrained one restricted to these tokens: its
// logits over them are the pretrained logits. The digit head (FoNE) is new. Private to core (torch).
#pragma once

#include <string>
#include <vector>

#include "fone/pretrained/model_folder.h"
#include "fone/pretrained/tokenizer.h"
#include "fone/store/train_config.h"
#include "nn/model.h"

namespace fone::pretrained {

// The model shape of the folder's config.json written into config.model (init_from_shape,
// fone/pretrained/model_folder.h: the same layer `fone train` resolves its settings with, so a config that
// came through the resolver is left as it was); size_level becomes 0. Reads config.json only. Throws
// std::invalid_argument for a folder that is not a Llama-shaped family (GPT-2, NeoX), or has biases the
// transformer does not have (an output or MLP bias).
void adopt_pretrained_shape(TrainConfig& config);

// For each token of a method's vocabulary, the pretrained ids whose rows it starts from (empty: the mean
// of all rows): [BOS] and [EOS] the model's own (the tokenizer's prefix, else config.json's ids), every
// other token the tokenizer's ids for its text.
std::vector<std::vector<int64_t>> pretrained_ids(const std::vector<std::string>& vocabulary,
                                                 const BpeTokenizer& tokenizer,
                                                 const PretrainedConfig& config);

// Copies the folder's weights into a model built from adopt_pretrained_shape's config for `vocabulary`.
// Throws std::invalid_argument when the model's shape is not the folder's.
void copy_pretrained_weights(FoneTransformer& model, const std::vector<std::string>& vocabulary,
                             const std::string& dir);

// The run's transformer's blocks and final norm under a Hugging Face family's weight names: one entry per
// stored tensor, each the rows [row0, row0 + rows) of a parameter (the fused q|k|v and gate|up projections
// are several entries). The one map both ways: --init-from copies the folder's tensors in through it,
// `fone export --format hf` writes them out through it. `prefix`: the folder's (ModelFolder::weight_prefix).
struct HfWeight {
    std::string name;     // as the family stores it ("model.layers.0.self_attn.q_proj.weight")
    torch::Tensor param;  // the model's parameter
    int64_t row0 = 0, rows = 0;
    torch::Tensor rows_of() const { return param.narrow(0, row0, rows); }
};
std::vector<HfWeight> block_weight_map(FoneTransformer& model, const PretrainedConfig& config,
                                       const std::string& prefix);

// fone-adapter (schemes/adapter_scheme.h): the model keeps the folder's whole vocabulary, so every weight is
// copied as it is (embedding and head row for row). Throws std::invalid_argument when the model's shape
// is not the folder's.
void copy_whole_pretrained_model(FoneTransformer& model, const std::string& dir);

}  // namespace fone::pretrained
