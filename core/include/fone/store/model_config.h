// Shape of the Llama-style transformer: the paper's six size levels (Table "Model Configuration") or any
// custom size, and what it costs (parameters, FLOPs). Plain C++: the workbench reads this too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fone {

// How rotary positions stretch to long contexts: "default" (none), "linear" (every frequency divided by
// factor) or "llama3" (Llama-3.1/3.2: wavelengths longer than original_max_positions / low_freq_factor
// divided by factor, those shorter than original_max_positions / high_freq_factor kept, a smooth blend
// between), as transformers' rope_scaling says.
struct RopeScaling {
    std::string type = "default";
    double factor = 1.0;
    double low_freq_factor = 1.0;
    double high_freq_factor = 4.0;
    int original_max_positions = 8192;

    bool operator==(const RopeScaling&) const = default;
    // Throws std::invalid_argument naming what is wrong (an unknown type, factors out of range).
    void validate() const;
    nlohmann::json to_json() const;
    static RopeScaling from_json(const nlohmann::json& j);
};

// The rotary frequencies θ_i = theta^(-2i/dims) for i < dims/2, scaled as `scaling` says (double
// precision). The one place both the trained transformer and the pretrained models' forward take them from.
std::vector<double> rope_inverse_frequencies(int dims, double theta, const RopeScaling& scaling);

struct ModelConfig {
    int vocab_size = 0;  // set from the tokenizer of the method
    int hidden = 128;
    int layers = 2;
    int heads = 4;
    int kv_heads = 2;
    int intermediate = 512;
    int head_dim = 64;  // the paper's models inherit Llama-3.2's head_dim 64 (attention width heads·64)
    int max_seq = 64;
    double rope_theta = 500000.0;  // Llama-3.2's
    RopeScaling rope_scaling;      // none for models trained here; a pretrained Llama's (--init-from)
    double norm_eps = 1e-5;
    // Biases on the query, key and value projections (Qwen2); none in Llama and the models trained here.
    bool attention_bias = false;
    // The LM head is the embedding matrix (Llama-3.2, models trained here); false: its own matrix
    // (Llama-2, Llama-3.1-8B).
    bool tie_embeddings = true;
    // How FoNE enters at number positions: "pad" (zero-padded to the width) or "linear" (a learned map,
    // applied only at number positions).
    std::string fone_input = "pad";
    // Digit head: "layernorm" (learnable LayerNorm on the hidden state before the dot products, as the
    // reference code) or "none" (the final RMSNorm's output directly).
    std::string head_norm = "layernorm";
    // A learnable scale on the digit logits. Without it, the normalised hidden state caps the logits
    // (|pair| is about 1 after a LayerNorm), so the loss cannot go below ~0.6 even when every digit is right.
    bool head_temperature = true;
    // Standard deviation of the normal initialisation of the projection weights (Llama: 0.02); 0 keeps
    // LibTorch's default (uniform, scaled by 1/sqrt(fan_in)), which suits narrow models better.
    double init_std = 0.02;
    // Its starting value (a fixed scale when head_temperature is off).
    double head_temperature_init = 1.0;

    // Throws std::invalid_argument with what is wrong (heads not dividing, kv_heads not dividing heads...).
    void validate() const;
    nlohmann::json to_json() const;
    // Unknown keys and wrong types are errors (std::invalid_argument naming the key).
    static ModelConfig from_json(const nlohmann::json& j);
};

// The paper's levels 1..6: hidden 64·level, intermediate 4·hidden, layers = level, heads 4,4,6,8,8,8,
// kv heads 2,2,3,4,4,4. Throws std::invalid_argument outside 1..6.
ModelConfig size_level(int level);

struct ParamCount {
    std::int64_t total = 0;
    std::int64_t embedding = 0;  // the token embedding table (and the LM head when it is not tied)
    std::int64_t without_embedding() const { return total - embedding; }
};
// Counted from the shapes (the test checks it against the built module).
ParamCount count_params(const ModelConfig& c, int fone_width);

// The most parameters a model may have, whatever the machine (a sanity bound on configs: every field within
// its own bound can still describe a model of 10^13 parameters).
inline constexpr std::int64_t kMaxModelParams = 20'000'000'000;
// Bytes the model's tensors take before any activation: 4 per parameter (float32), and when training 16
// (the weights, their gradients and AdamW's two moments).
std::uint64_t model_memory_bytes(const ModelConfig& c, int fone_width, bool training);
// Checked before a model is built: throws std::invalid_argument ("model: 69.3 billion parameters need
// 258.1 GB for the weights alone, more than this machine's 23.4 GB of memory") when the model has more than
// kMaxModelParams parameters or model_memory_bytes is more than the machine's physical memory.
void check_model_memory(const ModelConfig& c, int fone_width, bool training);
// The machine's physical memory in bytes (0 when unknown).
std::uint64_t physical_memory_bytes();

// Training FLOPs per example (forward + backward = 3 x forward, matmuls only) for sequences of
// seq_len tokens, where the last layer runs at `last_layer_positions` positions only (1 when only the
// final position feeds the head).
double train_flops_per_example(const ModelConfig& c, int seq_len, int last_layer_positions);

}  // namespace fone
