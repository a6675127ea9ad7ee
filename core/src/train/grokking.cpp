// The model side of the grokking measures: every snapshot's weights, all p² pairs, the last block taken
// apart (residual before its MLP, MLP activations) so that the activations can be restricted or ablated
// before the rest of the forward pass.
#include "fone/train/grokking.h"

#include <algorithm>
#include <filesystem>

#include "fone/store/run_store.h"
#include "fone/store/safetensors.h"
#include "fone/store/snapshots.h"
#include "train/representations_of.h"
#include "train/run_model.h"

namespace fone {
namespace {

namespace fs = std::filesystem;
namespace fa = fone::analysis;
namespace F = torch::nn::functional;

Eigen::MatrixXd to_eigen(const torch::Tensor& t) {
    const auto c = t.to(torch::kCPU).to(torch::kFloat64).contiguous();
    Eigen::MatrixXd m(c.size(0), c.size(1));
    const double* p = c.data_ptr<double>();
    for (int64_t i = 0; i < c.size(0); ++i)
        for (int64_t j = 0; j < c.size(1); ++j)
            m(i, j) = p[i * c.size(1) + j];
    return m;
}

torch::Tensor to_torch(const Eigen::MatrixXd& m) {
    auto t = torch::empty({m.rows(), m.cols()}, torch::kFloat64);
    double* p = t.data_ptr<double>();
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            p[i * m.cols() + j] = m(i, j);
    return t.to(torch::kFloat32);
}

// A snapshot's weights into the model; RunError for a missing or misshapen tensor.
void load_snapshot_weights(const std::string& path, FoneTransformer& model) {
    try {
        const safetensors::File f = safetensors::File::open(path);
        torch::NoGradGuard no_grad;
        for (auto& p : model->named_parameters()) {
            const safetensors::TensorInfo& t = f.at("weights." + p.key());
            if (t.dtype != safetensors::Dtype::F32 || t.shape != p.value().sizes().vec())
                throw RunError(path + ": weights." + p.key() + " does not fit the model");
            const auto bytes = f.bytes(t);
            auto source = torch::from_blob(const_cast<std::byte*>(bytes.data()), t.shape, torch::kFloat32);
            p.value().copy_(source);
        }
    } catch (const safetensors::Error& e) {
        throw RunError(e.what());
    }
}

// The pairs (a, b) as one batch of prompts, row a·p + b, and what the measures need of the run.
struct Pairs {
    int p = 0;
    ModelInputs in;
    std::vector<int64_t> residue_tokens;  // token of residue c
    std::vector<int> labels;              // (a + b) mod p
    std::vector<int> train, test;         // rows seen in training, the others
};

Pairs make_pairs(const RunModel& r) {
    Pairs s;
    s.p = r.config.task.modulus;
    const auto& vocab = r.scheme->vocabulary();
    for (int c = 0; c < s.p; ++c) {
        const auto it = std::find(vocab.begin() + kFirstNumberToken, vocab.end(), std::to_string(c));
        if (it == vocab.end())
            throw std::invalid_argument("residue " + std::to_string(c) + " is not one token of method " +
                                        r.config.method + ": the grokking measures need one token per residue");
        s.residue_tokens.push_back(it - vocab.begin());
    }
    std::vector<bool> seen(static_cast<std::size_t>(s.p) * s.p, false);
    for (const Example& e : r.splits.train) {
        const int a = std::stoi(e.operands.at(0).to_string()), b = std::stoi(e.operands.at(1).to_string());
        seen[static_cast<std::size_t>(a * s.p + b)] = true;
        if (r.config.swap_operands) seen[static_cast<std::size_t>(b * s.p + a)] = true;
    }
    std::vector<Example> all;
    const Decimal modulus = Decimal::from_int(s.p);
    for (int a = 0; a < s.p; ++a)
        for (int b = 0; b < s.p; ++b) {
            all.push_back({{Decimal::from_int(a), Decimal::from_int(b), modulus}, {"+", "mod"},
                           Decimal::from_int((a + b) % s.p)});
            s.labels.push_back((a + b) % s.p);
            (seen[static_cast<std::size_t>(a * s.p + b)] ? s.train : s.test).push_back(a * s.p + b);
        }
    const Batch b = r.scheme->encode(all);
    s.in = ModelInputs{b.prompt, key_mask_of(b.prompt), {}, {}, {}, {}};
    return s;
}

// The last block taken apart at the answer position: the residual before its MLP, the MLP activations
// (SwiGLU: silu(gate)·up, what `down` reads).
struct LastBlock {
    torch::Tensor mid;     // [N, d]
    torch::Tensor hidden;  // [N, m]
};

LastBlock last_block(FoneTransformer& model, const ModelInputs& in) {
    std::vector<torch::Tensor> layers;
    model->forward(in, /*last_only=*/false, &layers);
    auto* block = model->blocks[model->blocks->size() - 1]->as<Block>();
    const torch::Tensor x = layers[layers.size() - 2];  // the last block's input
    const auto residual = x.narrow(1, x.size(1) - 1, 1);
    const auto mid = residual + block->attn(block->attn_norm(x), model->rope_cos, model->rope_sin, in.key_mask, true);
    const auto gu = block->mlp->gate_up(block->mlp_norm(mid)).chunk(2, -1);
    return {mid.squeeze(1), (F::silu(gu[0]) * gu[1]).squeeze(1)};
}

// p-way logits of the residue tokens from the residual stream after the last block.
Eigen::MatrixXd residue_logits(FoneTransformer& model, const torch::Tensor& out, const Pairs& s) {
    const auto ids = torch::tensor(s.residue_tokens, torch::kInt64);
    return to_eigen(model->lm_logits(model->final_norm(out)).index_select(1, ids));
}

fa::GrokkingStep measure(FoneTransformer& model, const Pairs& s, const std::vector<int>& keys) {
    torch::NoGradGuard no_grad;
    const LastBlock b = last_block(model, s.in);
    auto down = model->blocks[model->blocks->size() - 1]->as<Block>()->mlp->down;
    fa::GrokkingStep g;
    const Eigen::MatrixXd logits = residue_logits(model, b.mid + down(b.hidden), s);
    g.train_loss = fa::cross_entropy(logits, s.labels, s.train);
    g.test_loss = fa::cross_entropy(logits, s.labels, s.test);
    g.train_accuracy = fa::accuracy(logits, s.labels, s.train);
    g.test_accuracy = fa::accuracy(logits, s.labels, s.test);
    const Eigen::MatrixXd hidden = to_eigen(b.hidden);
    // Restricted: the activations' mean plus their key-frequency part, the input-independent residual.
    const auto restricted = to_torch(fa::project_on_sum_frequencies(hidden, s.p, keys, true));
    const auto mid_mean = b.mid.mean(0, true).expand_as(b.mid);
    g.restricted_loss = fa::cross_entropy(residue_logits(model, mid_mean + down(restricted), s), s.labels, s.test);
    // Excluded: the activations without their key-frequency part, everything else as it is.
    const auto excluded = to_torch(hidden - fa::project_on_sum_frequencies(hidden, s.p, keys, false));
    g.excluded_loss = fa::cross_entropy(residue_logits(model, b.mid + down(excluded), s), s.labels, s.train);
    const auto ids = torch::tensor(s.residue_tokens, torch::kInt64);
    g.embedding_norms = fa::frequency_norms(to_eigen(model->embed->weight.index_select(0, ids)));
    return g;
}

}  // namespace

fa::GrokkingCurves grokking_curves(const std::string& run_dir, double key_share, int threads) {
    AnsweringRun a = open_for_answers(run_dir, threads, RunData::splits);
    RunModel& r = a.run;
    const std::string name = fs::path(run_dir).filename().string();
    if (r.text || r.config.task.kind != TaskKind::mod_add || uses_hidden_states(r.scheme->heads()))
        throw std::invalid_argument(name + " is not a mod-add run of a token method (the grokking measures read "
                                           "p-way logits over one token per residue: --method subword)");
    r.model->to(torch::kCPU);
    std::vector<SnapshotFile> files;
    for (const SnapshotFile& f : list_snapshots(run_dir))
        if (read_snapshot(f.path).has_weights) files.push_back(f);
    if (files.empty())
        throw RunError(name + " has no snapshots with weights (train it with --snapshots weights)");
    const Pairs pairs = make_pairs(r);
    fa::GrokkingCurves curves;
    curves.modulus = pairs.p;
    load_snapshot_weights(files.back().path, r.model);
    {
        torch::NoGradGuard no_grad;
        const auto ids = torch::tensor(pairs.residue_tokens, torch::kInt64);
        curves.key_frequencies =
            fa::key_frequencies(fa::frequency_norms(to_eigen(r.model->embed->weight.index_select(0, ids))), key_share);
    }
    for (const SnapshotFile& f : files) {
        load_snapshot_weights(f.path, r.model);
        fa::GrokkingStep g = measure(r.model, pairs, curves.key_frequencies);
        g.step = f.step;
        curves.steps.push_back(std::move(g));
    }
    return curves;
}

}  // namespace fone
