#include "fone/pretrained/model_folder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "fone/io/file_read.h"
#include "fone/io/json_bounded.h"
#include "fone/io/shown_text.h"
#include "fone/pretrained/families.h"
#include "fone/pretrained/number_pieces.h"
#include "fone/pretrained/tokenizer.h"

namespace fone::pretrained {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kConfigFile = "config.json";
constexpr const char* kSingleFile = "model.safetensors";
constexpr const char* kIndexFile = "model.safetensors.index.json";
constexpr const char* kTokenizerFile = "tokenizer.json";
// An index naming more shard files than this is refused (the largest published models have a few hundred).
constexpr std::size_t kMaxWeightFiles = 10000;

// A folder's JSON file, read by the bounded reader: a FIFO, a device, a link to /dev/zero or a file over
// kMaxJsonFileBytes is refused before anything is read, nesting beyond kMaxJsonDepth while parsing.
json read_json(const fs::path& path) {
    const FileRead file = read_regular_file(path.string(), kMaxJsonFileBytes);
    if (!file.ok()) throw PretrainedError(file.error);
    json j;
    std::string error;
    if (!parse_json_bounded(file.text, path.string(), j, &error)) throw PretrainedError(error);
    if (!j.is_object()) throw PretrainedError(path.string() + ": not a JSON object");
    return j;
}

// Reads config.json's keys with the family's defaults; every error names the file and the key.
class Keys {
  public:
    Keys(const json& j, std::string where) : j_(j), where_(std::move(where)) {}

    bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
    [[noreturn]] void fail(const std::string& key, const std::string& why) const {
        throw PretrainedError(where_ + ": \"" + key + "\" " + why);
    }
    int integer(const char* key, std::optional<int> fallback, int lo, int hi) const {
        if (!has(key)) {
            if (!fallback) fail(key, "is missing");
            return *fallback;
        }
        const json& v = j_[key];
        if (!v.is_number_integer()) fail(key, "must be an integer");
        const long long x = v.is_number_unsigned() ? static_cast<long long>(std::min<unsigned long long>(
                                                         v.get<unsigned long long>(), 1ull << 62))
                                                   : v.get<long long>();
        if (x < lo || x > hi)
            fail(key,
                 "is " + std::to_string(x) + ", outside " + std::to_string(lo) + ".." + std::to_string(hi));
        return static_cast<int>(x);
    }
    double number(const char* key, double fallback, double lo, double hi) const {
        if (!has(key)) return fallback;
        if (!j_[key].is_number()) fail(key, "must be a number");
        const double x = j_[key].get<double>();
        if (!(x >= lo && x <= hi)) fail(key, "is out of range");
        return x;
    }
    bool flag(const char* key, bool fallback) const {
        if (!has(key)) return fallback;
        if (!j_[key].is_boolean()) fail(key, "must be true or false");
        return j_[key].get<bool>();
    }
    std::string text(const char* key, const std::string& fallback) const {
        if (!has(key)) return fallback;
        if (!j_[key].is_string()) fail(key, "must be a string");
        return j_[key].get<std::string>();
    }
    std::optional<int64_t> token_id(const char* key) const {
        if (!has(key)) return std::nullopt;
        const json& v = j_[key].is_array() && !j_[key].empty() ? j_[key][0] : j_[key];  // eos: a list
        if (!v.is_number_integer() || v.get<long long>() < 0) fail(key, "must be a token id");
        return v.get<int64_t>();
    }
    const json& at(const char* key) const { return j_[key]; }
    const std::string& where() const { return where_; }

  private:
    const json& j_;
    std::string where_;
};

// rope_scaling (4.x) or rope_parameters (5.x) into RopeScaling; theta from either spelling.
void read_rope(const Keys& k, const char* theta_key, PretrainedConfig& c) {
    json scaling;
    if (k.has("rope_parameters")) {
        scaling = k.at("rope_parameters");
        if (!scaling.is_object()) k.fail("rope_parameters", "must be an object");
        if (scaling.contains("rope_theta"))
            c.rope_theta = Keys(scaling, k.where()).number("rope_theta", 1e4, 1, 1e12);
        if (scaling.contains("partial_rotary_factor"))
            c.rotary_dims = static_cast<int>(
                c.head_dim * Keys(scaling, k.where()).number("partial_rotary_factor", 1, 0, 1));
    } else {
        c.rope_theta = k.number(theta_key, 10000.0, 1, 1e12);
        if (k.has("rope_scaling")) scaling = k.at("rope_scaling");
    }
    if (scaling.is_null()) return;
    if (!scaling.is_object()) k.fail("rope_scaling", "must be an object or null");
    const Keys s(scaling, k.where() + ": rope scaling");
    const std::string type = s.text("rope_type", s.text("type", "default"));
    if (type != "default" && type != "linear" && type != "llama3")
        k.fail("rope_scaling",
               "has type \"" + type + "\"; this reader implements default, linear and llama3");
    c.rope_scaling.type = type;
    c.rope_scaling.factor = s.number("factor", 1.0, 1, 1e6);
    c.rope_scaling.low_freq_factor = s.number("low_freq_factor", 1.0, 1e-6, 1e6);
    c.rope_scaling.high_freq_factor = s.number("high_freq_factor", 4.0, 1e-6, 1e6);
    c.rope_scaling.original_max_positions = s.integer("original_max_position_embeddings", 8192, 1, 1 << 24);
    try {
        c.rope_scaling.validate();
    } catch (const std::invalid_argument& e) {
        throw PretrainedError(k.where() + ": " + e.what());
    }
}

void read_llama(const Keys& k, PretrainedConfig& c) {
    c.hidden = k.integer("hidden_size", std::nullopt, 2, 1 << 16);
    c.layers = k.integer("num_hidden_layers", std::nullopt, 1, 1024);
    c.heads = k.integer("num_attention_heads", std::nullopt, 1, 4096);
    c.kv_heads = k.integer("num_key_value_heads", c.heads, 1, 4096);
    if (!k.has("head_dim") && (c.hidden % c.heads != 0 || c.hidden / c.heads < 2))
        k.fail("head_dim", "is missing, and hidden_size " + std::to_string(c.hidden) +
                               " is not a multiple of " + std::to_string(c.heads) +
                               " heads of at least 2 dimensions each");
    c.head_dim = k.integer("head_dim", c.hidden / c.heads, 2, 4096);
    c.intermediate = k.integer("intermediate_size", std::nullopt, 1, 1 << 20);
    c.vocab_size = k.integer("vocab_size", std::nullopt, 1, 1 << 24);
    c.max_positions = k.integer("max_position_embeddings", 2048, 1, 1 << 24);
    c.norm_eps = k.number("rms_norm_eps", 1e-6, 1e-12, 1);
    c.activation = k.text("hidden_act", "silu");
    if (c.activation != "silu")
        k.fail("hidden_act", "is \"" + c.activation + "\"; Llama's MLP is SwiGLU (silu)");
    c.tie_embeddings = k.flag("tie_word_embeddings", false);
    c.rotary_dims = c.head_dim;
    if (c.family == Family::qwen2) {
        c.attention_bias = true;  // Qwen2 always has q/k/v biases, never an output bias
        if (k.flag("use_sliding_window", false))
            k.fail("use_sliding_window", "is true; sliding-window attention is not implemented");
    } else {
        c.attention_bias = c.output_bias = k.flag("attention_bias", false);
        c.mlp_bias = k.flag("mlp_bias", false);
    }
    read_rope(k, "rope_theta", c);
}

void read_gpt2(const Keys& k, PretrainedConfig& c) {
    c.hidden = k.integer("n_embd", std::nullopt, 2, 1 << 16);
    c.layers = k.integer("n_layer", std::nullopt, 1, 1024);
    c.heads = c.kv_heads = k.integer("n_head", std::nullopt, 1, 4096);
    c.head_dim = c.hidden / c.heads;
    c.intermediate = k.integer("n_inner", 4 * c.hidden, 1, 1 << 20);
    c.vocab_size = k.integer("vocab_size", std::nullopt, 1, 1 << 24);
    c.max_positions = k.integer("n_positions", 1024, 1, 1 << 24);
    c.norm_eps = k.number("layer_norm_epsilon", 1e-5, 1e-12, 1);
    c.activation = k.text("activation_function", "gelu_new");
    c.tie_embeddings = true;
    c.attention_bias = c.output_bias = c.mlp_bias = true;
    if (!k.flag("scale_attn_weights", true)) k.fail("scale_attn_weights", "is false; not implemented");
    if (k.flag("scale_attn_by_inverse_layer_idx", false))
        k.fail("scale_attn_by_inverse_layer_idx", "is true; not implemented");
    if (k.flag("add_cross_attention", false))
        k.fail("add_cross_attention", "is true; not a decoder-only model");
}

void read_neox(const Keys& k, PretrainedConfig& c) {
    c.hidden = k.integer("hidden_size", std::nullopt, 2, 1 << 16);
    c.layers = k.integer("num_hidden_layers", std::nullopt, 1, 1024);
    c.heads = c.kv_heads = k.integer("num_attention_heads", std::nullopt, 1, 4096);
    c.head_dim = c.hidden / c.heads;
    c.intermediate = k.integer("intermediate_size", 4 * c.hidden, 1, 1 << 20);
    c.vocab_size = k.integer("vocab_size", std::nullopt, 1, 1 << 24);
    c.max_positions = k.integer("max_position_embeddings", 2048, 1, 1 << 24);
    c.norm_eps = k.number("layer_norm_eps", 1e-5, 1e-12, 1);
    c.activation = k.text("hidden_act", "gelu");
    c.tie_embeddings = k.flag("tie_word_embeddings", false);
    c.parallel_residual = k.flag("use_parallel_residual", true);
    c.attention_bias = c.output_bias = k.flag("attention_bias", true);
    c.mlp_bias = true;
    c.rotary_dims = static_cast<int>(c.head_dim * k.number("rotary_pct", 0.25, 0, 1));
    read_rope(k, "rotary_emb_base", c);
}

}  // namespace

std::string_view family_name(Family f) {
    switch (f) {
        case Family::llama:
            return "llama";
        case Family::qwen2:
            return "qwen2";
        case Family::gpt2:
            return "gpt2";
        case Family::gpt_neox:
            return "gpt_neox";
    }
    return "";
}

PretrainedConfig PretrainedConfig::from_json(const json& j, const std::string& where) {
    if (!j.is_object()) throw PretrainedError(where + ": not a JSON object");
    const Keys k(j, where);
    PretrainedConfig c;
    c.model_type = k.text("model_type", "");
    if (c.model_type == "llama") {
        c.family = Family::llama;
    } else if (c.model_type == "qwen2") {
        c.family = Family::qwen2;
    } else if (c.model_type == "gpt2") {
        c.family = Family::gpt2;
    } else if (c.model_type == "gpt_neox") {
        c.family = Family::gpt_neox;
    } else {
        std::string found = c.model_type.empty() ? "no model_type" : "model_type \"" + c.model_type + "\"";
        if (k.has("architectures") && j["architectures"].is_array() && !j["architectures"].empty())
            found += " (architectures: " + j["architectures"].dump() + ")";
        throw PretrainedError(where + ": " + found +
                              " is not a family this reader knows: llama, qwen2, gpt2, gpt_neox");
    }
    if (c.family == Family::gpt2)
        read_gpt2(k, c);
    else if (c.family == Family::gpt_neox)
        read_neox(k, c);
    else
        read_llama(k, c);
    if (c.heads % c.kv_heads)
        throw PretrainedError(where + ": " + std::to_string(c.heads) + " attention heads do not share " +
                              std::to_string(c.kv_heads) + " key/value heads evenly");
    if (c.family == Family::gpt2 || c.family == Family::gpt_neox) {
        if (c.hidden % c.heads) throw PretrainedError(where + ": hidden size is not a multiple of the heads");
    }
    if (c.rotary_dims % 2 || c.rotary_dims > c.head_dim)
        throw PretrainedError(where + ": " + std::to_string(c.rotary_dims) + " rotary dimensions of " +
                              std::to_string(c.head_dim) + " per head (must be even and fit)");
    if (c.activation != "silu" && c.activation != "gelu" && c.activation != "gelu_new" &&
        c.activation != "gelu_pytorch_tanh" && c.activation != "relu")
        throw PretrainedError(where + ": activation \"" + c.activation +
                              "\" is not one of silu, gelu, gelu_new, gelu_pytorch_tanh, relu");
    c.bos_token_id = k.token_id("bos_token_id");
    c.eos_token_id = k.token_id("eos_token_id");
    return c;
}

json PretrainedConfig::to_json() const {
    json j = {{"family", family_name(family)},
              {"model_type", model_type},
              {"layers", layers},
              {"hidden_size", hidden},
              {"heads", heads},
              {"kv_heads", kv_heads},
              {"head_dim", head_dim},
              {"intermediate_size", intermediate},
              {"vocab_size", vocab_size},
              {"max_positions", max_positions},
              {"norm_eps", norm_eps},
              {"activation", activation},
              {"positions", rotary_dims > 0 ? "rotary" : "learned"},
              {"rotary_dims", rotary_dims},
              {"rope_theta", rope_theta},
              {"rope_scaling", rope_scaling.to_json()},
              {"parallel_residual", parallel_residual},
              {"tied_embeddings", tie_embeddings},
              {"attention_bias", attention_bias}};
    j["bos_token_id"] = bos_token_id ? json(*bos_token_id) : json(nullptr);
    j["eos_token_id"] = eos_token_id ? json(*eos_token_id) : json(nullptr);
    return j;
}

struct ModelFolder::FiniteChecks {
    std::mutex mutex;
    std::set<std::string, std::less<>> finite;
};

ModelFolder::ModelFolder(ModelFolder&&) noexcept = default;
ModelFolder& ModelFolder::operator=(ModelFolder&&) noexcept = default;
ModelFolder::~ModelFolder() = default;

namespace {

// The weight files (the index's, each a plain name in the folder, else model.safetensors) and the index's
// weight_map (tensor name -> file; empty without an index).
struct WeightFiles {
    std::vector<std::string> files;  // sorted, each once
    std::map<std::string, std::string, std::less<>> weight_map;
};

// The index is read once, in n log n: 300,000 names took 67 s when each file name was looked for in a list.
WeightFiles weight_files(const fs::path& dir) {
    if (fs::exists(dir / kIndexFile)) {
        const json index = read_json(dir / kIndexFile);
        const std::string where = (dir / kIndexFile).string();
        if (!index.contains("weight_map") || !index["weight_map"].is_object() || index["weight_map"].empty())
            throw PretrainedError(where + ": no \"weight_map\" object");
        WeightFiles w;
        std::set<std::string> files;
        for (const auto& [name, file] : index["weight_map"].items()) {
            if (!file.is_string())
                throw PretrainedError(where + ": \"" + shown_text(name) + "\" maps to no file name");
            const std::string f = file.get<std::string>();
            // NAME_MAX (255 bytes): a longer name is no file (stat would fail with ENAMETOOLONG).
            if (f.empty() || f.size() > 255 || f.find('/') != std::string::npos ||
                f.find('\\') != std::string::npos || f == "." || f == "..")
                throw PretrainedError(where + ": \"" + shown_text(f) + "\" is not a file name in the folder");
            if (files.size() >= kMaxWeightFiles && !files.count(f))
                throw PretrainedError(where + ": names more than " + std::to_string(kMaxWeightFiles) +
                                      " weight files (the limit)");
            files.insert(f);
            w.weight_map.emplace(name, f);
        }
        w.files.assign(files.begin(), files.end());
        return w;
    }
    if (fs::exists(dir / kSingleFile)) return {{kSingleFile}, {}};
    std::string hint;
    if (fs::exists(dir / "pytorch_model.bin") || fs::exists(dir / "pytorch_model.bin.index.json"))
        hint = " (pytorch_model.bin is a pickle, which can run code: it is not read)";
    throw PretrainedError(dir.string() + ": no " + kSingleFile + " or " + kIndexFile + hint);
}

}  // namespace

// Every weight the forward reads that the index maps must be in the file it names (the weight_map is the
// folder's own statement of where each weight is; files that say otherwise are damaged or mixed from two
// models). Names the forward never reads are not checked (old indexes list buffers such as inv_freq).
void ModelFolder::check_weight_map(const ModelFolder& m,
                                   const std::map<std::string, std::string, std::less<>>& map) {
    for (const WeightSpec& w : m.weights_) {
        const auto mapped = map.find(w.name);
        if (mapped == map.end()) continue;
        const std::string& name = w.name;
        const std::string& file = mapped->second;
        const auto it = m.where_.find(name);
        const std::string holder =
            it == m.where_.end() ? std::string() : fs::path(m.files_[it->second].path()).filename().string();
        if (holder != file)
            throw PretrainedError((fs::path(m.dir_) / kIndexFile).string() + ": maps \"" + shown_text(name) +
                                  "\" to " + file + ", but " +
                                  (holder.empty() ? "no weight file holds it" : holder + " holds it"));
    }
}

namespace {

std::atomic<int64_t> opens{0};  // ModelFolder::open calls in this process (folder_opens)

}  // namespace

int64_t folder_opens() {
    return opens.load();
}

PretrainedConfig read_folder_config(const std::string& dir) {
    const fs::path root(dir);
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw PretrainedError(dir + ": not a folder");
    if (!fs::exists(root / kConfigFile))
        throw PretrainedError(dir + ": no " + kConfigFile +
                              " (a Hugging Face model folder holds config.json, model.safetensors or its "
                              "shards, and tokenizer.json)");
    return PretrainedConfig::from_json(read_json(root / kConfigFile), (root / kConfigFile).string());
}

nlohmann::json init_from_shape(const std::string& dir) {
    PretrainedConfig c;
    try {
        c = read_folder_config(dir);
    } catch (const PretrainedError& e) {
        throw std::invalid_argument(std::string("init_from: ") + e.what());
    }
    if (c.family != Family::llama && c.family != Family::qwen2)
        throw std::invalid_argument("init_from: " + dir + " is a " + std::string(family_name(c.family)) +
                                    " model; --init-from takes Llama and Qwen2 (RMSNorm, rotary, SwiGLU)");
    if (c.output_bias || c.mlp_bias)
        throw std::invalid_argument("init_from: " + dir +
                                    " has biases on the attention output or the MLP, which the run's "
                                    "transformer does not have");
    return {{"size_level", 0},
            {"model",
             {{"hidden", c.hidden},
              {"layers", c.layers},
              {"heads", c.heads},
              {"kv_heads", c.kv_heads},
              {"head_dim", c.head_dim},
              {"intermediate", c.intermediate},
              {"rope_theta", c.rope_theta},
              {"rope_scaling", c.rope_scaling.to_json()},
              {"norm_eps", c.norm_eps},
              {"attention_bias", c.attention_bias},
              {"tie_embeddings", c.tie_embeddings}}}};
}

ModelFolder ModelFolder::open(const std::string& dir) {
    ++opens;
    ModelFolder m;
    m.config_ = read_folder_config(dir);
    const fs::path root(dir);
    m.finite_ = std::make_shared<FiniteChecks>();
    m.dir_ = dir;
    const WeightFiles listed = weight_files(root);
    for (const std::string& f : listed.files) {
        const fs::path path = root / f;
        std::error_code ec;
        if (!fs::exists(path, ec))
            throw PretrainedError(path.string() + ": listed by the index but missing" +
                                  (ec ? " (" + ec.message() + ")" : std::string()));
        m.files_.push_back(safetensors::File::open(path.string()));
        for (const auto& t : m.files_.back().tensors()) {
            // A name in two files is ambiguous: which one the forward reads must never depend on file order.
            const auto [it, added] = m.where_.emplace(t.name, m.files_.size() - 1);
            if (!added)
                throw PretrainedError(dir + ": the tensor \"" + shown_text(t.name) + "\" is in both " +
                                      m.files_[it->second].path() + " and " + path.string());
        }
    }
    if (m.config_.family == Family::gpt2 && m.where_.count("transformer.wte.weight"))
        m.prefix_ = "transformer.";
    m.weights_ = family_weights(m.config_, m.prefix_);
    check_weight_map(m, listed.weight_map);
    for (const WeightSpec& w : m.weights_) {
        const safetensors::TensorInfo& t = m.tensor(w.name);
        if (t.shape != w.shape) {
            std::ostringstream s;
            s << m.files_[m.where_.find(w.name)->second].path() << ": \"" << w.name << "\" has shape "
              << json(t.shape).dump() << ", config.json implies " << json(w.shape).dump();
            throw PretrainedError(s.str());
        }
        if (t.dtype != safetensors::Dtype::F32 && t.dtype != safetensors::Dtype::F16 &&
            t.dtype != safetensors::Dtype::BF16)
            throw PretrainedError(m.files_[m.where_.find(w.name)->second].path() + ": \"" + w.name +
                                  "\" is " + std::string(safetensors::dtype_name(t.dtype)) +
                                  " (weights are read as F32, F16 or BF16)");
    }
    return m;
}

std::vector<std::string> ModelFolder::files() const {
    std::vector<std::string> out;
    for (const auto& f : files_)
        out.push_back(f.path());
    return out;
}

const safetensors::TensorInfo& ModelFolder::tensor(std::string_view name) const {
    const auto it = where_.find(name);
    if (it == where_.end())
        throw PretrainedError(
            dir_ + ": no weight \"" + std::string(name) + "\" in " +
            (files_.size() == 1 ? files_[0].path() : std::to_string(files_.size()) + " files") +
            " (config.json says model_type \"" + config_.model_type + "\")");
    return files_[it->second].at(name);
}

std::span<const std::byte> ModelFolder::bytes(std::string_view name) const {
    const safetensors::TensorInfo& t = tensor(name);
    const std::size_t file = where_.find(name)->second;
    const std::span<const std::byte> b = files_[file].bytes(t);
    // NaN or infinity in a weight gives plausible-looking numbers downstream (as in a checkpoint,
    // checkpoint_file.cpp): refused, naming the weight and its file. One pass over a weight, once.
    std::lock_guard<std::mutex> hold(finite_->mutex);
    if (finite_->finite.count(name) == 0) {
        if (const int64_t at = safetensors::first_non_finite(t.dtype, b); at >= 0)
            throw PretrainedError(files_[file].path() + ": weight \"" + std::string(name) +
                                  "\" holds NaN or an "
                                  "infinite value (element " +
                                  std::to_string(at) + "): a damaged model is not used");
        finite_->finite.emplace(name);
    }
    return b;
}

int64_t ModelFolder::parameter_count() const {
    int64_t n = 0;
    for (const WeightSpec& w : weights_)
        n += static_cast<int64_t>(tensor(w.name).elements());
    return n;
}

std::string ModelFolder::dtype() const {
    std::set<std::string> names;
    for (const WeightSpec& w : weights_)
        names.insert(std::string(safetensors::dtype_name(tensor(w.name).dtype)));
    if (names.size() == 1) return *names.begin();
    std::string list;
    for (const std::string& n : names) {
        if (!list.empty()) list += ", ";
        list += n;
    }
    return "mixed (" + list + ")";
}

std::string ModelFolder::tokenizer_path() const {
    const fs::path p = fs::path(dir_) / kTokenizerFile;
    return fs::exists(p) ? p.string() : std::string();
}

namespace {

constexpr int kLargestIntegerChecked = 9999;
constexpr std::size_t kRangesListed = 64;

// The integers 0..kLargestIntegerChecked whose text (after `prefix`) is one token, as [first, last] ranges.
// 10 -> "10", 0.3 -> "0.3".
std::string shown_seconds(double seconds) {
    std::ostringstream out;
    out << seconds;
    return out.str();
}

json single_token_integers(const BpeTokenizer& t, const std::string& prefix, const std::string& file,
                           std::chrono::steady_clock::time_point deadline, double seconds) {
    json ranges = json::array();
    int count = 0, start = -1;
    for (int n = 0; n <= kLargestIntegerChecked + 1; ++n) {
        if (std::chrono::steady_clock::now() > deadline)
            throw PretrainedError(file + ": its pre-tokenizer took more than " + shown_seconds(seconds) +
                                  " s to split the integers 0.." + std::to_string(n) +
                                  " (a regex that backtracks: each call under the time limit, all of them "
                                  "too slow to use)");
        const bool single = n <= kLargestIntegerChecked && t.single_token(prefix + std::to_string(n));
        count += single;
        if (single && start < 0) start = n;
        if (!single && start >= 0) {
            if (ranges.size() < kRangesListed) ranges.push_back({start, n - 1});
            start = -1;
        }
    }
    return {{"count", count}, {"ranges", ranges}};
}

}  // namespace

// The scan of 0..9999 (and " 0".." 9999") for single tokens runs the pre-tokenizer's regex once a number,
// each call under ICU's time limit; in all it may take this long (a regex that backtracks just under the
// limit made the 20,000 calls take 312 s with no input at all). FONE_TEST_INSPECT_SCAN_SECONDS: a test hook.
double single_token_scan_seconds() {
    const char* v = std::getenv("FONE_TEST_INSPECT_SCAN_SECONDS");
    return v && *v ? std::atof(v) : 10.0;
}

json describe(const ModelFolder& m) {
    const double scan_seconds = single_token_scan_seconds();
    const PretrainedConfig& c = m.config();
    json j = c.to_json();
    j["folder"] = m.dir();
    j["dtype"] = m.dtype();
    j["parameters"] = m.parameter_count();
    uint64_t bytes = 0;
    for (const WeightSpec& w : m.weights())
        bytes += m.tensor(w.name).end - m.tensor(w.name).begin;
    j["weight_bytes"] = bytes;
    j["files"] = m.files();
    const std::string path = m.tokenizer_path();
    if (path.empty()) {
        j["tokenizer"] = nullptr;
        j["single_token_integers"] = nullptr;
        return j;
    }
    const BpeTokenizer t = BpeTokenizer::load(path);
    j["tokenizer"] = {{"file", path},
                      {"vocab_size", t.vocab_size()},
                      {"prefix_ids", t.prefix_ids()},
                      {"suffix_ids", t.suffix_ids()}};
    j["number_pieces"] = count_number_pieces(t);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<int64_t>(scan_seconds * 1000));
    j["single_token_integers"] = single_token_integers(t, "", path, deadline, scan_seconds);
    j["single_token_integers"]["checked"] = "0.." + std::to_string(kLargestIntegerChecked);
    j["single_token_integers"]["after_a_space"] = single_token_integers(t, " ", path, deadline, scan_seconds);
    return j;
}

std::vector<std::string> hidden_layer_names(const ModelFolder& folder) {
    std::vector<std::string> names{"embeddings"};
    const int layers = folder.config().layers;
    for (int l = 1; l < layers; ++l)
        names.push_back("after block " + std::to_string(l));
    names.push_back("after block " + std::to_string(layers) + " and the final norm");
    return names;
}

}  // namespace fone::pretrained
