#include "schemes/adapter_scheme.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "fone/numbers/number_parser.h"
#include "fone/pretrained/number_pieces.h"
#include "fone/store/methods.h"
#include "nn/timing.h"
#include "nn/token_choice.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;
constexpr int64_t kNoTarget = -100;

// One stream of ids as rows of `width` inputs with their next tokens: row r reads stream[r w .. r w + w]
// and predicts stream[r w + 1 .. r w + w]; the last row's missing targets are kNoTarget.
void pack_rows(const std::vector<int64_t>& stream, int64_t width, std::vector<std::vector<int64_t>>& inputs,
               std::vector<std::vector<int64_t>>& targets) {
    const int64_t n = static_cast<int64_t>(stream.size());
    for (int64_t start = 0; start + 1 < n; start += width) {
        std::vector<int64_t> in, next;
        for (int64_t i = start; i < std::min(n - 1, start + width); ++i) {
            in.push_back(stream[static_cast<std::size_t>(i)]);
            next.push_back(stream[static_cast<std::size_t>(i + 1)]);
        }
        inputs.push_back(std::move(in));
        targets.push_back(std::move(next));
    }
}

// Rows right-padded to the longest (padding: token 0, no target; causal attention never reads it).
torch::Tensor padded(const std::vector<std::vector<int64_t>>& rows, int64_t fill) {
    std::size_t longest = 1;
    for (const auto& r : rows)
        longest = std::max(longest, r.size());
    auto out =
        torch::full({static_cast<int64_t>(rows.size()), static_cast<int64_t>(longest)}, fill, torch::kInt64);
    auto* p = out.data_ptr<int64_t>();
    for (std::size_t i = 0; i < rows.size(); ++i)
        std::copy(rows[i].begin(), rows[i].end(), p + i * longest);
    return out;
}

}  // namespace

void check_adapter_folder(const std::string& dir) {
    const std::string tokenizer = (std::filesystem::path(dir) / "tokenizer.json").string();
    if (!std::filesystem::exists(tokenizer))
        throw std::invalid_argument("fone-adapter: " + dir +
                                    " has no tokenizer.json (the adapter keeps the model's own tokens)");
}

void check_adapter_number_pieces(const std::string& dir) {
    check_adapter_folder(dir);
    const std::string tokenizer = (std::filesystem::path(dir) / "tokenizer.json").string();
    const auto t = pretrained::BpeTokenizer::load(tokenizer);
    const std::vector<int> values = number_piece_values(t, t.vocab_size());
    if (std::all_of(values.begin(), values.end(), [](int v) { return v < 0; }))
        throw std::invalid_argument("fone-adapter: " + tokenizer +
                                    " has no number pieces (tokens of one to three digits): FoNE would have "
                                    "nothing to add to, and the run nothing to learn");
}

FoneSpec adapter_spec() {
    FoneSpec spec;
    spec.int_digits = 3;
    spec.frac_digits = 0;
    spec.sign_feature = false;
    return spec;
}

std::vector<int> number_piece_values(const pretrained::BpeTokenizer& tokenizer, int64_t vocab_size) {
    std::vector<int> values(static_cast<std::size_t>(vocab_size), -1);
    const int64_t known = std::min(vocab_size, tokenizer.vocab_size());
    for (int64_t id = 0; id < known; ++id) {
        values[static_cast<std::size_t>(id)] = pretrained::number_piece_value(tokenizer.token_text(id));
    }
    return values;
}

std::string write_example(const TextExample& e) {
    if (e.prompt.empty()) return e.answer;
    if (e.answer.empty()) return e.prompt;
    const bool spaced = std::isspace(static_cast<unsigned char>(e.prompt.back())) ||
                        std::isspace(static_cast<unsigned char>(e.answer.front()));
    return e.prompt + (spaced ? "" : " ") + e.answer;
}

AdapterScheme::AdapterScheme(pretrained::BpeTokenizer tokenizer, int64_t vocab_size, int64_t context,
                             std::optional<int64_t> eos)
    : tokenizer_(std::move(tokenizer)), context_(context), eos_(eos), spec_(adapter_spec()) {
    values_ = number_piece_values(tokenizer_, vocab_size);
    const int64_t width = spec_.width();
    fone_table_ = torch::zeros({vocab_size, width}, torch::kFloat32);
    is_piece_ = torch::zeros({vocab_size}, torch::kBool);
    float* table = fone_table_.data_ptr<float>();
    bool* piece = is_piece_.data_ptr<bool>();
    vocabulary_.reserve(static_cast<std::size_t>(vocab_size));
    for (int64_t id = 0; id < vocab_size; ++id) {
        vocabulary_.push_back(id < tokenizer_.vocab_size() ? tokenizer_.token_text(id)
                                                           : "[unused " + std::to_string(id) + "]");
        const int v = values_[static_cast<std::size_t>(id)];
        if (v < 0) continue;
        encode_into(Decimal::from_int(v), spec_, table + id * width);
        piece[id] = true;
    }
}

ModelHeads AdapterScheme::heads() const {
    ModelHeads h;
    h.fone_width = spec_.width();
    return h;
}

void AdapterScheme::add_number_inputs(ModelInputs& in) const {
    const auto ids = in.tokens.to(torch::kCPU);
    in.fone = fone_table_.index_select(0, ids.reshape({-1})).reshape({ids.size(0), ids.size(1), -1});
    in.num_mask = is_piece_.index_select(0, ids.reshape({-1})).reshape(ids.sizes());
    if (in.tokens.device() != ids.device()) {
        in.fone = in.fone.to(in.tokens.device());
        in.num_mask = in.num_mask.to(in.tokens.device());
    }
}

// A tokenizer may have added tokens past the model's rows (the tests' Llama-3 tokenizer.json has one): a
// text that uses one cannot be fed.
std::vector<int64_t> AdapterScheme::ids_of(const std::string& text) const {
    std::vector<int64_t> ids = tokenizer_.encode(text, true);
    for (const int64_t id : ids)
        if (id >= static_cast<int64_t>(vocabulary_.size()))
            throw std::invalid_argument("fone-adapter: the tokenizer gives id " + std::to_string(id) +
                                        " (\"" + tokenizer_.token_text(id) +
                                        "\"), past the model's vocabulary of " +
                                        std::to_string(vocabulary_.size()));
    return ids;
}

Batch AdapterScheme::encode_text(const std::vector<TextExample>& examples) const {
    std::vector<std::vector<int64_t>> inputs, targets;
    std::vector<int64_t> stream;
    for (const TextExample& e : examples) {
        const std::vector<int64_t> ids = ids_of(write_example(e));
        if (context_ > 0)
            stream.insert(stream.end(), ids.begin(), ids.end());
        else
            pack_rows(ids, static_cast<int64_t>(ids.size()), inputs, targets);
    }
    if (context_ > 0) pack_rows(stream, context_, inputs, targets);
    Batch b;
    b.n = static_cast<int64_t>(inputs.size());
    if (b.n == 0) return b;
    b.in.tokens = padded(inputs, 0);
    b.targets = padded(targets, kNoTarget);
    add_number_inputs(b.in);
    return b;
}

Batch AdapterScheme::encode_prompt(const std::string& prompt) const {
    const std::vector<int64_t> ids = ids_of(prompt);
    if (ids.empty()) throw std::invalid_argument("fone-adapter: an empty prompt has no tokens");
    Batch b;
    b.n = 1;
    b.in.tokens = torch::tensor(ids, torch::kInt64).unsqueeze(0);
    add_number_inputs(b.in);
    b.prompt_texts = {prompt};
    return b;
}

Batch AdapterScheme::encode(const std::vector<Example>&) const {
    throw std::logic_error("fone-adapter trains on text: encode_text, not arithmetic examples");
}

int64_t AdapterScheme::tokens_for(const Decimal& x) const {
    return static_cast<int64_t>(tokenizer_.encode(x.to_string(), false).size());
}

double AdapterScheme::tokens_per_number(const std::vector<TextExample>& examples) const {
    int64_t numbers = 0, tokens = 0;
    for (const TextExample& e : examples)
        for (const std::string* text : {&e.prompt, &e.answer})
            for (const ParsedNumber& x : parse_numbers(*text).numbers) {
                ++numbers;
                tokens += static_cast<int64_t>(tokenizer_.encode(" " + x.text, false).size());
            }
    return numbers > 0 ? static_cast<double>(tokens) / static_cast<double>(numbers) : 0.0;
}

int64_t AdapterScheme::number_piece_count() const {
    return is_piece_.sum().item<int64_t>();
}

torch::Tensor AdapterScheme::loss(FoneTransformer& model, const Batch& b, bool) const {
    const torch::Tensor logits = model->lm_logits(model->forward(b.in, false));
    return F::cross_entropy(logits.reshape({-1, logits.size(-1)}), b.targets.reshape({-1}),
                            F::CrossEntropyFuncOptions().ignore_index(kNoTarget));
}

std::vector<Answer> AdapterScheme::answer(FoneTransformer&, const Batch&) const {
    throw std::invalid_argument(
        "a fone-adapter run writes text, not arithmetic answers: ask it with fone generate, fone eval or "
        "fone "
        "eval --benchmark arithmetic");
}

ModelInputs AdapterScheme::inputs_of(const std::vector<int64_t>& ids, const torch::Device& device) const {
    ModelInputs in;
    in.tokens = torch::tensor(ids, torch::kInt64).unsqueeze(0).to(device);
    add_number_inputs(in);
    return in;
}

AdapterGeneration AdapterScheme::generate(FoneTransformer& model, const std::vector<int64_t>& prompt,
                                          const AdapterGenerateOptions& o,
                                          const std::function<void(int64_t, double)>& on_token) const {
    if (prompt.empty()) throw std::invalid_argument("fone-adapter: an empty prompt has no tokens");
    if (static_cast<int64_t>(prompt.size()) >= model->config.max_seq)
        throw std::invalid_argument("the prompt has " + std::to_string(prompt.size()) +
                                    " tokens; this model reads at most " +
                                    std::to_string(model->config.max_seq - 1) + " before it writes");
    torch::NoGradGuard no_grad;
    const torch::Device device = model->embed->weight.device();
    std::mt19937_64 rng(o.seed);
    KvCache cache;
    AdapterGeneration g;
    g.stop = "max_tokens";
    ModelInputs in = inputs_of(prompt, device);
    int64_t length = static_cast<int64_t>(prompt.size());
    for (int step = 0; step < o.max_tokens; ++step) {
        const auto logits =
            model->lm_logits(model->forward(in, /*last_only=*/true, nullptr, &cache).squeeze(1))
                .to(torch::kFloat32);  // [1, vocab]
        const int64_t id = choose_tokens(logits, o.temperature, o.top_k, rng)[0];
        const double p = torch::softmax(logits[0], -1)[id].item<double>();
        g.ids.push_back(id);
        g.probabilities.push_back(p);
        if (on_token) on_token(id, p);
        if (eos_ && id == *eos_) {
            g.stop = "eos";
            break;
        }
        if (++length >= model->config.max_seq) {
            if (step + 1 < o.max_tokens) g.stop = "max_seq";
            break;
        }
        in = inputs_of({id}, device);
    }
    return g;
}

bool AdapterScheme::writes_greedily(FoneTransformer& model, const std::vector<int64_t>& context,
                                    const std::vector<int64_t>& continuation) const {
    if (context.empty() || continuation.empty()) return false;
    std::vector<int64_t> all = context;
    all.insert(all.end(), continuation.begin(), continuation.end() - 1);
    if (static_cast<int64_t>(all.size()) > model->config.max_seq) return false;
    torch::NoGradGuard no_grad;
    const auto logits =
        model->lm_logits(model->forward(inputs_of(all, model->embed->weight.device()), false));
    const auto best =
        logits[0]
            .narrow(0, static_cast<int64_t>(context.size()) - 1, static_cast<int64_t>(continuation.size()))
            .argmax(-1)
            .to(torch::kCPU);
    return torch::equal(best, torch::tensor(continuation, torch::kInt64));
}

AdapterScheme::TokenScores AdapterScheme::token_scores(FoneTransformer& model,
                                                       const std::vector<int64_t>& ids) const {
    torch::NoGradGuard no_grad;
    const torch::Device device = model->embed->weight.device();
    const int64_t n = static_cast<int64_t>(ids.size()), width = model->config.max_seq;
    TokenScores s;
    for (int64_t start = 0; start + 1 < n; start += width - 1) {
        const int64_t end = std::min(n, start + width);
        const std::vector<int64_t> window(ids.begin() + start, ids.begin() + end);
        const auto logits =
            model->lm_logits(model->forward(inputs_of(window, device), false))[0].to(torch::kFloat32);
        const auto targets =
            torch::tensor(std::vector<int64_t>(window.begin() + 1, window.end()), torch::kInt64);
        const auto scored = logits.narrow(0, 0, end - start - 1);
        const auto nll =
            F::cross_entropy(scored, targets.to(device), F::CrossEntropyFuncOptions().reduction(torch::kNone))
                .to(torch::kFloat64)
                .to(torch::kCPU)
                .contiguous();
        const auto best = scored.argmax(-1).to(torch::kCPU).contiguous();
        s.nll.insert(s.nll.end(), nll.data_ptr<double>(), nll.data_ptr<double>() + nll.numel());
        s.best.insert(s.best.end(), best.data_ptr<int64_t>(), best.data_ptr<int64_t>() + best.numel());
    }
    return s;
}

nlohmann::json AdapterScheme::explain(FoneTransformer& model, const Batch& prompt) const {
    answer(model, prompt);
    return {};
}

nlohmann::json AdapterScheme::evaluate(FoneTransformer& model, const Batch& split,
                                       const torch::Device& device, std::size_t) const {
    const auto t0 = Clock::now();
    torch::NoGradGuard no_grad;
    double all_nll = 0, text_nll = 0;
    int64_t all_tokens = 0, text_tokens = 0, pieces = 0, pieces_right = 0;
    constexpr int64_t kRows = 16;  // a [rows, L, vocab] logits tensor at a time
    const auto piece_mask = is_piece_.to(device);
    for (int64_t start = 0; start < split.n; start += kRows) {
        const Batch b = to_device(
            select_rows(split,
                        torch::arange(start, std::min(split.n, start + kRows)).to(split.in.tokens.device())),
            device);
        const auto logits = model->lm_logits(model->forward(b.in, false)).to(torch::kFloat32);
        const auto nll =
            F::cross_entropy(logits.reshape({-1, logits.size(-1)}), b.targets.reshape({-1}),
                             F::CrossEntropyFuncOptions().ignore_index(kNoTarget).reduction(torch::kNone))
                .to(torch::kFloat64);
        const auto targets = b.targets.reshape({-1});
        const auto valid = targets.ne(kNoTarget);
        const auto is_piece = piece_mask.index_select(0, targets.clamp_min(0)).logical_and(valid);
        const auto text = valid.logical_and(is_piece.logical_not());
        all_nll += nll.masked_select(valid).sum().item<double>();
        text_nll += nll.masked_select(text).sum().item<double>();
        all_tokens += valid.sum().item<int64_t>();
        text_tokens += text.sum().item<int64_t>();
        pieces += is_piece.sum().item<int64_t>();
        const auto right = logits.reshape({-1, logits.size(-1)}).argmax(-1).eq(targets).logical_and(is_piece);
        pieces_right += right.sum().item<int64_t>();
    }
    const auto ratio = [](double a, int64_t b) { return b > 0 ? a / static_cast<double>(b) : 0.0; };
    const double accuracy = ratio(static_cast<double>(pieces_right), pieces);
    return {{"loss", ratio(all_nll, all_tokens)},
            {"perplexity", std::exp(ratio(all_nll, all_tokens))},
            {"text_perplexity", std::exp(ratio(text_nll, text_tokens))},
            {"number_piece_accuracy", accuracy},
            {"exact_match", accuracy},
            {"text_tokens", text_tokens},
            {"number_tokens", pieces},
            {"n", split.n},
            {"eval_seconds", seconds_since(t0)}};
}

torch::Tensor merged_embedding(FoneTransformer& model, const AdapterScheme& scheme) {
    torch::NoGradGuard no_grad;
    // The forward's own arithmetic (nn/model.cpp): embed + fone_map(FoNE) x the number-piece mask.
    const torch::Tensor rows = model->embed->weight;
    return rows + model->fone_map(scheme.fone_table()) * scheme.piece_mask().unsqueeze(-1).to(rows.dtype());
}

void set_alignment_phase(FoneTransformer& model, bool aligning) {
    for (auto& p : model->parameters())
        p.set_requires_grad(!aligning);
    for (auto& p : model->fone_map->parameters())
        p.set_requires_grad(true);
}

std::unique_ptr<NumberScheme> make_adapter_scheme(const TrainConfig& config, const FoneSpec&,
                                                  const std::vector<Op>&) {
    throw std::invalid_argument("method " + config.method +
                                ": a fone-adapter run opens with its pretrained folder's tokenizer "
                                "(open_run_model), not make_scheme");
}

}  // namespace fone
