#include "hf/init_from.h"

#include "fone/pretrained/families.h"
#include "hf/decoder.h"

namespace fone::pretrained {
namespace {

// The folder, its errors as bad input of the run's config.
ModelFolder open_for_init(const std::string& dir) {
    try {
        ModelFolder m = ModelFolder::open(dir);
        const PretrainedConfig& c = m.config();
        if (c.family != Family::llama && c.family != Family::qwen2)
            throw std::invalid_argument(
                "init_from: " + dir + " is a " + std::string(family_name(c.family)) +
                " model; --init-from takes Llama and Qwen2 (RMSNorm, rotary, SwiGLU)");
        if (c.output_bias || c.mlp_bias)
            throw std::invalid_argument("init_from: " + dir +
                                        " has biases on the attention output or the MLP, which the run's "
                                        "transformer does not have");
        return m;
    } catch (const PretrainedError& e) {
        throw std::invalid_argument(std::string("init_from: ") + e.what());
    } catch (const safetensors::Error& e) {
        throw std::invalid_argument(std::string("init_from: ") + e.what());
    }
}

// The mean of the rows `ids` of a [V, H] matrix (all rows when empty), float32, converted a chunk at a time.
torch::Tensor mean_row(const torch::Tensor& stored, const std::vector<int64_t>& ids) {
    if (!ids.empty())
        return stored.index_select(0, torch::tensor(ids, torch::kInt64)).to(torch::kFloat32).mean(0);
    auto sum = torch::zeros({stored.size(1)}, torch::kFloat64);
    constexpr int64_t kChunk = 8192;
    for (int64_t r = 0; r < stored.size(0); r += kChunk)
        sum += stored.narrow(0, r, std::min(kChunk, stored.size(0) - r)).to(torch::kFloat64).sum(0);
    return (sum / static_cast<double>(stored.size(0))).to(torch::kFloat32);
}

// The rows of the method's vocabulary out of a pretrained [V, H] matrix.
torch::Tensor vocabulary_rows(const torch::Tensor& stored, const std::vector<std::vector<int64_t>>& ids) {
    std::vector<torch::Tensor> rows;
    torch::Tensor mean_of_all;
    for (const auto& row : ids) {
        if (row.empty() && !mean_of_all.defined()) mean_of_all = mean_row(stored, {});
        rows.push_back(row.empty() ? mean_of_all : mean_row(stored, row));
    }
    return torch::stack(rows);
}

void copy_into(torch::Tensor& to, const torch::Tensor& from, const std::string& what) {
    if (to.sizes() != from.sizes())
        throw std::invalid_argument(
            "init_from: " + what + " has shape " + std::to_string(from.size(0)) +
            "... where the run's model has another; the model is not the folder's shape");
    to.copy_(from);
}

}  // namespace

void adopt_pretrained_shape(TrainConfig& config) {
    const ModelFolder m = open_for_init(config.init_from);
    const PretrainedConfig& c = m.config();
    ModelConfig& s = config.model;
    s.hidden = c.hidden;
    s.layers = c.layers;
    s.heads = c.heads;
    s.kv_heads = c.kv_heads;
    s.head_dim = c.head_dim;
    s.intermediate = c.intermediate;
    s.rope_theta = c.rope_theta;
    s.rope_scaling = c.rope_scaling;
    s.norm_eps = c.norm_eps;
    s.attention_bias = c.attention_bias;
    s.tie_embeddings = c.tie_embeddings;
    config.size_level = 0;
}

std::vector<std::vector<int64_t>> pretrained_ids(const std::vector<std::string>& vocabulary,
                                                 const BpeTokenizer& tokenizer,
                                                 const PretrainedConfig& config) {
    std::vector<std::vector<int64_t>> out;
    for (const std::string& token : vocabulary) {
        std::vector<int64_t> ids;
        if (token == "[BOS]") {
            if (!tokenizer.prefix_ids().empty())
                ids = tokenizer.prefix_ids();
            else if (config.bos_token_id)
                ids = {*config.bos_token_id};
        } else if (token == "[EOS]") {
            if (config.eos_token_id) ids = {*config.eos_token_id};
        } else if (token != "[PAD]" && token != "[NUM]") {
            ids = tokenizer.encode(token, false);
        }
        for (const int64_t id : ids)
            if (id >= config.vocab_size)
                throw std::invalid_argument("init_from: the tokenizer gives id " + std::to_string(id) +
                                            " for \"" + token + "\", past the model's vocabulary");
        out.push_back(std::move(ids));
    }
    return out;
}

namespace {

// The blocks and the final norm: every weight but the embedding and the head.
void copy_blocks(FoneTransformer& model, const ModelFolder& m) {
    const PretrainedConfig& c = m.config();
    const std::string& prefix = m.weight_prefix();
    for (int l = 0; l < c.layers; ++l) {
        auto name = [&](BlockWeight w) { return block_weight_name(c, prefix, l, w); };
        auto& block = *model->blocks[static_cast<std::size_t>(l)]->as<Block>();
        copy_into(block.attn_norm->weight, load_weight(m, name(BlockWeight::attn_norm_weight)),
                  "attention norm");
        copy_into(block.attn->qkv->weight,
                  torch::cat({load_weight(m, name(BlockWeight::q_weight)),
                              load_weight(m, name(BlockWeight::k_weight)),
                              load_weight(m, name(BlockWeight::v_weight))}),
                  "q, k, v");
        if (c.attention_bias)
            copy_into(block.attn->qkv->bias,
                      torch::cat({load_weight(m, name(BlockWeight::q_bias)),
                                  load_weight(m, name(BlockWeight::k_bias)),
                                  load_weight(m, name(BlockWeight::v_bias))}),
                      "q, k, v biases");
        copy_into(block.attn->o->weight, load_weight(m, name(BlockWeight::o_weight)),
                  name(BlockWeight::o_weight));
        copy_into(block.mlp_norm->weight, load_weight(m, name(BlockWeight::mlp_norm_weight)), "MLP norm");
        copy_into(block.mlp->gate_up->weight,
                  torch::cat({load_weight(m, name(BlockWeight::gate_weight)),
                              load_weight(m, name(BlockWeight::up_weight))}),
                  "gate and up");
        copy_into(block.mlp->down->weight, load_weight(m, name(BlockWeight::down_weight)),
                  name(BlockWeight::down_weight));
    }
    copy_into(model->final_norm->weight, load_weight(m, weight_name(c, prefix, Weight::final_norm_weight)),
              "final norm");
}

}  // namespace

void copy_pretrained_weights(FoneTransformer& model, const std::vector<std::string>& vocabulary,
                             const std::string& dir) {
    const ModelFolder m = open_for_init(dir);
    const PretrainedConfig& c = m.config();
    const std::string path = m.tokenizer_path();
    if (path.empty()) throw std::invalid_argument("init_from: " + dir + " has no tokenizer.json");
    const auto ids = pretrained_ids(vocabulary, BpeTokenizer::load(path), c);
    const std::string& prefix = m.weight_prefix();
    torch::NoGradGuard no_grad;
    // Of the embedding and the head only the method's rows are converted (a 128k vocabulary stays mapped).
    const auto embed_name = weight_name(c, prefix, Weight::embed);
    copy_into(model->embed->weight, vocabulary_rows(stored_weight(m, embed_name), ids), embed_name);
    if (model->lm_head) {
        const std::string head = weight_name(c, prefix, Weight::lm_head);
        copy_into(model->lm_head->weight, vocabulary_rows(stored_weight(m, head), ids), head);
    }
    copy_blocks(model, m);
}

void copy_whole_pretrained_model(FoneTransformer& model, const std::string& dir) {
    const ModelFolder m = open_for_init(dir);
    const PretrainedConfig& c = m.config();
    const std::string& prefix = m.weight_prefix();
    torch::NoGradGuard no_grad;
    const auto embed_name = weight_name(c, prefix, Weight::embed);
    copy_into(model->embed->weight, load_weight(m, embed_name), embed_name);
    if (model->lm_head) {
        const std::string head = weight_name(c, prefix, Weight::lm_head);
        copy_into(model->lm_head->weight, load_weight(m, head), head);
    }
    copy_blocks(model, m);
}

}  // namespace fone::pretrained
