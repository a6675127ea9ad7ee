#include "fone/store/model_config.h"

#include <unistd.h>
#include <cstdlib>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>

#include "io/json_fields.h"

namespace fone {

void RopeScaling::validate() const {
    auto bad = [](const std::string& why) { throw std::invalid_argument("rope_scaling: " + why); };
    if (type != "default" && type != "linear" && type != "llama3")
        bad("type \"" + type + "\" is not one of default, linear, llama3");
    if (!(factor >= 1 && factor < 1e6)) bad("factor must be in [1, 1e6)");
    if (type == "llama3") {
        if (!(low_freq_factor > 0 && high_freq_factor > low_freq_factor && high_freq_factor < 1e6))
            bad("llama3 needs 0 < low_freq_factor < high_freq_factor");
        if (original_max_positions < 1) bad("original_max_position_embeddings must be at least 1");
    }
}

namespace {

constexpr auto rope_fields = [](auto& s, auto&& field) {
    field("type", s.type);
    field("factor", s.factor);
    field("low_freq_factor", s.low_freq_factor);
    field("high_freq_factor", s.high_freq_factor);
    field("original_max_positions", s.original_max_positions);
};

}  // namespace

nlohmann::json RopeScaling::to_json() const {
    nlohmann::json j = nlohmann::json::object();
    detail::write_fields(j, *this, rope_fields);
    return j;
}

RopeScaling RopeScaling::from_json(const nlohmann::json& j) {
    RopeScaling s;
    detail::JsonFields f(j, "model: rope_scaling");
    detail::read_fields(f, j, s, rope_fields);
    f.reject_unknown();
    return s;
}

std::vector<double> rope_inverse_frequencies(int dims, double theta, const RopeScaling& s) {
    std::vector<double> inv(static_cast<std::size_t>(dims / 2));
    for (std::size_t i = 0; i < inv.size(); ++i) {
        double f = std::pow(theta, -2.0 * static_cast<double>(i) / dims);
        if (s.type == "linear") {
            f /= s.factor;
        } else if (s.type == "llama3") {
            // transformers' _compute_llama3_parameters, in double precision.
            const double wavelength = 2 * std::numbers::pi / f;
            const double low_wavelength = s.original_max_positions / s.low_freq_factor;
            const double high_wavelength = s.original_max_positions / s.high_freq_factor;
            if (wavelength > low_wavelength) {
                f /= s.factor;
            } else if (wavelength >= high_wavelength) {
                const double smooth = (s.original_max_positions / wavelength - s.low_freq_factor) /
                                      (s.high_freq_factor - s.low_freq_factor);
                f = (1 - smooth) * f / s.factor + smooth * f;
            }
        }
        inv[i] = f;
    }
    return inv;
}

void ModelConfig::validate() const {
    auto bad = [](const std::string& why) { throw std::invalid_argument("model: " + why); };
    if (hidden < 2 || hidden > 65536) bad("hidden must be in 2..65536");
    if (hidden % 2) bad("hidden must be even (the digit head reads pairs)");
    if (layers < 1 || layers > 256) bad("layers must be in 1..256");
    if (heads < 1 || kv_heads < 1) bad("heads and kv_heads must be at least 1");
    if (heads > 1024) bad("heads must be at most 1024");
    if (heads % kv_heads)
        bad("heads (" + std::to_string(heads) + ") must be a multiple of kv_heads (" +
            std::to_string(kv_heads) + ")");
    if (head_dim < 2 || head_dim % 2) bad("head_dim must be even and at least 2 (rotary pairs)");
    if (head_dim > 4096) bad("head_dim must be at most 4096");
    if (intermediate < 1 || intermediate > (1 << 20)) bad("intermediate must be in 1..1048576");
    if (max_seq < 2 || max_seq > (1 << 16)) bad("max_seq must be in 2..65536");
    if (vocab_size < 0 || vocab_size > (1 << 24)) bad("vocab_size must be in 0..16777216");
    if (!(rope_theta > 1 && rope_theta < 1e12)) bad("rope_theta must be in (1, 1e12)");
    rope_scaling.validate();
    if (!(norm_eps > 0 && norm_eps < 1)) bad("norm_eps must be in (0, 1)");
    if (fone_input != "pad" && fone_input != "linear") bad("fone_input must be \"pad\" or \"linear\"");
    if (head_norm != "layernorm" && head_norm != "none") bad("head_norm must be \"layernorm\" or \"none\"");
    if (!(init_std >= 0 && init_std < 10)) bad("init_std must be in [0, 10)");
    if (!(head_temperature_init > 0 && head_temperature_init < 1e4))
        bad("head_temperature_init must be in (0, 10000)");
}

namespace {

// ModelConfig's fields, once (json_fields.h): its JSON keys are its members' names.
constexpr auto model_fields = [](auto& c, auto&& field) {
    field("vocab_size", c.vocab_size);
    field("hidden", c.hidden);
    field("layers", c.layers);
    field("heads", c.heads);
    field("kv_heads", c.kv_heads);
    field("intermediate", c.intermediate);
    field("head_dim", c.head_dim);
    field("max_seq", c.max_seq);
    field("rope_theta", c.rope_theta);
    field("rope_scaling", c.rope_scaling);
    field("norm_eps", c.norm_eps);
    field("attention_bias", c.attention_bias);
    field("tie_embeddings", c.tie_embeddings);
    field("fone_input", c.fone_input);
    field("head_norm", c.head_norm);
    field("head_temperature", c.head_temperature);
    field("head_temperature_init", c.head_temperature_init);
    field("init_std", c.init_std);
};

}  // namespace

nlohmann::json ModelConfig::to_json() const {
    nlohmann::json j = nlohmann::json::object();
    detail::write_fields(j, *this, model_fields);
    return j;
}

ModelConfig ModelConfig::from_json(const nlohmann::json& j) {
    ModelConfig c;
    detail::JsonFields f(j, "model");
    detail::read_fields(f, j, c, model_fields);
    f.reject_unknown();
    return c;
}

ModelConfig size_level(int level) {
    if (level < 1 || level > 6)
        throw std::invalid_argument("size level must be 1..6, not " + std::to_string(level));
    static constexpr int kHeads[] = {4, 4, 6, 8, 8, 8};
    static constexpr int kKvHeads[] = {2, 2, 3, 4, 4, 4};
    ModelConfig c;
    c.hidden = 64 * level;
    c.intermediate = 4 * c.hidden;
    c.layers = level;
    c.heads = kHeads[level - 1];
    c.kv_heads = kKvHeads[level - 1];
    return c;
}

ParamCount count_params(const ModelConfig& c, int fone_width) {
    const std::int64_t d = c.hidden, q = std::int64_t(c.heads) * c.head_dim,
                       kv = std::int64_t(c.kv_heads) * c.head_dim;
    const std::int64_t attention = d * q + 2 * d * kv + q * d + (c.attention_bias ? q + 2 * kv : 0);
    const std::int64_t mlp = 3 * d * c.intermediate;
    const std::int64_t norms = 2 * d;
    ParamCount p;
    p.embedding = std::int64_t(c.vocab_size) * d;
    if (!c.tie_embeddings) p.embedding *= 2;                           // the LM head's own matrix
    p.total = p.embedding + c.layers * (attention + mlp + norms) + d;  // + final RMSNorm
    if (c.fone_input == "linear") p.total += std::int64_t(fone_width) * d + d;
    if (c.head_norm == "layernorm") p.total += 2 * d;
    if (c.head_temperature) p.total += 1;
    return p;
}

std::uint64_t model_memory_bytes(const ModelConfig& c, int fone_width, bool training) {
    const auto params =
        static_cast<std::uint64_t>(std::max<std::int64_t>(0, count_params(c, fone_width).total));
    return params * (training ? 16u : 4u);  // params <= ~10^14 here: no overflow
}

std::uint64_t physical_memory_bytes() {
    // Test hook (tests/reliability): a machine of this many bytes, so that the memory checks can be shown
    // refusing without making inputs of tens of GB.
    if (const char* v = std::getenv("FONE_TEST_PHYSICAL_MEMORY"); v && *v)
        return std::strtoull(v, nullptr, 10);
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

namespace {

std::string gigabytes(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GB", bytes / (1024.0 * 1024.0 * 1024.0));
    return buf;
}

}  // namespace

void check_model_memory(const ModelConfig& c, int fone_width, bool training) {
    const std::int64_t params = count_params(c, fone_width).total;
    char count[64];
    std::snprintf(count, sizeof count, "%.3g billion parameters", static_cast<double>(params) / 1e9);
    if (params > kMaxModelParams)
        throw std::invalid_argument(std::string("model: ") + count + ", more than the " +
                                    std::to_string(kMaxModelParams / 1'000'000'000) +
                                    " billion a model of this workbench may have");
    const std::uint64_t need = model_memory_bytes(c, fone_width, training);
    const std::uint64_t have = physical_memory_bytes();
    if (have > 0 && need > have)
        throw std::invalid_argument(
            std::string("model: ") + count + " need " + gigabytes(static_cast<double>(need)) +
            (training ? " to train (weights, gradients, AdamW state)" : " for the weights alone") +
            ", more than this machine's " + gigabytes(static_cast<double>(have)) + " of memory");
}

double train_flops_per_example(const ModelConfig& c, int seq_len, int last_layer_positions) {
    const double d = c.hidden, q = double(c.heads) * c.head_dim, kv = double(c.kv_heads) * c.head_dim;
    // Per position and layer: projections and MLP (2 FLOPs per multiply-add), then attention scores and
    // the weighted sum over up to seq_len keys.
    const double dense = 2 * (d * q + 2 * d * kv + q * d) + 2 * 3 * d * c.intermediate;
    const double attend = 2 * 2 * double(seq_len) * q;
    double forward = (c.layers - 1) * seq_len * (dense + attend);
    // The last layer still needs keys and values at every position.
    forward += last_layer_positions * (dense + attend) + (seq_len - last_layer_positions) * 2 * 2 * d * kv;
    return 3.0 * forward;
}

}  // namespace fone
