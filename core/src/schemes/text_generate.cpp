// TextLmScheme's generation (text_scheme.h): prompts left-padded, one token at a time with the KV cache,
// the tokens that would not be well-formed text banned, each [NUM]'s value from the method's number head fed
// back as its input; and what answer() and explain() build on it.
#include "schemes/text_scheme.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>

#include "fone/numbers/number_parser.h"
#include "nn/token_choice.h"

namespace fone {
namespace {

using nlohmann::json;
namespace tt = text_token;

bool fits_slots(const Decimal& x, const FoneSpec& spec) {
    try {
        check_fits(x, spec);
        return true;
    } catch (const NumberError&) {
        return false;
    }
}

}  // namespace

TextLmScheme::Generating TextLmScheme::start_generation(FoneTransformer& model,
                                                        const std::vector<EncodedText>& prompts) const {
    const torch::Device device = model->embed->weight.device();
    const int64_t n = static_cast<int64_t>(prompts.size()), w = feature_width();
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
    Batch inputs;
    inputs.in.tokens = torch::full({n, lp}, static_cast<int64_t>(tt::kPad), torch::kInt64);
    const torch::Tensor& tokens = inputs.in.tokens;
    auto* tok = tokens.data_ptr<int64_t>();
    const NumberLabels at = number_tensors(inputs);
    bool answer_follows = false;
    for (int64_t i = 0; i < n; ++i) {
        const EncodedText& p = prompts[static_cast<std::size_t>(i)];
        const int64_t offset = lp - static_cast<int64_t>(p.ids.size());
        for (std::size_t t = 0; t < p.ids.size(); ++t)
            tok[i * lp + offset + static_cast<int64_t>(t)] = p.ids[t];
        answer_follows = answer_follows || (!p.ids.empty() && p.ids.back() == tt::kAns);
        if (!number_token()) continue;
        for (std::size_t k = 0; k < p.number_spans.size(); ++k) {
            const int64_t q = i * lp + offset + p.number_spans[k].begin;
            number_input(p.numbers[k], at.features ? at.features + q * w : nullptr,
                         at.scale ? at.scale + q : nullptr, "prompt: ");
        }
    }
    Generating g;
    g.device = device;
    g.length = lp;
    const auto on_device = [&](const torch::Tensor& t) { return t.defined() ? t.to(device) : t; };
    g.all = {
        tokens.to(device),          shortest != longest ? tokens.ne(tt::kPad).to(device) : torch::Tensor(),
        on_device(inputs.in.fone),  number_token() ? tokens.eq(tt::kNum).to(device) : torch::Tensor(),
        on_device(inputs.in.scale), {}};
    // Tokens never written: padding, [BOS], [UNK], and [ANS] after an answer began.
    g.banned = torch::zeros({static_cast<int64_t>(vocabulary_.size())}, torch::kBool);
    for (const int id : {tt::kPad, tt::kBos, tt::kUnk})
        g.banned[id] = true;
    if (answer_follows) g.banned[tt::kAns] = true;
    g.banned = g.banned.to(device);
    g.done.assign(prompts.size(), false);
    for (const EncodedText& p : prompts)
        g.so_far.push_back(p.ids);
    return g;
}

bool TextLmScheme::take_tokens(
    FoneTransformer& model, const torch::Tensor& h, const std::vector<int64_t>& chosen,
    const torch::Tensor& probs, Generating& g, std::vector<Generation>& out,
    const std::function<void(std::size_t, const GeneratedToken&)>& on_token) const {
    const int64_t n = static_cast<int64_t>(chosen.size()), vocab = probs.size(1), w = feature_width();
    Batch next;
    next.in.tokens = torch::full({n, 1}, static_cast<int64_t>(tt::kPad), torch::kInt64);
    g.next = next.in.tokens;
    auto* nx = g.next.data_ptr<int64_t>();
    const float* pr = probs.data_ptr<float>();
    const NumberLabels at = number_tensors(next);
    g.next_fone = next.in.fone;
    g.next_scale = next.in.scale;
    // The values of the [NUM]s chosen at this step, read at once (one pass of the head).
    std::vector<int64_t> num_rows;
    for (int64_t i = 0; i < n; ++i)
        if (!g.done[static_cast<std::size_t>(i)] && number_token() &&
            chosen[static_cast<std::size_t>(i)] == tt::kNum)
            num_rows.push_back(i);
    const std::vector<std::optional<Decimal>> values =
        num_rows.empty()
            ? std::vector<std::optional<Decimal>>{}
            : read_values(model, h.index({torch::tensor(num_rows, torch::kInt64).to(h.device())}));
    std::size_t next_value = 0;
    bool all_done = true;
    for (int64_t i = 0; i < n; ++i) {
        const std::size_t r = static_cast<std::size_t>(i);
        if (g.done[r]) continue;
        GeneratedToken t;
        t.id = static_cast<int>(chosen[r]);
        t.probability = pr[i * vocab + chosen[r]];
        if (number_token() && t.id == tt::kNum) {
            t.value = values[next_value++];
            if (!t.value || !fits_slots(*t.value, spec_)) {
                t.value = Decimal();  // no number, or one the slots cannot take: written as 0, and counted
                ++out[r].unreadable_numbers;
            }
            number_input(*t.value, at.features ? at.features + i * w : nullptr,
                         at.scale ? at.scale + i : nullptr, "generated number: ");
            out[r].values.push_back(*t.value);
        }
        out[r].ids.push_back(t.id);
        out[r].probabilities.push_back(t.probability);
        g.so_far[r].push_back(t.id);
        nx[i] = chosen[r];
        if (on_token) on_token(r, t);
        if (t.id == tt::kEos) {
            g.done[r] = true;
            out[r].ended = true;
        } else {
            all_done = false;
        }
    }
    return all_done;
}

torch::Tensor TextLmScheme::banned_now(const Generating& g) const {
    const int64_t n = static_cast<int64_t>(g.so_far.size()), vocab = g.banned.size(0);
    auto rows = torch::zeros({n, vocab}, torch::kBool);
    auto* flags = rows.data_ptr<bool>();
    for (int64_t i = 0; i < n; ++i) {
        const std::vector<std::uint8_t> no =
            tokenizer_.not_allowed_after(g.so_far[static_cast<std::size_t>(i)]);
        for (int64_t v = 0; v < vocab; ++v)
            flags[i * vocab + v] = no[static_cast<std::size_t>(v)] != 0;
    }
    return rows.to(g.device).logical_or(g.banned.unsqueeze(0));
}

ModelInputs TextLmScheme::extend(Generating& g, bool use_cache) const {
    ++g.length;
    ModelInputs& all = g.all;
    const auto next = g.next.to(g.device);
    const auto on_device = [&](const torch::Tensor& t) { return t.defined() ? t.to(g.device) : t; };
    const auto next_num = number_token() ? next.eq(tt::kNum) : torch::Tensor();
    const auto next_fone = on_device(g.next_fone), next_scale = on_device(g.next_scale);
    if (all.key_mask.defined())
        all.key_mask = torch::cat({all.key_mask, torch::ones({next.size(0), 1}, all.key_mask.options())}, 1);
    all.tokens = torch::cat({all.tokens, next}, 1);
    if (next_fone.defined()) all.fone = torch::cat({all.fone, next_fone}, 1);
    if (next_scale.defined()) all.scale = torch::cat({all.scale, next_scale}, 1);
    if (number_token()) all.num_mask = torch::cat({all.num_mask, next_num}, 1);
    return use_cache ? ModelInputs{next, all.key_mask, next_fone, next_num, next_scale, {}} : all;
}

std::vector<Generation> TextLmScheme::generate(
    FoneTransformer& model, const std::vector<EncodedText>& prompts, const GenerateOptions& o,
    const std::function<void(std::size_t, const GeneratedToken&)>& on_token) const {
    torch::NoGradGuard no_grad;
    std::vector<Generation> out(prompts.size());
    if (prompts.empty()) return out;
    Generating g = start_generation(model, prompts);
    ModelInputs step_in = g.all;
    std::mt19937_64 rng(o.seed);
    KvCache cache;
    for (int step = 0; step < o.max_tokens; ++step) {
        const auto h = model->forward(step_in, /*last_only=*/true, nullptr, o.use_cache ? &cache : nullptr)
                           .squeeze(1);  // [n, d]
        const auto logits = model->lm_logits(h).to(torch::kFloat32).masked_fill(banned_now(g), -INFINITY);
        const auto probs = torch::softmax(logits, -1).to(torch::kCPU).contiguous();
        const bool all_done = take_tokens(model, h, choose_tokens(logits, o.temperature, o.top_k, rng), probs,
                                          g, out, on_token);
        if (all_done || step + 1 == o.max_tokens) break;
        if (g.length + 1 > model->config.max_seq) {
            for (std::size_t r = 0; r < out.size(); ++r)
                if (!g.done[r]) out[r].out_of_positions = true;
            break;
        }
        step_in = extend(g, o.use_cache);
    }
    return out;
}

std::string TextLmScheme::generated_text(const Generation& g) const {
    std::vector<int> ids = g.ids;
    if (!ids.empty() && ids.back() == tt::kEos) ids.pop_back();
    // A generation cut by max_tokens inside a character (only its next byte may follow, not [EOS]):
    // that character is left out rather than printed as U+FFFD.
    while (!ids.empty() && tokenizer_.not_allowed_after(ids)[tt::kEos])
        ids.pop_back();
    return tokenizer_.decode(ids, g.values);
}

std::vector<Answer> TextLmScheme::answer(FoneTransformer& model, const Batch& b) const {
    std::vector<EncodedText> prompts;
    for (const std::string& p : b.prompt_texts)
        prompts.push_back(prompt_tokens(p, !p.empty()));
    GenerateOptions o;
    std::vector<Answer> out;
    for (const Generation& g : generate(model, prompts, o)) {
        const ParsedText parsed = parse_numbers(generated_text(g), tokenizer_.number_limits());
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
    if (number_token()) {
        const std::optional<Decimal> v = read_values(model, h.narrow(0, 0, 1))[0];
        out["value"] = v ? v->to_string() : "";
    }
    return out;
}

}  // namespace fone
