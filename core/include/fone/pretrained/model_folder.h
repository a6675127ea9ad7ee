// A Hugging Face model folder as downloaded: config.json, the weights (model.safetensors, or shards listed
// by model.safetensors.index.json) and usually tokenizer.json. Opening one reads config.json into the
// shape of a known family, maps every safetensors file read-only (bounded, validated parser:
// fone/io/safetensors.h), and checks that every weight the family's forward reads is there with its
// shape and a float dtype (F32, F16, BF16). Nothing is read into memory: an 8B model in bf16 opens on a
// machine with less memory than the model. No torch here (the forward is fone/hf/forward.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/io/safetensors.h"
#include "fone/store/model_config.h"

namespace fone::pretrained {

// A folder that is not a model this reader can open; the message names the file and the problem.
class PretrainedError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The families it knows: Llama (2, 3, 3.1, 3.2), Qwen2 (Llama with q/k/v biases), GPT-2, GPT-NeoX (Pythia).
enum class Family { llama, qwen2, gpt2, gpt_neox };
std::string_view family_name(Family f);  // "llama", "qwen2", "gpt2", "gpt_neox" (config.json's model_type)

// config.json in the terms the forward needs, from either spelling transformers writes (4.x: rope_theta,
// rope_scaling, rotary_pct; 5.x: rope_parameters).
struct PretrainedConfig {
    Family family = Family::llama;
    std::string model_type;  // as config.json says ("llama", "mistral" is refused, ...)
    int layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, vocab_size = 0;
    int max_positions = 0;   // max_position_embeddings (GPT-2: n_positions)
    double norm_eps = 1e-5;  // RMSNorm (Llama, Qwen2) or LayerNorm (GPT-2, NeoX)
    std::string activation;  // "silu" (SwiGLU), "gelu" (exact), "gelu_new" (tanh approximation)
    int rotary_dims = 0;     // leading dims of each head that rotate (NeoX: rotary_pct of them); 0: GPT-2's
                             // learned positions
    double rope_theta = 10000.0;
    RopeScaling rope_scaling;
    bool parallel_residual = false;  // NeoX: x + attn(ln1 x) + mlp(ln2 x)
    bool tie_embeddings = false;     // the LM head is the embedding matrix
    bool attention_bias = false;     // biases on q, k, v (Qwen2; Llama with attention_bias)
    bool output_bias = false;        // a bias on the attention output (Llama with attention_bias)
    bool mlp_bias = false;           // Llama's mlp_bias
    std::optional<int64_t> bos_token_id, eos_token_id;

    // Throws PretrainedError naming `where` and the key for a family it does not know (naming what it
    // found), a missing or out-of-range size, or a setting the forward does not implement (sliding-window
    // attention, a rope scaling type other than default, linear and llama3, ...).
    static PretrainedConfig from_json(const nlohmann::json& j, const std::string& where);
    nlohmann::json to_json() const;
};

// One weight the forward reads: its name in the files and its shape there.
struct WeightSpec {
    std::string name;
    std::vector<int64_t> shape;
};

// An open folder: the config and the memory-mapped weight files. Movable, not copyable.
class ModelFolder {
  public:
    // Throws PretrainedError for a folder without config.json, an unknown family, a missing or misshapen
    // weight, an index naming a file that is not there; safetensors::Error for a damaged weight file.
    static ModelFolder open(const std::string& dir);

    ModelFolder(ModelFolder&&) noexcept;
    ModelFolder& operator=(ModelFolder&&) noexcept;
    ~ModelFolder();

    const std::string& dir() const { return dir_; }
    const PretrainedConfig& config() const { return config_; }
    // The weight files, in the order the index (or the folder) lists them.
    std::vector<std::string> files() const;
    // Every weight the family's forward reads, with its shape (the tied LM head is not a second weight).
    const std::vector<WeightSpec>& weights() const { return weights_; }
    // The tensor of a weight and its bytes in the mapping; PretrainedError when absent, or (bytes) when
    // the weight holds NaN or an infinity, naming it (checked on a weight's first read, once).
    const safetensors::TensorInfo& tensor(std::string_view name) const;
    std::span<const std::byte> bytes(std::string_view name) const;
    // Parameters the forward reads (the tied head counted once, as transformers' num_parameters()).
    int64_t parameter_count() const;
    // The weights' dtype: "BF16", "F32", ...; "mixed (BF16, F32)" when they differ.
    std::string dtype() const;
    // The folder's tokenizer.json, or "" when it has none.
    std::string tokenizer_path() const;

    // What the weights' names start with where a family's checkpoints differ (GPT-2: "transformer." or
    // nothing); the family's layout of names is private (core/include/fone/pretrained/families.h).
    const std::string& weight_prefix() const { return prefix_; }

  private:
    ModelFolder() = default;
    static void check_weight_map(const ModelFolder& m,
                                 const std::map<std::string, std::string, std::less<>>& weight_map);
    std::string dir_;
    PretrainedConfig config_;
    std::string prefix_;  // GPT-2 checkpoints name weights with or without "transformer."
    std::vector<WeightSpec> weights_;
    std::vector<safetensors::File> files_;
    std::map<std::string, std::size_t, std::less<>> where_;  // tensor name -> index in files_
    struct FiniteChecks;                                     // the weights found finite so far
    std::shared_ptr<FiniteChecks> finite_;
};

// How many times this process has opened a model folder (ModelFolder::open: config.json and every
// safetensors header). A command opens its folder once; the tests count it.
int64_t folder_opens();
// A folder's config.json alone, read and checked as ModelFolder::open reads it, no weight file touched.
PretrainedConfig read_folder_config(const std::string& dir);
// --init-from DIR as a layer of a run's settings (the resolver's "pretrained folder DIR" layer, and
// adopt_pretrained_shape): the folder's model shape (hidden, layers, heads, kv_heads, head_dim, intermediate,
// rope_theta, rope_scaling, norm_eps, attention_bias, tie_embeddings) and size_level 0, from config.json
// alone. Throws std::invalid_argument ("init_from: ...") for a folder --init-from cannot take: no
// config.json, not a Llama or a Qwen2, biases the run's transformer does not have.
nlohmann::json init_from_shape(const std::string& dir);

// What `fone model inspect` prints: the family and shape, the dtype and parameter count, the files, the
// tokenizer and which integers 0..9999 are one token (as written, and after a space), as ranges.
// Throws TokenizerError (fone/pretrained/tokenizer.h) for a tokenizer.json it cannot read.
nlohmann::json describe(const ModelFolder& folder);

// The names of the hidden states a forward gives (forward.h: hidden_last, number_hidden_states):
// "embeddings", "after block 1", ..., "after block L and the final norm".
std::vector<std::string> hidden_layer_names(const ModelFolder& folder);

}  // namespace fone::pretrained
