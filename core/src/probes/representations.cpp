#include "fone/probes/representations.h"

#include <algorithm>
#include <stdexcept>

#include "checkpoints/run_model.h"
#include "probes/representations_of.h"
#include "schemes/scheme_parts.h"

namespace fone {
namespace {

// Inputs of equal length as one batch: each defined field concatenated along the batch dimension.
ModelInputs cat_inputs(const std::vector<ModelInputs>& inputs) {
    const auto cat = [&](torch::Tensor ModelInputs::*field) {
        if (!(inputs.front().*field).defined()) return torch::Tensor();
        std::vector<torch::Tensor> parts;
        for (const ModelInputs& in : inputs)
            parts.push_back(in.*field);
        return torch::cat(parts);
    };
    return {cat(&ModelInputs::tokens),   cat(&ModelInputs::key_mask), cat(&ModelInputs::fone),
            cat(&ModelInputs::num_mask), cat(&ModelInputs::scale),    cat(&ModelInputs::positions)};
}

// [N, D] float -> nested vectors.
std::vector<std::vector<float>> rows_of(const torch::Tensor& m) {
    const auto c = m.to(torch::kCPU).to(torch::kFloat32).contiguous();
    std::vector<std::vector<float>> rows(static_cast<std::size_t>(c.size(0)));
    for (int64_t i = 0; i < c.size(0); ++i)
        rows[static_cast<std::size_t>(i)].assign(c[i].data_ptr<float>(), c[i].data_ptr<float>() + c.size(1));
    return rows;
}

// Number-token methods: the residual stream at the number's position, layer by layer.
void hidden_states(FoneTransformer& model, const NumberScheme& scheme, const torch::Device& device,
                   const std::vector<Decimal>& numbers, NumberRepresentations& out) {
    out.source = "hidden_states";
    std::vector<std::vector<torch::Tensor>> per_layer;  // [layer][chunk] -> [n, D]
    // Prompts of equal length go through the model together, up to kChunk at a time (a number's prompt
    // has the same length for every number under these schemes; a longer one starts a new chunk).
    constexpr std::size_t kChunk = 256;
    std::vector<ModelInputs> pending;
    const auto flush = [&] {
        if (pending.empty()) return;
        std::vector<torch::Tensor> layers;
        model->forward(cat_inputs(pending), /*last_only=*/false, &layers);
        per_layer.resize(layers.size());
        for (std::size_t k = 0; k < layers.size(); ++k)
            per_layer[k].push_back(layers[k].select(1, -1));
        pending.clear();
    };
    for (const Decimal& x : numbers) {
        ModelInputs in = to_device(scheme.encode_prompt(x.to_string()), device).in;
        if (!pending.empty() && (pending.size() == kChunk || in.tokens.size(1) != pending[0].tokens.size(1)))
            flush();
        pending.push_back(std::move(in));
    }
    flush();
    for (const auto& layer : per_layer)
        out.layers.push_back(rows_of(torch::cat(layer)));
}

// Token methods: the embedding rows of the tokens that spell each number.
void token_embeddings(FoneTransformer& model, const NumberScheme& scheme, const torch::Device& device,
                      const std::vector<Decimal>& numbers, NumberRepresentations& out) {
    out.source = "token_embeddings";
    const auto& vocab = scheme.vocabulary();
    std::vector<int64_t> ids;
    for (const Decimal& x : numbers) {
        const std::string name = x.to_string();
        const auto it = std::find(vocab.begin() + kFirstNumberToken, vocab.end(), name);
        if (x.negative() || it == vocab.end())
            throw std::invalid_argument("number " + name + " is not one token of method " + scheme.name());
        ids.push_back(it - vocab.begin());
    }
    const auto rows = torch::tensor(ids, torch::kInt64).to(device);
    out.layers.push_back(rows_of(model->embed->weight.index_select(0, rows)));
}

}  // namespace

bool uses_hidden_states(const ModelHeads& heads) {
    return heads.digit_slots > 0 || heads.regression > 0 ||
           (heads.fone_width > 0 && heads.abacus_positions == 0);
}

NumberRepresentations representations_of(FoneTransformer& model, const NumberScheme& scheme,
                                         const torch::Device& device, const std::vector<Decimal>& numbers) {
    torch::NoGradGuard no_grad;
    NumberRepresentations out;
    for (const Decimal& x : numbers)
        out.numbers.push_back(x.to_string());
    if (uses_hidden_states(scheme.heads()))
        hidden_states(model, scheme, device, numbers, out);
    else
        token_embeddings(model, scheme, device, numbers, out);
    return out;
}

NumberRepresentations number_representations(const std::string& run_dir, const std::vector<Decimal>& numbers,
                                             int threads) {
    AnsweringRun a = open_for_answers(run_dir, threads, RunData::none);
    return representations_of(a.run.model, *a.run.scheme, a.device, numbers);
}

}  // namespace fone
