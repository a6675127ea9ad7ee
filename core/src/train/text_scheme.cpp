#include "train/text_scheme.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>

#include "fone/numbers/number_parser.h"
#include "train/scheme_parts.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;
using Clock = std::chrono::steady_clock;
using nlohmann::json;
namespace tt = text_token;

constexpr int64_t kIgnore = -100;
constexpr int64_t kEvalRows = 128;      // sequences per teacher-forced evaluation batch
constexpr int64_t kGenerateRows = 256;  // prompts per generation batch in evaluation

}  // namespace

TextSplits load_text_splits(const TrainConfig& c) {
    if (c.text_task == "text") {
        const std::vector<TextExample> examples = read_text_file(c.task.data_file);
        if (examples.empty()) throw TextDataError(c.task.data_file + ": no examples (the file is empty)");
        return split_text_examples(examples, c.train_size, c.val_size, c.test_size, c.seed);
    }
    return generate_text_splits(text_task_from_name(c.text_task), c.train_size, c.val_size, c.test_size,
                                c.seed);
}

TextTokenSums text_token_sums(const torch::Tensor& logits, const torch::Tensor& targets, int pieces) {
    const auto nll =
        F::cross_entropy(logits.to(torch::kFloat32).reshape({-1, logits.size(-1)}), targets.reshape({-1}),
                         F::CrossEntropyFuncOptions().ignore_index(kIgnore).reduction(torch::kNone))
            .reshape(targets.sizes())
            .to(torch::kFloat64);
    const auto valid = targets.ne(kIgnore);
    const auto number = valid.logical_and(targets.eq(tt::kNum).logical_or(targets.ge(pieces)));
    const auto text = valid.logical_and(number.logical_not());
    TextTokenSums s;
    s.text_nll = (nll * text).sum().item<double>();
    s.text_tokens = text.sum().item<int64_t>();
    s.all_nll = (nll * valid).sum().item<double>();
    s.all_tokens = valid.sum().item<int64_t>();
    return s;
}

FoneSpec text_spec(const TrainConfig& c) {
    FoneSpec spec;
    spec.base = 10;
    spec.multipliers.clear();
    spec.sign_feature = true;
    spec.int_digits = c.int_digits;
    spec.frac_digits = c.frac_digits;
    if (spec.int_digits < 0 || spec.frac_digits < 0)
        throw std::invalid_argument("text run: the config records no digit slots (int_digits, frac_digits)");
    spec.validate();
    return spec;
}

FoneSpec text_spec(const TrainConfig& c, const TextSplits& s) {
    int m = 1, n = 0;
    for (const auto* split : {&s.train, &s.val, &s.test})
        for (const TextExample& e : *split)
            for (const std::string* text : {&e.prompt, &e.answer})
                for (const ParsedNumber& x : parse_numbers(*text).numbers) {
                    m = std::max(m, x.value.int_digit_count());
                    n = std::max(n, x.value.frac_digit_count());
                }
    TrainConfig chosen = c;
    if (chosen.int_digits < 0) chosen.int_digits = m;
    if (chosen.frac_digits < 0) chosen.frac_digits = n;
    return text_spec(chosen);
}

void check_text_corpus(const TrainConfig& c) {
    const TextSplits s = load_text_splits(c);
    if (c.method != "fone") return;
    const FoneSpec spec = text_spec(c, s);
    const std::pair<const char*, const std::vector<TextExample>*> splits[] = {
        {"train", &s.train}, {"val", &s.val}, {"test", &s.test}};
    for (const auto& [name, examples] : splits)
        for (std::size_t i = 0; i < examples->size(); ++i) {
            const TextExample& e = (*examples)[i];
            for (const std::string* text : {&e.prompt, &e.answer})
                for (const ParsedNumber& x : parse_numbers(*text).numbers) {
                    try {
                        check_fits(x.value, spec);
                    } catch (const NumberError& err) {
                        const std::string shown = e.prompt.empty() ? e.answer : e.prompt;
                        throw NumberError(std::string(name) + " split, example " + std::to_string(i + 1) +
                                          " (\"" + shown.substr(0, 40) +
                                          (shown.size() > 40 ? "...\"" : "\"") + "): " + err.what() +
                                          " (set by --int-digits/--frac-digits)");
                    }
                }
        }
}

TextLmScheme::TextLmScheme(TextTokenizer tokenizer, const FoneSpec& spec, const TrainConfig& config)
    : tokenizer_(std::move(tokenizer)),
      spec_(spec),
      plain_(spec),
      digit_loss_weight_(config.digit_loss_weight),
      loss_on_all_(config.text_loss != "answer") {
    plain_.multipliers.clear();
    vocabulary_.reserve(static_cast<std::size_t>(tokenizer_.vocab_size()));
    for (int id = 0; id < tokenizer_.vocab_size(); ++id)
        vocabulary_.push_back(tokenizer_.piece(id));
}

ModelHeads TextLmScheme::heads() const {
    ModelHeads h;
    h.digit_base = spec_.base;
    if (fone()) {
        h.fone_width = spec_.width();
        h.digit_slots = plain_.pair_count();
        h.sign_feature = spec_.sign_feature;
    }
    return h;
}

Batch TextLmScheme::encode(const std::vector<Example>&) const {
    throw std::logic_error("a text scheme encodes text examples (encode_text), not arithmetic ones");
}

int64_t TextLmScheme::tokens_for(const Decimal& x) const {
    EncodedText e = tokenizer_.encode(write_number(x, ""));
    return e.number_spans.empty() ? 0 : e.number_spans[0].end - e.number_spans[0].begin;
}

void TextLmScheme::fone_into(const Decimal& x, float* out, const std::string& where) const {
    try {
        check_fits(x, spec_);
    } catch (const NumberError& e) {
        throw NumberError(
            where + e.what() +
            " (a run's digit slots come from its training corpus, or --int-digits/--frac-digits)");
    }
    encode_into(x, spec_, out);
}

Batch TextLmScheme::encode_text(const std::vector<TextExample>& examples) const {
    std::vector<EncodedText> rows;
    rows.reserve(examples.size());
    std::size_t longest = 1;
    for (const TextExample& e : examples) {
        rows.push_back(tokenizer_.encode(e));
        longest = std::max(longest, rows.back().ids.size());
    }
    const int64_t n = static_cast<int64_t>(rows.size()), l = static_cast<int64_t>(longest);
    const int64_t slots = plain_.pair_count(), w = spec_.width();
    Batch b;
    b.n = n;
    b.in.tokens = torch::full({n, l}, static_cast<int64_t>(tt::kPad), torch::kInt64);
    b.targets = torch::full({n, l}, kIgnore, torch::kInt64);
    b.number_start = torch::zeros({n, l}, torch::kBool);
    auto* tok = b.in.tokens.data_ptr<int64_t>();
    auto* tgt = b.targets.data_ptr<int64_t>();
    auto* start = b.number_start.data_ptr<bool>();
    float* f = nullptr;
    uint8_t *dg = nullptr, *sg = nullptr;
    if (fone()) {
        b.in.fone = torch::zeros({n, l, w}, torch::kFloat32);
        // Bytes: a large corpus keeps a label per position (converted per batch in the loss).
        b.digits = torch::zeros({n, l, slots}, torch::kUInt8);
        b.signs = torch::zeros({n, l}, torch::kUInt8);
        f = b.in.fone.data_ptr<float>();
        dg = b.digits.data_ptr<uint8_t>();
        sg = b.signs.data_ptr<uint8_t>();
    }
    for (int64_t i = 0; i < n; ++i) {
        const EncodedText& e = rows[static_cast<std::size_t>(i)];
        const int64_t len = static_cast<int64_t>(e.ids.size());
        for (int64_t t = 0; t < len; ++t) {
            tok[i * l + t] = e.ids[static_cast<std::size_t>(t)];
            if (t + 1 < len && (loss_on_all_ || e.answer_mask[static_cast<std::size_t>(t + 1)]))
                tgt[i * l + t] = e.ids[static_cast<std::size_t>(t + 1)];
        }
        for (std::size_t k = 0; k < e.number_spans.size(); ++k) {
            const int64_t at = e.number_spans[k].begin;  // the number's first token; its target sits before
            if (tgt[i * l + at - 1] != kIgnore) start[i * l + at - 1] = true;
            if (!fone()) continue;
            const Decimal& x = e.numbers[k];
            const TextExample& ex = examples[static_cast<std::size_t>(i)];
            const std::string text = ex.prompt.empty() ? ex.answer : ex.prompt;
            fone_into(x, f + (i * l + at) * w,
                      "example " + std::to_string(i + 1) + " (\"" + text.substr(0, 40) +
                          (text.size() > 40 ? "...\"" : "\"") + "): ");
            const auto digits = label_digits(x, plain_);
            std::transform(digits.begin(), digits.end(), dg + (i * l + at - 1) * slots,
                           [](int d) { return static_cast<uint8_t>(d); });
            sg[i * l + at - 1] = x.negative() ? 1 : 0;
        }
        b.prompt_texts.push_back(examples[static_cast<std::size_t>(i)].prompt);
        b.answer_texts.push_back(examples[static_cast<std::size_t>(i)].answer);
    }
    if (fone()) b.in.num_mask = b.in.tokens.eq(tt::kNum);
    return b;
}

EncodedText TextLmScheme::prompt_tokens(const std::string& prompt, bool answer_follows) const {
    EncodedText body = tokenizer_.encode(prompt);
    EncodedText out;
    out.ids.push_back(tt::kBos);
    out.ids.insert(out.ids.end(), body.ids.begin(), body.ids.end());
    for (const TokenSpan& s : body.number_spans)
        out.number_spans.push_back({s.begin + 1, s.end + 1});
    out.numbers = body.numbers;
    if (answer_follows) out.ids.push_back(tt::kAns);
    out.answer_mask.assign(out.ids.size(), 0);
    return out;
}

Batch TextLmScheme::encode_prompt(const std::string& prompt) const {
    const EncodedText e = prompt_tokens(prompt, false);
    const int64_t l = static_cast<int64_t>(e.ids.size()), w = spec_.width();
    Batch b;
    b.n = 1;
    std::vector<int64_t> ids(e.ids.begin(), e.ids.end());
    b.in.tokens = torch::tensor(ids, torch::kInt64).view({1, l});
    if (fone()) {
        b.in.fone = torch::zeros({1, l, w}, torch::kFloat32);
        for (std::size_t k = 0; k < e.number_spans.size(); ++k)
            fone_into(e.numbers[k], b.in.fone.data_ptr<float>() + e.number_spans[k].begin * w, "prompt: ");
        b.in.num_mask = b.in.tokens.eq(tt::kNum);
    }
    b.prompt = b.in.tokens;
    b.prompt_texts.push_back(prompt);
    return b;
}

torch::Tensor TextLmScheme::digit_loss(FoneTransformer& model, const torch::Tensor& h,
                                       const torch::Tensor& digits, const torch::Tensor& signs) const {
    // h [K, d], digits [K, slots], signs [K]: the mean over slots of the per-slot cross-entropy, the sign's
    // binary cross-entropy one more term (fone_scheme.cpp's number_loss).
    const int64_t slots = plain_.pair_count();
    const auto logits = model->digit_logits(h).to(torch::kFloat32);
    const auto per_digit = F::cross_entropy(logits.reshape({-1, spec_.base}), digits.reshape({-1}));
    const auto s = model->sign_logit(h);
    if (!s.defined()) return per_digit;
    const auto sign = F::binary_cross_entropy_with_logits(s.to(torch::kFloat32), signs.to(torch::kFloat32));
    return (per_digit * slots + sign) / (slots + 1);
}

torch::Tensor TextLmScheme::loss(FoneTransformer& model, const Batch& b, bool) const {
    const auto h = model->forward(b.in, /*last_only=*/false);  // [B, L, d]
    const auto logits = model->lm_logits(h).to(torch::kFloat32);
    const auto lm = F::cross_entropy(logits.reshape({-1, logits.size(-1)}), b.targets.reshape({-1}),
                                     F::CrossEntropyFuncOptions().ignore_index(kIgnore));
    if (!fone() || digit_loss_weight_ == 0) return lm;
    const auto at = b.targets.eq(tt::kNum);
    if (!at.any().item<bool>()) return lm;
    return lm + digit_loss_weight_ * digit_loss(model, h.index({at}), b.digits.index({at}).to(torch::kInt64),
                                                b.signs.index({at}));
}

Decimal TextLmScheme::read_value(FoneTransformer& model, const torch::Tensor& h_row) const {
    const auto digits = model->digit_logits(h_row).argmax(-1).to(torch::kCPU);  // [slots]
    std::vector<int> row(static_cast<std::size_t>(digits.size(0)));
    for (int64_t k = 0; k < digits.size(0); ++k)
        row[static_cast<std::size_t>(k)] = static_cast<int>(digits[k].item<int64_t>());
    const auto s = model->sign_logit(h_row);
    return assemble_digits(row, s.defined() && s.item<double>() > 0, plain_);
}

std::vector<Generation> TextLmScheme::generate(
    FoneTransformer& model, const std::vector<EncodedText>& prompts, const GenerateOptions& o,
    const std::function<void(std::size_t, const GeneratedToken&)>& on_token) const {
    torch::NoGradGuard no_grad;
    const torch::Device device = model->embed->weight.device();
    const int64_t n = static_cast<int64_t>(prompts.size()), w = spec_.width();
    std::vector<Generation> out(prompts.size());
    if (n == 0) return out;
    std::size_t longest = 0, shortest = SIZE_MAX;
    for (const EncodedText& p : prompts) {
        longest = std::max(longest, p.ids.size());
        shortest = std::min(shortest, p.ids.size());
    }
    const int64_t lp = static_cast<int64_t>(longest);
    if (lp >= model->config.max_seq)
        throw std::invalid_argument("the prompt has " + std::to_string(lp) +
                                    " tokens; this model reads at most " +
                                    std::to_string(model->config.max_seq - 1) + " before it writes");
    // Left-padded prompts; the key mask hides the padding (undefined when no row is padded).
    auto tokens = torch::full({n, lp}, static_cast<int64_t>(tt::kPad), torch::kInt64);
    auto* tok = tokens.data_ptr<int64_t>();
    torch::Tensor fone_in;
    if (fone()) fone_in = torch::zeros({n, lp, w}, torch::kFloat32);
    bool answer_follows = false;
    for (int64_t i = 0; i < n; ++i) {
        const EncodedText& p = prompts[static_cast<std::size_t>(i)];
        const int64_t offset = lp - static_cast<int64_t>(p.ids.size());
        for (std::size_t t = 0; t < p.ids.size(); ++t)
            tok[i * lp + offset + static_cast<int64_t>(t)] = p.ids[t];
        answer_follows = answer_follows || (!p.ids.empty() && p.ids.back() == tt::kAns);
        if (!fone()) continue;
        for (std::size_t k = 0; k < p.number_spans.size(); ++k)
            fone_into(p.numbers[k],
                      fone_in.data_ptr<float>() + (i * lp + offset + p.number_spans[k].begin) * w,
                      "prompt: ");
    }
    torch::Tensor key_mask;
    if (shortest != longest) key_mask = tokens.ne(tt::kPad).to(device);
    ModelInputs all{tokens.to(device),
                    key_mask,
                    fone() ? fone_in.to(device) : torch::Tensor(),
                    fone() ? tokens.eq(tt::kNum).to(device) : torch::Tensor(),
                    {},
                    {}};
    ModelInputs step_in = all;
    // Tokens never written: padding, [BOS], [UNK], and [ANS] after an answer began.
    const int64_t vocab = static_cast<int64_t>(vocabulary_.size());
    auto banned = torch::zeros({vocab}, torch::kBool);
    for (const int id : {tt::kPad, tt::kBos, tt::kUnk})
        banned[id] = true;
    if (answer_follows) banned[tt::kAns] = true;
    banned = banned.to(device);
    std::mt19937_64 rng(o.seed);
    std::vector<bool> done(prompts.size(), false);
    KvCache cache;
    int64_t length = lp;
    for (int step = 0; step < o.max_tokens; ++step) {
        const auto h = model->forward(step_in, /*last_only=*/true, nullptr, o.use_cache ? &cache : nullptr)
                           .squeeze(1);  // [n, d]
        const auto logits = model->lm_logits(h).to(torch::kFloat32).masked_fill(banned, -INFINITY);
        const auto probs = torch::softmax(logits, -1).to(torch::kCPU).contiguous();
        std::vector<int64_t> chosen(static_cast<std::size_t>(n));
        if (o.temperature <= 0) {
            const auto arg = logits.argmax(-1).to(torch::kCPU);
            for (int64_t i = 0; i < n; ++i)
                chosen[static_cast<std::size_t>(i)] = arg[i].item<int64_t>();
        } else {
            auto scaled = torch::softmax(logits / o.temperature, -1).to(torch::kCPU).to(torch::kFloat64);
            if (o.top_k > 0 && o.top_k < vocab) {
                const auto kth = std::get<0>(scaled.topk(o.top_k, -1)).select(-1, o.top_k - 1).unsqueeze(-1);
                scaled = torch::where(scaled.lt(kth), torch::zeros_like(scaled), scaled);
            }
            scaled = (scaled / scaled.sum(-1, true)).contiguous();
            for (int64_t i = 0; i < n; ++i) {
                const double* p = scaled[i].data_ptr<double>();
                // Inverse CDF with a 53-bit uniform from the raw engine (portable across libraries).
                const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
                double acc = 0.0;
                int64_t pick = vocab - 1;
                for (int64_t v = 0; v < vocab; ++v) {
                    acc += p[v];
                    if (u < acc && p[v] > 0) {
                        pick = v;
                        break;
                    }
                }
                while (pick > 0 && p[pick] == 0)
                    --pick;
                chosen[static_cast<std::size_t>(i)] = pick;
            }
        }
        auto next = torch::full({n, 1}, static_cast<int64_t>(tt::kPad), torch::kInt64);
        auto* nx = next.data_ptr<int64_t>();
        const float* pr = probs.data_ptr<float>();
        torch::Tensor next_fone;
        if (fone()) next_fone = torch::zeros({n, 1, w}, torch::kFloat32);
        bool all_done = true;
        for (int64_t i = 0; i < n; ++i) {
            const std::size_t r = static_cast<std::size_t>(i);
            if (done[r]) continue;
            GeneratedToken g;
            g.id = static_cast<int>(chosen[r]);
            g.probability = pr[i * vocab + chosen[r]];
            if (fone() && g.id == tt::kNum) {
                g.value = read_value(model, h[i]);
                encode_into(*g.value, spec_, next_fone.data_ptr<float>() + i * w);
                out[r].values.push_back(*g.value);
            }
            out[r].ids.push_back(g.id);
            out[r].probabilities.push_back(g.probability);
            nx[i] = chosen[r];
            if (on_token) on_token(r, g);
            if (g.id == tt::kEos) {
                done[r] = true;
                out[r].ended = true;
            } else {
                all_done = false;
            }
        }
        if (all_done || step + 1 == o.max_tokens) break;
        if (length + 1 > model->config.max_seq) {
            for (std::size_t r = 0; r < out.size(); ++r)
                if (!done[r]) out[r].out_of_positions = true;
            break;
        }
        ++length;
        const auto next_dev = next.to(device);
        const auto next_num = fone() ? next_dev.eq(tt::kNum) : torch::Tensor();
        const auto next_fone_dev = fone() ? next_fone.to(device) : torch::Tensor();
        if (key_mask.defined()) key_mask = torch::cat({key_mask, torch::ones({n, 1}, key_mask.options())}, 1);
        all.tokens = torch::cat({all.tokens, next_dev}, 1);
        all.key_mask = key_mask;
        if (fone()) {
            all.fone = torch::cat({all.fone, next_fone_dev}, 1);
            all.num_mask = torch::cat({all.num_mask, next_num}, 1);
        }
        step_in = o.use_cache ? ModelInputs{next_dev, key_mask, next_fone_dev, next_num, {}, {}} : all;
    }
    return out;
}

std::string TextLmScheme::generated_text(const Generation& g) const {
    std::vector<int> ids = g.ids;
    if (!ids.empty() && ids.back() == tt::kEos) ids.pop_back();
    return tokenizer_.decode(ids, g.values);
}

std::vector<Answer> TextLmScheme::answer(FoneTransformer& model, const Batch& b) const {
    std::vector<EncodedText> prompts;
    for (const std::string& p : b.prompt_texts)
        prompts.push_back(prompt_tokens(p, !p.empty()));
    GenerateOptions o;
    std::vector<Answer> out;
    for (const Generation& g : generate(model, prompts, o)) {
        const ParsedText parsed = parse_numbers(generated_text(g));
        out.push_back(parsed.numbers.empty() ? Answer() : Answer(parsed.numbers[0].value));
    }
    return out;
}

json TextLmScheme::explain(FoneTransformer& model, const Batch& prompt) const {
    torch::NoGradGuard no_grad;
    const auto h = model->forward(prompt.in, /*last_only=*/true).squeeze(1);
    const auto probs = torch::softmax(model->lm_logits(h)[0].to(torch::kFloat32), -1).to(torch::kCPU);
    const auto top = probs.topk(std::min<int64_t>(5, probs.size(0)));
    json next = json::array();
    for (int64_t k = 0; k < std::get<1>(top).size(0); ++k) {
        const int64_t id = std::get<1>(top)[k].item<int64_t>();
        next.push_back({{"token", vocabulary_[static_cast<std::size_t>(id)]},
                        {"probability", std::get<0>(top)[k].item<double>()}});
    }
    json out = {{"next_tokens", next}, {"next_token", next[0]["token"]}};
    if (fone()) out["value"] = read_value(model, h[0]).to_string();
    return out;
}

json TextLmScheme::evaluate(FoneTransformer& model, const Batch& data, const torch::Device& device,
                            std::size_t max_wrong) const {
    torch::NoGradGuard no_grad;
    model->eval();
    const auto t0 = Clock::now();
    const int pieces = tokenizer_.text_piece_count();
    // ---- teacher-forced: cross-entropies and the next number at its place -------------------------
    double text_nll = 0, all_nll = 0;
    int64_t text_count = 0, all_count = 0, numbers_forced = 0, numbers_forced_right = 0;
    for (int64_t from = 0; from < data.n; from += kEvalRows) {
        const int64_t len = std::min(kEvalRows, data.n - from);
        const Batch b = to_device(select_rows(data, torch::arange(from, from + len, torch::kInt64)), device);
        const auto h = model->forward(b.in, /*last_only=*/false);
        const auto logits = model->lm_logits(h).to(torch::kFloat32);
        const TextTokenSums sums = text_token_sums(logits, b.targets, pieces);
        text_nll += sums.text_nll;
        text_count += sums.text_tokens;
        all_nll += sums.all_nll;
        all_count += sums.all_tokens;
        const auto argmax = logits.argmax(-1).to(torch::kCPU).contiguous();
        const auto targets = b.targets.to(torch::kCPU).contiguous();
        const auto starts = b.number_start.to(torch::kCPU).contiguous();
        const int64_t l = targets.size(1);
        const auto* am = argmax.data_ptr<int64_t>();
        const auto* tg = targets.data_ptr<int64_t>();
        const auto* st = starts.data_ptr<bool>();
        torch::Tensor value_right;  // fone: the digit head right at every position (all digits and sign)
        if (fone()) {
            auto right = model->digit_logits(h).argmax(-1).eq(b.digits.to(torch::kInt64)).all(-1);
            const auto s = model->sign_logit(h);
            if (s.defined()) right = right.logical_and(s.gt(0).eq(b.signs.eq(1)));
            value_right = right.to(torch::kCPU).contiguous();
        }
        const bool* vr = fone() ? value_right.data_ptr<bool>() : nullptr;
        const auto is_number = [&](int64_t id) { return id == tt::kNum || id >= pieces; };
        for (int64_t i = 0; i < len; ++i)
            for (int64_t t = 0; t < l; ++t) {
                if (!st[i * l + t]) continue;
                ++numbers_forced;
                bool right;
                if (fone()) {
                    right = am[i * l + t] == tt::kNum && vr[i * l + t];
                } else {
                    int64_t u = t;
                    right = true;
                    for (; u < l && tg[i * l + u] != kIgnore && is_number(tg[i * l + u]) &&
                           (u == t || !st[i * l + u]);
                         ++u)
                        right = right && am[i * l + u] == tg[i * l + u];
                    // ... and then the model ends the number: its next token is not a number token.
                    right = right && (u >= l || !is_number(am[i * l + u]));
                }
                numbers_forced_right += right;
            }
    }
    // ---- free generation of every answer that has a prompt -----------------------------------------
    const int slots = spec_.int_digits + spec_.frac_digits;
    int64_t generated = 0, exact = 0, answer_exact = 0, malformed = 0, ref_numbers = 0, numbers_right = 0,
            digits_right = 0;
    json wrong = json::array();
    std::vector<double> relative_errors;  // |generated - reference| / |reference|, per reference number
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < data.prompt_texts.size(); ++i)
        if (!data.prompt_texts[i].empty()) rows.push_back(i);
    std::size_t longest_answer = 0;
    for (const std::size_t i : rows)
        longest_answer = std::max(longest_answer, tokenizer_.encode(data.answer_texts[i]).ids.size());
    GenerateOptions greedy;
    greedy.max_tokens = static_cast<int>(longest_answer) + 8;  // room for [EOS] and a longer answer
    for (std::size_t from = 0; from < rows.size(); from += kGenerateRows) {
        const std::size_t to = std::min(rows.size(), from + kGenerateRows);
        std::vector<EncodedText> prompts;
        for (std::size_t k = from; k < to; ++k)
            prompts.push_back(prompt_tokens(data.prompt_texts[rows[k]], true));
        const std::vector<Generation> gens = generate(model, prompts, greedy);
        for (std::size_t k = from; k < to; ++k) {
            const Generation& g = gens[k - from];
            const std::string& reference = data.answer_texts[rows[k]];
            const std::string text = generated_text(g);
            std::vector<Decimal> want, got;
            for (const ParsedNumber& x : parse_numbers(reference).numbers)
                want.push_back(x.value);
            for (const ParsedNumber& x : parse_numbers(text).numbers)
                got.push_back(x.value);
            ++generated;
            malformed += !g.ended;
            const bool all_right = g.ended && want == got;
            exact += all_right;
            answer_exact += g.ended && text == write_numbers(reference);
            ref_numbers += static_cast<int64_t>(want.size());
            for (std::size_t j = 0; j < want.size(); ++j) {
                if (j >= got.size()) {
                    relative_errors.push_back(INFINITY);  // a number the answer does not have
                    continue;
                }
                numbers_right += want[j] == got[j];
                const double w = want[j].to_double(), v = got[j].to_double();
                relative_errors.push_back(w == v ? 0.0 : std::fabs(v - w) / std::max(std::fabs(w), 1e-9));
                for (int p = -spec_.frac_digits; p < spec_.int_digits; ++p)
                    digits_right += want[j].digit(p) == got[j].digit(p);
            }
            if (!all_right && wrong.size() < max_wrong)
                wrong.push_back({{"prompt", data.prompt_texts[rows[k]]},
                                 {"expected", write_numbers(reference)},
                                 {"predicted", text}});
        }
    }
    model->train();
    // ---- token counts -------------------------------------------------------------------------------
    std::vector<TextExample> examples;
    for (std::size_t i = 0; i < data.answer_texts.size(); ++i)
        examples.push_back({data.prompt_texts[i], data.answer_texts[i]});
    const TokenCounts counts = count_tokens(tokenizer_, examples);
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    const auto within_1_percent =
        std::count_if(relative_errors.begin(), relative_errors.end(), [](double e) { return e <= 0.01; });
    json median_error = nullptr;  // null when there is no number (or the median answer has none)
    if (!relative_errors.empty()) {
        auto mid = relative_errors.begin() + static_cast<std::ptrdiff_t>(relative_errors.size() / 2);
        std::nth_element(relative_errors.begin(), mid, relative_errors.end());
        if (std::isfinite(*mid)) median_error = *mid;
    }
    const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    const double forced =
        ratio(static_cast<double>(numbers_forced_right), static_cast<double>(numbers_forced));
    json out = {
        {"n", data.n},
        {"generated", generated},
        {"exact_match", generated > 0 ? ratio(exact, generated) : forced},
        {"exact_match_of", generated > 0 ? "generated answers" : "next numbers, teacher-forced"},
        {"number_accuracy", ratio(numbers_right, ref_numbers)},
        {"number_within_1_percent", ratio(within_1_percent, static_cast<double>(relative_errors.size()))},
        {"number_relative_error_median", median_error},
        {"answer_exact_match", ratio(answer_exact, generated)},
        {"digit_accuracy", ratio(digits_right, static_cast<double>(ref_numbers) * slots)},
        {"malformed", malformed},
        {"next_number_exact_match", forced},
        {"text_perplexity", std::exp(ratio(text_nll, text_count))},
        {"text_tokens", text_count},
        {"loss", ratio(all_nll, all_count)},
        {"perplexity", std::exp(ratio(all_nll, all_count))},
        {"tokens_per_example", counts.tokens_per_example()},
        {"tokens_per_number", counts.tokens_per_number()},
        {"numbers", counts.numbers},
        {"eval_seconds", secs},
        {"eval_examples_per_second", ratio(static_cast<double>(data.n), secs)}};
    if (max_wrong > 0) out["mispredictions"] = wrong;
    return out;
}

}  // namespace fone
