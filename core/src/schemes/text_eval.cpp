// TextLmScheme's metrics (text_scheme.h, evaluate; docs/text.md defines each): teacher-forced scores (the
// cross-entropy sums, the numbers of the reference the model writes at their place) and the answers it
// generates freely from the prompts, against the references.
#include "schemes/text_scheme.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "fone/numbers/number_parser.h"
#include "nn/timing.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;
using nlohmann::json;
namespace tt = text_token;

constexpr int64_t kEvalRows = 128;      // sequences per teacher-forced evaluation batch
constexpr int64_t kGenerateRows = 256;  // prompts per generation batch in evaluation

}  // namespace

TextTokenSums text_token_sums(const torch::Tensor& logits, const torch::Tensor& targets, int pieces) {
    const auto nll =
        F::cross_entropy(logits.to(torch::kFloat32).reshape({-1, logits.size(-1)}), targets.reshape({-1}),
                         F::CrossEntropyFuncOptions().ignore_index(kTextNoTarget).reduction(torch::kNone))
            .reshape(targets.sizes())
            .to(torch::kFloat64);
    const auto valid = targets.ne(kTextNoTarget);
    const auto number = valid.logical_and(targets.eq(tt::kNum).logical_or(targets.ge(pieces)));
    const auto text = valid.logical_and(number.logical_not());
    TextTokenSums s;
    s.text_nll = (nll * text).sum().item<double>();
    s.text_tokens = text.sum().item<int64_t>();
    s.all_nll = (nll * valid).sum().item<double>();
    s.all_tokens = valid.sum().item<int64_t>();
    return s;
}

namespace {

// Teacher-forced scores: cross-entropy sums and the numbers of the reference the model writes at their
// place.
struct ForcedScores {
    double text_nll = 0, all_nll = 0;
    int64_t text_tokens = 0, all_tokens = 0, numbers = 0, numbers_right = 0;
    // Where the numbers go wrong: the LM head writes a number there ([NUM], or a digit or chunk token),
    // and (fone) the digit head reads the right value there, whatever the LM head writes.
    int64_t placed = 0, values_right = 0;
    // The text-token sums over the rows that hold a number (the FoNE paper's Table 5 measure).
    double numbered_text_nll = 0;
    int64_t numbered_text_tokens = 0;
    // The value the model gives each reference number, teacher-forced (fone: the digit head at the
    // number's place; digit/subword: the most probable token at each of the number's tokens, read as a
    // number): its digits right over the spec's slots, within 1%, BitTokens' log-sMAPE (0 when unreadable).
    int64_t values_read = 0, value_digits_right = 0, within_1_percent = 0;
    double log_smape_sum = 0;

    void add_value(const FoneSpec& spec, const Decimal& truth, const std::optional<Decimal>& got) {
        if (!got) return;  // counted as wrong: numbers is the denominator
        ++values_read;
        for (int p = -spec.frac_digits; p < spec.int_digits; ++p)
            value_digits_right += truth.digit(p) == got->digit(p);
        const double y = truth.to_double(), v = got->to_double();
        within_1_percent += y == v || std::fabs(v - y) <= 0.01 * std::fabs(y);
        log_smape_sum += log_smape(v, y);
    }
};

// The number that the tokens [from, to) of row i spell (digit and chunk pieces), if they spell one.
std::optional<Decimal> number_of_tokens(const TextLmScheme& scheme, const int64_t* ids, int64_t from,
                                        int64_t to) {
    std::string text;
    for (int64_t u = from; u < to; ++u)
        text += scheme.tokenizer().piece(static_cast<int>(ids[u]));
    Decimal x;
    if (text.empty() || !Decimal::try_parse(text, x)) return std::nullopt;
    return x;
}

// One-[NUM] methods: the reference values (from their digit labels) and the values the number head gives
// at every number_start position, row-major.
std::pair<std::vector<Decimal>, std::vector<std::optional<Decimal>>> head_values(const TextLmScheme& scheme,
                                                                                 FoneTransformer& model,
                                                                                 const Batch& b,
                                                                                 const torch::Tensor& h) {
    FoneSpec plain = scheme.digit_spec();
    plain.multipliers.clear();
    const auto at = b.number_start;
    if (!at.any().item<bool>()) return {};
    const DigitPrediction truth{b.digits.index({at}).to(torch::kInt64), b.signs.index({at}).eq(1)};
    return {read_numbers(truth, plain), scheme.read_values(model, h.index({at}))};
}

// Adds one batch's numbers to `into`: at each position where the target begins a number (number_start),
// whether the model writes that number. fone: [NUM], and the digit head's digits and sign right;
// digit/subword: every token of the number, and then a token that is not a number token.
void count_forced_numbers(const TextLmScheme& scheme, FoneTransformer& model, const Batch& b,
                          const torch::Tensor& h, const torch::Tensor& logits, ForcedScores& into) {
    const int pieces = scheme.tokenizer().text_piece_count();
    const auto argmax = logits.argmax(-1).to(torch::kCPU).contiguous();
    const auto targets = b.targets.to(torch::kCPU).contiguous();
    const auto starts = b.number_start.to(torch::kCPU).contiguous();
    const int64_t n = targets.size(0), l = targets.size(1);
    const auto* am = argmax.data_ptr<int64_t>();
    const auto* tg = targets.data_ptr<int64_t>();
    const auto* st = starts.data_ptr<bool>();
    torch::Tensor value_right;  // fone: the digit head right at every position (all digits and sign)
    if (scheme.reads_digits()) {
        const DigitPrediction r = model->read_digits(h);
        auto right = r.digits.eq(b.digits.to(torch::kInt64)).all(-1);
        if (model->sign_feature) right = right.logical_and(r.negative.eq(b.signs.eq(1)));
        value_right = right.to(torch::kCPU).contiguous();
    }
    const bool* vr = scheme.reads_digits() ? value_right.data_ptr<bool>() : nullptr;
    const auto is_number = [&](int64_t id) { return id == tt::kNum || id >= pieces; };
    std::vector<Decimal> head_truth;
    std::vector<std::optional<Decimal>> head_got;
    if (scheme.number_token()) std::tie(head_truth, head_got) = head_values(scheme, model, b, h);
    std::size_t k = 0;  // the k-th number of the batch (head_values' order)
    for (int64_t i = 0; i < n; ++i)
        for (int64_t t = 0; t < l; ++t) {
            if (!st[i * l + t]) continue;
            ++into.numbers;
            into.placed += is_number(am[i * l + t]);
            bool right;
            if (scheme.number_token()) {
                // fone: every digit and the sign right (as the digit head is trained); xval and
                // bittokens: the value they read (rounded to the slots; 14 significant digits).
                const bool value_right = vr ? vr[i * l + t] : head_got[k] == head_truth[k];
                into.values_right += value_right;
                right = am[i * l + t] == tt::kNum && value_right;
                into.add_value(scheme.digit_spec(), head_truth[k], head_got[k]);
                ++k;
            } else {
                int64_t u = t;
                right = true;
                for (; u < l && tg[i * l + u] != kTextNoTarget && is_number(tg[i * l + u]) &&
                       (u == t || !st[i * l + u]);
                     ++u)
                    right = right && am[i * l + u] == tg[i * l + u];
                right = right && (u >= l || !is_number(am[i * l + u]));
                int64_t v = t;  // the model's tokens over the reference's, up to its first non-number token
                while (v < u && is_number(am[i * l + v]))
                    ++v;
                const std::optional<Decimal> truth = number_of_tokens(scheme, tg + i * l, t, u);
                if (truth)
                    into.add_value(scheme.digit_spec(), *truth, number_of_tokens(scheme, am + i * l, t, v));
            }
            into.numbers_right += right;
        }
}

ForcedScores forced_scores(const TextLmScheme& scheme, FoneTransformer& model, const Batch& data,
                           const torch::Device& device) {
    ForcedScores s;
    for (int64_t from = 0; from < data.n; from += kEvalRows) {
        const int64_t len = std::min(kEvalRows, data.n - from);
        const Batch b = to_device(select_rows(data, torch::arange(from, from + len, torch::kInt64)), device);
        const auto h = model->forward(b.in, /*last_only=*/false);
        const auto logits = model->lm_logits(h).to(torch::kFloat32);
        const TextTokenSums sums = text_token_sums(logits, b.targets, scheme.tokenizer().text_piece_count());
        s.text_nll += sums.text_nll;
        s.text_tokens += sums.text_tokens;
        s.all_nll += sums.all_nll;
        s.all_tokens += sums.all_tokens;
        const auto numbered = b.number_start.any(1);  // [len]: rows that hold a number
        if (numbered.any().item<bool>()) {
            const TextTokenSums with = text_token_sums(logits.index({numbered}), b.targets.index({numbered}),
                                                       scheme.tokenizer().text_piece_count());
            s.numbered_text_nll += with.text_nll;
            s.numbered_text_tokens += with.text_tokens;
        }
        count_forced_numbers(scheme, model, b, h, logits, s);
    }
    return s;
}

// Scores of answers generated freely from their prompts, against the references.
struct GeneratedScores {
    int64_t generated = 0, exact = 0, answer_exact = 0, malformed = 0, ref_numbers = 0, numbers_right = 0,
            digits_right = 0, words_right = 0;
    std::vector<double> relative_errors;  // |generated - reference| / |reference|, per reference number
    json wrong = json::array();

    void add(const FoneSpec& spec, const Generation& g, const std::string& text, const std::string& prompt,
             const std::string& reference, std::size_t max_wrong) {
        std::vector<Decimal> want, got;
        const NumberLimits limits{spec.int_digits, spec.frac_digits};  // longer numbers are the run's text
        const ParsedText ref = parse_numbers(reference, limits), gen = parse_numbers(text, limits);
        for (const ParsedNumber& x : ref.numbers)
            want.push_back(x.value);
        for (const ParsedNumber& x : gen.numbers)
            got.push_back(x.value);
        ++generated;
        malformed += !g.ended;
        words_right += g.ended && gen.templ == ref.templ;  // the sentence, numbers aside
        const bool all_right = g.ended && want == got;
        exact += all_right;
        answer_exact += g.ended && text == write_numbers(reference, limits);
        ref_numbers += static_cast<int64_t>(want.size());
        for (std::size_t j = 0; j < want.size(); ++j) {
            if (j >= got.size()) {
                relative_errors.push_back(INFINITY);  // a number the answer does not have
                continue;
            }
            numbers_right += want[j] == got[j];
            const double w = want[j].to_double(), v = got[j].to_double();
            relative_errors.push_back(w == v ? 0.0 : std::fabs(v - w) / std::max(std::fabs(w), 1e-9));
            for (int p = -spec.frac_digits; p < spec.int_digits; ++p)
                digits_right += want[j].digit(p) == got[j].digit(p);
        }
        if (!all_right && wrong.size() < max_wrong)
            wrong.push_back(
                {{"prompt", prompt}, {"expected", write_numbers(reference, limits)}, {"predicted", text}});
    }

    // The median relative error; null when there is no number (or the median answer has none).
    json median_relative_error() {
        if (relative_errors.empty()) return nullptr;
        auto mid = relative_errors.begin() + static_cast<std::ptrdiff_t>(relative_errors.size() / 2);
        std::nth_element(relative_errors.begin(), mid, relative_errors.end());
        return std::isfinite(*mid) ? json(*mid) : json(nullptr);
    }
};

// Greedy answers to every example that has a prompt, generated kGenerateRows at a time.
GeneratedScores generated_scores(const TextLmScheme& scheme, FoneTransformer& model, const Batch& data,
                                 std::size_t max_wrong) {
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < data.prompt_texts.size(); ++i)
        if (!data.prompt_texts[i].empty()) rows.push_back(i);
    std::size_t longest_answer = 0;
    for (const std::size_t i : rows)
        longest_answer = std::max(longest_answer, scheme.tokenizer().encode(data.answer_texts[i]).ids.size());
    GenerateOptions greedy;
    greedy.max_tokens = static_cast<int>(longest_answer) + 8;  // room for [EOS] and a longer answer
    GeneratedScores s;
    for (std::size_t from = 0; from < rows.size(); from += kGenerateRows) {
        const std::size_t to = std::min(rows.size(), from + kGenerateRows);
        std::vector<EncodedText> prompts;
        for (std::size_t k = from; k < to; ++k)
            prompts.push_back(scheme.prompt_tokens(data.prompt_texts[rows[k]], true));
        const std::vector<Generation> gens = scheme.generate(model, prompts, greedy);
        for (std::size_t k = from; k < to; ++k) {
            const Generation& g = gens[k - from];
            s.add(scheme.digit_spec(), g, scheme.generated_text(g), data.prompt_texts[rows[k]],
                  data.answer_texts[rows[k]], max_wrong);
        }
    }
    return s;
}

}  // namespace

json TextLmScheme::evaluate(FoneTransformer& model, const Batch& data, const torch::Device& device,
                            std::size_t max_wrong) const {
    torch::NoGradGuard no_grad;
    model->eval();
    const auto t0 = Clock::now();
    const ForcedScores f = forced_scores(*this, model, data, device);
    GeneratedScores g = generated_scores(*this, model, data, max_wrong);
    model->train();
    std::vector<TextExample> examples;
    for (std::size_t i = 0; i < data.answer_texts.size(); ++i)
        examples.push_back({data.prompt_texts[i], data.answer_texts[i]});
    const TokenCounts counts = count_tokens(tokenizer_, examples);
    const double secs = seconds_since(t0);
    const auto within_1_percent =
        std::count_if(g.relative_errors.begin(), g.relative_errors.end(), [](double e) { return e <= 0.01; });
    const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    const double forced = ratio(static_cast<double>(f.numbers_right), static_cast<double>(f.numbers));
    const int slots = spec_.int_digits + spec_.frac_digits;
    json out = {
        {"n", data.n},
        {"generated", g.generated},
        {"exact_match", g.generated > 0 ? ratio(g.exact, g.generated) : forced},
        {"exact_match_of", g.generated > 0 ? "generated answers" : "next numbers, teacher-forced"},
        {"number_accuracy", ratio(g.numbers_right, g.ref_numbers)},
        {"number_within_1_percent", ratio(within_1_percent, static_cast<double>(g.relative_errors.size()))},
        {"number_relative_error_median", g.median_relative_error()},
        {"answer_exact_match", ratio(g.answer_exact, g.generated)},
        {"answer_words_match", ratio(g.words_right, g.generated)},
        {"digit_accuracy", ratio(g.digits_right, static_cast<double>(g.ref_numbers) * slots)},
        {"malformed", g.malformed},
        {"next_number_exact_match", forced},
        {"next_number_placed", ratio(static_cast<double>(f.placed), static_cast<double>(f.numbers))},
        {"text_perplexity", std::exp(ratio(f.text_nll, f.text_tokens))},
        {"text_tokens", f.text_tokens},
        {"text_perplexity_numbers", std::exp(ratio(f.numbered_text_nll, f.numbered_text_tokens))},
        {"text_tokens_numbers", f.numbered_text_tokens},
        {"next_number_digit_accuracy",
         ratio(static_cast<double>(f.value_digits_right), static_cast<double>(f.numbers) * slots)},
        {"next_number_within_1_percent",
         ratio(static_cast<double>(f.within_1_percent), static_cast<double>(f.numbers))},
        {"next_number_log_smape", ratio(f.log_smape_sum, static_cast<double>(f.numbers))},
        {"loss", ratio(f.all_nll, f.all_tokens)},
        {"perplexity", std::exp(ratio(f.all_nll, f.all_tokens))},
        {"tokens_per_example", counts.tokens_per_example()},
        {"tokens_per_number", counts.tokens_per_number()},
        {"numbers", counts.numbers},
        {"eval_seconds", secs},
        {"eval_examples_per_second", ratio(static_cast<double>(data.n), secs)}};
    if (number_token())
        out["next_number_value_right"] =
            ratio(static_cast<double>(f.values_right), static_cast<double>(f.numbers));
    if (max_wrong > 0) out["mispredictions"] = g.wrong;
    return out;
}

}  // namespace fone
