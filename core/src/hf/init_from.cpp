#include "hf/init_from.h"

#include "fone/pretrained/families.h"
#include "hf/decoder.h"

namespace fone::pretrained {
namespace {

// The folder, its errors as bad input of the run's config: its config.json checked as the settings were
// (init_from_shape, before a weight file is mapped), then opened.
ModelFolder open_for_init(const std::string& dir) {
    (void)init_from_shape(dir);
    try {
        return ModelFolder::open(dir);
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
    const nlohmann::json shape = init_from_shape(config.init_from);
    nlohmann::json model = config.model.to_json();
    model.update(shape["model"]);
    config.model = ModelConfig::from_json(model);
    config.size_level = shape["size_level"];
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
    for (const HfWeight& w : block_weight_map(model, m.config(), m.weight_prefix())) {
        torch::Tensor rows = w.rows_of();
        copy_into(rows, load_weight(m, w.name), w.name);
    }
}

}  // namespace

std::vector<HfWeight> block_weight_map(FoneTransformer& model, const PretrainedConfig& c,
                                       const std::string& prefix) {
    std::vector<HfWeight> out;
    const int64_t q = int64_t{c.heads} * c.head_dim, kv = int64_t{c.kv_heads} * c.head_dim;
    const int64_t inter = c.intermediate;
    for (int l = 0; l < c.layers; ++l) {
        auto name = [&](BlockWeight w) { return block_weight_name(c, prefix, l, w); };
        auto& block = *model->blocks[static_cast<std::size_t>(l)]->as<Block>();
        const auto whole = [&](BlockWeight w, const torch::Tensor& p) {
            out.push_back({name(w), p, 0, p.size(0)});
        };
        whole(BlockWeight::attn_norm_weight, block.attn_norm->weight);
        const torch::Tensor& qkv = block.attn->qkv->weight;
        out.push_back({name(BlockWeight::q_weight), qkv, 0, q});
        out.push_back({name(BlockWeight::k_weight), qkv, q, kv});
        out.push_back({name(BlockWeight::v_weight), qkv, q + kv, kv});
        if (c.attention_bias) {
            const torch::Tensor& bias = block.attn->qkv->bias;
            out.push_back({name(BlockWeight::q_bias), bias, 0, q});
            out.push_back({name(BlockWeight::k_bias), bias, q, kv});
            out.push_back({name(BlockWeight::v_bias), bias, q + kv, kv});
        }
        whole(BlockWeight::o_weight, block.attn->o->weight);
        whole(BlockWeight::mlp_norm_weight, block.mlp_norm->weight);
        const torch::Tensor& gate_up = block.mlp->gate_up->weight;
        out.push_back({name(BlockWeight::gate_weight), gate_up, 0, inter});
        out.push_back({name(BlockWeight::up_weight), gate_up, inter, inter});
        whole(BlockWeight::down_weight, block.mlp->down->weight);
    }
    const torch::Tensor& norm = model->final_norm->weight;
    out.push_back({weight_name(c, prefix, Weight::final_norm_weight), norm, 0, norm.size(0)});
    return out;
}

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
