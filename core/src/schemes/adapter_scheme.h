// The paper's "simplified FoNE" for a pretrained BPE model (Q4, Table 4; method fone-adapter): numbers stay
// in the model's own tokenization (Llama-3: pieces of one to three digits), and each number piece's input
// embedding gets a learned linear projection of the FoNE of its value added (the model's fone_map, with
// fone_input "linear"). The projection starts at zero, so the run starts as exactly the pretrained model;
// the alignment phase trains the projection alone (TrainConfig::align_steps), everything trains after it.
// The vocabulary is the pretrained model's whole vocabulary; the loss is the next-token cross-entropy.
// Private to core.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fone/pretrained/tokenizer.h"
#include "fone/store/methods.h"
#include "fone/text/text_data.h"
#include "schemes/scheme.h"

namespace fone {

// kAdapterFamily and is_adapter_method: the methods table's (fone/store/methods.h).

// Throws std::invalid_argument when `dir` has no tokenizer.json (the adapter keeps the model's own tokens).
void check_adapter_folder(const std::string& dir);
// check_adapter_folder, and that its tokenizer has number pieces: the adapter adds FoNE at number pieces
// only, so without any a run would train nothing and report 0 of 0 as 0%. Before a run is made.
void check_adapter_number_pieces(const std::string& dir);

// The digit slots of a number piece's FoNE: three integer digits (periods 10, 100, 1000), no sign.
FoneSpec adapter_spec();

// Per token id of a vocabulary of `vocab_size` ids, the value of a number piece, -1 for every other token.
// A number piece is a token whose text (less one leading space: GPT-2-style "Ġ12") is one to three ASCII
// digits; "007" is the number 7.
std::vector<int> number_piece_values(const pretrained::BpeTokenizer& tokenizer, int64_t vocab_size);

// What an adapter run writes after a prompt (AdapterScheme::generate).
struct AdapterGenerateOptions {
    double temperature = 0.0;  // <= 0: greedy
    int top_k = 0;             // > 0: sample among the k most probable tokens only
    int max_tokens = 64;
    std::uint64_t seed = 0;
};
struct AdapterGeneration {
    std::vector<int64_t> ids;           // the new tokens (the end-of-text token included when it came)
    std::vector<double> probabilities;  // of each, under the model (before temperature and top-k)
    std::string stop;                   // "eos", "max_seq" or "max_tokens"
};

class AdapterScheme : public NumberScheme {
  public:
    // vocab_size: the model's (config.json); tokens past it are refused where a text uses them. context:
    // tokens per packed window of documents (0: one row per example). eos: config.json's end-of-text id.
    AdapterScheme(pretrained::BpeTokenizer tokenizer, int64_t vocab_size, int64_t context,
                  std::optional<int64_t> eos = std::nullopt);

    std::string name() const override { return "fone-adapter"; }
    const std::vector<std::string>& vocabulary() const override { return vocabulary_; }
    ModelHeads heads() const override;
    const FoneSpec& digit_spec() const override { return spec_; }
    const pretrained::BpeTokenizer& tokenizer() const { return tokenizer_; }
    const std::vector<int>& piece_values() const { return values_; }
    const torch::Tensor& fone_table() const { return fone_table_; }  // [vocab, 6]: zero off number pieces
    const torch::Tensor& piece_mask() const { return is_piece_; }    // [vocab] bool

    // The FoNE inputs of token ids [B, L]: fone [B, L, 6] and num_mask [B, L] (number pieces).
    void add_number_inputs(ModelInputs& in) const;
    // Examples (a document, or prompt and answer joined: write_example) as next-token training rows:
    // packed into windows of `context` tokens, or one right-padded row per example.
    Batch encode_text(const std::vector<TextExample>& examples) const;
    // The tokenizer's ids of a text (with its special prefix), a batch of one without targets.
    Batch encode_prompt(const std::string& prompt) const override;
    // Arithmetic examples are not text: throws std::logic_error.
    Batch encode(const std::vector<Example>& examples) const override;
    int64_t tokens_for(const Decimal& x) const override;
    // The mean tokens per number of these examples' numbers as they are written (parse_numbers), in the
    // tokenizer's pieces (the start and eval events' tokens_per_number); 0 without numbers.
    double tokens_per_number(const std::vector<TextExample>& examples) const;
    // Tokens of the vocabulary that are number pieces (one to three digits).
    int64_t number_piece_count() const;
    // The tokenizer's ids of a text with its special prefix. Throws std::invalid_argument for a token
    // past the model's vocabulary.
    std::vector<int64_t> ids_of(const std::string& text) const;

    // Continues the prompt's ids (the model on its device, with its KV cache), to the end-of-text token, the
    // model's positions or max_tokens; on_token hears each new token and its probability as it is chosen.
    AdapterGeneration generate(
        FoneTransformer& model, const std::vector<int64_t>& prompt, const AdapterGenerateOptions& options,
        const std::function<void(int64_t id, double probability)>& on_token = {}) const;
    // lm-evaluation-harness's is_greedy: whether greedy decoding after `context` writes exactly
    // `continuation` (teacher-forced in one pass: the same answer as generating).
    bool writes_greedily(FoneTransformer& model, const std::vector<int64_t>& context,
                         const std::vector<int64_t>& continuation) const;
    // Nats of every token of `ids` but the first, teacher-forced, in windows of the model's positions (each
    // starting at the last token of the one before, as training packs documents), with the most probable
    // token at each place: [i] is about ids[i + 1].
    struct TokenScores {
        std::vector<double> nll;
        std::vector<int64_t> best;
    };
    TokenScores token_scores(FoneTransformer& model, const std::vector<int64_t>& ids) const;

    torch::Tensor loss(FoneTransformer& model, const Batch& b, bool training) const override;
    // A fone-adapter run writes text: `fone export --format hf` makes it a model folder that
    // `fone model generate` and `fone eval --benchmark arithmetic --model` take. Both throw
    // std::invalid_argument saying so.
    std::vector<Answer> answer(FoneTransformer& model, const Batch& b) const override;
    nlohmann::json explain(FoneTransformer& model, const Batch& prompt) const override;

    // Teacher-forced: loss and perplexity over every target, text_perplexity over the targets that are not
    // number pieces, number_piece_accuracy (= exact_match) the share of number-piece targets that are the
    // model's most probable token; text_tokens, number_tokens, n, eval_seconds.
    nlohmann::json evaluate(FoneTransformer& model, const Batch& split, const torch::Device& device,
                            std::size_t max_wrong = 0) const override;

  private:
    // The inputs of token ids [1, L] on the model's device.
    ModelInputs inputs_of(const std::vector<int64_t>& ids, const torch::Device& device) const;

    pretrained::BpeTokenizer tokenizer_;
    int64_t context_;
    std::optional<int64_t> eos_;
    FoneSpec spec_;
    std::vector<int> values_;
    std::vector<std::string> vocabulary_;
    torch::Tensor fone_table_;  // [vocab, 6]: each number piece's FoNE, zero elsewhere
    torch::Tensor is_piece_;    // [vocab] bool
};

// The family's make_scheme: refuses (a fone-adapter run's scheme needs its folder's tokenizer: open_run_model
// builds it).
std::unique_ptr<NumberScheme> make_adapter_scheme(const TrainConfig& config, const FoneSpec& spec,
                                                  const std::vector<Op>& extra_ops);

// The input embedding table with the adapter merged in: row t is what the forward feeds for token t
// (embedding + the projection of its FoNE at number pieces, the embedding alone elsewhere). The adapter's
// contribution is a fixed vector per token, so this table alone replaces embedding and adapter.
torch::Tensor merged_embedding(FoneTransformer& model, const AdapterScheme& scheme);

// The alignment phase (aligning: only the projection of the number pieces' FoNE trains) or after it
// (every weight trains): which parameters require gradients.
void set_alignment_phase(FoneTransformer& model, bool aligning);

// An example's text as the adapter reads it: a document as it is; a prompt and its answer joined, with a
// space between them unless one is already there.
std::string write_example(const TextExample& e);

}  // namespace fone
