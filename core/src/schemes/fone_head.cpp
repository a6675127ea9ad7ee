// fone's number head (the paper's method): a number's input is [NUM]'s embedding + FoNE(value), its
// Fourier features (encode_into), and where a number comes next the Fourier digit head reads its digits
// and sign (the model's digit_loss and read_digits). On arithmetic the loss is the digit loss; on text it
// is weighed against the next-token cross-entropy by TrainConfig::digit_loss_weight (0: off).
#include <algorithm>

#include "schemes/number_head.h"

namespace fone {
namespace {

class FoneHead final : public NumberHead {
  public:
    explicit FoneHead(const HeadSettings& s)
        : spec_(s.spec), plain_(s.spec), text_(s.text), weight_(s.config.digit_loss_weight) {
        plain_.multipliers.clear();  // digits and labels are per slot whatever the periods
    }

    ModelHeads heads() const override {
        ModelHeads h;
        h.digit_base = spec_.base;
        h.fone_width = spec_.width();
        h.digit_slots = plain_.pair_count();
        h.digit_multipliers = spec_.multipliers;
        h.sign_feature = spec_.sign_feature;
        return h;
    }
    int64_t feature_width() const override { return spec_.width(); }
    void input(const Decimal& x, float* features, float*) const override {
        check_fits(x, spec_);
        encode_into(x, spec_, features);
    }
    bool reads_digits() const override { return true; }
    bool has_loss() const override { return !text_ || weight_ != 0; }

    torch::Tensor loss(FoneTransformer& model, const torch::Tensor& h,
                       const NumberTargets& y) const override {
        const auto digit_loss = model->digit_loss(h, y.digits, y.signs);
        return text_ ? weight_ * digit_loss : digit_loss;
    }

    std::vector<Answer> read(FoneTransformer& model, const torch::Tensor& h) const override {
        return read_features(model, model->head_features(h));
    }

    nlohmann::json explain(FoneTransformer& model, const torch::Tensor& h) const override {
        const auto x = model->head_features(h);  // once, for the answer, the digits and the sign below
        nlohmann::json out;
        const Answer a = read_features(model, x)[0];
        out["value"] = a ? a->to_string() : "";
        out["digits"] = digits_of(model, x);
        const auto neg =
            spec_.sign_feature ? model->sign_logit_of_features(x).to(torch::kFloat32) : torch::Tensor();
        out["negative_probability"] = neg.defined() ? torch::sigmoid(neg[0]).item<double>() : 0.0;
        return out;
    }

  private:
    FoneSpec spec_, plain_;  // plain_: spec_ with plain periods, the digit slots
    bool text_;
    double weight_;

    // The numbers the head reads from its features x (h after the head's norm) [K, d].
    std::vector<Answer> read_features(FoneTransformer& model, const torch::Tensor& x) const {
        std::vector<Answer> out;
        out.reserve(static_cast<std::size_t>(x.size(0)));
        for (const Decimal& y : read_numbers(model->read_digits_of_features(x), plain_))
            out.push_back(y);
        return out;
    }

    // Per digit slot, its probabilities and the pair the head reads from the features x (after its norm:
    // what the unit-circle view draws; with mixed periods, the slot's first pair).
    nlohmann::json digits_of(FoneTransformer& model, const torch::Tensor& x) const {
        const auto probs = torch::softmax(model->digit_logits_of_features(x)[0].to(torch::kFloat32), -1)
                               .to(torch::kCPU)
                               .to(torch::kFloat64)
                               .contiguous();
        const auto pairs = x[0].to(torch::kCPU).to(torch::kFloat64);
        const int64_t per_slot = model->pairs_per_slot;
        nlohmann::json per_digit = nlohmann::json::array();
        for (int64_t k = 0; k < probs.size(0); ++k) {
            const double* p = probs[k].data_ptr<double>();
            std::vector<double> pk(p, p + probs.size(1));
            const int64_t e = 2 * k * per_slot;
            per_digit.push_back({{"position", k - spec_.frac_digits},
                                 {"digit", std::max_element(pk.begin(), pk.end()) - pk.begin()},
                                 {"probabilities", pk},
                                 {"pair", {pairs[e].item<double>(), pairs[e + 1].item<double>()}}});
        }
        return per_digit;
    }
};

std::unique_ptr<NumberHead> make_fone_head(const HeadSettings& s) {
    return std::make_unique<FoneHead>(s);
}

}  // namespace

const NumberHeadMaker& fone_head_maker() {
    static const NumberHeadMaker maker{"fone", make_fone_head};
    return maker;
}

}  // namespace fone
