// Number schemes: how a task's examples become model inputs and targets, what the loss is, and how an
// answer is read back. Every scheme shares the transformer, optimiser, data and metrics (trainer.cpp,
// inference.cpp), so differences between runs come from the number representation alone. Private to core.
//
//   fone         one [NUM] token + FoNE(value); the Fourier digit head reads the answer in one step
//   fone-direct  the ablation: each digit as a raw value in one dimension in, a regression per digit out
//   xval         one [NUM] token whose embedding is scaled by the normalised value; a regression head
//   digit        every digit and the point a token; the answer generated token by token
//   subword      numbers in chunks of at most three digits, left to right (Llama-3), generated likewise
//   ntl          digit (or subword, --ntl-tokens) plus lambda x the Number Token Loss (Wasserstein-1)
//   abacus       digit tokens least significant first with Abacus position embeddings
//   fone+abacus  abacus, with every digit token's embedding replaced by [NUM] + FoNE(digit)
//   bittokens    one [NUM] token carrying the IEEE 754 float64 bits of x (and of 1/x) as ±1; a linear
//                head reads 64 bits back, trained by binary cross-entropy (Kreitner et al.)
// The one-[NUM] methods (fone, fone-direct, xval, bittokens) are a number head each (number_head.h), in the
// method's own file, shared by the arithmetic scheme and the text scheme.
//   numerologic  digit or subword tokens behind the number's digit count, "{2:42}" (Schwartz et al.)
// subword chunks (subword, and ntl/numerologic on subword tokens) run left to right, or right to left
// with subword_direction "r2l" (Singh & Strouse).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "fone/numbers/fourier.h"
#include "fone/store/train_config.h"
#include "fone/tasks/tasks.h"
#include "nn/model.h"

namespace fone {

// A split (or a batch of it) as tensors; all share the first dimension. Undefined tensors are absent.
struct Batch {
    int64_t n = 0;
    ModelInputs in;         // training inputs (token schemes: prompt + answer, teacher-forced)
    torch::Tensor targets;  // [N, L] next-token ids, -100 where there is no loss (token schemes)
    torch::Tensor prompt;   // [N, Lp] the prompt alone, left-padded (token schemes, for generation)
    torch::Tensor digits;   // [N, slots] label digits, least significant first (one-[NUM] schemes whose
                            // head's labels are digits: not bittokens, which learns from `answers`)
    torch::Tensor signs;    // [N] 1 for a negative answer
    torch::Tensor answers;  // [N] float64 answer values (regression targets, R², RMSE)
    std::vector<Decimal> answer_values;     // exact answers (CPU splits only; batches leave it empty)
    std::vector<std::string> prompt_texts;  // the prompts as text, for mispredictions (CPU splits only)
    // Text runs (text_scheme.h): digits and signs are [N, L, slots] and [N, L], the labels of the number
    // that the target at each position begins (xval and bittokens: answers [N, L] its float64 value too);
    // number_start [N, L] bool marks those positions.
    torch::Tensor number_start;
    std::vector<std::string> answer_texts;  // text runs: the reference answers (CPU splits only)
};

Batch select_rows(const Batch& s, const torch::Tensor& rows);

// BitTokens' log-sMAPE of a prediction v of y (their utils/metrics.py logSMAPE): sMAPE = |v - y| / (|y| +
// |v| + eps), then min(1, log10(sMAPE + eps) / -15) with eps = 1e-100: about the share of 15 significant
// digits that are right before the first wrong one (1 for an exact answer, 0 for the wrong sign or a zero).
double log_smape(double v, double y);
Batch to_device(const Batch& s, const torch::Device& device);

// What a scheme reads back for one example: its answer, when the output is a well-formed number.
using Answer = std::optional<Decimal>;

// A prompt typed by a user with its words as parse_prompt (fone/tasks/expression.h) read them, so that a
// caller that has parsed it already (fone predict, to refuse what is not a whole question) need not have
// the scheme parse it again.
struct ParsedPrompt {
    std::string text;
    std::vector<PromptTerm> terms;
};

// The numbers a digit prediction holds (digits [N, slots], negative [N], on any device), one per row;
// `slots` names the digit positions (plain periods: FoneSpec::multipliers empty).
std::vector<Decimal> read_numbers(const DigitPrediction& r, const FoneSpec& slots);

class NumberScheme {
  public:
    virtual ~NumberScheme() = default;

    virtual std::string name() const = 0;
    // Token names of the vocabulary, id order.
    virtual const std::vector<std::string>& vocabulary() const = 0;
    virtual ModelHeads heads() const = 0;

    // Examples as tensors; throws NumberError naming a number that does not fit the spec.
    virtual Batch encode(const std::vector<Example>& examples) const = 0;
    // A prompt typed by a user ("12+5=" or "12 + 5 ="), as a batch of one for answer(). Throws
    // std::invalid_argument naming a word the scheme has no token for.
    virtual Batch encode_prompt(const std::string& prompt) const = 0;
    // The same batch, and the same errors, for a prompt already parsed. The default encodes prompt.text
    // (parsing it again); schemes that build their words from the terms override it.
    virtual Batch encode_parsed_prompt(const ParsedPrompt& prompt) const;
    // Tokens a number takes (as the paper counts them: for the task's largest operand).
    virtual int64_t tokens_for(const Decimal& x) const = 0;
    // Longest input (prompt + answer) of these examples, in tokens.
    virtual int64_t sequence_length(const Batch& split) const;

    // The training loss of a batch (on the batch's device). `training` turns on training-only noise
    // (Abacus offsets).
    virtual torch::Tensor loss(FoneTransformer& model, const Batch& b, bool training) const = 0;
    // The model's answers for a batch (free generation for token schemes).
    virtual std::vector<Answer> answer(FoneTransformer& model, const Batch& b) const = 0;
    // The answer to one prompt with what the scheme can say about it (digit probabilities for the
    // digit head, the generated tokens and their probabilities for token schemes).
    virtual nlohmann::json explain(FoneTransformer& model, const Batch& prompt) const = 0;

    // The digit slots answers are scored on.
    virtual const FoneSpec& digit_spec() const = 0;
    // Metrics of the model on a split, the "eval" event's fields: exact match, per-digit accuracy (the
    // digits of the answer the model wrote against the true ones, keyed by their power of the base), R²
    // and RMSE of the values, "malformed" outputs, timing; with max_wrong > 0 also the first max_wrong
    // "mispredictions" as {"prompt", "expected", "predicted"} ("" for an output that is not a number).
    // Schemes with other data (text) override it.
    virtual nlohmann::json evaluate(FoneTransformer& model, const Batch& split, const torch::Device& device,
                                    std::size_t max_wrong = 0) const;
};

// The scheme of a run's config for its task's digit slots, with tokens for the operators beyond kBaseOps
// that its task uses (task_extra_ops): the factory of the scheme family its method's row names
// (fone/store/methods.h). Throws std::invalid_argument for an unknown method, a row whose family or
// method has no code (never another method in its place), or settings the method cannot take.
std::unique_ptr<NumberScheme> make_scheme(const TrainConfig& config, const FoneSpec& spec,
                                          const std::vector<Op>& extra_ops = {});

// What builds the schemes of one family (the `scheme` column of fone/store/methods.h). The built-in families
// are "number-token" (a method's number head), "tokens" and "pretrained-adapter"; add_scheme_family adds
// another (a method defined outside core, or a test's toy method). Throws std::invalid_argument for a family
// that exists already.
using SchemeFactory =
    std::function<std::unique_ptr<NumberScheme>(const TrainConfig&, const FoneSpec&, const std::vector<Op>&)>;
void add_scheme_family(const std::string& family, SchemeFactory factory);

// The most tokens one operand of these examples takes (the paper's "tokens per number": its largest
// operand).
int64_t tokens_per_number(const NumberScheme& scheme, const std::vector<Example>& examples);

}  // namespace fone
