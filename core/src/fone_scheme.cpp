#include "fone_scheme.h"

#include <algorithm>
#include <stdexcept>

#include "fone/number_parser.h"

namespace fone {
namespace {

int64_t op_token(const std::string& op) {
    if (op == "+") return kPlus;
    if (op == "-") return kMinus;
    if (op == "*") return kTimes;
    if (op == ",") return kComma;
    if (op == "mod") return kMod;
    throw std::invalid_argument("no token for the operator '" + op + "'");
}

std::vector<int64_t> example_tokens(const Example& e) {
    std::vector<int64_t> t = {kBos};
    for (std::size_t i = 0; i < e.operands.size(); ++i) {
        if (i > 0) t.push_back(op_token(e.ops[i - 1]));
        t.push_back(kNum);
    }
    t.push_back(kEquals);
    return t;
}

// Builds the tensors from token rows (left-padded to the longest) and their numbers.
EncodedSplit build(const std::vector<std::vector<int64_t>>& rows,
                   const std::vector<std::vector<Decimal>>& numbers, const FoneSpec& spec) {
    const int64_t n = static_cast<int64_t>(rows.size());
    std::size_t longest = 0;
    for (const auto& r : rows)
        longest = std::max(longest, r.size());
    const int64_t l = static_cast<int64_t>(longest), w = spec.width();
    EncodedSplit s;
    s.n = n;
    s.tokens = torch::full({n, l}, static_cast<int64_t>(kPad), torch::kInt64);
    s.fone = torch::zeros({n, l, w}, torch::kFloat32);
    s.num_mask = torch::zeros({n, l}, torch::kBool);
    bool padded = false;
    auto* tok = s.tokens.data_ptr<int64_t>();
    auto* fone = s.fone.data_ptr<float>();
    auto* mask = s.num_mask.data_ptr<bool>();
    for (int64_t i = 0; i < n; ++i) {
        const int64_t offset = l - static_cast<int64_t>(rows[i].size());
        padded = padded || offset > 0;
        std::size_t next_number = 0;
        for (std::size_t j = 0; j < rows[i].size(); ++j) {
            const int64_t pos = i * l + offset + static_cast<int64_t>(j);
            tok[pos] = rows[i][j];
            if (rows[i][j] != kNum) continue;
            const Decimal& x = numbers[i].at(next_number++);
            check_fits(x, spec);
            encode_into(x, spec, fone + pos * w);
            mask[pos] = true;
        }
    }
    if (padded) s.key_mask = s.tokens.ne(kPad);
    return s;
}

}  // namespace

const std::vector<std::string>& vocab_names() {
    static const std::vector<std::string> names = {"[PAD]", "[BOS]", "[EOS]", "[NUM]", "+",
                                                   "-",     "*",     ",",     "mod",   "="};
    return names;
}

EncodedSplit encode_examples(const std::vector<Example>& examples, const FoneSpec& spec) {
    std::vector<std::vector<int64_t>> rows;
    std::vector<std::vector<Decimal>> numbers;
    rows.reserve(examples.size());
    numbers.reserve(examples.size());
    for (const Example& e : examples) {
        rows.push_back(example_tokens(e));
        numbers.push_back(e.operands);
    }
    EncodedSplit s = build(rows, numbers, spec);
    const int64_t n = s.n, slots = spec.pair_count();
    s.digits = torch::empty({n, slots}, torch::kInt64);
    s.signs = torch::empty({n}, torch::kInt64);
    s.answers = torch::empty({n}, torch::kFloat64);
    auto* d = s.digits.data_ptr<int64_t>();
    auto* sg = s.signs.data_ptr<int64_t>();
    auto* a = s.answers.data_ptr<double>();
    s.answer_values.reserve(examples.size());
    for (int64_t i = 0; i < n; ++i) {
        const Decimal& y = examples[i].answer;
        const auto digits = label_digits(y, spec);  // checks that the answer fits
        std::copy(digits.begin(), digits.end(), d + i * slots);
        sg[i] = y.negative() ? 1 : 0;
        a[i] = y.to_double();
        s.answer_values.push_back(y);
    }
    return s;
}

TokenizedPrompt tokenize_prompt(const std::string& prompt) {
    const ParsedText parsed = parse_numbers(prompt);
    TokenizedPrompt out;
    out.tokens.push_back(kBos);
    std::size_t next_number = 0;
    const std::string& t = parsed.templ;
    auto known = [] {
        std::string list;
        for (const auto& v : vocab_names())
            if (v[0] != '[' || v == "[NUM]") list += (list.empty() ? "" : " ") + v;
        return list + " and numbers";
    };
    for (std::size_t i = 0; i < t.size();) {
        if (std::isspace(static_cast<unsigned char>(t[i]))) {
            ++i;
            continue;
        }
        if (t.compare(i, kNumPlaceholder.size(), kNumPlaceholder) == 0) {
            out.tokens.push_back(kNum);
            out.numbers.push_back(parsed.numbers[next_number++].value);
            i += kNumPlaceholder.size();
            continue;
        }
        // Operators, with the Unicode minus (U+2212) and times (U+00D7) as their ASCII forms.
        static const std::pair<std::string, int64_t> kWords[] = {
            {"mod", kMod},        {"\xE2\x88\x92", kMinus},
            {"\xC3\x97", kTimes}, {"+", kPlus},
            {"-", kMinus},        {"*", kTimes},
            {",", kComma},        {"=", kEquals}};
        bool matched = false;
        for (const auto& [word, id] : kWords)
            if (t.compare(i, word.size(), word) == 0) {
                out.tokens.push_back(id);
                i += word.size();
                matched = true;
                break;
            }
        if (!matched) {
            std::size_t end = i;
            while (end < t.size() && !std::isspace(static_cast<unsigned char>(t[end])))
                ++end;
            throw std::invalid_argument("the model has no token for '" + t.substr(i, end - i) +
                                        "' (it knows: " + known() + ")");
        }
    }
    if (out.numbers.empty()) throw std::invalid_argument("the prompt has no number");
    return out;
}

EncodedSplit encode_prompt(const TokenizedPrompt& prompt, const FoneSpec& spec) {
    return build({prompt.tokens}, {prompt.numbers}, spec);
}

EncodedSplit select_rows(const EncodedSplit& s, const torch::Tensor& rows) {
    EncodedSplit b;
    b.n = rows.size(0);
    b.tokens = s.tokens.index_select(0, rows);
    b.fone = s.fone.index_select(0, rows);
    b.num_mask = s.num_mask.index_select(0, rows);
    if (s.key_mask.defined()) b.key_mask = s.key_mask.index_select(0, rows);
    if (s.digits.defined()) b.digits = s.digits.index_select(0, rows);
    if (s.signs.defined()) b.signs = s.signs.index_select(0, rows);
    if (s.answers.defined()) b.answers = s.answers.index_select(0, rows);
    return b;
}

EncodedSplit to_device(const EncodedSplit& s, const torch::Device& device) {
    EncodedSplit d = s;
    auto move = [&](torch::Tensor& t) {
        if (t.defined()) t = t.to(device);
    };
    move(d.tokens);
    move(d.fone);
    move(d.num_mask);
    move(d.key_mask);
    move(d.digits);
    move(d.signs);
    move(d.answers);
    return d;
}

}  // namespace fone
