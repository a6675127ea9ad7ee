// TextLmScheme (text_scheme.h): its vocabulary and heads, examples as training batches (packed windows of
// documents included), prompts, and the loss. Generation is text_generate.cpp's, the metrics text_eval.cpp's,
// a run's corpus and digit slots text_splits.cpp's.
#include "schemes/text_scheme.h"

#include <algorithm>
#include <stdexcept>

#include "fone/io/shown_text.h"
#include "schemes/scheme_parts.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;
namespace tt = text_token;

}  // namespace

TextLmScheme::TextLmScheme(TextTokenizer tokenizer, const FoneSpec& spec, const TrainConfig& config)
    : tokenizer_(tokenizer.with_number_limits({spec.int_digits, spec.frac_digits})),
      method_(config.method),
      spec_(spec),
      plain_(spec),
      loss_on_all_(config.text_loss != "answer"),
      context_(config.text_context) {
    if (has_number_head(method_)) head_ = make_number_head({config, spec, true});
    if (tokenizer_.scheme() != text_tokens_of(method_))
        throw std::invalid_argument("text run: method " + method_ + " takes the " +
                                    text_scheme_name(text_tokens_of(method_)) + " tokenizer, not " +
                                    text_scheme_name(tokenizer_.scheme()));
    plain_.multipliers.clear();
    vocabulary_.reserve(static_cast<std::size_t>(tokenizer_.vocab_size()));
    for (int id = 0; id < tokenizer_.vocab_size(); ++id)
        vocabulary_.push_back(tokenizer_.piece(id));
}

ModelHeads TextLmScheme::heads() const {
    ModelHeads h = head_ ? head_->heads() : ModelHeads();
    h.digit_base = spec_.base;
    return h;
}

void TextLmScheme::number_input(const Decimal& x, float* features, float* scale,
                                const std::string& where) const {
    // Every method's number must fit the slots: fone's features and xval's scale come from them, and the
    // teacher-forced measures read every method's numbers digit by digit over them.
    try {
        check_fits(x, spec_);
    } catch (const NumberError& e) {
        throw NumberError(
            where + e.what() +
            " (a run's digit slots come from its training corpus, or --int-digits/--frac-digits)");
    }
    if (head_) head_->input(x, features, scale);
}

Batch TextLmScheme::encode(const std::vector<Example>&) const {
    throw std::logic_error("a text scheme encodes text examples (encode_text), not arithmetic ones");
}

int64_t TextLmScheme::tokens_for(const Decimal& x) const {
    EncodedText e = tokenizer_.encode(write_number(x, ""));
    return e.number_spans.empty() ? 0 : e.number_spans[0].end - e.number_spans[0].begin;
}

namespace {

// The documents' tokens one after another, cut into windows of `context` tokens; each window starts at
// the last token of the one before, so every token but the first is a target once. A cut that would
// fall inside a number (digit and subword numbers are several tokens) moves back to the number's start.
// `source` gets each window's first document (for messages).
std::vector<EncodedText> packed_windows(const std::vector<EncodedText>& docs, int64_t context,
                                        std::vector<std::size_t>& source) {
    EncodedText all;
    std::vector<std::size_t> doc_starts;
    for (const EncodedText& d : docs) {
        const int offset = static_cast<int>(all.ids.size());
        doc_starts.push_back(all.ids.size());
        all.ids.insert(all.ids.end(), d.ids.begin(), d.ids.end());
        all.answer_mask.insert(all.answer_mask.end(), d.answer_mask.begin(), d.answer_mask.end());
        all.numbers.insert(all.numbers.end(), d.numbers.begin(), d.numbers.end());
        for (const TokenSpan& sp : d.number_spans)
            all.number_spans.push_back({sp.begin + offset, sp.end + offset});
    }
    const int total = static_cast<int>(all.ids.size());
    std::vector<EncodedText> windows;
    std::size_t k = 0;  // the first number that does not end before the window
    for (int start = 0; start + 1 < total;) {
        while (k < all.number_spans.size() && all.number_spans[k].end <= start)
            ++k;
        int end = static_cast<int>(std::min<int64_t>(start + context, total));
        for (std::size_t j = k; j < all.number_spans.size() && all.number_spans[j].begin < end; ++j)
            if (all.number_spans[j].end > end && all.number_spans[j].begin > start + 1)
                end = all.number_spans[j]
                          .begin;  // (a number as long as the window is cut: never under the cap)
        EncodedText w;
        w.ids.assign(all.ids.begin() + start, all.ids.begin() + end);
        w.answer_mask.assign(all.answer_mask.begin() + start, all.answer_mask.begin() + end);
        for (std::size_t j = k; j < all.number_spans.size() && all.number_spans[j].begin < end; ++j) {
            if (all.number_spans[j].begin < start)
                continue;  // its tail only: inputs, its targets were before
            w.numbers.push_back(all.numbers[j]);
            w.number_spans.push_back(
                {all.number_spans[j].begin - start, std::min(all.number_spans[j].end, end) - start});
        }
        const auto doc =
            std::upper_bound(doc_starts.begin(), doc_starts.end(), static_cast<std::size_t>(start));
        source.push_back(static_cast<std::size_t>(doc - doc_starts.begin()) - 1);
        windows.push_back(std::move(w));
        start = end - 1;
    }
    return windows;
}

// Called for every number of a batch: it must not copy the document (a 16 MB line copied once per number
// made preparing it quadratic: 578 s), only its first 40 bytes.
std::string example_label(const TextExample& e, std::size_t index) {
    const std::string& text = e.prompt.empty() ? e.answer : e.prompt;
    return "example " + std::to_string(index + 1) + " (\"" + shown_text(text, 40) + "\"): ";
}

}  // namespace

bool TextLmScheme::packs(const std::vector<TextExample>& examples) const {
    return context_ > 0 && !examples.empty() &&
           std::all_of(examples.begin(), examples.end(),
                       [](const TextExample& e) { return e.prompt.empty(); });
}

Batch TextLmScheme::encode_text(const std::vector<TextExample>& examples) const {
    std::vector<EncodedText> rows;
    rows.reserve(examples.size());
    for (const TextExample& e : examples)
        rows.push_back(tokenizer_.encode(e));
    std::vector<std::size_t> source;
    if (packs(examples)) {
        rows = packed_windows(rows, context_, source);
    } else {
        for (std::size_t i = 0; i < rows.size(); ++i)
            source.push_back(i);
    }
    Batch b = batch_of_rows(
        rows, [&](std::size_t row) { return example_label(examples[source[row]], source[row]); });
    for (const TextExample& e : examples) {
        b.prompt_texts.push_back(e.prompt);
        b.answer_texts.push_back(e.answer);
    }
    return b;
}

Batch TextLmScheme::batch_of_rows(const std::vector<EncodedText>& rows,
                                  const std::function<std::string(std::size_t)>& label) const {
    std::size_t longest = 1;
    for (const EncodedText& e : rows)
        longest = std::max(longest, e.ids.size());
    const int64_t n = static_cast<int64_t>(rows.size()), l = static_cast<int64_t>(longest);
    const int64_t slots = plain_.pair_count(), w = feature_width();
    Batch b;
    b.n = n;
    b.in.tokens = torch::full({n, l}, static_cast<int64_t>(tt::kPad), torch::kInt64);
    b.targets = torch::full({n, l}, kTextNoTarget, torch::kInt64);
    b.number_start = torch::zeros({n, l}, torch::kBool);
    auto* tok = b.in.tokens.data_ptr<int64_t>();
    auto* tgt = b.targets.data_ptr<int64_t>();
    auto* start = b.number_start.data_ptr<bool>();
    const NumberLabels at_numbers = number_tensors(b);
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
            const bool target = at > 0 && tgt[i * l + at - 1] != kTextNoTarget;
            if (target) start[i * l + at - 1] = true;
            if (!number_token()) continue;
            const Decimal& x = e.numbers[k];
            number_input(x, at_numbers.features ? at_numbers.features + (i * l + at) * w : nullptr,
                         at_numbers.scale ? at_numbers.scale + i * l + at : nullptr,
                         label(static_cast<std::size_t>(i)));
            if (!target) continue;  // a window's first token: an input only
            const int64_t p = i * l + at - 1;
            const auto digits = label_digits(x, plain_);
            std::transform(digits.begin(), digits.end(), at_numbers.digits + p * slots,
                           [](int d) { return static_cast<uint8_t>(d); });
            at_numbers.signs[p] = x.negative() ? 1 : 0;
            if (at_numbers.values) at_numbers.values[p] = x.to_double();
        }
    }
    if (number_token()) b.in.num_mask = b.in.tokens.eq(tt::kNum);
    return b;
}

TextLmScheme::NumberLabels TextLmScheme::number_tensors(Batch& b) const {
    NumberLabels p;
    if (!number_token()) return p;
    const int64_t n = b.in.tokens.size(0), l = b.in.tokens.size(1);
    if (feature_width() > 0) {
        b.in.fone = torch::zeros({n, l, feature_width()}, torch::kFloat32);
        p.features = b.in.fone.data_ptr<float>();
    }
    if (head_->scales_embedding()) {
        b.in.scale = torch::ones({n, l}, torch::kFloat32);
        p.scale = b.in.scale.data_ptr<float>();
    }
    // Bytes: a large corpus keeps a label per position (converted per batch in the loss). Every method's
    // digits, for the measures; the values for the heads that learn them (xval, bittokens).
    b.digits = torch::zeros({n, l, plain_.pair_count()}, torch::kUInt8);
    b.signs = torch::zeros({n, l}, torch::kUInt8);
    p.digits = b.digits.data_ptr<uint8_t>();
    p.signs = b.signs.data_ptr<uint8_t>();
    if (head_->learns_values()) {
        b.answers = torch::zeros({n, l}, torch::kFloat64);
        p.values = b.answers.data_ptr<double>();
    }
    return p;
}

Batch encode_text_split(const TextLmScheme& scheme, const std::vector<TextExample>& examples,
                        const std::string& split) {
    try {
        return scheme.encode_text(examples);
    } catch (const NumberError& e) {
        throw NumberError(split + ": " + e.what());
    }
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
    const int64_t l = static_cast<int64_t>(e.ids.size()), w = feature_width();
    Batch b;
    b.n = 1;
    std::vector<int64_t> ids(e.ids.begin(), e.ids.end());
    b.in.tokens = torch::tensor(ids, torch::kInt64).view({1, l});
    if (number_token()) {
        const NumberLabels at = number_tensors(b);
        for (std::size_t k = 0; k < e.number_spans.size(); ++k) {
            const int64_t p = e.number_spans[k].begin;
            number_input(e.numbers[k], at.features ? at.features + p * w : nullptr,
                         at.scale ? at.scale + p : nullptr, "prompt: ");
        }
        b.in.num_mask = b.in.tokens.eq(tt::kNum);
    }
    b.prompt = b.in.tokens;
    b.prompt_texts.push_back(prompt);
    return b;
}

torch::Tensor TextLmScheme::loss(FoneTransformer& model, const Batch& b, bool) const {
    const auto h = model->forward(b.in, /*last_only=*/false);  // [B, L, d]
    const auto logits = model->lm_logits(h).to(torch::kFloat32);
    const auto lm = F::cross_entropy(logits.reshape({-1, logits.size(-1)}), b.targets.reshape({-1}),
                                     F::CrossEntropyFuncOptions().ignore_index(kTextNoTarget));
    if (!head_ || !head_->has_loss()) return lm;
    const auto at = b.targets.eq(tt::kNum);
    if (!at.any().item<bool>()) return lm;
    return lm + head_->loss(model, h.index({at}),
                            {b.digits.index({at}).to(torch::kInt64), b.signs.index({at}),
                             head_->learns_values() ? b.answers.index({at}) : torch::Tensor()});
}

std::vector<std::optional<Decimal>> TextLmScheme::read_values(FoneTransformer& model,
                                                              const torch::Tensor& h) const {
    if (!head_) throw std::logic_error("read_values: digit and subword numbers are tokens");
    if (h.size(0) == 0) return {};
    return head_->read(model, h);
}

}  // namespace fone
