#include "schemes/text_scheme.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <stdexcept>

#include "fone/io/shown_text.h"
#include "fone/numbers/float_bits.h"
#include "fone/numbers/number_parser.h"
#include "fone/store/methods.h"
#include "fone/store/model_config.h"
#include "fone/text/corpus.h"
#include "fone/text/tokenizer_check.h"
#include "nn/timing.h"
#include "nn/token_choice.h"
#include "schemes/adapter_scheme.h"
#include "schemes/scheme_parts.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;
using nlohmann::json;
namespace tt = text_token;

constexpr int64_t kIgnore = -100;
constexpr int64_t kEvalRows = 128;      // sequences per teacher-forced evaluation batch
constexpr int64_t kGenerateRows = 256;  // prompts per generation batch in evaluation

bool fits_slots(const Decimal& x, const FoneSpec& spec) {
    try {
        check_fits(x, spec);
        return true;
    } catch (const NumberError&) {
        return false;
    }
}

}  // namespace

namespace {

// A folder of train.jsonl, val.jsonl and test.jsonl (what `fone corpus factbook` writes): its splits as
// they are, train capped at train_size when non-zero. The sizes of val and test are the files'.
TextSplits read_split_folder(const std::string& folder) {
    TextSplits s;
    for (const auto& [name, split] : {std::pair{"train", &s.train}, {"val", &s.val}, {"test", &s.test}}) {
        const std::string path = (std::filesystem::path(folder) / (std::string(name) + ".jsonl")).string();
        if (std::string(name) == "val" && !std::filesystem::exists(path)) continue;  // val is optional
        *split = read_text_jsonl(path);
    }
    if (s.train.empty()) throw TextDataError(folder + "/train.jsonl: no examples");
    return s;
}

}  // namespace

TextScheme text_tokens_of(const std::string& method) {
    if (method == "xval" || method == "bittokens") return TextScheme::fone;
    return text_scheme_from_name(method);
}

TextSplits load_text_splits(const TrainConfig& c) {
    if (c.text_task == "text" && std::filesystem::is_directory(c.task.data_file)) {
        // A folder: train/val/test.jsonl as written by `fone corpus factbook`, or the Factbook's own JSON
        // files (the package's data/ folder), split by country as that command splits them.
        const bool splits = std::filesystem::exists(std::filesystem::path(c.task.data_file) / "train.jsonl");
        TextSplits s =
            splits ? read_split_folder(c.task.data_file) : factbook_splits(read_factbook(c.task.data_file));
        if (c.train_size != 0 && s.train.size() > c.train_size) s.train.resize(c.train_size);
        return s;
    }
    if (c.text_task == "text") {
        const std::vector<TextExample> examples = read_text_file(c.task.data_file);
        if (examples.empty()) throw TextDataError(c.task.data_file + ": no examples (the file is empty)");
        return split_text_examples(examples, c.train_size, c.val_size, c.test_size, c.seed);
    }
    return generate_text_splits(text_task_from_name(c.text_task), c.train_size, c.val_size, c.test_size,
                                c.seed, c.drills);
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
    const ParsedNumber* longest = nullptr;  // the number with the most digits, for the message
    std::vector<ParsedNumber> kept;         // (parse_numbers' results die with each text)
    for (const auto* split : {&s.train, &s.val, &s.test})
        for (const TextExample& e : *split)
            for (const std::string* text : {&e.prompt, &e.answer})
                for (ParsedNumber& x : parse_numbers(*text).numbers) {
                    m = std::max(m, x.value.int_digit_count());
                    n = std::max(n, x.value.frac_digit_count());
                    const int digits = x.value.int_digit_count() + x.value.frac_digit_count();
                    if (digits > kMaxTextNumberDigits &&
                        (!longest ||
                         digits > longest->value.int_digit_count() + longest->value.frac_digit_count())) {
                        kept.assign(1, std::move(x));
                        longest = &kept[0];
                    }
                }
    TrainConfig chosen = c;
    if (chosen.int_digits < 0) chosen.int_digits = m;
    if (chosen.frac_digits < 0) chosen.frac_digits = n;
    if (chosen.int_digits + chosen.frac_digits > kMaxTextNumberDigits) {
        const std::string shown = longest
                                      ? longest->text.substr(0, 24) + (longest->text.size() > 24 ? "..." : "")
                                      : std::to_string(chosen.int_digits + chosen.frac_digits) + " slots";
        throw NumberError("the corpus holds a number of " + std::to_string(m) + " integer and " +
                          std::to_string(n) + " fractional digits (" + shown +
                          "); a text run takes at most " + std::to_string(kMaxTextNumberDigits) +
                          " digit slots in all: write such numbers as text (docs/number-parsing.md)");
    }
    return text_spec(chosen);
}

namespace {

// A corpus file's or folder's memory before it is read (check_corpus_memory): the bytes of memory that
// preparing one byte of text took, measured on 16 MB of prose with numbers (docs/reliability.md): the
// methods with a [NUM] per number keep digit labels (and fone its features) at every position.
void check_corpus_memory(const TrainConfig& c) {
    if (c.text_task != "text" || c.task.data_file.empty()) return;
    const bool one_num = c.method == "fone" || c.method == "xval" || c.method == "bittokens";
    fone::check_corpus_memory(c.task.data_file, one_num ? kCorpusBytesPerByteNum : kCorpusBytesPerByte,
                              physical_memory_bytes());
}

}  // namespace

void check_text_corpus(const TrainConfig& c) {
    check_corpus_memory(c);  // before the corpus is read
    const TextSplits s = load_text_splits(c);
    // The tokenizer a new run trains must fit the vocabulary: refused here, before the run folder exists.
    if (!is_adapter_method(c.method)) {
        TokenizerOptions options;
        options.vocab_size = c.text_vocab_size;
        check_tokenizer_vocabulary(s.train, options);
    }
    // The one-[NUM] methods: their numbers' labels fill the digit slots (and fone's and xval's inputs).
    if (c.method != "fone" && c.method != "xval" && c.method != "bittokens") return;
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

namespace {

TextLmScheme::Numbers numbers_of(const std::string& method) {
    using N = TextLmScheme::Numbers;
    return method == "fone"        ? N::fone
           : method == "xval"      ? N::xval
           : method == "bittokens" ? N::bittokens
                                   : N::tokens;
}

}  // namespace

TextLmScheme::TextLmScheme(TextTokenizer tokenizer, const FoneSpec& spec, const TrainConfig& config)
    : tokenizer_(std::move(tokenizer)),
      method_(config.method),
      numbers_(numbers_of(config.method)),
      spec_(spec),
      plain_(spec),
      digit_loss_weight_(config.digit_loss_weight),
      loss_on_all_(config.text_loss != "answer"),
      context_(config.text_context),
      xval_scale_(xval_scale(spec)),
      reciprocal_(config.bittokens_reciprocal),
      bits_scale_(bittokens_input_scale(config.model.hidden, config.bittokens_reciprocal)) {
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
    ModelHeads h;
    h.digit_base = spec_.base;
    h.fone_width = feature_width();
    if (fone()) {
        h.digit_slots = plain_.pair_count();
        h.sign_feature = spec_.sign_feature;
    }
    if (numbers_ == Numbers::xval) h.regression = 1;
    if (numbers_ == Numbers::bittokens) h.regression = kFloat64Bits;
    return h;
}

int64_t TextLmScheme::feature_width() const {
    switch (numbers_) {
        case Numbers::fone:
            return spec_.width();
        case Numbers::bittokens:
            return bit_feature_width(reciprocal_);
        default:
            return 0;
    }
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
    switch (numbers_) {
        case Numbers::fone:
            encode_into(x, spec_, features);
            break;
        case Numbers::xval:
            *scale = static_cast<float>(x.to_double() / xval_scale_);
            break;
        case Numbers::bittokens: {
            bit_features_into(x.to_double(), reciprocal_, features);
            const auto k = static_cast<float>(bits_scale_);
            for (int64_t j = 0; j < feature_width(); ++j)
                features[j] *= k;
            *scale = 0.0f;  // zero_pad: the bits replace [NUM]'s embedding (its row still serves the LM head)
            break;
        }
        case Numbers::tokens:
            break;
    }
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
    b.targets = torch::full({n, l}, kIgnore, torch::kInt64);
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
            const bool target = at > 0 && tgt[i * l + at - 1] != kIgnore;
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
    if (scales_embedding()) {
        b.in.scale = torch::ones({n, l}, torch::kFloat32);
        p.scale = b.in.scale.data_ptr<float>();
    }
    // Bytes: a large corpus keeps a label per position (converted per batch in the loss). Every method's
    // digits, for the measures; the values for the heads that learn them (xval, bittokens).
    b.digits = torch::zeros({n, l, plain_.pair_count()}, torch::kUInt8);
    b.signs = torch::zeros({n, l}, torch::kUInt8);
    p.digits = b.digits.data_ptr<uint8_t>();
    p.signs = b.signs.data_ptr<uint8_t>();
    if (!fone()) {
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
                                     F::CrossEntropyFuncOptions().ignore_index(kIgnore));
    if (!number_token() || (fone() && digit_loss_weight_ == 0)) return lm;
    const auto at = b.targets.eq(tt::kNum);
    if (!at.any().item<bool>()) return lm;
    return lm + number_loss(model, h.index({at}), b.digits.index({at}).to(torch::kInt64), b.signs.index({at}),
                            fone() ? torch::Tensor() : b.answers.index({at}));
}

torch::Tensor TextLmScheme::number_loss(FoneTransformer& model, const torch::Tensor& h,
                                        const torch::Tensor& digits, const torch::Tensor& signs,
                                        const torch::Tensor& values) const {
    switch (numbers_) {
        case Numbers::fone:
            return digit_loss_weight_ * model->digit_loss(h, digits, signs);
        case Numbers::xval:  // xVal's loss: the cross-entropy + the squared error of the scaled value
            return F::mse_loss(model->regress(h).squeeze(-1).to(torch::kFloat32),
                               (values / xval_scale_).to(torch::kFloat32));
        case Numbers::bittokens:
            return kBitTokensLossWeight * F::binary_cross_entropy_with_logits(
                                              model->regress(h).to(torch::kFloat32), bit_labels(values));
        default:
            throw std::logic_error("number_loss: digit and subword numbers are tokens");
    }
}

std::vector<std::optional<Decimal>> TextLmScheme::read_values(FoneTransformer& model,
                                                              const torch::Tensor& h) const {
    std::vector<std::optional<Decimal>> out;
    if (h.size(0) == 0) return out;
    switch (numbers_) {
        case Numbers::fone:
            for (const Decimal& x : read_numbers(model->read_digits(h), plain_))
                out.emplace_back(x);
            break;
        case Numbers::xval: {
            const auto v = (model->regress(h).squeeze(-1).to(torch::kFloat64) * xval_scale_)
                               .to(torch::kCPU)
                               .contiguous();
            for (int64_t i = 0; i < v.size(0); ++i)
                out.push_back(xval_rounded(v.data_ptr<double>()[i], spec_));
            break;
        }
        case Numbers::bittokens:
            for (const double v : doubles_of_bit_logits(model->regress(h)))
                out.push_back(decimal_of_double(v));
            break;
        default:
            throw std::logic_error("read_values: digit and subword numbers are tokens");
    }
    return out;
}

// ---- generation ---------------------------------------------------------------------------------------

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
    if (number_token()) {
        const std::optional<Decimal> v = read_values(model, h.narrow(0, 0, 1))[0];
        out["value"] = v ? v->to_string() : "";
    }
    return out;
}

// ---- evaluation ---------------------------------------------------------------------------------------

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
    if (scheme.fone()) {
        const DigitPrediction r = model->read_digits(h);
        auto right = r.digits.eq(b.digits.to(torch::kInt64)).all(-1);
        if (model->sign_feature) right = right.logical_and(r.negative.eq(b.signs.eq(1)));
        value_right = right.to(torch::kCPU).contiguous();
    }
    const bool* vr = scheme.fone() ? value_right.data_ptr<bool>() : nullptr;
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
                for (; u < l && tg[i * l + u] != kIgnore && is_number(tg[i * l + u]) &&
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
        const ParsedText ref = parse_numbers(reference), gen = parse_numbers(text);
        for (const ParsedNumber& x : ref.numbers)
            want.push_back(x.value);
        for (const ParsedNumber& x : gen.numbers)
            got.push_back(x.value);
        ++generated;
        malformed += !g.ended;
        words_right += g.ended && gen.templ == ref.templ;  // the sentence, numbers aside
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
            for (int p = -spec.frac_digits; p < spec.int_digits; ++p)
                digits_right += want[j].digit(p) == got[j].digit(p);
        }
        if (!all_right && wrong.size() < max_wrong)
            wrong.push_back(
                {{"prompt", prompt}, {"expected", write_numbers(reference)}, {"predicted", text}});
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
