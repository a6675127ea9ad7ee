// fone-direct's number head, the paper's ablation of FoNE: a number's input is each digit as its raw value
// in one dimension (then the sign entry), and where a number comes next each digit is regressed from one
// entry of the head's features (mean squared error; the sign by a logit, as fone's).
#include <algorithm>
#include <cmath>

#include "schemes/number_head.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;

class FoneDirectHead final : public NumberHead {
  public:
    explicit FoneDirectHead(const HeadSettings& s) : spec_(s.spec), plain_(s.spec) {
        plain_.multipliers.clear();  // digits and labels are per slot whatever the periods
    }

    ModelHeads heads() const override {
        ModelHeads h;
        h.digit_base = spec_.base;
        h.fone_width = feature_width();
        return h;
    }
    // One entry per digit slot (its raw value 0..base-1), then the sign entry.
    int64_t feature_width() const override { return plain_.pair_count() + (spec_.sign_feature ? 1 : 0); }

    void input(const Decimal& x, float* out, float*) const override {
        check_fits(x, spec_);
        const auto digits = label_digits(x, plain_);
        for (std::size_t k = 0; k < digits.size(); ++k)
            out[k] = static_cast<float>(digits[k]);
        if (spec_.sign_feature) out[digits.size()] = x.negative() ? 1.0f : 0.0f;
    }

    // Training applies the head's norm once per reader (digits, sign), as FoneTransformerImpl::digit_loss
    // does, so that the gradients, and so the trained weights, stay as they were.
    torch::Tensor loss(FoneTransformer& model, const torch::Tensor& h,
                       const NumberTargets& y) const override {
        const auto digit_loss =
            F::mse_loss(direct_outputs(model->head_features(h)), y.digits.to(torch::kFloat32));
        if (!spec_.sign_feature) return digit_loss;
        const auto s = sign_logit(model->head_features(h));
        const auto sign_loss = F::binary_cross_entropy_with_logits(s, y.signs.to(torch::kFloat32));
        return mean_with_sign(digit_loss, sign_loss, plain_.pair_count());
    }

    std::vector<Answer> read(FoneTransformer& model, const torch::Tensor& h) const override {
        return read_features(model->head_features(h));
    }

    nlohmann::json explain(FoneTransformer& model, const torch::Tensor& h) const override {
        const auto x = model->head_features(h);
        nlohmann::json out;
        const Answer a = read_features(x)[0];
        out["value"] = a ? a->to_string() : "";
        // Per digit slot, the regressed value and the digit it rounds to.
        const auto raw = direct_outputs(x)[0].to(torch::kCPU).to(torch::kFloat64).contiguous();
        nlohmann::json per_digit = nlohmann::json::array();
        for (int64_t k = 0; k < plain_.pair_count(); ++k)
            per_digit.push_back(
                {{"position", k - spec_.frac_digits},
                 {"digit", std::clamp<int64_t>(std::llround(raw[k].item<double>()), 0, spec_.base - 1)},
                 {"raw", raw[k].item<double>()}});
        out["digits"] = per_digit;
        const auto neg = sign_logit(x);
        out["negative_probability"] = neg.defined() ? torch::sigmoid(neg[0]).item<double>() : 0.0;
        return out;
    }

  private:
    FoneSpec spec_, plain_;  // plain_: spec_ with plain periods, the digit slots

    std::vector<Answer> read_features(const torch::Tensor& x) const {
        DigitPrediction r;
        r.digits = direct_outputs(x).round().clamp(0, spec_.base - 1).to(torch::kInt64);
        const auto s = sign_logit(x);
        r.negative = s.defined() ? s.gt(0) : torch::zeros({x.size(0)}, torch::kBool);
        std::vector<Answer> out;
        for (const Decimal& y : read_numbers(r, plain_))
            out.push_back(y);
        return out;
    }

    // The digits as values from the head's features x: their first `slots` entries (the LayerNorm before
    // them has an affine scale, so 0..9 is reachable), then the sign entry.
    torch::Tensor direct_outputs(const torch::Tensor& x) const {
        return x.narrow(-1, 0, plain_.pair_count()).to(torch::kFloat32);
    }

    // The sign logit in the head's features x; undefined without a sign feature.
    torch::Tensor sign_logit(const torch::Tensor& x) const {
        if (!spec_.sign_feature) return {};
        return x.select(-1, plain_.pair_count()).to(torch::kFloat32);
    }
};

std::unique_ptr<NumberHead> make_fone_direct_head(const HeadSettings& s) {
    return std::make_unique<FoneDirectHead>(s);
}

}  // namespace

const NumberHeadMaker& fone_direct_head_maker() {
    static const NumberHeadMaker maker{"fone-direct", make_fone_direct_head};
    return maker;
}

}  // namespace fone
