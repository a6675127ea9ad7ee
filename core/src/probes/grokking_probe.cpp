#include "probes/grokking_probe.h"

#include <algorithm>

#include "fone/analysis/grokking.h"
#include "probes/representations_of.h"

namespace fone {
namespace {

Eigen::MatrixXd to_eigen(const torch::Tensor& t) {
    const auto c = t.to(torch::kCPU).to(torch::kFloat64).contiguous();
    Eigen::MatrixXd m(c.size(0), c.size(1));
    const double* p = c.data_ptr<double>();
    for (int64_t i = 0; i < c.size(0); ++i)
        for (int64_t j = 0; j < c.size(1); ++j)
            m(i, j) = p[i * c.size(1) + j];
    return m;
}

constexpr int64_t kIgnoreTarget = -100;  // Batch::targets where there is no loss

int residue_of(const Example& e, std::size_t operand) {
    return std::stoi(e.operands.at(operand).to_string());
}

}  // namespace

std::unique_ptr<GrokkingProbe> GrokkingProbe::make(const RunModel& run) {
    if (run.text || run.config.task.kind != TaskKind::mod_add || uses_hidden_states(run.scheme->heads()) ||
        run.config.task.modulus > kMaxGrokkingModulus)
        return nullptr;
    auto g = std::make_unique<GrokkingProbe>();
    const int p = g->p_ = run.config.task.modulus;
    const auto& vocab = run.scheme->vocabulary();
    std::vector<int64_t> residue_tokens;
    for (int c = 0; c < p; ++c) {
        const auto it = std::find(vocab.begin() + kFirstNumberToken, vocab.end(), std::to_string(c));
        if (it == vocab.end()) return nullptr;
        residue_tokens.push_back(it - vocab.begin());
    }
    g->residue_tokens_ = torch::tensor(residue_tokens, torch::kInt64);

    g->trained_.assign(static_cast<std::size_t>(p) * p, false);
    for (const Example& e : run.splits.train) {
        const int a = residue_of(e, 0), b = residue_of(e, 1);
        g->trained_[static_cast<std::size_t>(a * p + b)] = true;
        if (run.config.swap_operands) g->trained_[static_cast<std::size_t>(b * p + a)] = true;
    }
    std::vector<Example> all;
    all.reserve(static_cast<std::size_t>(p) * p);
    const Decimal modulus = Decimal::from_int(p);
    for (int a = 0; a < p; ++a)
        for (int b = 0; b < p; ++b)
            all.push_back({{Decimal::from_int(a), Decimal::from_int(b), modulus},
                           {"+", "mod"},
                           Decimal::from_int((a + b) % p)});
    g->pairs_ = run.scheme->encode(all);

    // The first target of every row is the answer's token: the position before it predicts the answer.
    // An answer of more than one token (or none) means the p-way logits are not one row's: not measured.
    const auto has_target = g->pairs_.targets.ne(kIgnoreTarget);
    const auto first = has_target.to(torch::kInt64).argmax(1);
    const int64_t length = g->pairs_.targets.size(1);
    const auto rows = torch::arange(g->pairs_.n, torch::kInt64) * length + first;
    const auto first_targets = g->pairs_.targets.reshape({-1}).index_select(0, rows);
    const auto expected = torch::tensor(std::vector<int64_t>(all.size()), torch::kInt64);
    auto* e = expected.data_ptr<int64_t>();
    for (std::size_t i = 0; i < all.size(); ++i)
        e[i] = residue_tokens[static_cast<std::size_t>(std::stoi(all[i].answer.to_string()))];
    if (!first_targets.equal(expected)) return nullptr;
    g->answer_rows_ = rows;
    return g;
}

nlohmann::json GrokkingProbe::measure(FoneTransformer& model, const torch::Device& device) const {
    torch::NoGradGuard no_grad;
    const bool was_training = model->is_training();
    model->eval();
    constexpr int64_t kChunk = 2048;  // pairs per forward pass: bounded memory for large p
    const int64_t n = pairs_.n, length = pairs_.targets.size(1);
    const auto ids = residue_tokens_.to(device);
    std::vector<torch::Tensor> logits;
    for (int64_t start = 0; start < n; start += kChunk) {
        const int64_t count = std::min(kChunk, n - start);
        ModelInputs in = pairs_.in;
        for (torch::Tensor* t : {&in.tokens, &in.key_mask, &in.fone, &in.num_mask, &in.scale, &in.positions})
            if (t->defined()) *t = t->narrow(0, start, count).to(device);
        const auto h = model->forward(in, /*last_only=*/false);
        const auto rows = (answer_rows_.narrow(0, start, count) - start * length).to(device);
        logits.push_back(model->lm_logits(h.reshape({-1, h.size(-1)}).index_select(0, rows))
                             .index_select(1, ids)
                             .to(torch::kCPU));
    }
    const Eigen::MatrixXd embedding = to_eigen(model->embed->weight.index_select(0, ids));
    if (was_training) model->train();
    return analysis::grokking_json(
        analysis::measure_grokking(to_eigen(torch::cat(logits)), trained_, embedding));
}

}  // namespace fone
