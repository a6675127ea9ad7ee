// BitTokens (Kreitner et al., ICML 2026, arXiv 2510.06824; code: KreitnerL/BitTokens): every number is
// ONE [NUM] token carrying the IEEE 754 float64 bits of its value, and the answer is read back bit by bit.
// As their bittoken_embedding.py and the configs of their paper's runs (config_bittoken_*.py):
//   - input: the 64 bits of x, then the 64 bits of 1/x (add_reciprocal), each bit b as 2b - 1, scaled by
//     sqrt(hidden / features) and zero-padded to the hidden width; with combine_strategy "zero_pad" this
//     vector REPLACES the [NUM] embedding at number positions (the [NUM] row still serves the tied LM head);
//   - output: a linear number head (hidden -> 64, with bias) on the final hidden state where the next token
//     is [NUM], trained by binary cross-entropy with logits on the 64 bits of the answer (mean over bits),
//     weighted 10 (num_loss_weight) against the LM head's cross-entropy for "next is [NUM]";
//   - answer: bit i = logit i > 0, the 64 bits as a double; scored as BitTokens' exact_number_acc does,
//     to 14 significant digits (decimal_of_double).
// docs/peers.md says where we had to choose.
#include <cmath>

#include "fone/numbers/float_bits.h"
#include "train/scheme.h"
#include "train/scheme_parts.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;

constexpr double kNumLossWeight = 10.0;  // BitTokens' num_loss_weight in every config of their runs

class BitTokensScheme : public NumberScheme {
  public:
    BitTokensScheme(const FoneSpec& spec, int64_t hidden, bool reciprocal, const std::vector<Op>& extra_ops)
        : spec_(spec), reciprocal_(reciprocal), words_(extra_ops, kBaseVocab) {
        vocab_ = base_vocabulary();
        for (const std::string& w : words_.extra_names())
            vocab_.push_back(w);
        // zero_pad's factor sqrt(n_embed / embedding_size): the ±1 entries zero-padded to the hidden width
        // then have a root mean square of 1 over the whole width.
        scale_ = std::sqrt(static_cast<double>(hidden) / bit_feature_width(reciprocal));
    }

    std::string name() const override { return "bittokens"; }
    const std::vector<std::string>& vocabulary() const override { return vocab_; }
    const FoneSpec& digit_spec() const override { return spec_; }

    ModelHeads heads() const override {
        ModelHeads h;
        h.fone_width = bit_feature_width(reciprocal_);
        h.regression = kFloat64Bits;  // the number head: Linear(hidden, 64) with bias
        return h;
    }

    Batch encode(const std::vector<Example>& examples) const override {
        std::vector<std::vector<PromptItem>> rows;
        rows.reserve(examples.size());
        for (const Example& e : examples)
            rows.push_back(words_.items(e));
        Batch b = build(rows);
        b.digits = torch::empty({b.n, kFloat64Bits}, torch::kFloat32);  // the answer's bits (0/1)
        b.answers = torch::empty({b.n}, torch::kFloat64);
        auto* bits = b.digits.data_ptr<float>();
        auto* a = b.answers.data_ptr<double>();
        for (int64_t i = 0; i < b.n; ++i) {
            const Decimal& y = examples[static_cast<std::size_t>(i)].answer;
            a[i] = y.to_double();
            const Float64Bits yb = float64_bits(a[i]);
            for (int k = 0; k < kFloat64Bits; ++k)
                bits[i * kFloat64Bits + k] = yb[static_cast<std::size_t>(k)] ? 1.0f : 0.0f;
            b.answer_values.push_back(y);
            b.prompt_texts.push_back(examples[static_cast<std::size_t>(i)].prompt());
        }
        return b;
    }

    Batch encode_prompt(const std::string& prompt) const override { return build({words_.items(prompt)}); }

    int64_t tokens_for(const Decimal&) const override { return 1; }

    torch::Tensor loss(FoneTransformer& model, const Batch& b, bool) const override {
        const auto h = model->forward(b.in, /*last_only=*/true).squeeze(1);
        const auto next_is_number = torch::full({b.n}, static_cast<int64_t>(kNum), b.in.tokens.options());
        const auto lm = F::cross_entropy(model->lm_logits(h).to(torch::kFloat32), next_is_number);
        const auto bits =
            F::binary_cross_entropy_with_logits(model->regress(h).to(torch::kFloat32), b.digits);
        return lm + kNumLossWeight * bits;
    }

    std::vector<Answer> answer(FoneTransformer& model, const Batch& b) const override {
        torch::NoGradGuard no_grad;
        const auto logits = model->regress(model->forward(b.in, /*last_only=*/true).squeeze(1));
        std::vector<Answer> out;
        for (const double v : values_of(logits))
            out.push_back(decimal_of_double(v));
        return out;
    }

    nlohmann::json explain(FoneTransformer& model, const Batch& prompt) const override {
        torch::NoGradGuard no_grad;
        const auto h = model->forward(prompt.in, /*last_only=*/true).squeeze(1);
        const auto logits = model->regress(h);
        const auto p = torch::sigmoid(logits[0].to(torch::kFloat64)).to(torch::kCPU).contiguous();
        const double* pp = p.data_ptr<double>();
        std::string bits;
        for (int k = 0; k < kFloat64Bits; ++k)
            bits += pp[k] > 0.5 ? '1' : '0';
        const double v = values_of(logits)[0];
        const Answer a = decimal_of_double(v);
        return {
            {"next_token", vocab_[static_cast<std::size_t>(model->lm_logits(h)[0].argmax().item<int64_t>())]},
            {"value", a ? a->to_string() : ""},
            {"double", std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(std::to_string(v))},
            {"bits", bits},
            {"bit_probabilities", std::vector<double>(pp, pp + kFloat64Bits)}};
    }

  private:
    FoneSpec spec_;
    bool reciprocal_;
    Words words_;
    std::vector<std::string> vocab_;
    double scale_ = 1.0;

    Batch build(const std::vector<std::vector<PromptItem>>& rows) const {
        Batch b;
        b.n = static_cast<int64_t>(rows.size());
        b.in.tokens = item_tokens(rows);
        b.in.key_mask = key_mask_of(b.in.tokens);
        const int64_t l = b.in.tokens.size(1), w = bit_feature_width(reciprocal_);
        b.in.num_mask = b.in.tokens.eq(kNum);
        // zero_pad replaces the [NUM] embedding: the token embedding is scaled by 0 there, 1 elsewhere.
        b.in.scale = b.in.num_mask.logical_not().to(torch::kFloat32);
        b.in.fone = torch::zeros({b.n, l, w}, torch::kFloat32);
        auto* f = b.in.fone.data_ptr<float>();
        const auto scale = static_cast<float>(scale_);
        for_each_number(rows, l, [&](const Decimal& x, int64_t pos) {
            float* row = f + pos * w;
            bit_features_into(x.to_double(), reciprocal_, row);
            for (int64_t k = 0; k < w; ++k)
                row[k] *= scale;
        });
        return b;
    }

    // The doubles whose bits are the logits' signs, one per row of logits [N, 64].
    static std::vector<double> values_of(const torch::Tensor& logits) {
        const auto on = logits.gt(0).to(torch::kCPU).contiguous();
        const bool* p = on.data_ptr<bool>();
        std::vector<double> out;
        out.reserve(static_cast<std::size_t>(on.size(0)));
        for (int64_t i = 0; i < on.size(0); ++i) {
            Float64Bits bits{};
            for (int k = 0; k < kFloat64Bits; ++k)
                bits[static_cast<std::size_t>(k)] = p[i * kFloat64Bits + k];
            out.push_back(from_float64_bits(bits));
        }
        return out;
    }
};

}  // namespace

std::unique_ptr<NumberScheme> make_bittokens_scheme(const TrainConfig& config, const FoneSpec& spec,
                                                    const std::vector<Op>& extra_ops) {
    return std::make_unique<BitTokensScheme>(spec, config.model.hidden, config.bittokens_reciprocal,
                                             extra_ops);
}

}  // namespace fone
