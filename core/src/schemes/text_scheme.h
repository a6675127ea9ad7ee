// A language model on text with numbers (issue 4): the text tokenizers (text_tokenizer.h) as a number
// scheme of the training engine, with next-token training, free generation and the text metrics
// (text_scheme.cpp: batches and the loss; text_generate.cpp, text_eval.cpp, text_splits.cpp: a run's data).
// Private to core.
//
// The methods whose number is ONE [NUM] token use their number head (number_head.h), the same code as on
// arithmetic: where the next token is [NUM] the head's loss is added to the next-token cross-entropy.
//   fone     [NUM]'s embedding + FoNE(value) in; the Fourier digit head learns its value (the digit loss,
//            weighted by TrainConfig::digit_loss_weight; fone_head.cpp)
//   xval     [NUM]'s embedding multiplied by value / base^m; a linear regression head learns value / base^m
//            by mean squared error, added unweighted (xVal's loss; xval_head.cpp)
//   bittokens [NUM]'s embedding replaced by the ±1 float64 bits of its value (and of 1/value); a linear head
//            of 64 logits learns its bits by binary cross-entropy, weighted 10 (bittokens_head.cpp)
// The token methods write numbers in the text's own tokens, with the next-token cross-entropy alone:
//   digit    numbers as character tokens 0-9 '.' '-'
//   subword  numbers as chunks of up to three digits
// fone, xval and bittokens share one tokenizer (TextScheme::fone: the same ids, [NUM] for every number),
// so their text tokens are the same, and digit/subword differ from them only inside numbers.
//
// Sequences are [BOS] prompt [ANS] answer [EOS] (a document: [BOS] text [EOS]), right-padded for
// training (causal attention never sees the padding), left-padded with a key mask for generation.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fone/text/corpus.h"
#include "fone/text/text_data.h"
#include "fone/text/text_tokenizer.h"
#include "schemes/number_head.h"
#include "schemes/scheme.h"

namespace fone {

// A position without a target in a text batch (cross_entropy's ignore_index).
inline constexpr int64_t kTextNoTarget = -100;

// The tokenizer a method's text runs use: TextScheme::fone for the one-[NUM] methods (fone, xval,
// bittokens), digit and subword their own. Throws std::invalid_argument for a method that does not train
// on text.
TextScheme text_tokens_of(const std::string& method);

// A text run's examples: the config's corpus (task "text": task.data_file split by
// split_text_examples) or generator ("word-problems", "units", "tables"), split by its seed.
TextSplits load_text_splits(const TrainConfig& config);

// kMaxTextNumberDigits (fone/text/corpus.h): the most digit slots a text run takes; longer numbers are
// text (--strict-numbers: an error).

// The FoNE digit slots for a corpus: m and n are the most integer (at least 1) and fractional digits
// of any number in any split; the config's int_digits / frac_digits (when >= 0) override them. Text
// runs always carry the sign entry.
FoneSpec text_spec(const TrainConfig& config, const TextSplits& splits);
// Reads (or generates) a text config's corpus and, for fone, checks that every number fits the digit
// slots: the errors a run would fail with, before a run directory is made. Throws TextDataError for a
// file that cannot be read, NumberError naming the split, the example and the number that does not fit,
// std::invalid_argument for splits that are too large for the corpus.
void check_text_corpus(const TrainConfig& config);
// The spec of a run whose config records its digit slots (every text run's checkpoint does).
FoneSpec text_spec(const TrainConfig& config);

// Cross-entropy sums of one batch: over every target token, and over the target tokens that are not
// number tokens (not [NUM], no id >= text_pieces): the text-token perplexity is exp(text_nll /
// text_tokens). logits [B, L, V], targets [B, L] with -100 where there is no target.
struct TextTokenSums {
    double text_nll = 0, all_nll = 0;
    int64_t text_tokens = 0, all_tokens = 0;
};
TextTokenSums text_token_sums(const torch::Tensor& logits, const torch::Tensor& targets, int text_pieces);

struct GenerateOptions {
    double temperature = 0.0;  // <= 0: greedy (the most probable token)
    int top_k = 0;             // > 0: sample among the k most probable tokens only
    int max_tokens = 64;       // new tokens at most (the rotary table's max_seq also ends generation)
    std::uint64_t seed = 0;    // of the sampling
    bool use_cache = true;     // false: the whole sequence through the model at every step (tests)
};

struct GeneratedToken {
    int id = 0;
    double probability = 0.0;      // of this token under the model (before temperature and top-k)
    std::optional<Decimal> value;  // [NUM]: the value its head gave it (fone: digits, xval: the
                                   // regression, bittokens: the bits)
};

struct Generation {
    std::vector<int> ids;         // the new tokens, the closing [EOS] included
    std::vector<Decimal> values;  // one per [NUM] of ids (fone, xval, bittokens)
    // [NUM]s whose head gave no number (bittokens' bits of a NaN or an infinity, an xval value beyond
    // 10 x base^m): written as 0, and counted here so that no one takes that 0 for the model's.
    int unreadable_numbers = 0;
    std::vector<double> probabilities;  // per new token
    bool ended = false;                 // wrote [EOS]
    bool out_of_positions = false;      // stopped at the model's max_seq
};

class TextLmScheme : public NumberScheme {
  public:
    TextLmScheme(TextTokenizer tokenizer, const FoneSpec& spec, const TrainConfig& config);

    const TextTokenizer& tokenizer() const { return tokenizer_; }
    // Every number ONE [NUM] token with its value beside it, read and learnt by the method's number head
    // (number_head.h: fone, xval, bittokens); false for digit and subword, whose numbers are tokens.
    bool number_token() const { return head_ != nullptr; }
    // The Fourier digit head reads the numbers (fone).
    bool reads_digits() const { return head_ && head_->reads_digits(); }

    std::string name() const override { return method_; }
    const std::vector<std::string>& vocabulary() const override { return vocabulary_; }
    ModelHeads heads() const override;
    const FoneSpec& digit_spec() const override { return spec_; }

    // Arithmetic examples are not text: throws std::logic_error (use encode_text).
    Batch encode(const std::vector<Example>& examples) const override;
    // [BOS] + the text's tokens (no [ANS]), with its numbers' FoNE: a batch of one.
    Batch encode_prompt(const std::string& prompt) const override;
    int64_t tokens_for(const Decimal& x) const override;

    // Examples as a training batch: tokens and FoNE inputs, next-token targets (-100 at padding and,
    // with text_loss "answer", before the answer), the digit labels of the number each target begins.
    // Throws NumberError naming the example and the number for a number that does not fit the spec.
    // Documents (examples without a prompt) are packed into windows of the config's text_context tokens
    // when it is > 0 (packed_windows in text_scheme.cpp): rows are windows then, not examples, and
    // prompt_texts / answer_texts still hold one entry per example.
    Batch encode_text(const std::vector<TextExample>& examples) const;
    // Whether encode_text packs these examples into windows.
    bool packs(const std::vector<TextExample>& examples) const;

    // Next-token cross-entropy (mean over target tokens) + the number head's loss, a mean over the
    // positions whose next token is [NUM]: fone digit_loss_weight x the digit loss (the sign one more
    // term of each mean, as on arithmetic), xval the squared error, bittokens 10 x the bits' BCE.
    torch::Tensor loss(FoneTransformer& model, const Batch& b, bool training) const override;
    // The generated answers' first numbers (what answer() means for arithmetic), for the generic tools.
    std::vector<Answer> answer(FoneTransformer& model, const Batch& b) const override;
    nlohmann::json explain(FoneTransformer& model, const Batch& prompt) const override;

    // The "eval" event's fields for text (docs/text.md defines each):
    //   exact_match          examples whose generated answer holds exactly the reference's numbers
    //                        (greedy, from the prompt; documents: next_number_exact_match)
    //   number_accuracy      reference numbers matched at their place in the generated answer
    //   number_within_1_percent, number_relative_error_median   how close those numbers are:
    //                        |generated - reference| / |reference| (a missing number: infinitely far)
    //   answer_exact_match   generated answer == the reference answer as written (write_numbers)
    //   digit_accuracy       digits of those numbers, over the spec's m + n positions
    //   malformed            answers that did not end with [EOS]
    //   next_number_exact_match  teacher-forced: the numbers the model writes at their place in the
    //                        reference (fone, xval, bittokens: [NUM] + its head's value; digit/subword: every
    //                        token of the number and then a token that is not a number token)
    //   text_perplexity      exp(mean cross-entropy) over target tokens that are not number tokens, the
    //                        same tokens in every scheme; text_tokens counts them
    //   loss, perplexity     mean cross-entropy over all target tokens (numbers included) and its exp
    //   tokens_per_example, tokens_per_number, numbers, n, eval_seconds, eval_examples_per_second
    nlohmann::json evaluate(FoneTransformer& model, const Batch& split, const torch::Device& device,
                            std::size_t max_wrong = 0) const override;

    // [BOS] prompt, then [ANS] when answer_follows: what generation starts from.
    EncodedText prompt_tokens(const std::string& prompt, bool answer_follows) const;
    // Generates after each prompt (a batch, left-padded); on_token(row, token) sees every new token as
    // it is chosen. Throws NumberError for a prompt number that does not fit the spec.
    std::vector<Generation> generate(
        FoneTransformer& model, const std::vector<EncodedText>& prompts, const GenerateOptions& options,
        const std::function<void(std::size_t, const GeneratedToken&)>& on_token = {}) const;
    // The text of generated tokens (after [ANS]): numbers written by write_number.
    std::string generated_text(const Generation& g) const;

    // The values [NUM]'s head gives at hidden states h [K, d], one per row (nullopt: unreadable).
    std::vector<std::optional<Decimal>> read_values(FoneTransformer& model, const torch::Tensor& h) const;

  private:
    TextTokenizer tokenizer_;
    std::string method_;
    std::shared_ptr<const NumberHead> head_;  // the method's number head; null for digit and subword
    FoneSpec spec_, plain_;
    bool loss_on_all_;
    int64_t context_;
    std::vector<std::string> vocabulary_;

    // Entries of one [NUM]'s input vector (b.in.fone): the head's (FoNE's width, bittokens' 64 or 128), 0.
    int64_t feature_width() const { return head_ ? head_->feature_width() : 0; }
    // One number's input at a [NUM] position: its features (feature_width() floats at `features`) and
    // the embedding's scale (*scale). `where` starts an error's message.
    void number_input(const Decimal& x, float* features, float* scale, const std::string& where) const;

    // Where batch_of_rows writes the numbers of a batch (null: the method has none of it): the [NUM]
    // inputs (b.in.fone, b.in.scale) and, at the position before each number, its digits, sign and value
    // (b.digits [N, L, slots] bytes, b.signs [N, L] bytes, b.answers [N, L] float64 for xval and
    // bittokens).
    struct NumberLabels {
        float *features = nullptr, *scale = nullptr;
        uint8_t *digits = nullptr, *signs = nullptr;
        double* values = nullptr;
    };
    // Allocates b's number tensors for b.in.tokens' shape (none for digit and subword).
    NumberLabels number_tensors(Batch& b) const;
    // The rows as a training batch; label(row) names the row's example in an error.
    Batch batch_of_rows(const std::vector<EncodedText>& rows,
                        const std::function<std::string(std::size_t)>& label) const;

    // A generation under way: every sequence so far, the rows that wrote [EOS], the tokens just chosen.
    struct Generating {
        torch::Device device{torch::kCPU};
        ModelInputs all;       // prompts and tokens so far, left-padded (key_mask undefined: no padding)
        torch::Tensor banned;  // [vocab] bool: tokens never written
        int64_t length = 0;    // positions so far
        std::vector<bool> done;
        std::vector<std::vector<int>> so_far;  // per row: the prompt's ids and the tokens chosen since
        torch::Tensor next, next_fone;         // [n, 1] the tokens chosen at this step; their features
        torch::Tensor next_scale;              // [n, 1, width] and embedding scales [n, 1] (number_token)
    };
    // The prompts as the first step's inputs. Throws for a prompt longer than max_seq - 1.
    Generating start_generation(FoneTransformer& model, const std::vector<EncodedText>& prompts) const;
    // Records the chosen tokens (fone: [NUM]'s value from the digit head at h) in out and in g.next, and
    // hands each to on_token. True when every row has written [EOS].
    bool take_tokens(FoneTransformer& model, const torch::Tensor& h, const std::vector<int64_t>& chosen,
                     const torch::Tensor& probs, Generating& g, std::vector<Generation>& out,
                     const std::function<void(std::size_t, const GeneratedToken&)>& on_token) const;
    // [n, vocab] bool: the tokens each row must not write next (g.banned, and what would not be
    // well-formed text after its tokens so far: TextTokenizer::not_allowed_after).
    torch::Tensor banned_now(const Generating& g) const;
    // Appends g.next to the sequences: the next step's inputs (with a cache, the new tokens alone).
    ModelInputs extend(Generating& g, bool use_cache) const;
};

// scheme.encode_text(examples), a number that does not fit the digit slots named with the split ("test
// split", a file name).
Batch encode_text_split(const TextLmScheme& scheme, const std::vector<TextExample>& examples,
                        const std::string& split);

}  // namespace fone
