// A text run's data (text_scheme.h): its corpus or generator split into train, val and test, the digit
// slots its numbers take, and the check of a corpus before a run starts; and which tokenizer a method's
// text runs use (the methods table says).
#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "fone/numbers/number_parser.h"
#include "fone/store/methods.h"
#include "fone/store/model_config.h"
#include "fone/text/corpus.h"
#include "fone/text/tokenizer_check.h"
#include "schemes/text_scheme.h"

namespace fone {

namespace {

// A folder of train.jsonl, val.jsonl and test.jsonl (what `fone corpus factbook` writes): its splits as
// they are, capped at train_size, val_size and test_size (their first documents).
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
    // The methods table says what a method's numbers are: one [NUM] token (a number head), or pieces.
    const NumberMethod* row = find_number_method(method);
    const std::string pieces = number_pieces(method, nlohmann::json::object());
    if (row && row->text && has_number_head(method)) return TextScheme::fone;
    if (row && row->text && pieces == "digit") return TextScheme::digit;
    if (row && row->text && pieces == "subword") return TextScheme::subword;
    throw std::invalid_argument(
        "method " + method +
        ": has no text tokenizer (its numbers are neither one [NUM] token, digits nor "
        "subword chunks on text)");
}

TextSplits load_text_splits(const TrainConfig& c) {
    if (c.text_task == "text" && std::filesystem::is_directory(c.task.data_file)) {
        // A folder: train/val/test.jsonl as written by `fone corpus factbook`, or the Factbook's own JSON
        // files (the package's data/ folder), split by country as that command splits them.
        const bool splits = std::filesystem::exists(std::filesystem::path(c.task.data_file) / "train.jsonl");
        TextSplits s =
            splits ? read_split_folder(c.task.data_file) : factbook_splits(read_factbook(c.task.data_file));
        if (c.train_size != 0 && s.train.size() > c.train_size) s.train.resize(c.train_size);
        // Issue 41: test and val capped too (val_size 0: none), so that a run of a few documents is not
        // evaluated on a whole corpus's splits.
        if (c.test_size != 0 && s.test.size() > c.test_size) s.test.resize(c.test_size);
        if (s.val.size() > c.val_size) s.val.resize(c.val_size);
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

namespace {

// --strict-numbers: every number of the corpus must fit, or the run is refused (the rule before issue 41).
FoneSpec strict_text_spec(const TrainConfig& c, const TextSplits& s) {
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

// A corpus file's or folder's memory before it is read (check_corpus_memory): the bytes of memory that
// preparing one byte of text took, measured on 16 MB of prose with numbers (docs/reliability.md): the
// methods with a [NUM] per number keep digit labels (and fone its features) at every position.
void check_corpus_memory(const TrainConfig& c) {
    if (c.text_task != "text" || c.task.data_file.empty()) return;
    fone::check_corpus_memory(c.task.data_file,
                              has_number_head(c.method) ? kCorpusBytesPerByteNum : kCorpusBytesPerByte,
                              physical_memory_bytes());
}

// The most digit slots a text run of this model takes: kMaxTextNumberDigits, and no more than fone's
// digit head fits in the model's width (2 entries a slot and the sign), the same for every method.
int text_slot_limit(const TrainConfig& c) {
    return std::max(1, std::min(kMaxTextNumberDigits, (c.model.hidden - 1) / 2));
}

}  // namespace

FoneSpec text_spec(const TrainConfig& c, const TextSplits& s) {
    if (c.strict_numbers) return strict_text_spec(c, s);
    const int limit = text_slot_limit(c);
    if (c.int_digits >= 0 && c.frac_digits >= 0 && c.int_digits + c.frac_digits > limit)
        throw NumberError("--int-digits " + std::to_string(c.int_digits) + " and --frac-digits " +
                          std::to_string(c.frac_digits) + ": a text run of hidden " +
                          std::to_string(c.model.hidden) + " takes at most " + std::to_string(limit) +
                          " digit slots in all");
    const TextSlots slots = choose_text_slots(s, c.int_digits, c.frac_digits, limit);
    TrainConfig chosen = c;
    chosen.int_digits = slots.int_digits;
    chosen.frac_digits = slots.frac_digits;
    return text_spec(chosen);
}

void check_text_corpus(const TrainConfig& c) {
    check_corpus_memory(c);  // before the corpus is read
    const TextSplits s = load_text_splits(c);
    const FoneSpec spec = text_spec(c, s);  // given slots a model cannot take; strict: numbers too long
    // The tokenizer a new run trains must fit the vocabulary: refused here, before the run folder exists.
    if (!is_adapter_method(c.method)) {
        TokenizerOptions options;
        options.vocab_size = c.text_vocab_size;
        options.number_limits = {spec.int_digits, spec.frac_digits};  // as open_text trains it
        check_tokenizer_vocabulary(s.train, options);
    }
    // Strict: the one-[NUM] methods' numbers must fit the digit slots (their labels fill them).
    if (!c.strict_numbers || !has_number_head(c.method)) return;
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

}  // namespace fone
