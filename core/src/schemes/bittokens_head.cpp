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
#include "schemes/number_head.h"
#include "schemes/scheme_parts.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;

class BitTokensHead final : public NumberHead {
  public:
    explicit BitTokensHead(const HeadSettings& s)
        : spec_(s.spec),
          reciprocal_(s.config.bittokens_reciprocal),
          scale_(bittokens_input_scale(s.config.model.hidden, s.config.bittokens_reciprocal)) {}

    ModelHeads heads() const override {
        ModelHeads h;
        h.digit_base = spec_.base;
        h.fone_width = feature_width();
        h.regression = kFloat64Bits;  // the number head: Linear(hidden, 64) with bias
        return h;
    }
    int64_t feature_width() const override { return bit_feature_width(reciprocal_); }
    // zero_pad replaces the [NUM] embedding: the token embedding is scaled by 0 there (its row still serves
    // the tied LM head).
    bool scales_embedding() const override { return true; }
    void input(const Decimal& x, float* features, float* scale) const override {
        bit_features_into(x.to_double(), reciprocal_, features);
        const auto k = static_cast<float>(scale_);
        for (int64_t j = 0; j < feature_width(); ++j)
            features[j] *= k;
        *scale = 0.0f;
    }
    bool labels_fit_slots() const override { return false; }  // the bits hold any double
    bool learns_values() const override { return true; }

    // Binary cross-entropy of the number head's logits against the number's bits, weighted against the LM's
    // loss as BitTokens weights it.
    torch::Tensor loss(FoneTransformer& model, const torch::Tensor& h,
                       const NumberTargets& y) const override {
        return kBitTokensLossWeight * F::binary_cross_entropy_with_logits(
                                          model->regress(h).to(torch::kFloat32), bit_labels(y.values));
    }

    std::vector<Answer> read(FoneTransformer& model, const torch::Tensor& h) const override {
        std::vector<Answer> out;
        for (const double v : doubles_of_bit_logits(model->regress(h)))
            out.push_back(decimal_of_double(v));
        return out;
    }

    nlohmann::json explain(FoneTransformer& model, const torch::Tensor& h) const override {
        const auto logits = model->regress(h);
        const auto p = torch::sigmoid(logits[0].to(torch::kFloat64)).to(torch::kCPU).contiguous();
        const double* pp = p.data_ptr<double>();
        std::string bits;
        for (int k = 0; k < kFloat64Bits; ++k)
            bits += pp[k] > 0.5 ? '1' : '0';
        const double v = doubles_of_bit_logits(logits)[0];
        const Answer a = decimal_of_double(v);
        return {{"value", a ? a->to_string() : ""},
                {"double", std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(std::to_string(v))},
                {"bits", bits},
                {"bit_probabilities", std::vector<double>(pp, pp + kFloat64Bits)}};
    }

  private:
    FoneSpec spec_;
    bool reciprocal_;
    double scale_;
};

std::unique_ptr<NumberHead> make_bittokens_head(const HeadSettings& s) {
    return std::make_unique<BitTokensHead>(s);
}

}  // namespace

double bittokens_input_scale(int64_t hidden, bool reciprocal) {
    // zero_pad's factor sqrt(n_embed / embedding_size): the ±1 entries zero-padded to the hidden width then
    // have a root mean square of 1 over the whole width.
    return std::sqrt(static_cast<double>(hidden) / bit_feature_width(reciprocal));
}

std::vector<double> doubles_of_bit_logits(const torch::Tensor& logits) {
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

torch::Tensor bit_labels(const torch::Tensor& values) {
    const auto v = values.to(torch::kCPU, torch::kFloat64).contiguous();
    const int64_t n = v.size(0);
    auto labels = torch::empty({n, kFloat64Bits}, torch::kFloat32);
    auto* bits = labels.data_ptr<float>();
    const auto* a = v.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i) {
        const Float64Bits yb = float64_bits(a[i]);
        for (int k = 0; k < kFloat64Bits; ++k)
            bits[i * kFloat64Bits + k] = yb[static_cast<std::size_t>(k)] ? 1.0f : 0.0f;
    }
    return labels.to(values.device());
}

const NumberHeadMaker& bittokens_head_maker() {
    static const NumberHeadMaker maker{"bittokens", make_bittokens_head};
    return maker;
}

}  // namespace fone
