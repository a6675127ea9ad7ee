#include "fone/pretrained/tokenizer.h"

#include <unicode/normalizer2.h>
#include <unicode/regex.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <bitset>
#include <cctype>
#include <fstream>
#include <queue>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "fone/io/file_read.h"
#include "fone/io/json_bounded.h"
#include "fone/pretrained/number_pieces.h"

namespace fone::pretrained {
namespace {

using nlohmann::json;

// The longest a pre-tokenizer regex may work on one match, in ICU's steps (a step is roughly a millisecond
// of matching; the shipped patterns need far below one step per match).
constexpr int32_t kRegexTimeLimit = 1000;

// GPT-2's pre-tokenizer regex (the ByteLevel step with use_regex).
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// GPT-2's byte-level alphabet: printable bytes stand for themselves, the others for 256 + n (in order).
struct ByteAlphabet {
    std::string encoded[256];                       // byte -> UTF-8 of its character
    std::unordered_map<char32_t, unsigned> decode;  // character -> byte
    ByteAlphabet() {
        int extra = 0;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
            const char32_t c = printable ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + extra++);
            icu::UnicodeString(static_cast<UChar32>(c)).toUTF8String(encoded[b]);
            decode[c] = static_cast<unsigned>(b);
        }
    }
};
const ByteAlphabet& alphabet() {
    static const ByteAlphabet a;
    return a;
}

// Strict UTF-8: no overlong forms, surrogates or code points past U+10FFFF.
bool valid_utf8(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        int n = 0;
        char32_t cp = 0, min = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1, cp = c & 0x1F, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2, cp = c & 0x0F, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return false;
        }
        for (std::size_t k = 1; k <= static_cast<std::size_t>(n); ++k) {
            if (i + k >= s.size()) return false;
            const auto d = static_cast<unsigned char>(s[i + k]);
            if ((d & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (d & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += static_cast<std::size_t>(n) + 1;
    }
    return true;
}

std::string to_utf8(const icu::UnicodeString& u) {
    std::string out;
    u.toUTF8String(out);
    return out;
}

// Rust's and Oniguruma's \s is Unicode White_Space; ICU's leaves out U+000B and U+0085.
std::string icu_pattern(const std::string& pattern) {
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '\\' && i + 1 < pattern.size()) {
            const char next = pattern[++i];
            if (next == 's')
                out += "\\p{White_Space}";
            else if (next == 'S')
                out += "\\P{White_Space}";
            else
                (out += '\\') += next;
        } else {
            out += pattern[i];
        }
    }
    return out;
}

enum class SplitBehavior { isolated, removed, merged_with_previous, merged_with_next };

struct PreTokenizerStep {
    bool byte_level = false;
    bool add_prefix_space = false;             // ByteLevel
    std::shared_ptr<icu::RegexPattern> regex;  // Split, or ByteLevel with use_regex
    SplitBehavior behavior = SplitBehavior::isolated;
};

enum class NormalizerStep { nfc, nfd, nfkc, nfkd, lowercase };

struct AddedToken {
    int64_t id = 0;
    std::string content;
    bool lstrip = false, rstrip = false, single_word = false;
};

bool is_word_byte(unsigned char c) {
    return std::isalnum(c) || c == '_' || c >= 0x80;
}

struct Merge {
    int32_t rank = 0;
    int64_t id = 0;  // the merged token
};

// Heterogeneous lookup: a string_view of the text finds a std::string key without a copy.
struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// The added tokens of one length: what finding them at a position costs is one hash lookup per length
// whose first bytes include the text's (not one comparison per added token: 100,000 added tokens took
// 21 s to inspect a model).
struct AddedOfLength {
    std::size_t length = 0;
    std::bitset<256> first_bytes;
    std::unordered_map<std::string, std::size_t, TextHash, std::equal_to<>> index;  // content -> added[i]
};

// Added tokens longer than this are refused when the file is read (the longest in the shipped families'
// files is under 30 bytes): it bounds the lengths tried at each position of a text.
constexpr std::size_t kMaxAddedTokenBytes = 256;

}  // namespace

struct BpeTokenizer::Impl {
    std::string what;
    std::unordered_map<std::string, int64_t> vocab;
    std::unordered_map<int64_t, std::string> tokens;  // id -> vocabulary spelling
    std::unordered_map<uint64_t, Merge> merges;       // (left id, right id) -> merge
    bool ignore_merges = false;
    std::optional<int64_t> unk;
    std::vector<AddedToken> added;                       // longest content first
    std::vector<AddedOfLength> added_lengths;            // longest first
    std::unordered_map<int64_t, std::size_t> added_ids;  // id -> added[i]
    std::vector<NormalizerStep> normalizer;
    std::vector<PreTokenizerStep> pre;
    std::vector<int64_t> prefix, suffix;
    int64_t size = 0;

    [[noreturn]] void fail(const std::string& why) const { throw TokenizerError(what + ": " + why); }

    void read_model(const json& m);
    void read_normalizer(const json& n);
    void read_pre_tokenizer(const json& p);
    void read_post_processor(const json& p);
    void read_added(const json& a);
    void index_added();
    const AddedToken* added_at(std::string_view text, std::size_t i) const;

    std::vector<std::string> pre_tokenize(const std::string& text) const;
    void bpe(const std::string& word, std::vector<int64_t>& out) const;
    void encode_plain(std::string_view text, std::vector<int64_t>& out) const;
};

namespace {

uint64_t pair_key(int64_t a, int64_t b) {
    return (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b);
}

std::shared_ptr<icu::RegexPattern> compile(const std::string& pattern, bool literal,
                                           const std::string& what) {
    UErrorCode status = U_ZERO_ERROR;
    UParseError where{};
    const icu::UnicodeString u = icu::UnicodeString::fromUTF8(literal ? pattern : icu_pattern(pattern));
    std::shared_ptr<icu::RegexPattern> p(
        icu::RegexPattern::compile(u, literal ? UREGEX_LITERAL : 0, where, status));
    if (U_FAILURE(status) || !p)
        throw TokenizerError(what + ": the pre-tokenizer's regex does not compile (" + u_errorName(status) +
                             ")");
    return p;
}

// Splits `piece` by the pattern's matches, as the Split pre-tokenizer's behaviours say. Every find() runs
// under ICU's time limit (kRegexTimeLimit): a pattern that backtracks exponentially ((a+)+b on 41 a's) is
// an error naming the file and the limit, never a hang, and never a silently shorter split.
void split_by(const icu::RegexPattern& pattern, SplitBehavior behavior, const std::string& piece,
              std::vector<std::string>& out, const std::string& what) {
    const icu::UnicodeString u = icu::UnicodeString::fromUTF8(piece);
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::RegexMatcher> m(pattern.matcher(u, status));
    if (U_SUCCESS(status)) m->setTimeLimit(kRegexTimeLimit, status);
    std::vector<std::pair<std::string, bool>> parts;  // text, is a match
    int32_t last = 0;
    while (U_SUCCESS(status) && m->find(status)) {
        const int32_t start = m->start(status), end = m->end(status);
        if (end == start) continue;
        if (start > last) parts.emplace_back(to_utf8(u.tempSubStringBetween(last, start)), false);
        parts.emplace_back(to_utf8(u.tempSubStringBetween(start, end)), true);
        last = end;
    }
    if (status == U_REGEX_TIME_OUT)
        throw TokenizerError(what + ": the pre-tokenizer's regex ran past its time limit (" +
                             std::to_string(kRegexTimeLimit) + " ICU steps, about " +
                             std::to_string(kRegexTimeLimit) + " ms) on a piece of " +
                             std::to_string(u.length()) + " characters");
    if (U_FAILURE(status))
        throw TokenizerError(what + ": the pre-tokenizer's regex failed (" + u_errorName(status) + ")");
    if (last < u.length()) parts.emplace_back(to_utf8(u.tempSubStringBetween(last, u.length())), false);
    std::vector<std::string> pieces;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const auto& [text, match] = parts[i];
        switch (behavior) {
            case SplitBehavior::isolated:
                pieces.push_back(text);
                break;
            case SplitBehavior::removed:
                if (!match) pieces.push_back(text);
                break;
            case SplitBehavior::merged_with_previous:
                if (match && !pieces.empty() && !parts[i - 1].second)
                    pieces.back() += text;
                else
                    pieces.push_back(text);
                break;
            case SplitBehavior::merged_with_next:
                if (!match && i > 0 && parts[i - 1].second)
                    pieces.back() += text;
                else
                    pieces.push_back(text);
                break;
        }
    }
    for (std::string& p : pieces)
        if (!p.empty()) out.push_back(std::move(p));
}

}  // namespace

void BpeTokenizer::Impl::read_model(const json& m) {
    if (!m.is_object() || m.value("type", std::string()) != "BPE")
        fail("model type " + (m.is_object() ? m.value("type", json("none")).dump() : std::string("none")) +
             " is not BPE (this reader takes byte-level BPE tokenizers)");
    if (m.contains("byte_fallback") && m["byte_fallback"].is_boolean() && m["byte_fallback"].get<bool>())
        fail("byte_fallback BPE (SentencePiece style) is not byte-level BPE");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
        if (m.contains(key) && m[key].is_string() && !m[key].get<std::string>().empty())
            fail(std::string("model.") + key + " is set; byte-level BPE has none");
    if (m.contains("dropout") && m["dropout"].is_number() && m["dropout"].get<double>() > 0)
        fail("model.dropout is set (random tokenisation)");
    ignore_merges =
        m.contains("ignore_merges") && m["ignore_merges"].is_boolean() && m["ignore_merges"].get<bool>();
    if (!m.contains("vocab") || !m["vocab"].is_object()) fail("model.vocab is not an object");
    for (const auto& [token, id] : m["vocab"].items()) {
        if (!id.is_number_integer() || id.get<long long>() < 0 || id.get<long long>() >= (1ll << 31))
            fail("model.vocab: \"" + token + "\" has no valid id");
        vocab[token] = id.get<int64_t>();
        tokens[id.get<int64_t>()] = token;
        size = std::max(size, id.get<int64_t>() + 1);
    }
    if (m.contains("unk_token") && m["unk_token"].is_string()) {
        const auto it = vocab.find(m["unk_token"].get<std::string>());
        if (it != vocab.end()) unk = it->second;
    }
    if (!m.contains("merges") || !m["merges"].is_array()) fail("model.merges is not a list");
    int32_t rank = 0;
    for (const json& merge : m["merges"]) {
        std::string a, b;
        if (merge.is_string()) {
            const std::string s = merge.get<std::string>();
            const auto space = s.find(' ');
            if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
                fail("merge \"" + s + "\" is not two tokens separated by a space");
            a = s.substr(0, space), b = s.substr(space + 1);
        } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
            a = merge[0].get<std::string>(), b = merge[1].get<std::string>();
        } else {
            fail("a merge is neither \"a b\" nor [\"a\", \"b\"]");
        }
        const auto ia = vocab.find(a), ib = vocab.find(b), ab = vocab.find(a + b);
        if (ia == vocab.end() || ib == vocab.end() || ab == vocab.end())
            fail("merge \"" + a + " " + b + "\" names a token that is not in the vocabulary");
        merges.try_emplace(pair_key(ia->second, ib->second), Merge{rank++, ab->second});
    }
}

void BpeTokenizer::Impl::read_normalizer(const json& n) {
    if (n.is_null()) return;
    const std::string type = n.is_object() ? n.value("type", std::string()) : std::string();
    if (type == "Sequence") {
        if (!n.contains("normalizers") || !n["normalizers"].is_array())
            fail("normalizer Sequence has no list");
        for (const json& step : n["normalizers"])
            read_normalizer(step);
    } else if (type == "NFC") {
        normalizer.push_back(NormalizerStep::nfc);
    } else if (type == "NFD") {
        normalizer.push_back(NormalizerStep::nfd);
    } else if (type == "NFKC") {
        normalizer.push_back(NormalizerStep::nfkc);
    } else if (type == "NFKD") {
        normalizer.push_back(NormalizerStep::nfkd);
    } else if (type == "Lowercase") {
        normalizer.push_back(NormalizerStep::lowercase);
    } else {
        fail("normalizer \"" + type + "\" is not one of NFC, NFD, NFKC, NFKD, Lowercase, Sequence");
    }
}

void BpeTokenizer::Impl::read_pre_tokenizer(const json& p) {
    const std::string type = p.is_object() ? p.value("type", std::string()) : std::string();
    if (type == "Sequence") {
        if (!p.contains("pretokenizers") || !p["pretokenizers"].is_array())
            fail("pre_tokenizer Sequence has no list");
        for (const json& step : p["pretokenizers"])
            read_pre_tokenizer(step);
    } else if (type == "ByteLevel") {
        PreTokenizerStep s;
        s.byte_level = true;
        s.add_prefix_space = p.value("add_prefix_space", false);
        if (p.value("use_regex", true)) s.regex = compile(kGpt2Pattern, false, what);
        pre.push_back(std::move(s));
    } else if (type == "Split") {
        PreTokenizerStep s;
        const json& pattern = p.contains("pattern") ? p["pattern"] : json();
        if (pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string())
            s.regex = compile(pattern["Regex"].get<std::string>(), false, what);
        else if (pattern.is_object() && pattern.contains("String") && pattern["String"].is_string())
            s.regex = compile(pattern["String"].get<std::string>(), true, what);
        else
            fail("pre_tokenizer Split has no Regex or String pattern");
        if (p.value("invert", false)) fail("pre_tokenizer Split with invert is not implemented");
        const std::string behavior = p.value("behavior", std::string("Isolated"));
        if (behavior == "Isolated")
            s.behavior = SplitBehavior::isolated;
        else if (behavior == "Removed")
            s.behavior = SplitBehavior::removed;
        else if (behavior == "MergedWithPrevious")
            s.behavior = SplitBehavior::merged_with_previous;
        else if (behavior == "MergedWithNext")
            s.behavior = SplitBehavior::merged_with_next;
        else
            fail("pre_tokenizer Split behavior \"" + behavior + "\" is not implemented");
        pre.push_back(std::move(s));
    } else {
        fail("pre_tokenizer \"" + type +
             "\" is not one of ByteLevel, Split, Sequence (not a byte-level BPE)");
    }
}

void BpeTokenizer::Impl::read_post_processor(const json& p) {
    if (p.is_null()) return;
    const std::string type = p.is_object() ? p.value("type", std::string()) : std::string();
    if (type == "Sequence") {
        if (!p.contains("processors") || !p["processors"].is_array())
            fail("post_processor Sequence has no list");
        for (const json& step : p["processors"])
            read_post_processor(step);
    } else if (type == "ByteLevel") {
        // Only offsets change; the ids are those of the pieces.
    } else if (type == "TemplateProcessing") {
        const json& single = p.contains("single") ? p["single"] : json();
        if (!single.is_array()) fail("TemplateProcessing has no \"single\" template");
        bool after = false;
        for (const json& item : single) {
            if (item.contains("Sequence")) {
                after = true;
                continue;
            }
            if (!item.contains("SpecialToken") || !item["SpecialToken"].is_object())
                fail("TemplateProcessing item is neither Sequence nor SpecialToken");
            const std::string name = item["SpecialToken"].value("id", std::string());
            const json& specials = p.contains("special_tokens") ? p["special_tokens"] : json();
            if (!specials.is_object() || !specials.contains(name) || !specials[name].contains("ids") ||
                !specials[name]["ids"].is_array())
                fail("TemplateProcessing names \"" + name + "\" without its ids");
            for (const json& id : specials[name]["ids"]) {
                if (!id.is_number_integer() || id.get<long long>() < 0)
                    fail("a special token id is not an id");
                (after ? suffix : prefix).push_back(id.get<int64_t>());
            }
        }
    } else {
        fail("post_processor \"" + type + "\" is not one of TemplateProcessing, ByteLevel, Sequence");
    }
}

void BpeTokenizer::Impl::read_added(const json& a) {
    if (a.is_null()) return;
    if (!a.is_array()) fail("added_tokens is not a list");
    for (const json& t : a) {
        if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() || !t.contains("content") ||
            !t["content"].is_string() || t["id"].get<long long>() < 0 ||
            t["id"].get<long long>() >= (1ll << 31))
            fail("an added token has no id or content");
        AddedToken token{t["id"].get<int64_t>(), t["content"].get<std::string>(), t.value("lstrip", false),
                         t.value("rstrip", false), t.value("single_word", false)};
        if (token.content.empty()) fail("an added token is empty");
        if (token.content.size() > kMaxAddedTokenBytes)
            fail("an added token is " + std::to_string(token.content.size()) + " bytes long (the limit is " +
                 std::to_string(kMaxAddedTokenBytes) + ")");
        tokens[token.id] = token.content;
        vocab[token.content] = token.id;
        size = std::max(size, token.id + 1);
        added.push_back(std::move(token));
    }
    std::stable_sort(added.begin(), added.end(), [](const AddedToken& x, const AddedToken& y) {
        return x.content.size() > y.content.size();
    });
    index_added();
}

void BpeTokenizer::Impl::index_added() {
    for (std::size_t i = 0; i < added.size(); ++i) {
        const std::string& c = added[i].content;
        if (added_lengths.empty() || added_lengths.back().length != c.size())
            added_lengths.push_back(AddedOfLength{c.size(), {}, {}});
        added_lengths.back().first_bytes.set(static_cast<unsigned char>(c[0]));
        added_lengths.back().index.emplace(c, i);  // the first of equal contents wins, as before
        added_ids.emplace(added[i].id, i);
    }
}

// The added token at text[i] (longest first; a single_word token only where it is a whole word).
const AddedToken* BpeTokenizer::Impl::added_at(std::string_view text, std::size_t i) const {
    const auto first = static_cast<unsigned char>(text[i]);
    for (const AddedOfLength& group : added_lengths) {
        if (group.length > text.size() - i || !group.first_bytes.test(first)) continue;
        const auto it = group.index.find(text.substr(i, group.length));
        if (it == group.index.end()) continue;
        const AddedToken& t = added[it->second];
        const std::size_t end = i + t.content.size();
        if (t.single_word && ((i > 0 && is_word_byte(static_cast<unsigned char>(text[i - 1]))) ||
                              (end < text.size() && is_word_byte(static_cast<unsigned char>(text[end])))))
            continue;
        return &t;
    }
    return nullptr;
}

std::vector<std::string> BpeTokenizer::Impl::pre_tokenize(const std::string& text) const {
    std::vector<std::string> pieces{text};
    for (const PreTokenizerStep& step : pre) {
        std::vector<std::string> next;
        for (std::string& piece : pieces) {
            if (step.add_prefix_space && piece.rfind(' ', 0) != 0) piece.insert(0, " ");
            if (step.regex)
                split_by(*step.regex, step.behavior, piece, next, what);
            else if (!piece.empty())
                next.push_back(std::move(piece));
        }
        if (step.byte_level)
            for (std::string& piece : next) {
                std::string mapped;
                for (const unsigned char c : piece)
                    mapped += alphabet().encoded[c];
                piece = std::move(mapped);
            }
        pieces = std::move(next);
    }
    return pieces;
}

// Merges a byte-level word, lowest-ranked pair first (leftmost among equals), as transformers does.
void BpeTokenizer::Impl::bpe(const std::string& word, std::vector<int64_t>& out) const {
    if (ignore_merges) {
        const auto whole = vocab.find(word);
        if (whole != vocab.end()) {
            out.push_back(whole->second);
            return;
        }
    }
    struct Symbol {
        int64_t id;
        int prev, next;
        bool alive;
    };
    std::vector<Symbol> symbols;
    const icu::UnicodeString u = icu::UnicodeString::fromUTF8(word);
    for (int32_t i = 0; i < u.length();) {
        const int32_t next = u.moveIndex32(i, 1);
        const auto it = vocab.find(to_utf8(u.tempSubStringBetween(i, next)));
        if (it != vocab.end() || unk) {
            const int n = static_cast<int>(symbols.size());
            symbols.push_back({it != vocab.end() ? it->second : *unk, n - 1, n + 1, true});
        }
        i = next;
    }
    if (symbols.empty()) return;
    symbols.back().next = -1;
    struct Candidate {
        int32_t rank;
        int left, right;
        int64_t left_id, right_id;
        bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    auto consider = [&](int left) {
        if (left < 0 || symbols[left].next < 0) return;
        const int right = symbols[left].next;
        const auto m = merges.find(pair_key(symbols[left].id, symbols[right].id));
        if (m != merges.end()) queue.push({m->second.rank, left, right, symbols[left].id, symbols[right].id});
    };
    for (int i = 0; i + 1 < static_cast<int>(symbols.size()); ++i)
        consider(i);
    while (!queue.empty()) {
        const Candidate c = queue.top();
        queue.pop();
        Symbol &l = symbols[c.left], &r = symbols[c.right];
        if (!l.alive || !r.alive || l.next != c.right || l.id != c.left_id || r.id != c.right_id) continue;
        l.id = merges.at(pair_key(c.left_id, c.right_id)).id;
        r.alive = false;
        l.next = r.next;
        if (r.next >= 0) symbols[r.next].prev = c.left;
        consider(l.prev);
        consider(c.left);
    }
    for (const Symbol& s : symbols)
        if (s.alive) out.push_back(s.id);
}

void BpeTokenizer::Impl::encode_plain(std::string_view text, std::vector<int64_t>& out) const {
    if (text.empty()) return;
    std::string normal(text);
    if (!normalizer.empty()) {
        icu::UnicodeString u = icu::UnicodeString::fromUTF8(normal);
        for (const NormalizerStep step : normalizer) {
            UErrorCode status = U_ZERO_ERROR;
            const icu::Normalizer2* n = nullptr;
            switch (step) {
                case NormalizerStep::nfc:
                    n = icu::Normalizer2::getNFCInstance(status);
                    break;
                case NormalizerStep::nfd:
                    n = icu::Normalizer2::getNFDInstance(status);
                    break;
                case NormalizerStep::nfkc:
                    n = icu::Normalizer2::getNFKCInstance(status);
                    break;
                case NormalizerStep::nfkd:
                    n = icu::Normalizer2::getNFKDInstance(status);
                    break;
                case NormalizerStep::lowercase:
                    u.toLower();
                    continue;
            }
            if (U_FAILURE(status)) fail("ICU's normaliser is not available");
            u = n->normalize(u, status);
        }
        normal = to_utf8(u);
    }
    for (const std::string& piece : pre_tokenize(normal))
        bpe(piece, out);
}

BpeTokenizer::BpeTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BpeTokenizer::BpeTokenizer(BpeTokenizer&&) noexcept = default;
BpeTokenizer& BpeTokenizer::operator=(BpeTokenizer&&) noexcept = default;
BpeTokenizer::~BpeTokenizer() = default;

BpeTokenizer BpeTokenizer::load(const std::string& path) {
    const FileRead file = read_regular_file(path, kMaxJsonFileBytes);  // no FIFO, device or huge file
    if (!file.ok()) throw TokenizerError(file.error);
    return from_json_text(file.text, path);
}

BpeTokenizer BpeTokenizer::from_json_text(std::string_view text, const std::string& what) {
    json j;
    std::string error;
    if (!parse_json_bounded(text, what, j, &error)) throw TokenizerError(error);  // depth limited
    if (!j.is_object()) throw TokenizerError(what + ": not a JSON object");
    auto impl = std::make_unique<Impl>();
    impl->what = what;
    impl->read_model(j.contains("model") ? j["model"] : json());
    impl->read_added(j.contains("added_tokens") ? j["added_tokens"] : json());
    impl->read_normalizer(j.contains("normalizer") ? j["normalizer"] : json());
    impl->read_pre_tokenizer(j.contains("pre_tokenizer") ? j["pre_tokenizer"] : json());
    if (std::none_of(impl->pre.begin(), impl->pre.end(), [](const auto& s) { return s.byte_level; }))
        impl->fail("no ByteLevel pre-tokenizer: not a byte-level BPE");
    impl->read_post_processor(j.contains("post_processor") ? j["post_processor"] : json());
    for (const int64_t id : impl->prefix)
        if (!impl->tokens.count(id))
            impl->fail("the post-processor adds id " + std::to_string(id) + ", no token");
    for (const int64_t id : impl->suffix)
        if (!impl->tokens.count(id))
            impl->fail("the post-processor adds id " + std::to_string(id) + ", no token");
    return BpeTokenizer(std::move(impl));
}

namespace {

bool is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

std::vector<int64_t> BpeTokenizer::encode(std::string_view text, bool add_special) const {
    if (!valid_utf8(text)) throw TokenizerError("the text is not valid UTF-8");
    std::vector<int64_t> out;
    if (add_special) out = impl_->prefix;
    // Added tokens are split out first (longest at each position), the text between them encoded.
    std::size_t plain_from = 0, i = 0;
    while (i < text.size()) {
        const AddedToken* hit = impl_->added_at(text, i);
        if (!hit) {
            ++i;
            continue;
        }
        std::size_t start = i, end = i + hit->content.size();
        if (hit->lstrip)
            while (start > plain_from && is_space(static_cast<unsigned char>(text[start - 1])))
                --start;
        if (hit->rstrip)
            while (end < text.size() && is_space(static_cast<unsigned char>(text[end])))
                ++end;
        impl_->encode_plain(text.substr(plain_from, start - plain_from), out);
        out.push_back(hit->id);
        plain_from = i = end;
    }
    impl_->encode_plain(text.substr(plain_from), out);
    if (add_special) out.insert(out.end(), impl_->suffix.begin(), impl_->suffix.end());
    return out;
}

std::optional<int64_t> BpeTokenizer::single_token(std::string_view text) const {
    const std::vector<int64_t> ids = encode(text, false);
    if (ids.size() != 1) return std::nullopt;
    return ids[0];
}

std::string BpeTokenizer::token_text(int64_t id) const {
    const auto it = impl_->tokens.find(id);
    if (it == impl_->tokens.end())
        throw TokenizerError(impl_->what + ": no token has id " + std::to_string(id));
    if (const auto a = impl_->added_ids.find(id); a != impl_->added_ids.end())
        return impl_->added[a->second].content;
    const icu::UnicodeString u = icu::UnicodeString::fromUTF8(it->second);
    std::string bytes;
    for (int32_t i = 0; i < u.length(); i = u.moveIndex32(i, 1)) {
        const auto b = alphabet().decode.find(static_cast<char32_t>(u.char32At(i)));
        if (b != alphabet().decode.end())
            bytes += static_cast<char>(b->second);
        else
            bytes += to_utf8(icu::UnicodeString(u.char32At(i)));
    }
    return bytes;
}

std::optional<int64_t> BpeTokenizer::token_id(std::string_view token) const {
    const auto it = impl_->vocab.find(std::string(token));
    if (it == impl_->vocab.end()) return std::nullopt;
    return it->second;
}

int64_t BpeTokenizer::vocab_size() const {
    return impl_->size;
}

const std::vector<int64_t>& BpeTokenizer::prefix_ids() const {
    return impl_->prefix;
}

const std::vector<int64_t>& BpeTokenizer::suffix_ids() const {
    return impl_->suffix;
}

int number_piece_value(std::string_view text) {
    if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    if (text.empty() || text.size() > 3 || text.find_first_not_of("0123456789") != std::string_view::npos)
        return -1;
    int value = 0;
    for (const char c : text)
        value = 10 * value + (c - '0');
    return value;
}

int64_t count_number_pieces(const BpeTokenizer& tokenizer) {
    int64_t n = 0;
    for (int64_t id = 0; id < tokenizer.vocab_size(); ++id) {
        try {
            n += number_piece_value(tokenizer.token_text(id)) >= 0;
        } catch (const TokenizerError&) {  // an id the vocabulary skips
        }
    }
    return n;
}

}  // namespace fone::pretrained
