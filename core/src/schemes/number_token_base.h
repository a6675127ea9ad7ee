// The base of the schemes that give every number ONE [NUM] token: fone, fone-direct and xval
// (fone_scheme.cpp) and bittokens (bittokens_scheme.cpp). Private to core/src/schemes.
#pragma once

#include <string>
#include <vector>

#include "schemes/scheme.h"
#include "schemes/scheme_parts.h"

namespace fone {

// What the one-[NUM]-token schemes share, so that each scheme states only what differs: the vocabulary
// (the base words, then the task's extra operators), a prompt as [BOS] a op b ... = with one [NUM] per
// number, the answer read from the final position's hidden state in one step, and the loss there (the
// LM head's cross-entropy for "the next token is [NUM]" plus the scheme's number loss). A scheme says
// how numbers enter (number_inputs), what an answer's labels are (add_labels), its number loss, and how
// it reads (answers_at) and explains (explain_at) an answer.
class NumberTokenBase : public NumberScheme {
  public:
    const std::vector<std::string>& vocabulary() const final { return vocab_; }
    const FoneSpec& digit_spec() const final { return spec_; }
    int64_t tokens_for(const Decimal&) const final { return 1; }

    Batch encode(const std::vector<Example>& examples) const final {
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
        add_labels(b, examples);
        return b;
    }

    Batch encode_prompt(const std::string& prompt) const final { return build({words_.items(prompt)}); }
    Batch encode_parsed_prompt(const ParsedPrompt& prompt) const final {
        return build({words_.items(prompt.terms)});
    }

    torch::Tensor loss(FoneTransformer& model, const Batch& b, bool) const final {
        namespace F = torch::nn::functional;
        const auto h = final_hidden(model, b.in);
        const auto next_is_number = torch::full({b.n}, static_cast<int64_t>(kNum), b.in.tokens.options());
        const auto lm = F::cross_entropy(model->lm_logits(h).to(torch::kFloat32), next_is_number);
        return lm + number_loss(model, h, b);
    }

    std::vector<Answer> answer(FoneTransformer& model, const Batch& b) const final {
        torch::NoGradGuard no_grad;
        return answers_at(model, final_hidden(model, b.in));
    }

    nlohmann::json explain(FoneTransformer& model, const Batch& prompt) const final {
        torch::NoGradGuard no_grad;
        const auto h = final_hidden(model, prompt.in);
        nlohmann::json out = explain_at(model, h);
        out["next_token"] = vocab_[static_cast<std::size_t>(model->lm_logits(h)[0].argmax().item<int64_t>())];
        return out;
    }

  protected:
    NumberTokenBase(const FoneSpec& spec, const std::vector<Op>& extra_ops)
        : spec_(spec), words_(extra_ops, kBaseVocab), vocab_(base_vocabulary()) {
        // The extra operators' ids follow the base words directly: these schemes have no tokens of their own.
        for (const std::string& w : words_.extra_names())
            vocab_.push_back(w);
    }

    // The number features of b's [NUM] positions (b.in.fone, b.in.scale) for rows of items, to which b's
    // tokens and masks are already set.
    virtual void number_inputs(Batch& b, const std::vector<std::vector<PromptItem>>& rows) const = 0;
    // The labels of the examples' answers beyond b.answers (b.digits, b.signs). Throws NumberError for an
    // answer the scheme cannot hold.
    virtual void add_labels(Batch& b, const std::vector<Example>& examples) const = 0;
    // The loss on the answers read at the final positions' hidden states h [B, d], added to the LM's.
    virtual torch::Tensor number_loss(FoneTransformer& model, const torch::Tensor& h,
                                      const Batch& b) const = 0;
    // The answers read at the final positions' hidden states h [B, d].
    virtual std::vector<Answer> answers_at(FoneTransformer& model, const torch::Tensor& h) const = 0;
    // What the scheme says about the answer at a prompt's final hidden state h [1, d] (explain() adds
    // "next_token").
    virtual nlohmann::json explain_at(FoneTransformer& model, const torch::Tensor& h) const = 0;

    FoneSpec spec_;
    Words words_;
    std::vector<std::string> vocab_;

  private:
    Batch build(const std::vector<std::vector<PromptItem>>& rows) const {
        Batch b;
        b.n = static_cast<int64_t>(rows.size());
        b.in.tokens = item_tokens(rows);
        b.in.key_mask = key_mask_of(b.in.tokens);
        b.in.num_mask = b.in.tokens.eq(kNum);
        number_inputs(b, rows);
        return b;
    }

    // The final positions' hidden states [B, d]: the answer is read there in one step.
    static torch::Tensor final_hidden(FoneTransformer& model, const ModelInputs& in) {
        return model->forward(in, /*last_only=*/true).squeeze(1);
    }
};

}  // namespace fone
