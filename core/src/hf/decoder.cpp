#include "hf/decoder.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "fone/pretrained/families.h"
#include "fone/pretrained/forward_memory.h"

namespace fone::pretrained {
namespace {

namespace F = torch::nn::functional;

// Rows of the embedding (or LM head) converted at a time: 8,192 rows of 4,096 floats are 128 MB.
constexpr int64_t kRowsPerChunk = 8192;

torch::ScalarType scalar_type(safetensors::Dtype d) {
    switch (d) {
        case safetensors::Dtype::F32:
            return torch::kFloat32;
        case safetensors::Dtype::F16:
            return torch::kFloat16;
        case safetensors::Dtype::BF16:
            return torch::kBFloat16;
        default:
            throw PretrainedError("a weight is not F32, F16 or BF16");
    }
}

torch::Tensor optional_weight(const ModelFolder& m, const std::string& name) {
    return name.empty() ? torch::Tensor() : load_weight(m, name);
}

// One block's weights, float32; undefined where the family has none.
struct BlockTensors {
    torch::Tensor attn_norm_w, attn_norm_b, q_w, q_b, k_w, k_b, v_w, v_b, qkv_w, qkv_b, o_w, o_b;
    torch::Tensor mlp_norm_w, mlp_norm_b, gate_w, gate_b, up_w, up_b, down_w, down_b;
};

BlockTensors block_tensors(const ModelFolder& m, int layer) {
    const PretrainedConfig& c = m.config();
    auto get = [&](BlockWeight w) {
        return optional_weight(m, block_weight_name(c, m.weight_prefix(), layer, w));
    };
    using W = BlockWeight;
    return {get(W::attn_norm_weight), get(W::attn_norm_bias), get(W::q_weight),    get(W::q_bias),
            get(W::k_weight),         get(W::k_bias),         get(W::v_weight),    get(W::v_bias),
            get(W::qkv_weight),       get(W::qkv_bias),       get(W::o_weight),    get(W::o_bias),
            get(W::mlp_norm_weight),  get(W::mlp_norm_bias),  get(W::gate_weight), get(W::gate_bias),
            get(W::up_weight),        get(W::up_bias),        get(W::down_weight), get(W::down_bias)};
}

struct Context {
    const PretrainedConfig& c;
    bool transposed;  // GPT-2's [in, out] matrices
};

// One row times a matrix: a matrix-vector product. (LibTorch 1.13 sends a one-row linear to OpenBLAS's
// sgemm, which packs the whole weight matrix at every call: a generated token then cost 4x transformers'.)
torch::Tensor row_times(const torch::Tensor& x, const torch::Tensor& w_out_in, const torch::Tensor& b) {
    auto sizes = x.sizes().vec();
    sizes.back() = w_out_in.size(0);
    auto y = torch::mv(w_out_in, x.reshape({-1}));
    if (b.defined()) y = y + b;
    return y.view(sizes);
}

torch::Tensor linear(const Context& ctx, const torch::Tensor& x, const torch::Tensor& w,
                     const torch::Tensor& b) {
    if (x.numel() == x.size(-1)) return row_times(x, ctx.transposed ? w.t() : w, b);
    if (!ctx.transposed) return F::linear(x, w, b);
    const auto y = torch::matmul(x, w);
    return b.defined() ? y + b : y;
}

torch::Tensor norm(const Context& ctx, const torch::Tensor& x, const torch::Tensor& w,
                   const torch::Tensor& b) {
    if (ctx.c.family == Family::llama || ctx.c.family == Family::qwen2)
        return w * (x * torch::rsqrt(x.pow(2).mean(-1, true) + ctx.c.norm_eps));
    return torch::layer_norm(x, {x.size(-1)}, w, b, ctx.c.norm_eps);
}

torch::Tensor activate(const Context& ctx, const torch::Tensor& x) {
    const std::string& a = ctx.c.activation;
    if (a == "silu") return F::silu(x);
    if (a == "relu") return torch::relu(x);
    if (a == "gelu") return torch::gelu(x);
    return torch::gelu(x, "tanh");  // gelu_new, gelu_pytorch_tanh
}

// cos and sin of position x frequency for positions first..first+length-1, [length, rotary_dims / 2].
std::pair<torch::Tensor, torch::Tensor> rope_tables(const PretrainedConfig& c, int64_t first,
                                                    int64_t length) {
    if (c.rotary_dims == 0) return {};
    const auto inv =
        torch::tensor(rope_inverse_frequencies(c.rotary_dims, c.rope_theta, c.rope_scaling), torch::kFloat64);
    const auto angles = torch::arange(first, first + length, torch::kFloat64).unsqueeze(1) * inv.unsqueeze(0);
    return {angles.cos().to(torch::kFloat32), angles.sin().to(torch::kFloat32)};
}

// Rotary embedding on the first rotary_dims entries of each head (halves convention, as transformers'
// rotate_half); the rest pass (NeoX's partial rotary). x: [B, heads, L, head_dim].
torch::Tensor rotate(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin,
                     int64_t dims) {
    const int64_t half = dims / 2;
    const auto x1 = x.narrow(-1, 0, half), x2 = x.narrow(-1, half, half);
    auto rotated = torch::cat({x1 * cos - x2 * sin, x2 * cos + x1 * sin}, -1);
    if (dims == x.size(-1)) return rotated;
    return torch::cat({rotated, x.narrow(-1, dims, x.size(-1) - dims)}, -1);
}

// With a cache, x holds the new positions only: their keys and values join the cached ones (kept after
// the rotary, before the grouped heads are repeated) and each new position attends to all earlier ones.
torch::Tensor attention(const Context& ctx, const BlockTensors& w, const torch::Tensor& x,
                        const torch::Tensor& cos, const torch::Tensor& sin, LayerCache* cache) {
    const PretrainedConfig& c = ctx.c;
    const int64_t b = x.size(0), l = x.size(1), hd = c.head_dim;
    torch::Tensor q, k, v;  // [B, L, heads * hd] and [B, L, kv_heads * hd]
    if (w.q_w.defined()) {
        q = linear(ctx, x, w.q_w, w.q_b), k = linear(ctx, x, w.k_w, w.k_b), v = linear(ctx, x, w.v_w, w.v_b);
    } else if (c.family == Family::gpt_neox) {  // per head: [q, k, v]
        const auto parts = linear(ctx, x, w.qkv_w, w.qkv_b).view({b, l, c.heads, 3 * hd}).chunk(3, -1);
        q = parts[0].reshape({b, l, -1}), k = parts[1].reshape({b, l, -1}), v = parts[2].reshape({b, l, -1});
    } else {  // GPT-2: [q | k | v]
        const auto parts = linear(ctx, x, w.qkv_w, w.qkv_b).chunk(3, -1);
        q = parts[0], k = parts[1], v = parts[2];
    }
    q = q.reshape({b, l, c.heads, hd}).transpose(1, 2);
    k = k.reshape({b, l, c.kv_heads, hd}).transpose(1, 2);
    v = v.reshape({b, l, c.kv_heads, hd}).transpose(1, 2);
    if (c.rotary_dims > 0) {
        q = rotate(q, cos, sin, c.rotary_dims);
        k = rotate(k, cos, sin, c.rotary_dims);
    }
    if (cache) {
        if (cache->k.defined()) k = torch::cat({cache->k, k}, 2), v = torch::cat({cache->v, v}, 2);
        cache->k = k, cache->v = v;
    }
    const int64_t seen = k.size(2);  // positions attended to: the cached ones and the new
    if (c.kv_heads != c.heads) {     // each key/value head serves heads / kv_heads consecutive query heads
        k = k.repeat_interleave(c.heads / c.kv_heads, 1);
        v = v.repeat_interleave(c.heads / c.kv_heads, 1);
    }
    auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(hd));
    const auto future = torch::ones({l, seen}, torch::kBool).triu(seen - l + 1);
    scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());
    const auto out =
        torch::matmul(torch::softmax(scores, -1), v).transpose(1, 2).reshape({b, l, c.heads * hd});
    return linear(ctx, out, w.o_w, w.o_b);
}

torch::Tensor mlp(const Context& ctx, const BlockTensors& w, const torch::Tensor& x) {
    if (w.gate_w.defined())  // SwiGLU
        return linear(ctx, activate(ctx, linear(ctx, x, w.gate_w, w.gate_b)) * linear(ctx, x, w.up_w, w.up_b),
                      w.down_w, w.down_b);
    return linear(ctx, activate(ctx, linear(ctx, x, w.up_w, w.up_b)), w.down_w, w.down_b);
}

torch::Tensor block(const Context& ctx, const BlockTensors& w, const torch::Tensor& x,
                    const torch::Tensor& cos, const torch::Tensor& sin, LayerCache* cache = nullptr) {
    const auto a = attention(ctx, w, norm(ctx, x, w.attn_norm_w, w.attn_norm_b), cos, sin, cache);
    if (ctx.c.parallel_residual) return x + a + mlp(ctx, w, norm(ctx, x, w.mlp_norm_w, w.mlp_norm_b));
    const auto h = x + a;
    return h + mlp(ctx, w, norm(ctx, h, w.mlp_norm_w, w.mlp_norm_b));
}

// Rows of a [V, H] matrix in its stored dtype, as float32.
torch::Tensor rows_of(const torch::Tensor& stored, const torch::Tensor& ids) {
    return stored.index_select(0, ids.reshape({-1})).to(torch::kFloat32);
}

// h [B, H] times the transpose of a [V, H] matrix, converted kRowsPerChunk rows at a time.
torch::Tensor times_rows(const torch::Tensor& h, const torch::Tensor& stored) {
    std::vector<torch::Tensor> parts;
    for (int64_t r = 0; r < stored.size(0); r += kRowsPerChunk)
        parts.push_back(torch::matmul(
            h, stored.narrow(0, r, std::min(kRowsPerChunk, stored.size(0) - r)).to(torch::kFloat32).t()));
    return torch::cat(parts, -1);
}

void check_batches(const PretrainedConfig& c, const std::vector<torch::Tensor>& batches) {
    for (const auto& ids : batches) {
        if (ids.dim() != 2 || ids.size(1) < 1) throw PretrainedError("no tokens to run");
        const int64_t lo = ids.min().item<int64_t>(), hi = ids.max().item<int64_t>();
        if (lo < 0 || hi >= c.vocab_size)
            throw PretrainedError("token id " + std::to_string(lo < 0 ? lo : hi) +
                                  " is outside the vocabulary 0.." + std::to_string(c.vocab_size - 1));
        if (c.rotary_dims == 0 && ids.size(1) > c.max_positions)
            throw PretrainedError(std::to_string(ids.size(1)) + " tokens, but the model has " +
                                  std::to_string(c.max_positions) + " positions");
    }
}

}  // namespace

torch::Tensor stored_weight(const ModelFolder& m, const std::string& name) {
    const safetensors::TensorInfo& t = m.tensor(name);
    const std::span<const std::byte> bytes = m.bytes(name);
    const torch::ScalarType type = scalar_type(t.dtype);
    void* data = const_cast<std::byte*>(bytes.data());  // read only: no in-place operation ever touches it
    if (reinterpret_cast<std::uintptr_t>(data) % safetensors::dtype_size(t.dtype) == 0)
        return torch::from_blob(data, t.shape, torch::TensorOptions().dtype(type));
    auto copy = torch::empty(t.shape, torch::TensorOptions().dtype(type));
    std::memcpy(copy.data_ptr(), bytes.data(), bytes.size());
    return copy;
}

torch::Tensor load_weight(const ModelFolder& m, const std::string& name) {
    return stored_weight(m, name).to(torch::kFloat32);
}

DecoderOutput run_decoder(const ModelFolder& m, const std::vector<torch::Tensor>& batches, bool logits,
                          const std::function<void(double)>& progress) {
    torch::NoGradGuard no_grad;
    const PretrainedConfig& c = m.config();
    check_batches(c, batches);
    std::vector<BatchShape> shapes;
    for (const auto& b : batches)
        shapes.push_back({b.size(0), b.size(1)});
    check_forward_memory(m, shapes, logits, false);  // before anything is allocated
    const Context ctx{c, stores_transposed(c)};
    const std::string& prefix = m.weight_prefix();
    DecoderOutput out;
    out.hidden_last.resize(batches.size());
    std::vector<torch::Tensor> xs;
    {
        const auto embed = stored_weight(m, weight_name(c, prefix, Weight::embed));
        const std::string positions = weight_name(c, prefix, Weight::positions);
        for (const auto& ids : batches) {
            auto x = rows_of(embed, ids).view({ids.size(0), ids.size(1), c.hidden});
            if (!positions.empty())
                x = x + rows_of(stored_weight(m, positions), torch::arange(ids.size(1))).unsqueeze(0);
            xs.push_back(x);
        }
    }
    for (int l = 0; l < c.layers; ++l) {
        const BlockTensors w = block_tensors(m, l);
        for (std::size_t i = 0; i < xs.size(); ++i) {
            out.hidden_last[i].push_back(xs[i].select(1, -1).clone());
            const auto [cos, sin] = rope_tables(c, 0, xs[i].size(1));
            xs[i] = block(ctx, w, xs[i], cos, sin);
        }
        if (progress) progress(static_cast<double>(l + 1) / c.layers);
    }
    const auto final_w = load_weight(m, weight_name(c, prefix, Weight::final_norm_weight));
    const auto final_b = optional_weight(m, weight_name(c, prefix, Weight::final_norm_bias));
    const std::string head = weight_name(c, prefix, Weight::lm_head);
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const auto last = norm(ctx, xs[i].select(1, -1), final_w, final_b);
        out.hidden_last[i].push_back(last);
        if (logits)
            out.logits_last.push_back(times_rows(
                last, stored_weight(m, head.empty() ? weight_name(c, prefix, Weight::embed) : head)));
    }
    return out;
}

// ---- generation: the weights once, a KV cache ------------------------------------------------------

struct DecoderSession::Impl {
    const ModelFolder& m;
    Context ctx;
    std::vector<BlockTensors> blocks;
    torch::Tensor embed, positions, final_w, final_b, head;  // float32; head may be embed (tied)
    std::vector<LayerCache> caches;
    int64_t length = 0;
};

DecoderSession::DecoderSession(const ModelFolder& m) {
    check_forward_memory(m, {}, false, true);  // every weight becomes float32 here
    const PretrainedConfig& c = m.config();
    const std::string& prefix = m.weight_prefix();
    impl_.reset(new Impl{m, Context{c, stores_transposed(c)}, {}, {}, {}, {}, {}, {}, {}, 0});
    Impl& s = *impl_;
    for (int l = 0; l < c.layers; ++l)
        s.blocks.push_back(block_tensors(m, l));
    s.embed = load_weight(m, weight_name(c, prefix, Weight::embed));
    s.positions = optional_weight(m, weight_name(c, prefix, Weight::positions));
    s.final_w = load_weight(m, weight_name(c, prefix, Weight::final_norm_weight));
    s.final_b = optional_weight(m, weight_name(c, prefix, Weight::final_norm_bias));
    const std::string head = weight_name(c, prefix, Weight::lm_head);
    s.head = head.empty() ? s.embed : load_weight(m, head);
    s.caches.resize(static_cast<std::size_t>(c.layers));
}

DecoderSession::DecoderSession(DecoderSession&&) noexcept = default;
DecoderSession::~DecoderSession() = default;

torch::Tensor DecoderSession::feed(const std::vector<int64_t>& ids, bool last_only) {
    torch::NoGradGuard no_grad;
    Impl& s = *impl_;
    const PretrainedConfig& c = s.ctx.c;
    if (ids.empty()) throw PretrainedError("no tokens to run");
    const auto t = torch::tensor(ids, torch::kInt64).unsqueeze(0);
    check_batches(c, {t});
    const int64_t n = t.size(1);
    if (c.rotary_dims == 0 && s.length + n > c.max_positions)
        throw PretrainedError(std::to_string(s.length + n) + " tokens, but the model has " +
                              std::to_string(c.max_positions) + " positions");
    // The new positions attend to every cached one: checked as one forward of length + n positions, the
    // weights (already float32) counted, before anything is allocated (a 60,000-token prompt asked LibTorch
    // for tens of GB and ended in a 4 KB backtrace).
    check_forward_memory(s.m, {{1, s.length + n}}, true, true);
    auto x = s.embed.index_select(0, t[0]).unsqueeze(0);
    if (s.positions.defined()) x = x + s.positions.narrow(0, s.length, n).unsqueeze(0);
    const auto [cos, sin] = rope_tables(c, s.length, n);
    for (std::size_t l = 0; l < s.blocks.size(); ++l)
        x = block(s.ctx, s.blocks[l], x, cos, sin, &s.caches[l]);
    s.length += n;
    const auto h = norm(s.ctx, last_only ? x[0].narrow(0, n - 1, 1) : x[0], s.final_w, s.final_b);
    return h.size(0) == 1 ? row_times(h, s.head, {}) : torch::matmul(h, s.head.t());
}

void DecoderSession::clear() {
    for (LayerCache& cache : impl_->caches)
        cache = {};
    impl_->length = 0;
}

int64_t DecoderSession::length() const {
    return impl_->length;
}

const PretrainedConfig& DecoderSession::config() const {
    return impl_->ctx.c;
}

}  // namespace fone::pretrained
