#include "schemes/scheme.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fone/tasks/expression.h"
#include "nn/timing.h"
#include "schemes/adapter_scheme.h"
#include "schemes/number_head.h"
#include "schemes/scheme_parts.h"

namespace fone {

// Defined in number_token_scheme.cpp and token_schemes.cpp.
std::unique_ptr<NumberScheme> make_number_token_scheme(const TrainConfig& config, const FoneSpec& spec,
                                                       const std::vector<Op>& extra_ops);
std::unique_ptr<NumberScheme> make_token_scheme(const TrainConfig& config, const FoneSpec& spec,
                                                const std::vector<Op>& extra_ops);

namespace {

constexpr int64_t kEvalBatchSize = 4096;  // examples per evaluation batch (generation included)

// The vocabulary lists the base operators in kBaseOps order from kPlus, then "=".
static_assert(kPlus + static_cast<int64_t>(kBaseOps.size()) == kEquals);

}  // namespace

const std::vector<std::string>& base_vocabulary() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v = {"[PAD]", "[BOS]", "[EOS]", "[NUM]"};
        for (const Op op : kBaseOps)
            v.emplace_back(op_name(op));
        v.emplace_back(kEqualsSign);
        return v;
    }();
    return names;
}

Words::Words(std::vector<Op> extra, int64_t first_extra)
    : extra_(std::move(extra)), first_extra_(first_extra) {}

int64_t Words::token(Op op) const {
    for (std::size_t i = 0; i < kBaseOps.size(); ++i)
        if (kBaseOps[i] == op) return kPlus + static_cast<int64_t>(i);
    for (std::size_t i = 0; i < extra_.size(); ++i)
        if (extra_[i] == op) return first_extra_ + static_cast<int64_t>(i);
    std::string known;
    for (const Op o : kBaseOps)
        known += std::string(op_name(o)) + " ";
    for (const Op o : extra_)
        known += std::string(op_name(o)) + " ";
    throw std::invalid_argument("the model has no token for '" + std::string(op_name(op)) +
                                "' (it knows: " + known + std::string(kEqualsSign) + " and numbers)");
}

std::vector<std::string> Words::extra_names() const {
    std::vector<std::string> names;
    for (const Op op : extra_)
        names.emplace_back(op_name(op));
    return names;
}

std::vector<PromptItem> Words::items(const Example& e) const {
    std::vector<PromptItem> items = {{kBos, {}}};
    for (std::size_t i = 0; i < e.operands.size(); ++i) {
        if (i > 0) {
            const auto op = op_named(e.ops[i - 1]);
            if (!op) throw std::invalid_argument("no token for the operator '" + e.ops[i - 1] + "'");
            items.push_back({token(*op), {}});
        }
        items.push_back({kNum, e.operands[i]});
    }
    items.push_back({kEquals, {}});
    return items;
}

std::vector<PromptItem> Words::items(const std::string& prompt) const {
    // Schemes encode operands too (a number alone, for representations); `fone predict` checks first that
    // its prompt is a whole question (predict_run) and hands the words it read to items(terms).
    return items(parse_prompt(prompt, PromptForm::operands));
}

std::vector<PromptItem> Words::items(const std::vector<PromptTerm>& terms) const {
    std::vector<PromptItem> items = {{kBos, {}}};
    for (const PromptTerm& t : terms)
        switch (t.kind) {
            case PromptTerm::Kind::number:
                items.push_back({kNum, t.number});
                break;
            case PromptTerm::Kind::op:
                items.push_back({token(t.op), {}});
                break;
            case PromptTerm::Kind::equals:
                items.push_back({kEquals, {}});
                break;
        }
    return items;
}

torch::Tensor item_tokens(const std::vector<std::vector<PromptItem>>& rows) {
    std::vector<std::vector<int64_t>> tokens;
    tokens.reserve(rows.size());
    for (const auto& r : rows) {
        std::vector<int64_t> t;
        t.reserve(r.size());
        for (const auto& item : r)
            t.push_back(item.token);
        tokens.push_back(std::move(t));
    }
    return left_padded(tokens);
}

torch::Tensor left_padded(const std::vector<std::vector<int64_t>>& rows) {
    std::size_t longest = 0;
    for (const auto& r : rows)
        longest = std::max(longest, r.size());
    const int64_t n = static_cast<int64_t>(rows.size()), l = static_cast<int64_t>(longest);
    auto t = torch::full({n, l}, static_cast<int64_t>(kPad), torch::kInt64);
    auto* p = t.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i)
        std::copy(rows[i].begin(), rows[i].end(), p + i * l + (l - static_cast<int64_t>(rows[i].size())));
    return t;
}

torch::Tensor key_mask_of(const torch::Tensor& tokens) {
    auto mask = tokens.ne(kPad);
    return mask.all().item<bool>() ? torch::Tensor() : mask;
}

double log_smape(double v, double y) {
    constexpr double kEps = 1e-100, kDigits = 15.0;
    const double smape = std::fabs(v - y) / (std::fabs(y) + std::fabs(v) + kEps);
    const double score = std::min(1.0, std::log10(smape + kEps) / -kDigits);
    return std::isfinite(score) ? std::max(0.0, score) : 0.0;
}

namespace {

// The metrics of answers against the true ones, example by example (NumberScheme::evaluate).
class AnswerScores {
  public:
    AnswerScores(const FoneSpec& spec, std::size_t max_wrong)
        : frac_digits_(spec.frac_digits),
          slots_(spec.int_digits + spec.frac_digits),  // digit positions, whatever the periods
          right_per_slot_(static_cast<std::size_t>(slots_), 0),
          max_wrong_(max_wrong) {}

    void add(const Decimal& truth, const Answer& got, const std::string& prompt) {
        ++n_;
        if (!got) ++malformed_;
        const bool right = got && *got == truth;
        exact_ += right;
        if (!right && wrong_.size() < max_wrong_)
            wrong_.push_back({{"prompt", prompt},
                              {"expected", truth.to_string()},
                              {"predicted", got ? got->to_string() : ""}});
        for (int64_t k = 0; k < slots_; ++k) {
            const int p = static_cast<int>(k - frac_digits_);
            const bool digit_right = got && got->digit(p) == truth.digit(p);
            digits_right_ += digit_right;
            right_per_slot_[static_cast<std::size_t>(k)] += digit_right;
        }
        const double y = truth.to_double(), v = got ? got->to_double() : 0.0;
        if (got) log_smape_ += log_smape(v, y);
        sse_ += (v - y) * (v - y);
        sum_ += y;
        sum_sq_ += y * y;
    }

    // {"n", "exact_match", "digit_accuracy", "digit_accuracy_by_position", "malformed", "r2", "rmse",
    // "log_smape"} and, with max_wrong > 0, "mispredictions".
    nlohmann::json metrics() const {
        const double n = static_cast<double>(n_);
        const double sst = sum_sq_ - sum_ * sum_ / n;
        nlohmann::json per_position = nlohmann::json::object();
        for (int64_t k = 0; k < slots_; ++k)
            per_position[std::to_string(k - frac_digits_)] = right_per_slot_[static_cast<std::size_t>(k)] / n;
        nlohmann::json out = {{"n", n_},
                              {"exact_match", exact_ / n},
                              {"digit_accuracy", digits_right_ / (n * slots_)},
                              {"digit_accuracy_by_position", per_position},
                              {"malformed", malformed_},
                              {"r2", sst > 0 ? 1.0 - sse_ / sst : (sse_ == 0 ? 1.0 : 0.0)},
                              {"rmse", std::sqrt(sse_ / n)},
                              {"log_smape", log_smape_ / n}};
        if (max_wrong_ > 0) out["mispredictions"] = wrong_;
        return out;
    }

  private:
    int64_t frac_digits_, slots_;
    std::vector<int64_t> right_per_slot_;
    std::size_t max_wrong_;
    int64_t n_ = 0, exact_ = 0, digits_right_ = 0, malformed_ = 0;
    double sse_ = 0.0, sum_ = 0.0, sum_sq_ = 0.0, log_smape_ = 0.0;
    nlohmann::json wrong_ = nlohmann::json::array();
};

// A batch with fn applied to each of its defined tensors (the rest left empty).
template <class Fn>
Batch with_each_tensor(const Batch& s, Fn fn) {
    auto each = [&](const torch::Tensor& t) { return t.defined() ? fn(t) : t; };
    Batch b;
    b.n = s.n;
    b.in = {each(s.in.tokens),   each(s.in.key_mask), each(s.in.fone),
            each(s.in.num_mask), each(s.in.scale),    each(s.in.positions)};
    b.targets = each(s.targets);
    b.prompt = each(s.prompt);
    b.digits = each(s.digits);
    b.signs = each(s.signs);
    b.answers = each(s.answers);
    b.number_start = each(s.number_start);
    return b;
}

}  // namespace

nlohmann::json NumberScheme::evaluate(FoneTransformer& model, const Batch& data, const torch::Device& device,
                                      std::size_t max_wrong) const {
    torch::NoGradGuard no_grad;
    model->eval();
    const auto t0 = Clock::now();
    const double cpu0 = process_cpu_seconds();
    AnswerScores scores(digit_spec(), max_wrong);
    for (int64_t start = 0; start < data.n; start += kEvalBatchSize) {
        const int64_t len = std::min(kEvalBatchSize, data.n - start);
        const auto rows = torch::arange(start, start + len, torch::kInt64);
        const std::vector<Answer> answers = answer(model, to_device(select_rows(data, rows), device));
        for (int64_t i = 0; i < len; ++i) {
            const auto row = static_cast<std::size_t>(start + i);
            scores.add(data.answer_values[row], answers[static_cast<std::size_t>(i)], data.prompt_texts[row]);
        }
    }
    model->train();
    const double secs = seconds_since(t0);
    nlohmann::json out = scores.metrics();
    out["eval_seconds"] = secs;
    out["eval_cpu_seconds"] = process_cpu_seconds() - cpu0;
    out["eval_examples_per_second"] = static_cast<double>(data.n) / std::max(secs, 1e-9);
    return out;
}

Batch NumberScheme::encode_parsed_prompt(const ParsedPrompt& prompt) const {
    // A scheme whose words are not built from prompt terms reads the text as encode_prompt always has.
    return encode_prompt(prompt.text);
}

int64_t NumberScheme::sequence_length(const Batch& split) const {
    return split.in.tokens.defined() ? split.in.tokens.size(1) : 0;
}

Batch select_rows(const Batch& s, const torch::Tensor& rows) {
    Batch b = with_each_tensor(s, [&](const torch::Tensor& t) { return t.index_select(0, rows); });
    b.n = rows.size(0);
    return b;
}

Batch to_device(const Batch& s, const torch::Device& device) {
    Batch d = with_each_tensor(s, [&](const torch::Tensor& t) { return t.to(device); });
    d.answer_values = s.answer_values;
    d.prompt_texts = s.prompt_texts;
    d.answer_texts = s.answer_texts;
    return d;
}

std::vector<Decimal> read_numbers(const DigitPrediction& r, const FoneSpec& slots) {
    // Plain pointers into CPU tensors: a tensor op per example (digits[i].item()) cost as much as a
    // quarter of the forward pass of a batch.
    const auto digits = r.digits.to(torch::kCPU).contiguous();  // [N, slots]
    const auto negative = r.negative.to(torch::kCPU).contiguous();
    const int64_t n = digits.size(0), width = digits.size(1);
    const int64_t* d = digits.data_ptr<int64_t>();
    const bool* neg = negative.data_ptr<bool>();
    std::vector<Decimal> out;
    out.reserve(static_cast<std::size_t>(n));
    std::vector<int> row(static_cast<std::size_t>(width));
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t k = 0; k < width; ++k)
            row[static_cast<std::size_t>(k)] = static_cast<int>(d[i * width + k]);
        out.push_back(assemble_digits(row, neg[i], slots));
    }
    return out;
}

int64_t tokens_per_number(const NumberScheme& scheme, const std::vector<Example>& examples) {
    int64_t most = 0;
    for (const Example& e : examples)
        for (const Decimal& x : e.operands)
            most = std::max(most, scheme.tokens_for(x));
    return most;
}

namespace {

// The scheme families (fone/store/methods.h's `scheme` column) and what builds each.
std::vector<std::pair<std::string, SchemeFactory>>& scheme_factories() {
    static std::vector<std::pair<std::string, SchemeFactory>> families = {
        {"number-token", make_number_token_scheme},
        {"tokens", make_token_scheme},
        {kAdapterFamily, make_adapter_scheme},
    };
    return families;
}

}  // namespace

void add_scheme_family(const std::string& family, SchemeFactory factory) {
    for (const auto& [name, f] : scheme_factories())
        if (name == family)
            throw std::invalid_argument("a scheme family named '" + family + "' exists already");
    scheme_factories().emplace_back(family, std::move(factory));
}

std::unique_ptr<NumberScheme> make_scheme(const TrainConfig& config, const FoneSpec& spec,
                                          const std::vector<Op>& extra_ops) {
    const NumberMethod* method = find_number_method(config.method);
    if (!method) throw std::invalid_argument("method: unknown method '" + config.method + "'");
    for (const auto& [family, factory] : scheme_factories())
        if (family == method->scheme) return factory(config, spec, extra_ops);
    throw std::invalid_argument("method " + config.method + ": no scheme family '" + method->scheme + "'");
}

namespace {

// The number heads, each defined in its method's own file.
const NumberHeadMaker* head_maker(const std::string& method) {
    for (const NumberHeadMaker* m :
         {&fone_head_maker(), &fone_direct_head_maker(), &xval_head_maker(), &bittokens_head_maker()})
        if (m->method == method) return m;
    return nullptr;
}

}  // namespace

bool has_number_head(const std::string& method) {
    return head_maker(method) != nullptr;
}

std::unique_ptr<NumberHead> make_number_head(const HeadSettings& settings) {
    const NumberHeadMaker* m = head_maker(settings.config.method);
    if (!m)
        throw std::invalid_argument(
            "method " + settings.config.method +
            ": no number head is defined for it (its numbers are not one [NUM] token)");
    return m->make(settings);
}

}  // namespace fone
