#include "fone/pretrained/families.h"

namespace fone::pretrained {
namespace {

std::string llama_block(const PretrainedConfig& c, int layer, BlockWeight w) {
    const std::string b = "model.layers." + std::to_string(layer) + ".";
    const bool qkv_bias = c.attention_bias, mlp_bias = c.mlp_bias;
    switch (w) {
        case BlockWeight::attn_norm_weight:
            return b + "input_layernorm.weight";
        case BlockWeight::q_weight:
            return b + "self_attn.q_proj.weight";
        case BlockWeight::k_weight:
            return b + "self_attn.k_proj.weight";
        case BlockWeight::v_weight:
            return b + "self_attn.v_proj.weight";
        case BlockWeight::q_bias:
            return qkv_bias ? b + "self_attn.q_proj.bias" : "";
        case BlockWeight::k_bias:
            return qkv_bias ? b + "self_attn.k_proj.bias" : "";
        case BlockWeight::v_bias:
            return qkv_bias ? b + "self_attn.v_proj.bias" : "";
        case BlockWeight::o_weight:
            return b + "self_attn.o_proj.weight";
        case BlockWeight::o_bias:
            return c.output_bias ? b + "self_attn.o_proj.bias" : "";
        case BlockWeight::mlp_norm_weight:
            return b + "post_attention_layernorm.weight";
        case BlockWeight::gate_weight:
            return b + "mlp.gate_proj.weight";
        case BlockWeight::up_weight:
            return b + "mlp.up_proj.weight";
        case BlockWeight::down_weight:
            return b + "mlp.down_proj.weight";
        case BlockWeight::gate_bias:
            return mlp_bias ? b + "mlp.gate_proj.bias" : "";
        case BlockWeight::up_bias:
            return mlp_bias ? b + "mlp.up_proj.bias" : "";
        case BlockWeight::down_bias:
            return mlp_bias ? b + "mlp.down_proj.bias" : "";
        default:
            return "";
    }
}

std::string gpt2_block(const std::string& prefix, int layer, BlockWeight w) {
    const std::string b = prefix + "h." + std::to_string(layer) + ".";
    switch (w) {
        case BlockWeight::attn_norm_weight:
            return b + "ln_1.weight";
        case BlockWeight::attn_norm_bias:
            return b + "ln_1.bias";
        case BlockWeight::qkv_weight:
            return b + "attn.c_attn.weight";
        case BlockWeight::qkv_bias:
            return b + "attn.c_attn.bias";
        case BlockWeight::o_weight:
            return b + "attn.c_proj.weight";
        case BlockWeight::o_bias:
            return b + "attn.c_proj.bias";
        case BlockWeight::mlp_norm_weight:
            return b + "ln_2.weight";
        case BlockWeight::mlp_norm_bias:
            return b + "ln_2.bias";
        case BlockWeight::up_weight:
            return b + "mlp.c_fc.weight";
        case BlockWeight::up_bias:
            return b + "mlp.c_fc.bias";
        case BlockWeight::down_weight:
            return b + "mlp.c_proj.weight";
        case BlockWeight::down_bias:
            return b + "mlp.c_proj.bias";
        default:
            return "";
    }
}

std::string neox_block(const PretrainedConfig& c, int layer, BlockWeight w) {
    const std::string b = "gpt_neox.layers." + std::to_string(layer) + ".";
    const bool bias = c.attention_bias;
    switch (w) {
        case BlockWeight::attn_norm_weight:
            return b + "input_layernorm.weight";
        case BlockWeight::attn_norm_bias:
            return b + "input_layernorm.bias";
        case BlockWeight::qkv_weight:
            return b + "attention.query_key_value.weight";
        case BlockWeight::qkv_bias:
            return bias ? b + "attention.query_key_value.bias" : "";
        case BlockWeight::o_weight:
            return b + "attention.dense.weight";
        case BlockWeight::o_bias:
            return bias ? b + "attention.dense.bias" : "";
        case BlockWeight::mlp_norm_weight:
            return b + "post_attention_layernorm.weight";
        case BlockWeight::mlp_norm_bias:
            return b + "post_attention_layernorm.bias";
        case BlockWeight::up_weight:
            return b + "mlp.dense_h_to_4h.weight";
        case BlockWeight::up_bias:
            return b + "mlp.dense_h_to_4h.bias";
        case BlockWeight::down_weight:
            return b + "mlp.dense_4h_to_h.weight";
        case BlockWeight::down_bias:
            return b + "mlp.dense_4h_to_h.bias";
        default:
            return "";
    }
}

// The shape a block weight is stored with.
std::vector<int64_t> block_shape(const PretrainedConfig& c, BlockWeight w) {
    const int64_t h = c.hidden, q = int64_t(c.heads) * c.head_dim, kv = int64_t(c.kv_heads) * c.head_dim,
                  i = c.intermediate;
    const bool t = stores_transposed(c);
    auto matrix = [t](int64_t out, int64_t in) {
        return t ? std::vector<int64_t>{in, out} : std::vector{out, in};
    };
    switch (w) {
        case BlockWeight::attn_norm_weight:
        case BlockWeight::attn_norm_bias:
        case BlockWeight::mlp_norm_weight:
        case BlockWeight::mlp_norm_bias:
        case BlockWeight::o_bias:
        case BlockWeight::down_bias:
            return {h};
        case BlockWeight::q_weight:
            return matrix(q, h);
        case BlockWeight::k_weight:
        case BlockWeight::v_weight:
            return matrix(kv, h);
        case BlockWeight::q_bias:
            return {q};
        case BlockWeight::k_bias:
        case BlockWeight::v_bias:
            return {kv};
        case BlockWeight::qkv_weight:
            return matrix(q + 2 * kv, h);
        case BlockWeight::qkv_bias:
            return {q + 2 * kv};
        case BlockWeight::o_weight:
            return matrix(h, q);
        case BlockWeight::gate_weight:
        case BlockWeight::up_weight:
            return matrix(i, h);
        case BlockWeight::gate_bias:
        case BlockWeight::up_bias:
            return {i};
        case BlockWeight::down_weight:
            return matrix(h, i);
    }
    return {};
}

constexpr BlockWeight kBlockWeights[] = {
    BlockWeight::attn_norm_weight, BlockWeight::attn_norm_bias, BlockWeight::q_weight,
    BlockWeight::q_bias,           BlockWeight::k_weight,       BlockWeight::k_bias,
    BlockWeight::v_weight,         BlockWeight::v_bias,         BlockWeight::qkv_weight,
    BlockWeight::qkv_bias,         BlockWeight::o_weight,       BlockWeight::o_bias,
    BlockWeight::mlp_norm_weight,  BlockWeight::mlp_norm_bias,  BlockWeight::gate_weight,
    BlockWeight::gate_bias,        BlockWeight::up_weight,      BlockWeight::up_bias,
    BlockWeight::down_weight,      BlockWeight::down_bias,
};

}  // namespace

bool stores_transposed(const PretrainedConfig& c) {
    return c.family == Family::gpt2;
}

std::string weight_name(const PretrainedConfig& c, const std::string& prefix, Weight w) {
    switch (c.family) {
        case Family::llama:
        case Family::qwen2:
            switch (w) {
                case Weight::embed:
                    return "model.embed_tokens.weight";
                case Weight::final_norm_weight:
                    return "model.norm.weight";
                case Weight::lm_head:
                    return c.tie_embeddings ? "" : "lm_head.weight";
                default:
                    return "";
            }
        case Family::gpt2:
            switch (w) {
                case Weight::embed:
                    return prefix + "wte.weight";
                case Weight::positions:
                    return prefix + "wpe.weight";
                case Weight::final_norm_weight:
                    return prefix + "ln_f.weight";
                case Weight::final_norm_bias:
                    return prefix + "ln_f.bias";
                default:
                    return "";  // GPT-2's head is always the embedding
            }
        case Family::gpt_neox:
            switch (w) {
                case Weight::embed:
                    return "gpt_neox.embed_in.weight";
                case Weight::final_norm_weight:
                    return "gpt_neox.final_layer_norm.weight";
                case Weight::final_norm_bias:
                    return "gpt_neox.final_layer_norm.bias";
                case Weight::lm_head:
                    return c.tie_embeddings ? "" : "embed_out.weight";
                default:
                    return "";
            }
    }
    return "";
}

std::string block_weight_name(const PretrainedConfig& c, const std::string& prefix, int layer,
                              BlockWeight w) {
    switch (c.family) {
        case Family::llama:
        case Family::qwen2:
            return llama_block(c, layer, w);
        case Family::gpt2:
            return gpt2_block(prefix, layer, w);
        case Family::gpt_neox:
            return neox_block(c, layer, w);
    }
    return "";
}

std::vector<WeightSpec> family_weights(const PretrainedConfig& c, const std::string& prefix) {
    const int64_t v = c.vocab_size, h = c.hidden;
    std::vector<WeightSpec> out;
    auto add = [&](std::string name, std::vector<int64_t> shape) {
        if (!name.empty()) out.push_back({std::move(name), std::move(shape)});
    };
    add(weight_name(c, prefix, Weight::embed), {v, h});
    add(weight_name(c, prefix, Weight::positions), {c.max_positions, h});
    for (int l = 0; l < c.layers; ++l)
        for (const BlockWeight w : kBlockWeights)
            add(block_weight_name(c, prefix, l, w), block_shape(c, w));
    add(weight_name(c, prefix, Weight::final_norm_weight), {h});
    add(weight_name(c, prefix, Weight::final_norm_bias), {h});
    add(weight_name(c, prefix, Weight::lm_head), {v, h});
    return out;
}

}  // namespace fone::pretrained
