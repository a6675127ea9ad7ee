#include "train/scheme.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "fone/tasks/expression.h"
#include "train/scheme_parts.h"

namespace fone {

// Defined in fone_scheme.cpp and token_schemes.cpp.
std::unique_ptr<NumberScheme> make_number_token_scheme(const TrainConfig& config, const FoneSpec& spec);
std::unique_ptr<NumberScheme> make_token_scheme(const TrainConfig& config, const FoneSpec& spec);

namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kEvalBatchSize = 4096;  // examples per evaluation batch (generation included)

// The vocabulary lists the operators in Op order from kPlus, then "=".
static_assert(kPlus + static_cast<int64_t>(kOps.size()) == kEquals);

int64_t op_token(Op op) {
    return kPlus + static_cast<int64_t>(op);
}

}  // namespace

const std::vector<std::string>& base_vocabulary() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v = {"[PAD]", "[BOS]", "[EOS]", "[NUM]"};
        for (const Op op : kOps)
            v.emplace_back(op_name(op));
        v.emplace_back(kEqualsSign);
        return v;
    }();
    return names;
}

std::vector<PromptItem> example_items(const Example& e) {
    std::vector<PromptItem> items = {{kBos, {}}};
    for (std::size_t i = 0; i < e.operands.size(); ++i) {
        if (i > 0) {
            const auto op = op_named(e.ops[i - 1]);
            if (!op) throw std::invalid_argument("no token for the operator '" + e.ops[i - 1] + "'");
            items.push_back({op_token(*op), {}});
        }
        items.push_back({kNum, e.operands[i]});
    }
    items.push_back({kEquals, {}});
    return items;
}

std::vector<PromptItem> prompt_items(const std::string& prompt) {
    std::vector<PromptItem> items = {{kBos, {}}};
    for (const PromptTerm& t : parse_prompt(prompt))
        switch (t.kind) {
            case PromptTerm::Kind::number:
                items.push_back({kNum, t.number});
                break;
            case PromptTerm::Kind::op:
                items.push_back({op_token(t.op), {}});
                break;
            case PromptTerm::Kind::equals:
                items.push_back({kEquals, {}});
                break;
        }
    return items;
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

nlohmann::json NumberScheme::evaluate(FoneTransformer& model, const Batch& data, const torch::Device& device,
                                      std::size_t max_wrong) const {
    using nlohmann::json;
    const FoneSpec& spec = digit_spec();
    json wrong = json::array();
    torch::NoGradGuard no_grad;
    model->eval();
    const auto t0 = Clock::now();
    const double cpu0 = process_cpu_seconds();
    const int64_t slots = spec.int_digits + spec.frac_digits;  // digit positions, whatever the periods
    int64_t exact = 0, digits_right = 0, malformed = 0;
    std::vector<int64_t> right_per_slot(static_cast<std::size_t>(slots), 0);
    double sse = 0.0, sum = 0.0, sum_sq = 0.0;
    for (int64_t start = 0; start < data.n; start += kEvalBatchSize) {
        const int64_t len = std::min(kEvalBatchSize, data.n - start);
        const auto rows = torch::arange(start, start + len, torch::kInt64);
        const std::vector<Answer> answers = answer(model, to_device(select_rows(data, rows), device));
        for (int64_t i = 0; i < len; ++i) {
            const Decimal& truth = data.answer_values[static_cast<std::size_t>(start + i)];
            const Answer& got = answers[static_cast<std::size_t>(i)];
            if (!got) ++malformed;
            const bool right = got && *got == truth;
            exact += right;
            if (!right && wrong.size() < max_wrong)
                wrong.push_back({{"prompt", data.prompt_texts[static_cast<std::size_t>(start + i)]},
                                 {"expected", truth.to_string()},
                                 {"predicted", got ? got->to_string() : ""}});
            for (int64_t k = 0; k < slots; ++k) {
                const int p = static_cast<int>(k - spec.frac_digits);
                const bool right = got && got->digit(p) == truth.digit(p);
                digits_right += right;
                right_per_slot[static_cast<std::size_t>(k)] += right;
            }
            const double y = truth.to_double(), v = got ? got->to_double() : 0.0;
            sse += (v - y) * (v - y);
            sum += y;
            sum_sq += y * y;
        }
    }
    model->train();
    const double n = static_cast<double>(data.n),
                 secs = std::chrono::duration<double>(Clock::now() - t0).count();
    const double sst = sum_sq - sum * sum / n;
    json per_position = json::object();
    for (int64_t k = 0; k < slots; ++k)
        per_position[std::to_string(k - spec.frac_digits)] = right_per_slot[static_cast<std::size_t>(k)] / n;
    json out = {{"n", data.n},
                {"exact_match", exact / n},
                {"digit_accuracy", digits_right / (n * slots)},
                {"digit_accuracy_by_position", per_position},
                {"malformed", malformed},
                {"r2", sst > 0 ? 1.0 - sse / sst : (sse == 0 ? 1.0 : 0.0)},
                {"rmse", std::sqrt(sse / n)},
                {"eval_seconds", secs},
                {"eval_cpu_seconds", process_cpu_seconds() - cpu0},
                {"eval_examples_per_second", n / std::max(secs, 1e-9)}};
    if (max_wrong > 0) out["mispredictions"] = wrong;
    return out;
}

int64_t NumberScheme::sequence_length(const Batch& split) const {
    return split.in.tokens.defined() ? split.in.tokens.size(1) : 0;
}

Batch select_rows(const Batch& s, const torch::Tensor& rows) {
    auto pick = [&](const torch::Tensor& t) { return t.defined() ? t.index_select(0, rows) : t; };
    Batch b;
    b.n = rows.size(0);
    b.in = {pick(s.in.tokens),   pick(s.in.key_mask), pick(s.in.fone),
            pick(s.in.num_mask), pick(s.in.scale),    pick(s.in.positions)};
    b.targets = pick(s.targets);
    b.prompt = pick(s.prompt);
    b.digits = pick(s.digits);
    b.signs = pick(s.signs);
    b.answers = pick(s.answers);
    b.number_start = pick(s.number_start);
    return b;
}

Batch to_device(const Batch& s, const torch::Device& device) {
    auto move = [&](const torch::Tensor& t) { return t.defined() ? t.to(device) : t; };
    Batch d;
    d.n = s.n;
    d.in = {move(s.in.tokens),   move(s.in.key_mask), move(s.in.fone),
            move(s.in.num_mask), move(s.in.scale),    move(s.in.positions)};
    d.targets = move(s.targets);
    d.prompt = move(s.prompt);
    d.digits = move(s.digits);
    d.signs = move(s.signs);
    d.answers = move(s.answers);
    d.number_start = move(s.number_start);
    d.answer_values = s.answer_values;
    d.prompt_texts = s.prompt_texts;
    d.answer_texts = s.answer_texts;
    return d;
}

std::unique_ptr<NumberScheme> make_scheme(const TrainConfig& config, const FoneSpec& spec) {
    const std::string& m = config.method;
    if (m == "fone" || m == "fone-direct" || m == "xval") return make_number_token_scheme(config, spec);
    if (m == "digit" || m == "subword" || m == "ntl" || m == "abacus" || m == "fone+abacus")
        return make_token_scheme(config, spec);
    throw std::invalid_argument("method: unknown method '" + m + "'");
}

}  // namespace fone
