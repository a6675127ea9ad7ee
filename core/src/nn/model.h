// The Llama-style decoder (RMSNorm, rotary positions, SwiGLU, grouped-query attention) with FoNE at the
// input and the Fourier digit head at the output. Private to core: torch types stay behind the public
// headers of fone/train/.
#pragma once

#include <functional>
#include <vector>

#include <torch/torch.h>

#include "fone/store/model_config.h"

namespace fone {

struct RMSNormImpl : torch::nn::Module {
    RMSNormImpl(int64_t dim, double eps);
    torch::Tensor forward(const torch::Tensor& x);
    torch::Tensor weight;
    double eps;
};
TORCH_MODULE(RMSNorm);

// Keys and values of the positions seen so far, per layer (rotated, before grouped-query expansion), so
// that generation feeds only the new token at each step.
struct LayerCache {
    torch::Tensor k, v;  // [B, kv_heads, past, head_dim]
};
using KvCache = std::vector<LayerCache>;

struct AttentionImpl : torch::nn::Module {
    explicit AttentionImpl(const ModelConfig& c);
    // x: [B, L, d]. With last_only, queries (and the output) are the final position's alone.
    // key_mask: [B, L] bool, true where a key may be attended to (undefined: all).
    // With a cache, x holds only the new positions (after cache->k's), key_mask covers all of them,
    // and the new keys and values are appended to the cache.
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin,
                          const torch::Tensor& key_mask, bool last_only, LayerCache* cache = nullptr);
    // Queries, keys and values in one projection (one matmul instead of three), then the output.
    torch::nn::Linear qkv{nullptr}, o{nullptr};
    int64_t heads, kv_heads, head_dim;

  private:
    // From the projections to the heads' outputs [B, Lq, H hd] (rotary, cache, attention).
    torch::Tensor attend_fused(const torch::Tensor& q_proj, const torch::Tensor& kv_proj,
                               const torch::Tensor& cos, const torch::Tensor& sin,
                               const torch::Tensor& key_mask, int64_t past, LayerCache* cache);
    torch::Tensor attend(const torch::Tensor& q_proj, const torch::Tensor& kv_proj, const torch::Tensor& cos,
                         const torch::Tensor& sin, const torch::Tensor& key_mask, int64_t past,
                         LayerCache* cache, bool broadcast);
};
TORCH_MODULE(Attention);

struct MlpImpl : torch::nn::Module {
    explicit MlpImpl(const ModelConfig& c);
    torch::Tensor forward(const torch::Tensor& x);      // SwiGLU: down(silu(gate x) * up x)
    torch::nn::Linear gate_up{nullptr}, down{nullptr};  // gate and up in one projection
};
TORCH_MODULE(Mlp);

struct BlockImpl : torch::nn::Module {
    explicit BlockImpl(const ModelConfig& c);
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin,
                          const torch::Tensor& key_mask, bool last_only, LayerCache* cache = nullptr);
    RMSNorm attn_norm{nullptr}, mlp_norm{nullptr};
    Attention attn{nullptr};
    Mlp mlp{nullptr};
};
TORCH_MODULE(Block);

// What a number scheme adds to the plain token transformer: number features at the input, an Abacus
// position embedding, a digit head or a regression head at the output.
struct ModelHeads {
    int64_t fone_width = 0;   // entries of one number-feature vector (FoneSpec::width()); 0: none
    int64_t digit_slots = 0;  // Fourier digit head: slots (0: no digit head), base and a sign entry
    int64_t digit_base = 10;
    bool sign_feature = false;
    // Mixed periods c·10^k (FoneSpec::multipliers): each slot reads one pair per multiplier c and scores
    // digit j by the sum over c of <pair_c, φ(j, c)>. Empty: one pair per slot, periods base^i.
    std::vector<int> digit_multipliers;
    int64_t regression = 0;        // outputs of a linear regression head (xVal: 1); 0: none
    int64_t abacus_positions = 0;  // rows of the Abacus position embedding (0: none)
};

// One batch of model inputs; undefined tensors are absent.
struct ModelInputs {
    torch::Tensor tokens;     // [B, L] int64
    torch::Tensor key_mask;   // [B, L] bool, false at padding
    torch::Tensor fone;       // [B, L, fone_width] float, zero where there is no number
    torch::Tensor num_mask;   // [B, L] bool, where fone applies
    torch::Tensor scale;      // [B, L] float: xVal multiplies the embedding by it (1 off numbers)
    torch::Tensor positions;  // [B, L] int64: Abacus digit positions (0: not a digit)
};

// What the digit head reads from hidden states [..., d].
struct DigitPrediction {
    torch::Tensor digits;    // [..., slots] int64: the most probable digit of every slot
    torch::Tensor negative;  // [...] bool: the sign logit > 0 (all false without a sign entry)
};

// An edit of the residual stream during a forward pass (interventions, probes/intervention.cpp): called with
// the layer (0: after the input embedding, k: after block k) and the residual [B, L, d]; what it returns is
// what the next block reads (and what `layers` records).
using ResidualHook = std::function<torch::Tensor(int64_t layer, const torch::Tensor& x)>;

struct FoneTransformerImpl : torch::nn::Module {
    FoneTransformerImpl(const ModelConfig& c, const ModelHeads& heads);
    // The FoNE model: number features of fone_width entries and the digit head.
    FoneTransformerImpl(const ModelConfig& c, int64_t fone_width, int64_t digit_slots, int64_t digit_base,
                        bool sign_feature)
        : FoneTransformerImpl(c, ModelHeads{fone_width, digit_slots, digit_base, sign_feature, {}, 0, 0}) {}

    // Returns the final hidden states [B, L, d] (or [B, 1, d] with last_only). With `layers`, also
    // the residual stream after the embedding and after every block (the last one before the final norm).
    // With a cache (generation): `in` holds only the positions after those already cached (the key mask
    // all of them), and the cache grows by them.
    torch::Tensor forward(const ModelInputs& in, bool last_only, std::vector<torch::Tensor>* layers = nullptr,
                          KvCache* cache = nullptr);
    // tokens [B, L] int64; fone [B, L, fone_width] float, zero where the token is not a number;
    // num_mask [B, L] bool.
    torch::Tensor forward(const torch::Tensor& tokens, const torch::Tensor& fone,
                          const torch::Tensor& num_mask, const torch::Tensor& key_mask, bool last_only) {
        return forward(ModelInputs{tokens, key_mask, fone, num_mask, {}, {}}, last_only);
    }

    torch::Tensor lm_logits(const torch::Tensor& h);  // [..., vocab], tied to the embedding unless lm_head
    torch::Tensor head_features(const torch::Tensor& h);  // what the output heads read: h after head_norm
    torch::Tensor digit_logits(const torch::Tensor& h);   // [..., slots, base], temperature included
    torch::Tensor sign_logit(const torch::Tensor& h);     // [...]; undefined without a sign feature
    // The same from head_features(h) already computed: an intervention edits them in between, and a
    // reader of several heads at one hidden state applies the head's norm once.
    torch::Tensor digit_logits_of_features(const torch::Tensor& features);
    torch::Tensor sign_logit_of_features(const torch::Tensor& features);
    torch::Tensor regress(const torch::Tensor& h);  // [..., regression]
    double temperature();

    // The digit head's loss at hidden states h [K, d] for label digits [K, slots] (least significant
    // first) and signs [K] (1: negative), any integer type: the mean over the slots of the per-slot
    // cross-entropy (paper Algorithm 3), the sign's binary cross-entropy one more term of the mean.
    torch::Tensor digit_loss(const torch::Tensor& h, const torch::Tensor& digits, const torch::Tensor& signs);
    // The digit head's answer at hidden states h [..., d].
    DigitPrediction read_digits(const torch::Tensor& h);
    DigitPrediction read_digits_of_features(const torch::Tensor& features);  // from head_features(h)

    ModelConfig config;
    int64_t fone_width, slots, base;
    int64_t pairs_per_slot = 1;  // multipliers, or 1
    bool sign_feature;
    torch::nn::Embedding embed{nullptr};
    torch::nn::Linear lm_head{nullptr};    // only without tie_embeddings
    torch::nn::Linear fone_map{nullptr};   // only with fone_input == "linear"
    torch::nn::Embedding abacus{nullptr};  // only with abacus_positions
    torch::nn::Linear regression_head{nullptr};
    torch::nn::ModuleList blocks;
    RMSNorm final_norm{nullptr};
    torch::nn::LayerNorm head_norm{nullptr};  // only with head_norm == "layernorm"
    torch::Tensor log_temperature;            // only with head_temperature
    torch::Tensor prototypes;  // [2, base]: column j is φ(j, base); with multipliers [r, 2, base]: φ(j, c_r)
    torch::Tensor rope_cos, rope_sin;  // [max_seq, head_dim / 2]
    ResidualHook residual_hook;        // empty but during an intervention
};
TORCH_MODULE(FoneTransformer);

// A loss over digit slots with the sign as one more term of the mean: (digits * slots + sign) / (slots + 1).
torch::Tensor mean_with_sign(const torch::Tensor& digit_loss, const torch::Tensor& sign_loss, int64_t slots);

// Parameters of a built model (what count_params predicts from the config).
ParamCount param_count(FoneTransformer& model);

}  // namespace fone
