// The schemes that give every number ONE [NUM] token: fone (Fourier features in, the Fourier digit head
// out), fone-direct (raw digit values in, a regression per digit out) and xval (the [NUM] embedding
// scaled by the value, a regression head out). The answer is read from the final position in one step,
// and the LM head there learns that the next token is [NUM].
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "schemes/number_token_base.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;

enum class Features { fourier, direct, xval };

class NumberTokenScheme final : public NumberTokenBase {
  public:
    NumberTokenScheme(Features features, const FoneSpec& spec, const std::vector<Op>& extra_ops)
        : NumberTokenBase(spec, extra_ops), features_(features), plain_(spec) {
        plain_.multipliers.clear();  // digits and labels are per slot whatever the periods
        scale_ = xval_scale(spec);
    }

    std::string name() const override {
        return features_ == Features::fourier  ? "fone"
               : features_ == Features::direct ? "fone-direct"
                                               : "xval";
    }

    ModelHeads heads() const override {
        ModelHeads h;
        h.digit_base = spec_.base;
        if (features_ == Features::fourier) {
            h.fone_width = spec_.width();
            h.digit_slots = plain_.pair_count();
            h.digit_multipliers = spec_.multipliers;
            h.sign_feature = spec_.sign_feature;
        } else if (features_ == Features::direct) {
            h.fone_width = direct_width();
        } else {
            h.regression = 1;
        }
        return h;
    }

  private:
    Features features_;
    FoneSpec plain_;  // spec_ with plain periods: the digit slots
    double scale_ = 1.0;

    // fone-direct: one entry per digit slot (its raw value 0..base-1), then the sign entry.
    int64_t direct_width() const { return plain_.pair_count() + (spec_.sign_feature ? 1 : 0); }

    void direct_into(const Decimal& x, float* out) const {
        check_fits(x, spec_);
        const auto digits = label_digits(x, plain_);
        for (std::size_t k = 0; k < digits.size(); ++k)
            out[k] = static_cast<float>(digits[k]);
        if (spec_.sign_feature) out[digits.size()] = x.negative() ? 1.0f : 0.0f;
    }

    void number_inputs(Batch& b, const std::vector<std::vector<PromptItem>>& rows) const override {
        const int64_t l = b.in.tokens.size(1);
        if (features_ == Features::xval) {
            b.in.scale = torch::ones({b.n, l}, torch::kFloat32);
            auto* s = b.in.scale.data_ptr<float>();
            for_each_number(rows, l, [&](const Decimal& x, int64_t pos) {
                check_fits(x, spec_);
                s[pos] = static_cast<float>(x.to_double() / scale_);
            });
            return;
        }
        const int64_t w = features_ == Features::fourier ? spec_.width() : direct_width();
        b.in.fone = torch::zeros({b.n, l, w}, torch::kFloat32);
        auto* f = b.in.fone.data_ptr<float>();
        for_each_number(rows, l, [&](const Decimal& x, int64_t pos) {
            if (features_ == Features::fourier) {
                check_fits(x, spec_);
                encode_into(x, spec_, f + pos * w);
            } else {
                direct_into(x, f + pos * w);
            }
        });
    }

    // The answers' digits per slot (least significant first) and signs.
    void add_labels(Batch& b, const std::vector<Example>& examples) const override {
        const int64_t n = b.n, slots = plain_.pair_count();
        b.digits = torch::empty({n, slots}, torch::kInt64);
        b.signs = torch::empty({n}, torch::kInt64);
        auto* d = b.digits.data_ptr<int64_t>();
        auto* sg = b.signs.data_ptr<int64_t>();
        for (int64_t i = 0; i < n; ++i) {
            const Decimal& y = examples[static_cast<std::size_t>(i)].answer;
            check_fits(y, spec_);
            const auto digits = label_digits(y, plain_);
            std::copy(digits.begin(), digits.end(), d + i * slots);
            sg[i] = y.negative() ? 1 : 0;
        }
    }

    Answer rounded(double v) const { return xval_rounded(v, spec_); }

    // What the output head reads at hidden states h: for the digit heads (fone, fone-direct) the head's
    // features, h after the head's norm, computed here once per hidden state and handed to every reader
    // (answer, digits, sign) instead of each applying the norm again; for xVal h itself, since its
    // regression head reads h unnormalised.
    torch::Tensor head_input(FoneTransformer& model, const torch::Tensor& h) const {
        return features_ == Features::xval ? h : model->head_features(h);
    }

    std::vector<Answer> answers_at(FoneTransformer& model, const torch::Tensor& h) const override {
        return answers_from(model, head_input(model, h));
    }

    // The answers the head reads from x = head_input(model, h) [B, d].
    std::vector<Answer> answers_from(FoneTransformer& model, const torch::Tensor& x) const {
        std::vector<Answer> out;
        out.reserve(static_cast<std::size_t>(x.size(0)));
        if (features_ == Features::xval) {
            // A plain pointer into a CPU tensor: a tensor op per example (v[i].item()) cost as much as a
            // quarter of the forward pass of a batch.
            const auto v =
                (model->regress(x).squeeze(-1).to(torch::kFloat64) * scale_).to(torch::kCPU).contiguous();
            const double* p = v.data_ptr<double>();
            for (int64_t i = 0; i < x.size(0); ++i)
                out.push_back(rounded(p[i]));
            return out;
        }
        DigitPrediction r;
        if (features_ == Features::fourier) {
            r = model->read_digits_of_features(x);
        } else {
            r.digits = direct_outputs(x).round().clamp(0, spec_.base - 1).to(torch::kInt64);
            const auto s = sign_logit(model, x);
            r.negative = s.defined() ? s.gt(0) : torch::zeros({x.size(0)}, torch::kBool);
        }
        for (const Decimal& y : read_numbers(r, plain_))
            out.push_back(y);
        return out;
    }

    nlohmann::json explain_at(FoneTransformer& model, const torch::Tensor& h) const override {
        const auto x = head_input(model, h);  // once, for the answer, the digits and the sign below
        nlohmann::json out;
        const Answer a = answers_from(model, x)[0];
        out["value"] = a ? a->to_string() : "";
        if (features_ == Features::xval) {
            out["regression"] = model->regress(h)[0][0].item<double>() * scale_;
            return out;
        }
        out["digits"] = features_ == Features::fourier ? fourier_digits(model, x) : direct_digits(x);
        const auto neg = sign_logit(model, x);
        out["negative_probability"] = neg.defined() ? torch::sigmoid(neg[0]).item<double>() : 0.0;
        return out;
    }

    // fone: per digit slot, its probabilities and the pair the head reads from the features x (after its
    // norm: what the unit-circle view draws; with mixed periods, the slot's first pair).
    nlohmann::json fourier_digits(FoneTransformer& model, const torch::Tensor& x) const {
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

    // fone-direct: per digit slot, the regressed value and the digit it rounds to.
    nlohmann::json direct_digits(const torch::Tensor& x) const {
        const auto raw = direct_outputs(x)[0].to(torch::kCPU).to(torch::kFloat64).contiguous();
        nlohmann::json per_digit = nlohmann::json::array();
        for (int64_t k = 0; k < plain_.pair_count(); ++k)
            per_digit.push_back(
                {{"position", k - spec_.frac_digits},
                 {"digit", std::clamp<int64_t>(std::llround(raw[k].item<double>()), 0, spec_.base - 1)},
                 {"raw", raw[k].item<double>()}});
        return per_digit;
    }

    // fone-direct reads its digits as values from the head's features x: their first `slots` entries (the
    // LayerNorm before them has an affine scale, so 0..9 is reachable), then the sign entry.
    torch::Tensor direct_outputs(const torch::Tensor& x) const {
        return x.narrow(-1, 0, plain_.pair_count()).to(torch::kFloat32);
    }

    // The sign logit in the head's features x; undefined without a sign feature.
    torch::Tensor sign_logit(FoneTransformer& model, const torch::Tensor& x) const {
        if (!spec_.sign_feature) return {};
        if (features_ == Features::fourier) return model->sign_logit_of_features(x).to(torch::kFloat32);
        return x.select(-1, plain_.pair_count()).to(torch::kFloat32);
    }

    // The loss on the answers read at the final positions' hidden states h. Training applies the head's
    // norm once per reader (digits, sign) rather than sharing head_input, as FoneTransformerImpl::digit_loss
    // does, so that the gradients, and so the trained weights, stay as they were.
    torch::Tensor number_loss(FoneTransformer& model, const torch::Tensor& h, const Batch& b) const override {
        if (features_ == Features::xval) {
            const auto target = (b.answers / scale_).to(torch::kFloat32);
            return F::mse_loss(model->regress(h).squeeze(-1).to(torch::kFloat32), target);
        }
        if (features_ == Features::fourier) return model->digit_loss(h, b.digits, b.signs);
        const auto digit_loss =
            F::mse_loss(direct_outputs(model->head_features(h)), b.digits.to(torch::kFloat32));
        if (!spec_.sign_feature) return digit_loss;
        const auto s = sign_logit(model, model->head_features(h));
        const auto sign_loss = F::binary_cross_entropy_with_logits(s, b.signs.to(torch::kFloat32));
        return mean_with_sign(digit_loss, sign_loss, plain_.pair_count());
    }
};

}  // namespace

double xval_scale(const FoneSpec& spec) {
    return std::pow(static_cast<double>(spec.base), spec.int_digits);
}

std::optional<Decimal> xval_rounded(double v, const FoneSpec& spec) {
    if (!std::isfinite(v) || std::fabs(v) >= xval_scale(spec) * 10) return std::nullopt;
    const double unit = std::pow(10.0, spec.frac_digits);
    return Decimal::from_scaled(std::llround(v * unit), spec.frac_digits);
}

std::unique_ptr<NumberScheme> make_number_token_scheme(const TrainConfig& config, const FoneSpec& spec,
                                                       const std::vector<Op>& extra_ops) {
    const Features f = config.method == "fone"          ? Features::fourier
                       : config.method == "fone-direct" ? Features::direct
                                                        : Features::xval;
    return std::make_unique<NumberTokenScheme>(f, spec, extra_ops);
}

}  // namespace fone
