// The arithmetic scheme of the methods that give every number ONE [NUM] token (fone, fone-direct, xval,
// bittokens): the vocabulary (the base words, then the task's extra operators), a prompt as
// [BOS] a op b ... = with one [NUM] per number, whose input the method's number head gives
// (number_head.h), the answer read by that head from the final position's hidden state in one step, and
// the loss there: the LM head's cross-entropy for "the next token is [NUM]" plus the head's loss.
#include <stdexcept>

#include "schemes/number_head.h"
#include "schemes/scheme_parts.h"

namespace fone {
namespace {

class NumberTokenScheme final : public NumberScheme {
  public:
    NumberTokenScheme(std::string name, std::unique_ptr<NumberHead> head, const FoneSpec& spec,
                      const std::vector<Op>& extra_ops)
        : name_(std::move(name)),
          head_(std::move(head)),
          spec_(spec),
          plain_(spec),
          words_(extra_ops, kBaseVocab),
          vocab_(base_vocabulary()) {
        plain_.multipliers.clear();
        // The extra operators' ids follow the base words directly: these schemes have no tokens of their own.
        for (const std::string& w : words_.extra_names())
            vocab_.push_back(w);
    }

    std::string name() const override { return name_; }
    const std::vector<std::string>& vocabulary() const override { return vocab_; }
    const FoneSpec& digit_spec() const override { return spec_; }
    ModelHeads heads() const override { return head_->heads(); }
    int64_t tokens_for(const Decimal&) const override { return 1; }

    Batch encode(const std::vector<Example>& examples) const override {
        std::vector<std::vector<PromptItem>> rows;
        rows.reserve(examples.size());
        for (const Example& e : examples)
            rows.push_back(words_.items(e));
        Batch b = build(rows);
        b.answers = torch::empty({b.n}, torch::kFloat64);
        auto* a = b.answers.data_ptr<double>();
        b.answer_values.reserve(examples.size());
        b.prompt_texts.reserve(examples.size());
        for (std::size_t i = 0; i < examples.size(); ++i) {
            a[i] = examples[i].answer.to_double();
            b.answer_values.push_back(examples[i].answer);
            b.prompt_texts.push_back(examples[i].prompt());
        }
        if (head_->labels_fit_slots()) add_digit_labels(b, examples);
        return b;
    }

    Batch encode_prompt(const std::string& prompt) const override { return build({words_.items(prompt)}); }
    Batch encode_parsed_prompt(const ParsedPrompt& prompt) const override {
        return build({words_.items(prompt.terms)});
    }

    torch::Tensor loss(FoneTransformer& model, const Batch& b, bool) const override {
        namespace F = torch::nn::functional;
        const auto h = final_hidden(model, b.in);
        const auto next_is_number = torch::full({b.n}, static_cast<int64_t>(kNum), b.in.tokens.options());
        const auto lm = F::cross_entropy(model->lm_logits(h).to(torch::kFloat32), next_is_number);
        return lm + head_->loss(model, h, {b.digits, b.signs, b.answers});
    }

    std::vector<Answer> answer(FoneTransformer& model, const Batch& b) const override {
        torch::NoGradGuard no_grad;
        return head_->read(model, final_hidden(model, b.in));
    }

    nlohmann::json explain(FoneTransformer& model, const Batch& prompt) const override {
        torch::NoGradGuard no_grad;
        const auto h = final_hidden(model, prompt.in);
        nlohmann::json out = head_->explain(model, h);
        out["next_token"] = vocab_[static_cast<std::size_t>(model->lm_logits(h)[0].argmax().item<int64_t>())];
        return out;
    }

  private:
    std::string name_;
    std::unique_ptr<NumberHead> head_;
    FoneSpec spec_, plain_;  // plain_: spec_ with plain periods, the digit slots
    Words words_;
    std::vector<std::string> vocab_;

    Batch build(const std::vector<std::vector<PromptItem>>& rows) const {
        Batch b;
        b.n = static_cast<int64_t>(rows.size());
        b.in.tokens = item_tokens(rows);
        b.in.key_mask = key_mask_of(b.in.tokens);
        b.in.num_mask = b.in.tokens.eq(kNum);
        const int64_t l = b.in.tokens.size(1), w = head_->feature_width();
        float* features = nullptr;
        float* scale = nullptr;
        if (w > 0) {
            b.in.fone = torch::zeros({b.n, l, w}, torch::kFloat32);
            features = b.in.fone.data_ptr<float>();
        }
        if (head_->scales_embedding()) {
            b.in.scale = torch::ones({b.n, l}, torch::kFloat32);
            scale = b.in.scale.data_ptr<float>();
        }
        for_each_number(rows, l, [&](const Decimal& x, int64_t pos) {
            head_->input(x, features ? features + pos * w : nullptr, scale ? scale + pos : nullptr);
        });
        return b;
    }

    // The answers' digits per slot (least significant first) and signs. Throws NumberError for an answer
    // that does not fit the slots.
    void add_digit_labels(Batch& b, const std::vector<Example>& examples) const {
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

    // The final positions' hidden states [B, d]: the answer is read there in one step.
    static torch::Tensor final_hidden(FoneTransformer& model, const ModelInputs& in) {
        return model->forward(in, /*last_only=*/true).squeeze(1);
    }
};

}  // namespace

std::unique_ptr<NumberScheme> make_number_token_scheme(const TrainConfig& config, const FoneSpec& spec,
                                                       const std::vector<Op>& extra_ops) {
    return std::make_unique<NumberTokenScheme>(config.method, make_number_head({config, spec, false}), spec,
                                               extra_ops);
}

}  // namespace fone
