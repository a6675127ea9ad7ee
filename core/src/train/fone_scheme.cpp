// The schemes that give every number ONE [NUM] token: fone (Fourier features in, the Fourier digit head
// out), fone-direct (raw digit values in, a regression per digit out) and xval (the [NUM] embedding
// scaled by the value, a regression head out). The answer is read from the final position in one step,
// and the LM head there learns that the next token is [NUM].
#include <cmath>
#include <stdexcept>

#include "train/scheme.h"
#include "train/scheme_parts.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;

enum class Features { fourier, direct, xval };

class NumberTokenScheme : public NumberScheme {
  public:
    NumberTokenScheme(Features features, const FoneSpec& spec, const std::vector<Op>& extra_ops)
        : features_(features), spec_(spec), plain_(spec), words_(extra_ops, kBaseVocab) {
        vocab_ = base_vocabulary();
        for (const std::string& w : words_.extra_names())
            vocab_.push_back(w);
        plain_.multipliers.clear();  // digits and labels are per slot whatever the periods
        // xVal's values are divided by the largest magnitude the task's digit slots hold, so the scaled
        // embeddings and the regression target stay within [-1, 1].
        scale_ = std::pow(static_cast<double>(spec.base), spec.int_digits);
    }

    const FoneSpec& digit_spec() const override { return spec_; }

    std::string name() const override {
        return features_ == Features::fourier  ? "fone"
               : features_ == Features::direct ? "fone-direct"
                                               : "xval";
    }
    const std::vector<std::string>& vocabulary() const override { return vocab_; }

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

    Batch encode(const std::vector<Example>& examples) const override {
        std::vector<std::vector<PromptItem>> rows;
        rows.reserve(examples.size());
        for (const Example& e : examples)
            rows.push_back(words_.items(e));
        Batch b = build(rows);
        const int64_t n = b.n, slots = plain_.pair_count();
        b.digits = torch::empty({n, slots}, torch::kInt64);
        b.signs = torch::empty({n}, torch::kInt64);
        b.answers = torch::empty({n}, torch::kFloat64);
        auto* d = b.digits.data_ptr<int64_t>();
        auto* sg = b.signs.data_ptr<int64_t>();
        auto* a = b.answers.data_ptr<double>();
        b.answer_values.reserve(examples.size());
        for (int64_t i = 0; i < n; ++i) {
            const Decimal& y = examples[i].answer;
            check_fits(y, spec_);
            const auto digits = label_digits(y, plain_);
            std::copy(digits.begin(), digits.end(), d + i * slots);
            sg[i] = y.negative() ? 1 : 0;
            a[i] = y.to_double();
            b.answer_values.push_back(y);
            b.prompt_texts.push_back(examples[i].prompt());
        }
        return b;
    }

    Batch encode_prompt(const std::string& prompt) const override { return build({words_.items(prompt)}); }

    int64_t tokens_for(const Decimal&) const override { return 1; }

    torch::Tensor loss(FoneTransformer& model, const Batch& b, bool) const override {
        const auto h = model->forward(b.in, /*last_only=*/true).squeeze(1);
        auto next_is_number = torch::full({b.n}, static_cast<int64_t>(kNum), b.in.tokens.options());
        const auto lm = F::cross_entropy(model->lm_logits(h).to(torch::kFloat32), next_is_number);
        return number_loss(model, h, b) + lm;
    }

    std::vector<Answer> answer(FoneTransformer& model, const Batch& b) const override {
        torch::NoGradGuard no_grad;
        return answers_at(model, model->forward(b.in, /*last_only=*/true).squeeze(1));
    }

    nlohmann::json explain(FoneTransformer& model, const Batch& prompt) const override {
        torch::NoGradGuard no_grad;
        const auto h = model->forward(prompt.in, /*last_only=*/true).squeeze(1);
        nlohmann::json out;
        const int64_t next = model->lm_logits(h)[0].argmax().item<int64_t>();
        out["next_token"] = vocab_[static_cast<std::size_t>(next)];
        const Answer a = answers_at(model, h)[0];
        out["value"] = a ? a->to_string() : "";
        if (features_ == Features::xval) {
            out["regression"] = model->regress(h)[0][0].item<double>() * scale_;
            return out;
        }
        out["digits"] = features_ == Features::fourier ? fourier_digits(model, h) : direct_digits(model, h);
        const auto neg = sign_logit(model, h);
        out["negative_probability"] = neg.defined() ? torch::sigmoid(neg[0]).item<double>() : 0.0;
        return out;
    }

  private:
    Features features_;
    FoneSpec spec_;
    FoneSpec plain_;  // spec_ with plain periods: the digit slots
    Words words_;
    std::vector<std::string> vocab_;
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

    Batch build(const std::vector<std::vector<PromptItem>>& rows) const {
        Batch b;
        b.n = static_cast<int64_t>(rows.size());
        b.in.tokens = item_tokens(rows);
        b.in.key_mask = key_mask_of(b.in.tokens);
        const int64_t l = b.in.tokens.size(1);
        b.in.num_mask = b.in.tokens.eq(kNum);
        if (features_ == Features::xval) {
            b.in.scale = torch::ones({b.n, l}, torch::kFloat32);
            auto* s = b.in.scale.data_ptr<float>();
            for_each_number(rows, l, [&](const Decimal& x, int64_t pos) {
                check_fits(x, spec_);
                s[pos] = static_cast<float>(x.to_double() / scale_);
            });
            return b;
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
        return b;
    }

    Answer rounded(double v) const {
        if (!std::isfinite(v) || std::fabs(v) >= scale_ * 10) return std::nullopt;
        const double unit = std::pow(10.0, spec_.frac_digits);
        return Decimal::from_scaled(std::llround(v * unit), spec_.frac_digits);
    }

    // The answers read at the final positions' hidden states h [B, d].
    std::vector<Answer> answers_at(FoneTransformer& model, const torch::Tensor& h) const {
        std::vector<Answer> out;
        out.reserve(static_cast<std::size_t>(h.size(0)));
        if (features_ == Features::xval) {
            // A plain pointer into a CPU tensor: a tensor op per example (v[i].item()) cost as much as a
            // quarter of the forward pass of a batch.
            const auto v =
                (model->regress(h).squeeze(-1).to(torch::kFloat64) * scale_).to(torch::kCPU).contiguous();
            const double* p = v.data_ptr<double>();
            for (int64_t i = 0; i < h.size(0); ++i)
                out.push_back(rounded(p[i]));
            return out;
        }
        DigitPrediction r;
        if (features_ == Features::fourier) {
            r = model->read_digits(h);
        } else {
            r.digits = direct_outputs(model, h).round().clamp(0, spec_.base - 1).to(torch::kInt64);
            const auto s = sign_logit(model, h);
            r.negative = s.defined() ? s.gt(0) : torch::zeros({h.size(0)}, torch::kBool);
        }
        for (const Decimal& x : read_numbers(r, plain_))
            out.push_back(x);
        return out;
    }

    // fone: per digit slot, its probabilities and the pair the head reads (after its norm: what the
    // unit-circle view draws; with mixed periods, the slot's first pair).
    nlohmann::json fourier_digits(FoneTransformer& model, const torch::Tensor& h) const {
        const auto probs = torch::softmax(model->digit_logits(h)[0].to(torch::kFloat32), -1)
                               .to(torch::kCPU)
                               .to(torch::kFloat64)
                               .contiguous();
        const auto x = model->head_features(h)[0].to(torch::kCPU).to(torch::kFloat64);
        const int64_t per_slot = model->pairs_per_slot;
        nlohmann::json per_digit = nlohmann::json::array();
        for (int64_t k = 0; k < probs.size(0); ++k) {
            const double* p = probs[k].data_ptr<double>();
            std::vector<double> pk(p, p + probs.size(1));
            const int64_t e = 2 * k * per_slot;
            per_digit.push_back({{"position", k - spec_.frac_digits},
                                 {"digit", std::max_element(pk.begin(), pk.end()) - pk.begin()},
                                 {"probabilities", pk},
                                 {"pair", {x[e].item<double>(), x[e + 1].item<double>()}}});
        }
        return per_digit;
    }

    // fone-direct: per digit slot, the regressed value and the digit it rounds to.
    nlohmann::json direct_digits(FoneTransformer& model, const torch::Tensor& h) const {
        const auto raw = direct_outputs(model, h)[0].to(torch::kCPU).to(torch::kFloat64).contiguous();
        nlohmann::json per_digit = nlohmann::json::array();
        for (int64_t k = 0; k < plain_.pair_count(); ++k)
            per_digit.push_back(
                {{"position", k - spec_.frac_digits},
                 {"digit", std::clamp<int64_t>(std::llround(raw[k].item<double>()), 0, spec_.base - 1)},
                 {"raw", raw[k].item<double>()}});
        return per_digit;
    }

    // fone-direct reads its digits as values: the head's first `slots` entries (the LayerNorm before it
    // has an affine scale, so 0..9 is reachable), then the sign entry.
    torch::Tensor direct_outputs(FoneTransformer& model, const torch::Tensor& h) const {
        return model->head_features(h).narrow(-1, 0, plain_.pair_count()).to(torch::kFloat32);
    }

    torch::Tensor sign_logit(FoneTransformer& model, const torch::Tensor& h) const {
        if (!spec_.sign_feature) return {};
        if (features_ == Features::fourier) return model->sign_logit(h).to(torch::kFloat32);
        return model->head_features(h).select(-1, plain_.pair_count()).to(torch::kFloat32);
    }

    // The loss on the answer read at the final position.
    torch::Tensor number_loss(FoneTransformer& model, const torch::Tensor& h, const Batch& b) const {
        if (features_ == Features::xval) {
            const auto target = (b.answers / scale_).to(torch::kFloat32);
            return F::mse_loss(model->regress(h).squeeze(-1).to(torch::kFloat32), target);
        }
        if (features_ == Features::fourier) return model->digit_loss(h, b.digits, b.signs);
        const auto digit_loss = F::mse_loss(direct_outputs(model, h), b.digits.to(torch::kFloat32));
        const auto s = sign_logit(model, h);
        if (!s.defined()) return digit_loss;
        const auto sign_loss = F::binary_cross_entropy_with_logits(s, b.signs.to(torch::kFloat32));
        return mean_with_sign(digit_loss, sign_loss, plain_.pair_count());
    }
};

}  // namespace

std::unique_ptr<NumberScheme> make_number_token_scheme(const TrainConfig& config, const FoneSpec& spec,
                                                       const std::vector<Op>& extra_ops) {
    const Features f = config.method == "fone"          ? Features::fourier
                       : config.method == "fone-direct" ? Features::direct
                                                        : Features::xval;
    return std::make_unique<NumberTokenScheme>(f, spec, extra_ops);
}

}  // namespace fone
