#include "nn/model.h"

#include <cmath>
#include <numbers>

#include <torch/version.h>

#include "nn/fused_ops.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;

// When attention is computed by broadcasting rather than batched matmuls (see AttentionImpl::forward):
// full attention over up to 8 positions (the one-token-per-number tasks have 5), and one query (a cached
// generation step, or the last layer's final position) over up to 256 keys. Measured on one thread
// (fwd + bwd of a batch of 256, and greedy generation of 4,096 answers): broadcasting is 1.4x faster at
// 5 x 5 and 1.5x at 1 x 26, but 2x slower at 14 x 14 and 2.7x at 26 x 26, where bmm's matrices are big
// enough.
constexpr int64_t kBroadcastPositions = 8 * 8;
constexpr int64_t kBroadcastKeys = 256;

torch::nn::Linear linear(int64_t in, int64_t out, bool bias = false) {
    return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias));
}

// Rotary embedding, halves convention: (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin).
torch::Tensor rotate(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
    const int64_t half = x.size(-1) / 2;
    const auto x1 = x.narrow(-1, 0, half), x2 = x.narrow(-1, half, half);
    return torch::cat({x1 * cos - x2 * sin, x2 * cos + x1 * sin}, -1);
}

}  // namespace

RMSNormImpl::RMSNormImpl(int64_t dim, double eps_) : eps(eps_) {
    weight = register_parameter("weight", torch::ones({dim}));
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) {
    if (fused_kernels_apply(x) && fused_kernels_apply(weight)) return fused_rms_norm(x, weight, eps);
    return x * torch::rsqrt(x.pow(2).mean(-1, true) + eps) * weight;
}

AttentionImpl::AttentionImpl(const ModelConfig& c)
    : heads(c.heads), kv_heads(c.kv_heads), head_dim(c.head_dim) {
    qkv = register_module("qkv", linear(c.hidden, (heads + 2 * kv_heads) * head_dim, c.attention_bias));
    o = register_module("o", linear(heads * head_dim, c.hidden));
}

torch::Tensor AttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& cos,
                                     const torch::Tensor& sin, const torch::Tensor& key_mask, bool last_only,
                                     LayerCache* cache) {
    const int64_t new_positions = x.size(1);
    const int64_t past = cache && cache->k.defined() ? cache->k.size(2) : 0;
    const int64_t l = past + new_positions;  // keys: every position so far
    const int64_t lq = last_only ? 1 : new_positions, qw = heads * head_dim, kvw = kv_heads * head_dim;
    torch::Tensor q_proj, kv_proj;  // [B, Lq, H hd] and [B, L, 2 KV hd]
    if (last_only) {                // keys and values everywhere, the query only where it is needed
        const auto& w = qkv->weight;
        const auto& bias = qkv->bias;  // undefined without attention_bias
        q_proj = F::linear(x.narrow(1, new_positions - 1, 1), w.narrow(0, 0, qw),
                           bias.defined() ? bias.narrow(0, 0, qw) : bias);
        kv_proj = F::linear(x, w.narrow(0, qw, 2 * kvw), bias.defined() ? bias.narrow(0, qw, 2 * kvw) : bias);
    } else {
        const auto proj = qkv(x);
        q_proj = proj.narrow(-1, 0, qw);
        kv_proj = proj.narrow(-1, qw, 2 * kvw);
    }
    // Short sequences (the arithmetic tasks have 5 tokens) and cached generation steps (one query):
    // LibTorch's CPU bmm runs thousands of tiny per-matrix products through a slow loop (a profile showed
    // 80% of a step there; one-query steps of greedy generation took 1.4x as long).
    const bool few_keys = lq * l <= kBroadcastPositions || (lq == 1 && l <= kBroadcastKeys);
    // The projections, not x, decide: under bf16 autocast (--precision bf16) x is float32 and they are not.
    if (few_keys && fused_kernels_apply(q_proj) && fused_kernels_apply(kv_proj))
        return o(attend_fused(q_proj, kv_proj, cos, sin, key_mask, past, cache));
    return o(attend(q_proj, kv_proj, cos, sin, key_mask, past, cache, few_keys && !x.is_cuda()));
}

// Attention for few keys on the CPU in one fused kernel (fused_ops.h): no [B, H, Lq, L, hd] products, no
// mask tensors, no transposes (the kernel reads the projections where they lie).
torch::Tensor AttentionImpl::attend_fused(const torch::Tensor& q_proj, const torch::Tensor& kv_proj,
                                          const torch::Tensor& cos, const torch::Tensor& sin,
                                          const torch::Tensor& key_mask, int64_t past, LayerCache* cache) {
    const int64_t b = q_proj.size(0), lq = q_proj.size(1), n = kv_proj.size(1), l = past + n;
    const int64_t kvw = kv_heads * head_dim;
    const auto q = fused_rotary(q_proj.reshape({b, lq, heads, head_dim}), cos.narrow(0, l - lq, lq),
                                sin.narrow(0, l - lq, lq));
    auto k = fused_rotary(kv_proj.narrow(-1, 0, kvw).reshape({b, n, kv_heads, head_dim}),
                          cos.narrow(0, past, n), sin.narrow(0, past, n));
    auto v = kv_proj.narrow(-1, kvw, kvw).reshape({b, n, kv_heads, head_dim});
    if (cache) {  // the cache holds [B, KV, L, hd], as the composite path writes it
        auto kh = k.transpose(1, 2), vh = v.transpose(1, 2);
        if (past > 0) {
            kh = torch::cat({cache->k, kh}, 2);
            vh = torch::cat({cache->v, vh}, 2);
        }
        cache->k = kh;
        cache->v = vh;
        k = kh.transpose(1, 2);
        v = vh.transpose(1, 2);
    }
    const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
    return fused_short_attention(q, k, v, key_mask, scale).reshape({b, lq, heads * head_dim});
}

// Attention from LibTorch operations: on CUDA, for other dtypes, and for long sequences (batched
// matmuls). `broadcast`: scores and weighted values by broadcasting, for few keys.
torch::Tensor AttentionImpl::attend(const torch::Tensor& q_proj, const torch::Tensor& kv_proj,
                                    const torch::Tensor& cos, const torch::Tensor& sin,
                                    const torch::Tensor& key_mask, int64_t past, LayerCache* cache,
                                    bool broadcast) {
    const int64_t b = q_proj.size(0), lq = q_proj.size(1), n = kv_proj.size(1), l = past + n;
    const int64_t kvw = kv_heads * head_dim;
    auto qh = q_proj.reshape({b, lq, heads, head_dim}).transpose(1, 2);  // [B, H, Lq, hd]
    auto kh =
        kv_proj.narrow(-1, 0, kvw).reshape({b, n, kv_heads, head_dim}).transpose(1, 2);  // [B, KV, n, hd]
    auto vh = kv_proj.narrow(-1, kvw, kvw).reshape({b, n, kv_heads, head_dim}).transpose(1, 2);
    qh = rotate(qh, cos.narrow(0, l - lq, lq), sin.narrow(0, l - lq, lq));
    kh = rotate(kh, cos.narrow(0, past, n), sin.narrow(0, past, n));
    if (cache) {
        if (past > 0) {
            kh = torch::cat({cache->k, kh}, 2);
            vh = torch::cat({cache->v, vh}, 2);
        }
        cache->k = kh;
        cache->v = vh;
    }
    if (kv_heads != heads) {  // grouped-query attention: each key/value head serves heads/kv_heads queries
        const int64_t group = heads / kv_heads;
        kh = kh.unsqueeze(2).expand({b, kv_heads, group, l, head_dim}).reshape({b, heads, l, head_dim});
        vh = vh.unsqueeze(2).expand({b, kv_heads, group, l, head_dim}).reshape({b, heads, l, head_dim});
    }
    // Query i (at absolute position l - lq + i) sees keys 0..l - lq + i.
    auto allowed =
        torch::ones({lq, l}, torch::TensorOptions().dtype(torch::kBool).device(q_proj.device())).tril(l - lq);
    torch::Tensor mask = allowed.view({1, 1, lq, l});
    if (key_mask.defined()) {
        // Padding keys are hidden; a padding query still sees itself, so that its row is never all -inf
        // (NaN there would reach real positions through 0 * NaN in the next layer).
        const auto self = torch::eye(l, allowed.options()).narrow(0, l - lq, lq).view({1, 1, lq, l});
        mask = mask.logical_and(key_mask.view({b, 1, 1, l})).logical_or(self);
    }
    torch::Tensor out;
    const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
    if (broadcast) {  // [B, H, Lq, 1, hd] * [B, H, 1, L, hd] summed over hd
        auto scores = (qh.unsqueeze(3) * kh.unsqueeze(2)).sum(-1) * scale;
        scores = scores.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity());
        out = (torch::softmax(scores, -1).unsqueeze(-1) * vh.unsqueeze(2)).sum(3);
    } else {
#if TORCH_VERSION_MAJOR >= 2
        out = at::scaled_dot_product_attention(qh, kh, vh, mask);
#else
        auto scores = torch::matmul(qh, kh.transpose(-2, -1)) * scale;
        scores = scores.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity());
        out = torch::matmul(torch::softmax(scores, -1), vh);
#endif
    }
    return out.transpose(1, 2).reshape({b, lq, heads * head_dim});
}

MlpImpl::MlpImpl(const ModelConfig& c) {
    gate_up = register_module("gate_up", linear(c.hidden, 2 * c.intermediate));
    down = register_module("down", linear(c.intermediate, c.hidden));
}

torch::Tensor MlpImpl::forward(const torch::Tensor& x) {
    const auto gate_and_up = gate_up(x);
    if (fused_kernels_apply(gate_and_up)) return down(fused_swiglu(gate_and_up));
    const auto gu = gate_and_up.chunk(2, -1);
    return down(F::silu(gu[0]) * gu[1]);
}

BlockImpl::BlockImpl(const ModelConfig& c) {
    attn_norm = register_module("attn_norm", RMSNorm(c.hidden, c.norm_eps));
    attn = register_module("attn", Attention(c));
    mlp_norm = register_module("mlp_norm", RMSNorm(c.hidden, c.norm_eps));
    mlp = register_module("mlp", Mlp(c));
}

torch::Tensor BlockImpl::forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin,
                                 const torch::Tensor& key_mask, bool last_only, LayerCache* cache) {
    const auto residual = last_only ? x.narrow(1, x.size(1) - 1, 1) : x;
    auto h = residual + attn(attn_norm(x), cos, sin, key_mask, last_only, cache);
    return h + mlp(mlp_norm(h));
}

FoneTransformerImpl::FoneTransformerImpl(const ModelConfig& c, const ModelHeads& h)
    : config(c),
      fone_width(h.fone_width),
      slots(h.digit_slots),
      base(h.digit_base),
      pairs_per_slot(h.digit_multipliers.empty() ? 1 : static_cast<int64_t>(h.digit_multipliers.size())),
      sign_feature(h.sign_feature) {
    c.validate();
    if (c.vocab_size < 1) throw std::invalid_argument("model: vocab_size is not set");
    const int64_t head_entries = 2 * slots * pairs_per_slot + (sign_feature ? 1 : 0);
    if (head_entries > c.hidden)
        throw std::invalid_argument("model: hidden " + std::to_string(c.hidden) + " is too small for " +
                                    std::to_string(slots) + " digit slots (needs at least " +
                                    std::to_string(head_entries) + ")");
    if (c.fone_input == "pad" && fone_width > c.hidden)
        throw std::invalid_argument("model: FoNE width " + std::to_string(fone_width) +
                                    " does not fit hidden " + std::to_string(c.hidden) +
                                    " with zero-padding; use fone_input \"linear\"");
    embed = register_module("embed", torch::nn::Embedding(c.vocab_size, c.hidden));
    // Llama-style initialisation: small normal weights (std 0.02) for the embedding and projections.
    torch::nn::init::normal_(embed->weight, 0.0, c.init_std > 0 ? c.init_std : 0.02);
    if (!c.tie_embeddings) {
        lm_head = register_module("lm_head", linear(c.hidden, c.vocab_size));
        torch::nn::init::normal_(lm_head->weight, 0.0, c.init_std > 0 ? c.init_std : 0.02);
    }
    if (c.fone_input == "linear" && fone_width > 0)
        fone_map = register_module("fone_map", linear(fone_width, c.hidden, true));
    if (h.abacus_positions > 0) {
        abacus = register_module("abacus", torch::nn::Embedding(h.abacus_positions, c.hidden));
        torch::nn::init::normal_(abacus->weight, 0.0, c.init_std > 0 ? c.init_std : 0.02);
    }
    if (h.regression > 0)
        regression_head = register_module("regression", linear(c.hidden, h.regression, true));
    for (int i = 0; i < c.layers; ++i)
        blocks->push_back(Block(c));
    register_module("blocks", blocks);
    final_norm = register_module("final_norm", RMSNorm(c.hidden, c.norm_eps));
    if (c.head_norm == "layernorm")
        head_norm =
            register_module("head_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.hidden})));
    // A learnable log-scale, or a fixed buffer when the temperature is not learned.
    const auto log_t = torch::full({}, std::log(c.head_temperature_init));
    log_temperature = c.head_temperature ? register_parameter("log_temperature", log_t)
                                         : register_buffer("log_temperature", log_t);
    if (c.init_std > 0) {
        torch::NoGradGuard no_grad;
        for (auto& p : named_parameters())
            if (p.key().find("blocks") == 0 && p.value().dim() == 2)
                torch::nn::init::normal_(p.value(), 0.0, c.init_std);
    }

    if (h.digit_multipliers.empty()) {
        auto angles = torch::arange(base, torch::kFloat64) * (2.0 * std::numbers::pi / base);
        prototypes =
            register_buffer("prototypes", torch::stack({angles.cos(), angles.sin()}).to(torch::kFloat32));
    } else {
        std::vector<torch::Tensor> per_c;
        for (int c_r : h.digit_multipliers) {
            auto angles = torch::arange(base, torch::kFloat64) * (2.0 * std::numbers::pi / c_r);
            per_c.push_back(torch::stack({angles.cos(), angles.sin()}));
        }
        prototypes = register_buffer("prototypes", torch::stack(per_c).to(torch::kFloat32));
    }
    const auto inv_freq =
        torch::tensor(rope_inverse_frequencies(c.head_dim, c.rope_theta, c.rope_scaling), torch::kFloat64);
    auto pos = torch::arange(c.max_seq, torch::kFloat64).unsqueeze(1) * inv_freq.unsqueeze(0);
    rope_cos = register_buffer("rope_cos", pos.cos().to(torch::kFloat32));
    rope_sin = register_buffer("rope_sin", pos.sin().to(torch::kFloat32));
}

torch::Tensor FoneTransformerImpl::forward(const ModelInputs& in, bool last_only,
                                           std::vector<torch::Tensor>* layers, KvCache* cache) {
    if (cache) cache->resize(blocks->size());
    const int64_t past = cache && !cache->empty() && (*cache)[0].k.defined() ? (*cache)[0].k.size(2) : 0;
    if (past + in.tokens.size(1) > config.max_seq)
        throw std::invalid_argument("sequence of " + std::to_string(past + in.tokens.size(1)) +
                                    " tokens is longer than max_seq " + std::to_string(config.max_seq));
    auto x = embed(in.tokens);
    if (in.scale.defined()) x = x * in.scale.unsqueeze(-1).to(x.dtype());  // xVal: the value scales [NUM]
    if (in.fone.defined() && fone_width > 0) {
        if (fone_map) {
            x = x + fone_map(in.fone) * in.num_mask.unsqueeze(-1).to(x.dtype());  // the bias only at numbers
        } else {
            x = x + F::pad(in.fone, F::PadFuncOptions({0, config.hidden - fone_width}));  // zero-padded
        }
    }
    if (abacus && in.positions.defined())  // row 0 is "not a digit": masked out rather than learned
        x = x + abacus(in.positions) * in.positions.gt(0).unsqueeze(-1).to(x.dtype());
    if (residual_hook) x = residual_hook(0, x);
    if (layers) layers->push_back(x);
    for (std::size_t i = 0; i < blocks->size(); ++i) {
        const bool last = last_only && i + 1 == blocks->size();
        x = blocks[i]->as<Block>()->forward(x, rope_cos, rope_sin, in.key_mask, last,
                                            cache ? &(*cache)[i] : nullptr);
        if (residual_hook) x = residual_hook(static_cast<int64_t>(i) + 1, x);
        if (layers) layers->push_back(x);
    }
    if (last_only && blocks->size() == 0) x = x.narrow(1, x.size(1) - 1, 1);
    return final_norm(x);
}

torch::Tensor FoneTransformerImpl::lm_logits(const torch::Tensor& h) {
    return torch::matmul(h, (lm_head ? lm_head->weight : embed->weight).t());
}

torch::Tensor FoneTransformerImpl::head_features(const torch::Tensor& h) {
    return head_norm ? head_norm(h) : h;
}

torch::Tensor FoneTransformerImpl::digit_logits(const torch::Tensor& h) {
    return digit_logits_of_features(head_features(h));
}

torch::Tensor FoneTransformerImpl::digit_logits_of_features(const torch::Tensor& features) {
    if (pairs_per_slot > 1) {
        auto pairs = features.narrow(-1, 0, 2 * slots * pairs_per_slot);
        auto shape = pairs.sizes().vec();
        shape.back() = slots;
        shape.push_back(pairs_per_slot);
        shape.push_back(2);
        // [..., slots, r, 2, 1] * [r, 2, base], summed over the pair entries and the multipliers.
        auto logits = (pairs.reshape(shape).unsqueeze(-1) * prototypes).sum(-2).sum(-2);
        return log_temperature.defined() ? logits * log_temperature.exp() : logits;
    }
    auto pairs = features.narrow(-1, 0, 2 * slots);
    auto shape = pairs.sizes().vec();
    shape.back() = slots;
    shape.push_back(2);
    auto logits = torch::matmul(pairs.reshape(shape), prototypes);  // [..., slots, base]
    return log_temperature.defined() ? logits * log_temperature.exp() : logits;
}

torch::Tensor FoneTransformerImpl::sign_logit(const torch::Tensor& h) {
    return sign_feature ? sign_logit_of_features(head_features(h)) : torch::Tensor();
}

torch::Tensor FoneTransformerImpl::sign_logit_of_features(const torch::Tensor& features) {
    if (!sign_feature) return {};
    auto z = features.select(-1, 2 * slots * pairs_per_slot);
    return log_temperature.defined() ? z * log_temperature.exp() : z;
}

torch::Tensor FoneTransformerImpl::regress(const torch::Tensor& h) {
    return regression_head(h);
}

double FoneTransformerImpl::temperature() {
    return log_temperature.defined() ? std::exp(log_temperature.item<double>()) : 1.0;
}

torch::Tensor FoneTransformerImpl::digit_loss(const torch::Tensor& h, const torch::Tensor& digits,
                                              const torch::Tensor& signs) {
    // The digit and sign terms each apply the head's norm to h: sharing one application would sum their
    // gradients before the norm's backward pass instead of after, which rounds differently and so would
    // change what a run trains to.
    const auto logits = digit_logits(h).to(torch::kFloat32);
    const auto per_slot =
        F::cross_entropy(logits.reshape({-1, base}), digits.reshape({-1}).to(torch::kInt64));
    if (!sign_feature) return per_slot;
    const auto sign =
        F::binary_cross_entropy_with_logits(sign_logit(h).to(torch::kFloat32), signs.to(torch::kFloat32));
    return mean_with_sign(per_slot, sign, slots);
}

DigitPrediction FoneTransformerImpl::read_digits(const torch::Tensor& h) {
    return read_digits_of_features(head_features(h));
}

DigitPrediction FoneTransformerImpl::read_digits_of_features(const torch::Tensor& features) {
    DigitPrediction r;
    r.digits = digit_logits_of_features(features).argmax(-1);
    if (sign_feature) {
        r.negative = sign_logit_of_features(features).gt(0);
    } else {
        auto leading = features.sizes().vec();  // the norm keeps h's shape and device
        leading.pop_back();
        r.negative =
            torch::zeros(leading, torch::TensorOptions().dtype(torch::kBool).device(features.device()));
    }
    return r;
}

torch::Tensor mean_with_sign(const torch::Tensor& digit_loss, const torch::Tensor& sign_loss, int64_t slots) {
    return (digit_loss * slots + sign_loss) / (slots + 1);
}

ParamCount param_count(FoneTransformer& model) {
    ParamCount p;
    for (const auto& t : model->parameters())
        p.total += t.numel();
    p.embedding = model->embed->weight.numel() + (model->lm_head ? model->lm_head->weight.numel() : 0);
    return p;
}

}  // namespace fone
