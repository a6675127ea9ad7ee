// The schemes that write numbers as several tokens: digit, subword, ntl, abacus, fone+abacus and
// numerologic. How a number becomes pieces (and back) is number_pieces.h's; this file maps pieces to token
// ids. The model is trained teacher-forced on prompt + answer (cross-entropy on the answer tokens and
// [EOS]) and evaluated by free greedy generation: the answer is whatever the model writes, read back as a
// number.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include "fone/numbers/number_pieces.h"

#include "schemes/scheme.h"
#include "schemes/scheme_parts.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;

constexpr int64_t kIgnore = -100;
constexpr int64_t kPoint = kBaseVocab;  // "." follows the shared words; number pieces follow it

struct Options {
    NumberWriting writing;      // digit or subword pieces, their direction, NumeroLogic, reversed (Abacus)
    bool abacus = false;        // digit-position embeddings
    bool fone_digits = false;   // digit tokens enter as [NUM] + FoNE(digit)
    double ntl_lambda = 0.0;    // Number Token Loss weight (0: off)
    int abacus_max_offset = 0;  // random offset of the digit positions in training
};

class TokenScheme : public NumberScheme {
  public:
    TokenScheme(std::string name, const Options& o, const FoneSpec& spec, const std::vector<Op>& extra_ops)
        : name_(std::move(name)), o_(o), spec_(spec) {
        vocab_ = base_vocabulary();
        vocab_.push_back(".");
        // Number pieces: digit: "0".."9"; subword: every string of one to three digits ("7", "07" and "007"
        // are different tokens, as in Llama-3's vocabulary, so that chunks read back exactly).
        for (int len = 1, count = 10; len <= o.writing.chunk; ++len, count *= 10)
            for (int v = 0; v < count; ++v) {
                std::string s = std::to_string(v);
                vocab_.push_back(std::string(static_cast<std::size_t>(len) - s.size(), '0') + s);
                values_.push_back(v);
            }
        pieces_end_ = static_cast<int64_t>(vocab_.size());
        if (o.writing.numerologic)
            for (const std::string_view w : {kCountOpen, kCountEnd, kCountClose})
                vocab_.emplace_back(w);
        words_ = Words(extra_ops, static_cast<int64_t>(vocab_.size()));
        for (const std::string& w : words_.extra_names())
            vocab_.push_back(w);
        for (std::size_t id = kPoint; id < vocab_.size(); ++id)
            ids_[vocab_[id]] = static_cast<int64_t>(id);
        ids_["-"] = kMinus;
        // The longest number the digit slots hold, in characters: sign, digits, point.
        longest_number_ = spec.int_digits + spec.frac_digits + 2;
    }

    const FoneSpec& digit_spec() const override { return spec_; }

    std::string name() const override { return name_; }
    const std::vector<std::string>& vocabulary() const override { return vocab_; }

    ModelHeads heads() const override {
        ModelHeads h;
        if (o_.abacus) h.abacus_positions = longest_number_ + o_.abacus_max_offset + 1;
        if (o_.fone_digits) h.fone_width = kDigitFeatures;
        return h;
    }

    Batch encode(const std::vector<Example>& examples) const override {
        std::vector<std::vector<int64_t>> full, prompts;
        std::vector<std::size_t> prompt_lengths;
        full.reserve(examples.size());
        prompts.reserve(examples.size());
        Batch b;
        b.n = static_cast<int64_t>(examples.size());
        b.answers = torch::empty({b.n}, torch::kFloat64);
        auto* a = b.answers.data_ptr<double>();
        for (std::size_t i = 0; i < examples.size(); ++i) {
            std::vector<int64_t> p = prompt_tokens(words_.items(examples[i]));
            check_fits(examples[i].answer, spec_);
            std::vector<int64_t> row = p;
            append_number(examples[i].answer, row);
            row.push_back(kEos);
            prompt_lengths.push_back(p.size());
            full.push_back(std::move(row));
            prompts.push_back(std::move(p));
            a[i] = examples[i].answer.to_double();
            b.answer_values.push_back(examples[i].answer);
            b.prompt_texts.push_back(examples[i].prompt());
        }
        b.in = inputs(left_padded(full));
        b.prompt = left_padded(prompts);
        // The target at a position is the next token when that token belongs to the answer.
        const int64_t l = b.in.tokens.size(1);
        b.targets = torch::full({b.n, l}, kIgnore, torch::kInt64);
        auto* t = b.targets.data_ptr<int64_t>();
        for (std::size_t i = 0; i < full.size(); ++i) {
            const int64_t offset = l - static_cast<int64_t>(full[i].size());
            for (std::size_t j = prompt_lengths[i]; j < full[i].size(); ++j)
                t[static_cast<int64_t>(i) * l + offset + static_cast<int64_t>(j) - 1] = full[i][j];
        }
        return b;
    }

    Batch encode_prompt(const std::string& prompt) const override {
        return prompt_batch(words_.items(prompt));
    }

    // The prompt inference has parsed already (fone predict): its terms, not a second parse.
    Batch encode_parsed_prompt(const ParsedPrompt& prompt) const override {
        return prompt_batch(words_.items(prompt.terms));
    }

    Batch prompt_batch(const std::vector<PromptItem>& items) const {
        Batch b;
        b.n = 1;
        b.prompt = left_padded({prompt_tokens(items)});
        b.in = inputs(b.prompt);
        return b;
    }

    int64_t tokens_for(const Decimal& x) const override {
        std::vector<int64_t> t;
        append_number(x, t);
        return static_cast<int64_t>(t.size());
    }

    int64_t sequence_length(const Batch& split) const override {
        const int64_t trained = split.in.tokens.defined() ? split.in.tokens.size(1) : 0;
        return std::max(trained, split.prompt.size(1) + max_answer_tokens());
    }

    torch::Tensor loss(FoneTransformer& model, const Batch& b, bool training) const override {
        ModelInputs in = b.in;
        if (training && o_.abacus && o_.abacus_max_offset > 0)
            in.positions = offset_positions(in.positions, b);
        const auto h = model->forward(in, /*last_only=*/false);
        // The LM head only where there is a target (the answer and [EOS]): the same loss as over every
        // position with the others ignored, without their vocabulary-wide logits (most of a subword
        // step's time: 1,121 tokens at every position).
        const auto flat_targets = b.targets.reshape({-1});
        const auto rows = flat_targets.ne(kIgnore).nonzero().squeeze(-1);
        const auto targets = flat_targets.index_select(0, rows);
        const auto logits =
            model->lm_logits(h.reshape({-1, h.size(-1)}).index_select(0, rows)).to(torch::kFloat32);
        auto loss = F::cross_entropy(logits, targets);
        if (o_.ntl_lambda > 0) loss = loss + o_.ntl_lambda * number_token_loss(logits, targets);
        return loss;
    }

    std::vector<Answer> answer(FoneTransformer& model, const Batch& b) const override {
        const Generated g = generate(model, b.prompt, false);
        std::vector<Answer> out;
        out.reserve(static_cast<std::size_t>(b.n));
        for (const auto& row : g.tokens)
            out.push_back(read_number(row));
        return out;
    }

    nlohmann::json explain(FoneTransformer& model, const Batch& prompt) const override {
        const Generated g = generate(model, prompt.prompt, true);
        nlohmann::json steps = nlohmann::json::array();
        for (std::size_t k = 0; k < g.tokens[0].size(); ++k)
            steps.push_back({{"token", vocab_[static_cast<std::size_t>(g.tokens[0][k])]},
                             {"probability", g.probabilities[k]}});
        const Answer a = read_number(g.tokens[0]);
        return {{"value", a ? a->to_string() : ""}, {"generated", steps}, {"well_formed", a.has_value()}};
    }

  private:
    static constexpr int64_t kDigitFeatures = 2;  // FoNE of one digit: [cos 2πd/10, sin 2πd/10]

    std::string name_;
    Options o_;
    FoneSpec spec_;
    Words words_;
    std::vector<std::string> vocab_;
    std::unordered_map<std::string, int64_t> ids_;  // a number's pieces (and "-") -> token id
    std::vector<int64_t> values_;                   // value of each number piece, from id kPoint + 1 on
    int64_t pieces_end_ = 0;                        // the id after the last number piece
    int64_t longest_number_ = 0;

    int64_t first_piece() const { return kPoint + 1; }
    // The point and the digit pieces: what Abacus counts positions along.
    bool is_number_char(int64_t id) const { return id >= kPoint && id < pieces_end_; }

    void append_number(const Decimal& x, std::vector<int64_t>& out) const {
        for (const std::string& piece : write_number_pieces(x, o_.writing))
            out.push_back(ids_.at(piece));
    }

    std::vector<int64_t> prompt_tokens(const std::vector<PromptItem>& items) const {
        std::vector<int64_t> t;
        for (const auto& item : items) {
            if (item.token != kNum) {
                t.push_back(item.token);
                continue;
            }
            check_fits(item.number, spec_);
            append_number(item.number, t);
        }
        return t;
    }

    // The generated tokens up to [EOS] as a number; nullopt when they are not one (or no [EOS] came).
    Answer read_number(const std::vector<int64_t>& row) const {
        const auto eos = std::find(row.begin(), row.end(), static_cast<int64_t>(kEos));
        if (eos == row.end()) return std::nullopt;
        std::vector<std::string> pieces;
        for (auto it = row.begin(); it != eos; ++it)
            pieces.push_back(vocab_[static_cast<std::size_t>(*it)]);
        return read_number_pieces(pieces, o_.writing);
    }

    // Model inputs derived from token ids alone, so that generation can rebuild them after every step.
    ModelInputs inputs(const torch::Tensor& tokens) const {
        ModelInputs in;
        in.tokens = tokens;
        in.key_mask = key_mask_of(tokens);
        if (o_.abacus) in.positions = digit_positions(tokens);
        if (o_.fone_digits) {
            // Digit tokens enter as [NUM] + FoNE(digit); the point and the words keep their embeddings.
            const auto digit = tokens - first_piece();
            in.num_mask = tokens.ge(first_piece()).logical_and(tokens.lt(first_piece() + 10));
            const auto angle =
                digit.clamp(0, 9).to(torch::kFloat32) * static_cast<float>(2 * std::numbers::pi / 10);
            const auto mask = in.num_mask.unsqueeze(-1).to(torch::kFloat32);
            in.fone = torch::stack({angle.cos(), angle.sin()}, -1) * mask;
            in.tokens = torch::where(in.num_mask, torch::full_like(tokens, kNum), tokens);
        }
        return in;
    }

    // The final position's inputs (the key mask keeps every position: the cache holds the others).
    static ModelInputs last_position(const ModelInputs& in) {
        auto last = [](const torch::Tensor& t) { return t.defined() ? t.narrow(1, t.size(1) - 1, 1) : t; };
        return {last(in.tokens),   in.key_mask,    last(in.fone),
                last(in.num_mask), last(in.scale), last(in.positions)};
    }

    // 1, 2, 3, ... along each run of number characters (digits and the point), 0 elsewhere.
    torch::Tensor digit_positions(const torch::Tensor& tokens) const {
        const auto cpu = tokens.to(torch::kCPU).contiguous();
        auto pos = torch::zeros_like(cpu);
        const int64_t n = cpu.size(0), l = cpu.size(1);
        const auto* t = cpu.data_ptr<int64_t>();
        auto* p = pos.data_ptr<int64_t>();
        for (int64_t i = 0; i < n; ++i) {
            int64_t run = 0;
            for (int64_t j = 0; j < l; ++j) {
                run = is_number_char(t[i * l + j]) ? std::min(run + 1, longest_number_) : 0;
                p[i * l + j] = run;
            }
        }
        return pos.to(tokens.device());
    }

    // Training only: every example's digit positions shifted by a random offset in 0..max_offset.
    torch::Tensor offset_positions(const torch::Tensor& positions, const Batch& b) const {
        const auto offsets = torch::randint(0, o_.abacus_max_offset + 1, {b.n, 1}, positions.options());
        return torch::where(positions.gt(0), positions + offsets, positions);
    }

    // Number Token Loss (Zausinger et al.): at answer positions whose target is a number piece, the
    // Wasserstein-1 distance between the softmax over the number pieces and the true piece's value,
    // sum_j p_j |v_j - y|. logits [K, V] and targets [K] are the positions that have a target.
    torch::Tensor number_token_loss(const torch::Tensor& logits, const torch::Tensor& targets) const {
        const auto flat_t = targets.reshape({-1});
        const auto rows = flat_t.gt(kPoint).logical_and(flat_t.lt(pieces_end_)).nonzero().squeeze(-1);
        if (rows.numel() == 0) return torch::zeros({}, logits.options());
        const int64_t pieces = static_cast<int64_t>(values_.size());
        const auto piece_logits = logits.index_select(0, rows).narrow(-1, first_piece(), pieces);
        const auto values = torch::tensor(values_, torch::kInt64).to(logits.device()).to(torch::kFloat32);
        const auto y = values.index_select(0, flat_t.index_select(0, rows) - first_piece());
        const auto distance = (values.unsqueeze(0) - y.unsqueeze(1)).abs();
        return (torch::softmax(piece_logits, -1) * distance).sum(-1).mean();
    }

    int64_t max_answer_tokens() const {
        // sign + digits + point + [EOS] is the most a number of the slots takes, and NumeroLogic adds its
        // braces, ":" and the count ("{12.3:").
        int64_t most = spec_.int_digits + spec_.frac_digits + 3;
        if (o_.writing.numerologic)
            most += 4 + static_cast<int64_t>(std::to_string(spec_.int_digits).size() +
                                             std::to_string(spec_.frac_digits).size());
        return most;
    }

    struct Generated {
        std::vector<std::vector<int64_t>> tokens;  // per row, up to and including [EOS]
        std::vector<double> probabilities;         // row 0's, with `probabilities`
    };

    // Greedy decoding, every row until it writes [EOS] (or max_answer_tokens()).
    Generated generate(FoneTransformer& model, const torch::Tensor& prompt, bool probabilities) const {
        torch::NoGradGuard no_grad;
        const int64_t n = prompt.size(0);
        Generated g;
        g.tokens.assign(static_cast<std::size_t>(n), {});
        auto seq = prompt;
        auto done = torch::zeros({n}, torch::TensorOptions().dtype(torch::kBool).device(prompt.device()));
        KvCache cache;  // the prompt once, then one new token per step
        for (int64_t step = 0; step < max_answer_tokens(); ++step) {
            ModelInputs in = inputs(seq);
            if (step > 0) in = last_position(in);
            const auto h = model->forward(in, /*last_only=*/true, nullptr, &cache).squeeze(1);
            const auto logits = model->lm_logits(h).to(torch::kFloat32);
            auto next = logits.argmax(-1);
            if (probabilities)
                g.probabilities.push_back(torch::softmax(logits[0], -1)[next[0]].item<double>());
            next = torch::where(done, torch::full_like(next, kPad), next);
            const auto next_cpu = next.to(torch::kCPU);
            const auto* p = next_cpu.data_ptr<int64_t>();
            for (int64_t i = 0; i < n; ++i)
                if (p[i] != kPad) g.tokens[static_cast<std::size_t>(i)].push_back(p[i]);
            done = done.logical_or(next.eq(kEos));
            if (done.all().item<bool>()) break;
            seq = torch::cat({seq, next.unsqueeze(1)}, 1);
        }
        return g;
    }
};

}  // namespace

namespace {

// Abacus: digits least significant first, their positions embedded, a random offset in training.
void abacus_options(const TrainConfig& config, Options& o) {
    o.writing.reversed = o.abacus = true;
    o.abacus_max_offset = config.abacus_max_offset;
}

// Each token method's own options, beyond the pieces its row names (subword chunks, their direction).
struct TokenMethod {
    std::string method;  // the methods table's name
    void (*options)(const TrainConfig& config, Options& o);
};

const std::vector<TokenMethod>& token_methods() {
    static const std::vector<TokenMethod> methods = {
        {"digit", [](const TrainConfig&, Options&) {}},
        {"subword", [](const TrainConfig&, Options&) {}},
        {"ntl", [](const TrainConfig& c, Options& o) { o.ntl_lambda = c.ntl_lambda; }},
        {"abacus", abacus_options},
        {"fone+abacus",
         [](const TrainConfig& c, Options& o) {
             abacus_options(c, o);
             o.fone_digits = true;  // every digit token enters as [NUM] + FoNE(digit)
         }},
        {"numerologic", [](const TrainConfig&, Options& o) { o.writing.numerologic = true; }},
    };
    return methods;
}

}  // namespace

std::unique_ptr<NumberScheme> make_token_scheme(const TrainConfig& config, const FoneSpec& spec,
                                                const std::vector<Op>& extra_ops) {
    const std::string& m = config.method;
    const auto it = std::find_if(token_methods().begin(), token_methods().end(),
                                 [&](const TokenMethod& t) { return t.method == m; });
    if (it == token_methods().end())
        throw std::invalid_argument("method " + m +
                                    ": its row names the tokens family, but no token method of "
                                    "core/src/schemes/token_schemes.cpp is " +
                                    m);
    Options o;
    if (config.writes_subword_chunks()) o.writing.chunk = 3;
    if (config.subword_direction == "r2l") o.writing.direction = ChunkDirection::right_to_left;
    it->options(config, o);
    if (spec.base != 10)
        throw std::invalid_argument("method " + m +
                                    ": token schemes write decimal digits; --base must be 10");
    return std::make_unique<TokenScheme>(m, o, spec, extra_ops);
}

}  // namespace fone
