// Where each family keeps its weights: the one table of names and shapes that opening a folder checks and
// the forward reads. Private to core/src/pretrained/ (no torch).
#pragma once

#include <string>
#include <vector>

#include "fone/pretrained/model_folder.h"

namespace fone::pretrained {

// Weights outside the blocks.
enum class Weight { embed, positions, final_norm_weight, final_norm_bias, lm_head };

// Weights of one block. Llama and Qwen2 keep q, k and v apart; GPT-2 and NeoX keep them in one matrix
// (qkv). GPT-2 and NeoX have a plain MLP (up, activation, down); Llama and Qwen2 a gated one (gate too).
enum class BlockWeight {
    attn_norm_weight,
    attn_norm_bias,
    q_weight,
    q_bias,
    k_weight,
    k_bias,
    v_weight,
    v_bias,
    qkv_weight,
    qkv_bias,
    o_weight,
    o_bias,
    mlp_norm_weight,
    mlp_norm_bias,
    gate_weight,
    gate_bias,
    up_weight,
    up_bias,
    down_weight,
    down_bias,
};

// The name of a weight in the files, or "" when the family (with this config) has none. A tied LM head
// has no name of its own: the forward reads the embedding.
std::string weight_name(const PretrainedConfig& c, const std::string& prefix, Weight w);
std::string block_weight_name(const PretrainedConfig& c, const std::string& prefix, int layer, BlockWeight w);

// GPT-2's Conv1D layers store their matrices as [in, out], the transpose of everyone else's [out, in].
bool stores_transposed(const PretrainedConfig& c);

// Every weight the forward reads, with its shape as stored.
std::vector<WeightSpec> family_weights(const PretrainedConfig& c, const std::string& prefix);

}  // namespace fone::pretrained
