// The text pieces come from SentencePiece (libsentencepiece, reached through libfone_spm.so: see
// spm_bridge.h): trained in memory on number templates, encoded and decoded by its processor. The
// trainer options that make the round trip exact are in trainer_options(); the number tokens are
// appended after the pieces (layout in text_tokenizer.h).
#include "fone/text/text_tokenizer.h"
#include "fone/text/tokenizer_check.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include <dlfcn.h>

#include "fone/io/file_read.h"
#include "fone/io/json_files.h"
#include "fone/io/shown_text.h"
#include "fone/numbers/number_parser.h"
#include "fone/numbers/number_pieces.h"
#include "fone/platform/own_library.h"
#include "text/spm_bridge.h"

namespace fone {
namespace {

using namespace text_token;

constexpr int kFirstByte = 6;  // ids 6..261 are the byte pieces <0x00>..<0xFF>
constexpr std::array<const char*, 6> kSpecialPieces{"[PAD]", "[BOS]", "[EOS]", "[UNK]", "[ANS]", "[NUM]"};

// Exact round trip: no normalization (identity), no space added in front, spaces kept as they are;
// byte fallback for characters without a piece; BPE as in Llama 2's SentencePiece tokenizer.
std::vector<std::pair<std::string, std::string>> trainer_options(const TokenizerOptions& options) {
    return {{"model_type", "bpe"},
            {"vocab_size", std::to_string(options.vocab_size)},
            {"hard_vocab_limit", "false"},
            {"byte_fallback", "true"},
            {"character_coverage", std::to_string(options.character_coverage)},
            {"normalization_rule_name", "identity"},
            {"add_dummy_prefix", "false"},
            {"remove_extra_whitespaces", "false"},
            {"allow_whitespace_only_pieces", "true"},
            {"split_digits", "true"},
            {"max_sentence_length", "65536"},
            {"pad_id", "0"},
            {"bos_id", "1"},
            {"eos_id", "2"},
            {"unk_id", "3"},
            {"pad_piece", kSpecialPieces[0]},
            {"bos_piece", kSpecialPieces[1]},
            {"eos_piece", kSpecialPieces[2]},
            {"unk_piece", kSpecialPieces[3]},
            {"control_symbols", kSpecialPieces[4]},
            {"user_defined_symbols", kSpecialPieces[5]},
            {"num_threads", "1"},
            {"minloglevel", "2"}};
}

// The number template of a text with the digits the parser kept as text removed, so that no piece
// holds a digit (such digits are encoded through byte fallback).
std::string training_sentence(std::string_view text, const NumberLimits& limits) {
    std::string templ = parse_numbers(text, limits).templ;
    std::erase_if(templ, [](char c) { return c >= '0' && c <= '9'; });
    return templ;
}

// SentencePiece skips training sentences longer than max_sentence_length, so a long document is cut
// into parts of at most kTrainingPartBytes, each ending before a space where there is one (pieces never
// cross a space, so the parts train the same pieces) and never inside a UTF-8 sequence.
constexpr std::size_t kTrainingPartBytes = 8192;
void add_training_parts(std::string_view sentence, std::vector<std::string>& out) {
    while (sentence.size() > kTrainingPartBytes) {
        std::size_t cut = sentence.rfind(' ', kTrainingPartBytes);
        if (cut == std::string_view::npos || cut == 0) {
            cut = kTrainingPartBytes;
            while (cut > 1 && (static_cast<unsigned char>(sentence[cut]) & 0xC0) == 0x80)
                --cut;  // back to the start of a code point
        }
        out.emplace_back(sentence.substr(0, cut));
        sentence.remove_prefix(cut);
    }
    if (!sentence.empty()) out.emplace_back(sentence);
}

// The cache file of a model trained on these sentences with these options ("" without a cache folder):
// FNV-1a 64 over the sentences (each with its length) and the trainer's options.
std::string cache_path(const std::vector<std::string>& sentences, const TokenizerOptions& options) {
    if (options.cache_dir.empty()) return "";
    std::uint64_t h = 14695981039346656037ull;
    const auto add = [&](std::string_view bytes) {
        for (const char c : bytes) {
            h ^= static_cast<unsigned char>(c);
            h *= 1099511628211ull;
        }
        h ^= bytes.size();
        h *= 1099511628211ull;
    };
    for (const std::string& s : sentences)
        add(s);
    for (const auto& [key, value] : trainer_options(options)) {
        add(key);
        add(value);
    }
    char name[40];
    std::snprintf(name, sizeof name, "%016llx.model", static_cast<unsigned long long>(h));
    return (std::filesystem::path(options.cache_dir) / name).string();
}

// The tail of the layout: '.', '-', then digit strings by length, then by value.
std::string tail_token(int k) {
    if (k == 0) return ".";
    if (k == 1) return "-";
    k -= 2;
    int length = 1, count = 10;
    while (k >= count) {
        k -= count;
        ++length;
        count *= 10;
    }
    std::string digits = std::to_string(k);
    return std::string(static_cast<std::size_t>(length) - digits.size(), '0') + digits;
}

int tail_index(std::string_view token) {
    if (token == ".") return 0;
    if (token == "-") return 1;
    int value = 0;
    for (const char c : token)
        value = value * 10 + (c - '0');
    const int offsets[] = {0, 2, 12, 112};  // first index of the strings of length 1, 2, 3
    return offsets[token.size()] + value;
}

const SpmBridge& open_spm_bridge() {
    std::string tried;
    for (const std::string& path : own_library_paths("libfone_spm.so", "FONE_SPM_LIBRARY")) {
        void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
        if (!library) {
            tried += std::string(tried.empty() ? "" : "; ") + dlerror();
            continue;
        }
        using Entry = const SpmBridge* (*)();
        const auto entry = reinterpret_cast<Entry>(dlsym(library, "fone_spm_bridge"));
        if (entry && entry()->version == SpmBridge::kVersion) return *entry();
        tried += "; " + path + ": not the SentencePiece bridge of this build";
    }
    throw TokenizerError("cannot open the SentencePiece bridge libfone_spm.so (" + tried +
                         "); set FONE_SPM_LIBRARY to its path");
}

}  // namespace

const SpmBridge& spm_bridge() {
    static const SpmBridge& bridge = open_spm_bridge();
    return bridge;
}

std::string text_scheme_name(TextScheme scheme) {
    switch (scheme) {
        case TextScheme::fone:
            return "fone";
        case TextScheme::digit:
            return "digit";
        case TextScheme::subword:
            return "subword";
    }
    return "?";
}

TextScheme text_scheme_from_name(std::string_view name) {
    for (const TextScheme s : all_text_schemes())
        if (text_scheme_name(s) == name) return s;
    throw std::invalid_argument("unknown number scheme '" + std::string(name) + "' (fone, digit, subword)");
}

std::vector<TextScheme> all_text_schemes() {
    return {TextScheme::fone, TextScheme::digit, TextScheme::subword};
}

std::vector<std::string> subword_chunks(std::string_view number) {
    std::vector<std::string> chunks;
    if (number.starts_with("-")) {
        chunks.emplace_back("-");
        number.remove_prefix(1);
    }
    const auto add_digits = [&](std::string_view digits) {
        for (std::string& c : chunk_digits(digits, 3, ChunkDirection::left_to_right))
            chunks.push_back(std::move(c));
    };
    const auto dot = number.find('.');
    add_digits(number.substr(0, dot));
    if (dot != std::string_view::npos) {
        chunks.emplace_back(".");
        add_digits(number.substr(dot + 1));
    }
    return chunks;
}

TextTokenizer::TextTokenizer(std::string model, TextScheme scheme)
    : model_(std::move(model)), scheme_(scheme) {
    const SpmBridge& spm = spm_bridge();
    std::string error;
    void* processor = spm.load(model_, error);
    if (!processor) throw TokenizerError("not a SentencePiece model: " + error);
    processor_ = std::shared_ptr<void>(processor, spm.release);
    for (int id = 0; id < static_cast<int>(kSpecialPieces.size()); ++id)
        if (text_piece_count() <= id || spm.id_to_piece(processor_.get(), id) != kSpecialPieces[id])
            throw TokenizerError(std::string("not a FoNE text tokenizer model: id ") + std::to_string(id) +
                                 " is not " + kSpecialPieces[id]);
    if (text_piece_count() <= kFirstByte + 255 || spm.id_to_piece(processor_.get(), kFirstByte) != "<0x00>" ||
        spm.id_to_piece(processor_.get(), kFirstByte + 255) != "<0xFF>")
        throw TokenizerError("not a FoNE text tokenizer model: ids 6 to 261 are not the byte pieces");
}

namespace {

std::vector<std::string> training_sentences(const std::vector<TextExample>& corpus,
                                            const TokenizerOptions& options) {
    std::vector<std::string> sentences;
    for (const TextExample& e : corpus)
        for (const std::string* text : {&e.prompt, &e.answer}) {
            if (!valid_utf8(*text)) throw TokenizerError("training text is not valid UTF-8");
            add_training_parts(training_sentence(*text, options.number_limits), sentences);
        }
    if (sentences.empty()) throw TokenizerError("no text to train the tokenizer on");
    return sentences;
}

// The characters SentencePiece requires pieces for (trainer_interface.cc): every code point counted (a
// space as U+2581, as its normalizer writes it), the most frequent first until `coverage` of all the
// characters are covered.
std::size_t required_characters(const std::vector<std::string>& sentences, double coverage) {
    std::unordered_map<std::uint32_t, std::uint64_t> counts;
    std::uint64_t all = 0;
    for (const std::string& s : sentences)
        for (std::size_t i = 0; i < s.size();) {
            const auto c = static_cast<unsigned char>(s[i]);
            const std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            std::uint32_t code = n == 1 ? c : c & (0x3F >> (n - 1));
            for (std::size_t k = 1; k < n && i + k < s.size(); ++k)
                code = (code << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
            ++counts[code == ' ' ? 0x2581 : code];
            ++all;
            i += n;
        }
    std::vector<std::uint64_t> sorted;
    sorted.reserve(counts.size());
    for (const auto& [code, k] : counts)
        sorted.push_back(k);
    std::sort(sorted.rbegin(), sorted.rend());
    std::uint64_t covered = 0;
    std::size_t needed = 0;
    for (const std::uint64_t k : sorted) {
        if (static_cast<float>(1.0 * covered / all) >= coverage) break;
        covered += k;
        ++needed;
    }
    return needed;
}

constexpr int kSpecialAndBytePieces = 262;  // kSpecialPieces and the 256 byte pieces

void check_vocabulary_of(const std::vector<std::string>& sentences, const TokenizerOptions& options) {
    const std::size_t needed = required_characters(sentences, options.character_coverage);
    // Strictly fewer: SentencePiece before 0.1.99 checks required + meta < vocab_size (later, <=).
    if (static_cast<long long>(needed) + kSpecialAndBytePieces < options.vocab_size) return;
    throw TokenizerError(
        "the corpus needs " + std::to_string(needed) + " characters of its own (those that make up " +
        std::to_string(options.character_coverage * 100).substr(0, 6) +
        "% of its text), more than the text vocabulary size " + std::to_string(options.vocab_size) +
        " leaves beside its " + std::to_string(kSpecialAndBytePieces) +
        " special and byte pieces: give --vocab-size " +
        std::to_string(needed + kSpecialAndBytePieces + 100) + " or more");
}

}  // namespace

void check_tokenizer_vocabulary(const std::vector<TextExample>& corpus, const TokenizerOptions& options) {
    check_vocabulary_of(training_sentences(corpus, options), options);
}

TextTokenizer TextTokenizer::train(const std::vector<TextExample>& corpus, TextScheme scheme,
                                   const TokenizerOptions& options) {
    const std::vector<std::string> sentences = training_sentences(corpus, options);
    if (!(options.character_coverage >= 0.98 && options.character_coverage <= 1.0))
        throw TokenizerError("character coverage " + std::to_string(options.character_coverage) +
                             " out of range (SentencePiece takes 0.98 to 1)");
    if (options.vocab_size < 300 || options.vocab_size > 1000000)
        throw TokenizerError("vocabulary size " + std::to_string(options.vocab_size) +
                             " out of range (300 to 1000000: 262 ids are specials and bytes)");
    const std::string cached = cache_path(sentences, options);
    if (!cached.empty() && std::filesystem::exists(cached)) {
        try {
            return load(cached, scheme).with_number_limits(options.number_limits);
        } catch (const TokenizerError&) {
            // A damaged cache file: trained again and replaced below.
        }
    }
    check_vocabulary_of(sentences, options);
    std::string model, error;
    if (!spm_bridge().train(sentences, trainer_options(options), model, error))
        throw TokenizerError("SentencePiece training failed: " + error);
    TextTokenizer trained = TextTokenizer(std::move(model), scheme).with_number_limits(options.number_limits);
    if (!cached.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(options.cache_dir, ec);
        try {
            trained.save(cached);
        } catch (const std::exception&) {
            // A cache that cannot be written (read-only store, full disk) only costs the next run the time.
        }
    }
    return trained;
}

TextTokenizer TextTokenizer::from_bytes(const std::string& model, TextScheme scheme) {
    return TextTokenizer(model, scheme);
}

TextTokenizer TextTokenizer::load(const std::string& path, TextScheme scheme) {
    const FileRead file = read_regular_file(path, kMaxJsonFileBytes);
    if (!file.ok()) throw TokenizerError(file.error);
    try {
        return TextTokenizer(file.text, scheme);
    } catch (const TokenizerError& e) {
        throw TokenizerError(path + ": " + e.what());
    }
}

void TextTokenizer::save(const std::string& path) const {
    write_file_atomic(path, model_);
}

TextTokenizer TextTokenizer::with_scheme(TextScheme scheme) const {
    TextTokenizer t = *this;
    t.scheme_ = scheme;
    return t;
}

TextTokenizer TextTokenizer::with_number_limits(const NumberLimits& limits) const {
    TextTokenizer t = *this;
    t.limits_ = limits;
    return t;
}

int TextTokenizer::text_piece_count() const {
    return spm_bridge().piece_count(processor_.get());
}

int TextTokenizer::vocab_size() const {
    switch (scheme_) {
        case TextScheme::fone:
            return text_piece_count();
        case TextScheme::digit:
            return text_piece_count() + kDigitTokens;
        case TextScheme::subword:
            return text_piece_count() + kSubwordTokens;
    }
    return 0;
}

void TextTokenizer::append_number(const std::string& written, EncodedText& out) const {
    const int begin = static_cast<int>(out.ids.size());
    const int tail = text_piece_count();
    if (scheme_ == TextScheme::fone) {
        out.ids.push_back(kNum);
    } else if (scheme_ == TextScheme::digit) {
        for (const char c : written)
            out.ids.push_back(tail + tail_index(std::string_view(&c, 1)));
    } else {
        for (const std::string& chunk : subword_chunks(written))
            out.ids.push_back(tail + tail_index(chunk));
    }
    out.number_spans.push_back({begin, static_cast<int>(out.ids.size())});
}

std::vector<int> TextTokenizer::encode_pieces(std::string_view templ) const {
    // SentencePiece writes spaces as U+2581 and would decode a literal U+2581 as a space: the text is
    // cut at each one and the character goes in as its three byte pieces, which decode to itself.
    constexpr std::string_view kSpaceMark = "\xE2\x96\x81";
    std::vector<int> ids;
    std::size_t from = 0;
    while (true) {
        const std::size_t at = std::min(templ.find(kSpaceMark, from), templ.size());
        std::vector<int> part;
        std::string error;
        if (at > from &&
            !spm_bridge().encode(processor_.get(), std::string(templ.substr(from, at - from)), part, error))
            throw TokenizerError("SentencePiece could not encode the text: " + error);
        ids.insert(ids.end(), part.begin(), part.end());
        if (at == templ.size()) return ids;
        for (const char byte : kSpaceMark)
            ids.push_back(kFirstByte + static_cast<unsigned char>(byte));
        from = at + kSpaceMark.size();
    }
}

EncodedText TextTokenizer::encode(std::string_view text) const {
    if (!valid_utf8(text)) throw TokenizerError("text is not valid UTF-8");
    const ParsedText parsed = parse_numbers(text, limits_);
    const std::vector<int> pieces = encode_pieces(parsed.templ);
    EncodedText out;
    std::string written_so_far;  // the text as decode() will write it, for write_number's context
    std::size_t copied = 0;      // bytes of the template in written_so_far
    for (const int id : pieces) {
        if (id != kNum) {
            out.ids.push_back(id);
            continue;
        }
        const std::size_t k = out.numbers.size();
        if (k >= parsed.numbers.size()) throw TokenizerError("more [NUM] pieces than numbers");  // never
        const std::size_t at = parsed.templ.find(kNumPlaceholder, copied);
        written_so_far.append(parsed.templ, copied, at - copied);
        copied = at + kNumPlaceholder.size();
        const std::string written = write_number(parsed.numbers[k].value, written_so_far);
        written_so_far += written;
        out.numbers.push_back(parsed.numbers[k].value);
        append_number(written, out);
    }
    if (out.numbers.size() != parsed.numbers.size())
        throw TokenizerError("SentencePiece split a [NUM] placeholder");  // never: it is a user symbol
    out.answer_mask.assign(out.ids.size(), 0);
    return out;
}

EncodedText TextTokenizer::encode(const TextExample& example) const {
    EncodedText out;
    const auto append = [&](const EncodedText& part, std::uint8_t mask) {
        const int offset = static_cast<int>(out.ids.size());
        out.ids.insert(out.ids.end(), part.ids.begin(), part.ids.end());
        out.numbers.insert(out.numbers.end(), part.numbers.begin(), part.numbers.end());
        for (const TokenSpan& s : part.number_spans)
            out.number_spans.push_back({s.begin + offset, s.end + offset});
        out.answer_mask.insert(out.answer_mask.end(), part.ids.size(), mask);
    };
    const auto special = [&](int id, std::uint8_t mask) {
        out.ids.push_back(id);
        out.answer_mask.push_back(mask);
    };
    special(kBos, 0);
    if (!example.prompt.empty()) {
        append(encode(example.prompt), 0);
        special(kAns, 0);
    }
    append(encode(example.answer), 1);
    special(kEos, 1);
    return out;
}

std::string TextTokenizer::decode(const std::vector<int>& ids, const std::vector<Decimal>& values) const {
    const int pieces = text_piece_count();
    std::string out;
    std::vector<int> run;  // text pieces not yet decoded
    const auto flush = [&] {
        if (run.empty()) return;
        std::string text, error;
        if (!spm_bridge().decode(processor_.get(), run, text, error))
            throw TokenizerError("SentencePiece could not decode: " + error);
        out += text;
        run.clear();
    };
    std::size_t value = 0;
    for (const int id : ids) {
        if (id < 0 || id >= vocab_size())
            throw TokenizerError("token id " + std::to_string(id) + " outside the " +
                                 text_scheme_name(scheme_) + " vocabulary of " +
                                 std::to_string(vocab_size()));
        if (id == kPad || id == kBos || id == kEos || id == kAns) continue;
        if (id != kNum && id < pieces) {
            run.push_back(id);
            continue;
        }
        flush();
        if (id >= pieces) {
            out += tail_token(id - pieces);
        } else {
            if (value >= values.size())
                throw TokenizerError("[NUM] token " + std::to_string(value + 1) + " has no value (" +
                                     std::to_string(values.size()) + " given)");
            out += write_number(values[value++], out);
        }
    }
    flush();
    if (value != values.size() && scheme_ == TextScheme::fone)
        throw TokenizerError(std::to_string(values.size()) + " values given for " + std::to_string(value) +
                             " [NUM] tokens");
    return out;
}

TextExample TextTokenizer::decode_example(const std::vector<int>& ids,
                                          const std::vector<Decimal>& values) const {
    const auto ans = std::find(ids.begin(), ids.end(), kAns);
    if (ans == ids.end()) return {"", decode(ids, values)};
    const std::vector<int> prompt(ids.begin(), ans), answer(ans + 1, ids.end());
    const auto prompt_values = static_cast<std::ptrdiff_t>(std::count(prompt.begin(), prompt.end(), kNum));
    if (prompt_values > static_cast<std::ptrdiff_t>(values.size()))
        throw TokenizerError("the prompt has " + std::to_string(prompt_values) + " [NUM] tokens but " +
                             std::to_string(values.size()) + " values were given");
    return {decode(prompt, {values.begin(), values.begin() + prompt_values}),
            decode(answer, {values.begin() + prompt_values, values.end()})};
}

std::string TextTokenizer::piece(int id) const {
    if (id < 0 || id >= vocab_size())
        throw TokenizerError("token id " + std::to_string(id) + " outside the " + text_scheme_name(scheme_) +
                             " vocabulary of " + std::to_string(vocab_size()));
    if (id < text_piece_count()) return spm_bridge().id_to_piece(processor_.get(), id);
    return tail_token(id - text_piece_count());
}

bool TextTokenizer::is_number_token(int id) const {
    return id == kNum || (id >= text_piece_count() && id < vocab_size());
}

namespace {

// The bytes a valid UTF-8 character can take next, after the byte pieces that end the text so far:
// [lo, hi] of the next byte, and whether a character is incomplete (only a continuation may follow).
struct Utf8Next {
    int lo = 0, hi = 0xF4;
    bool incomplete = false;
};

Utf8Next utf8_next(const std::vector<int>& ids) {
    const auto byte_at = [&](std::size_t back) -> int {  // the byte of ids[size - back], -1: not a byte
        if (back > ids.size()) return -1;
        const int id = ids[ids.size() - back];
        return id >= kFirstByte && id < kFirstByte + 256 ? id - kFirstByte : -1;
    };
    // The lead byte of the last character: at most 3 continuation bytes (0x80-0xBF) after it.
    std::size_t continuations = 0;
    while (continuations < 3 && byte_at(continuations + 1) >= 0x80 && byte_at(continuations + 1) < 0xC0)
        ++continuations;
    const int lead = byte_at(continuations + 1);
    const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 1;
    if (lead < 0xC2 || continuations + 1 >= length) return {};  // complete (or no byte): a new character
    Utf8Next next{0x80, 0xBF, true};
    if (continuations == 0) {  // the first continuation excludes overlong forms and surrogates (RFC 3629)
        if (lead == 0xE0) next.lo = 0xA0;
        if (lead == 0xED) next.hi = 0x9F;
        if (lead == 0xF0) next.lo = 0x90;
        if (lead == 0xF4) next.hi = 0x8F;
    }
    return next;
}

}  // namespace

std::vector<std::uint8_t> TextTokenizer::not_allowed_after(const std::vector<int>& ids) const {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(vocab_size()), 0);
    const Utf8Next next = utf8_next(ids);
    if (next.incomplete) {
        std::fill(out.begin(), out.end(), 1);
        for (int b = next.lo; b <= next.hi; ++b)
            out[static_cast<std::size_t>(kFirstByte + b)] = 0;
        return out;
    }
    for (int b = 0x80; b < 0x100; ++b)  // continuation bytes, overlong leads 0xC0-0xC1, 0xF5-0xFF
        out[static_cast<std::size_t>(kFirstByte + b)] = b >= 0xC2 && b <= 0xF4 ? 0 : 1;
    if (scheme_ == TextScheme::fone && !ids.empty() && ids.back() == kNum) out[kNum] = 1;
    return out;
}

TokenCounts count_tokens(const TextTokenizer& tokenizer, const std::vector<TextExample>& corpus) {
    TokenCounts c;
    const auto add = [&](const EncodedText& e) {
        c.tokens += e.ids.size();
        c.numbers += e.numbers.size();
        for (const TokenSpan& s : e.number_spans)
            c.number_tokens += static_cast<std::size_t>(s.end - s.begin);
    };
    for (const TextExample& e : corpus) {
        ++c.examples;
        if (!e.prompt.empty()) add(tokenizer.encode(e.prompt));
        add(tokenizer.encode(e.answer));
        const std::string table = table_text(e);
        if (table.empty()) continue;
        ++c.tables;
        c.table_tokens += tokenizer.encode(table).ids.size();
    }
    return c;
}

}  // namespace fone
