// Real corpora (fone/text/corpus.h): the World Factbook reader and the corpus report.
#include "fone/text/corpus.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "fone/io/file_read.h"
#include "fone/io/json_bounded.h"
#include "fone/numbers/number_parser.h"

namespace fone {
namespace {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

// The named entities the package's 256 files use (every one of them), and the common others.
const std::map<std::string, std::string, std::less<>>& named_entities() {
    static const std::map<std::string, std::string, std::less<>> table = {
        {"nbsp", "\u00A0"},  {"amp", "&"},         {"lt", "<"},         {"gt", ">"},
        {"quot", "\""},      {"apos", "'"},        {"rsquo", "\u2019"}, {"lsquo", "\u2018"},
        {"ldquo", "\u201C"}, {"rdquo", "\u201D"},  {"ndash", "\u2013"}, {"mdash", "\u2014"},
        {"deg", "\u00B0"},   {"hellip", "\u2026"}, {"aacute", "á"},     {"Aacute", "Á"},
        {"eacute", "é"},     {"Eacute", "É"},      {"iacute", "í"},     {"Iacute", "Í"},
        {"oacute", "ó"},     {"Oacute", "Ó"},      {"uacute", "ú"},     {"Uacute", "Ú"},
        {"agrave", "à"},     {"egrave", "è"},      {"acirc", "â"},      {"ecirc", "ê"},
        {"icirc", "î"},      {"ocirc", "ô"},       {"atilde", "ã"},     {"otilde", "õ"},
        {"ntilde", "ñ"},     {"Ntilde", "Ñ"},      {"auml", "ä"},       {"euml", "ë"},
        {"iuml", "ï"},       {"ouml", "ö"},        {"Ouml", "Ö"},       {"uuml", "ü"},
        {"Uuml", "Ü"},       {"aring", "å"},       {"oslash", "ø"},     {"Oslash", "Ø"},
        {"ccedil", "ç"},     {"szlig", "ß"},       {"scaron", "š"},     {"Scaron", "Š"},
    };
    return table;
}

std::string utf8_of(std::uint32_t cp) {
    std::string s;
    if (cp < 0x80) {
        s += static_cast<char>(cp);
    } else if (cp < 0x800) {
        s += static_cast<char>(0xC0 | (cp >> 6));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        s += static_cast<char>(0xE0 | (cp >> 12));
        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        s += static_cast<char>(0xF0 | (cp >> 18));
        s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return s;
}

// The text of the entity `name` (between & and ;), or "" when it is not one we know.
std::string entity_text(std::string_view name) {
    if (name.size() > 1 && name[0] == '#') {
        const bool hex = name[1] == 'x' || name[1] == 'X';
        const std::string_view digits = name.substr(hex ? 2 : 1);
        if (digits.empty() || digits.size() > 6) return "";
        std::uint32_t cp = 0;
        for (const char c : digits) {
            const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                          : hex && std::isxdigit(static_cast<unsigned char>(c))
                              ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                              : -1;
            if (d < 0) return "";
            cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(d);
        }
        // NUL, surrogates and beyond Unicode stay as written: they would make the text invalid.
        if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return "";
        return utf8_of(cp);
    }
    const auto it = named_entities().find(name);
    return it == named_entities().end() ? "" : it->second;
}

std::string without_tags(const std::string& html) {
    std::string out;
    out.reserve(html.size());
    for (std::size_t i = 0; i < html.size(); ++i) {
        const std::size_t close = html[i] == '<' ? html.find('>', i) : std::string::npos;
        // A tag starts with a letter, '/' or '!' ("<br>", "</p>", "<!-- -->"); "< 5" or "<1%" is text.
        const bool tag = close != std::string::npos && i + 1 < html.size() &&
                         (std::isalpha(static_cast<unsigned char>(html[i + 1])) || html[i + 1] == '/' ||
                          html[i + 1] == '!');
        if (!tag) {
            out += html[i];
            continue;
        }
        out += ' ';  // <br>, <p>: a break between words; inline tags are followed by spaces anyway
        i = close;
    }
    return out;
}

std::string decoded_entities(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const std::size_t semi = text[i] == '&' ? text.find(';', i) : std::string::npos;
        if (semi != std::string::npos && semi - i <= 10) {
            const std::string decoded = entity_text(std::string_view(text).substr(i + 1, semi - i - 1));
            if (!decoded.empty()) {
                out += decoded;
                i = semi;
                continue;
            }
        }
        out += text[i];
    }
    return out;
}

// Runs of ASCII whitespace and no-break spaces (U+00A0, what &nbsp; and the files' own NBSPs are) as
// one space, trimmed.
std::string one_spaced(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const bool nbsp = c == '\xC2' && i + 1 < text.size() && text[i + 1] == '\xA0';
        const bool space = nbsp || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
        i += nbsp;
        if (!space)
            out += c;
        else if (!out.empty() && out.back() != ' ')
            out += ' ';
    }
    if (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

std::string trimmed(const std::string& s) {
    return one_spaced(s);
}

std::string joined(const std::vector<std::string>& path) {
    std::string out;
    for (const std::string& p : path)
        out += (out.empty() ? "" : ": ") + p;
    return out;
}

// Appends a line per string under `value` to `out`, each "path: text". "text" and "note" keys add no
// name of their own (a note's text starts with "note:" already).
void render_value(const ordered_json& value, std::vector<std::string>& path, std::string& out) {
    if (value.is_object()) {
        for (const auto& [key, child] : value.items()) {
            const std::string name = trimmed(key);
            const bool unnamed = name == "text" || name == "note" || name.empty();
            if (!unnamed) path.push_back(name);
            render_value(child, path, out);
            if (!unnamed) path.pop_back();
        }
    } else if (value.is_array()) {
        for (const ordered_json& child : value)
            render_value(child, path, out);
    } else if (!value.is_null()) {
        const std::string text = strip_markup(value.is_string() ? value.get<std::string>() : value.dump());
        if (text.empty()) return;
        out += (out.empty() ? "" : "\n") + (path.empty() ? text : joined(path) + ": " + text);
    }
}

// The field text at a path of keys (keys compared trimmed), "" when there is none.
std::string field_text(const ordered_json& country, const std::vector<std::string>& keys) {
    const ordered_json* at = &country;
    for (const std::string& key : keys) {
        if (!at->is_object()) return "";
        const ordered_json* next = nullptr;
        for (const auto& [k, v] : at->items())
            if (trimmed(k) == key) next = &v;
        if (!next) return "";
        at = next;
    }
    return at->is_string() ? strip_markup(at->get<std::string>()) : "";
}

std::string country_name(const ordered_json& country, const std::string& code) {
    for (const char* form : {"conventional short form", "conventional long form"}) {
        const std::string name = field_text(country, {"Government", "Country name", form, "text"});
        if (!name.empty() && name != "none") return name;
    }
    return code;
}

// A country's JSON by the bounded parser (fone/io/json_bounded.h); TextDataError "<where>: not JSON (why)"
// for text that is not JSON, invalid UTF-8, a number beyond a double or nesting beyond the limit.
ordered_json country_json(const std::string& text, const std::string& where) {
    ordered_json country;
    std::string error;
    if (!parse_json_bounded(text, where, country, &error))
        throw TextDataError(where + ": not JSON (" + error.substr(where.size() + 2) + ")");
    return country;
}

ordered_json parse_country(const std::string& path) {
    const FileRead read = read_regular_file(path, kMaxJsonFileBytes);
    if (!read.ok()) throw TextDataError(read.error);
    return country_json(read.text, path);
}

std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 14695981039346656037ull;
    for (const char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

}  // namespace

std::string strip_markup(const std::string& html) {
    return one_spaced(decoded_entities(without_tags(html)));
}

std::string render_factbook_fields(const std::string& json_text, const std::string& where) {
    const ordered_json country = country_json(json_text, where);
    std::vector<std::string> path;
    std::string out;
    render_value(country, path, out);
    return out;
}

FactbookCorpus read_factbook(const std::string& folder) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) throw TextDataError(folder + ": not a folder");
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::end(it); it.increment(ec))
        if (it->path().extension() == ".json" && it->is_regular_file(ec)) files.push_back(it->path());
    if (ec) throw TextDataError(folder + ": cannot list (" + ec.message() + ")");
    if (files.empty()) throw TextDataError(folder + ": no .json file (the package's data/ folder holds 256)");
    std::sort(files.begin(), files.end(),
              [](const fs::path& a, const fs::path& b) { return a.stem().string() < b.stem().string(); });
    FactbookCorpus corpus;
    for (const fs::path& file : files) {
        const ordered_json country = parse_country(file.string());
        if (!country.is_object())
            throw TextDataError(file.string() +
                                ": not a Factbook country (expected an object of sections, got " +
                                country.type_name() + ")");
        const std::string code = file.stem().string();
        std::vector<std::string> path;
        std::string fields;
        render_value(country, path, fields);
        if (fields.empty()) {
            corpus.skipped.push_back({file.string(), "no field text"});
            continue;
        }
        if (fields.find(kNumPlaceholder) != std::string::npos)
            throw TextDataError(file.string() + ": contains the placeholder [NUM]");
        const std::string name = country_name(country, code);
        corpus.documents.push_back(
            {code, file.parent_path().filename().string(), name, name + "\n" + fields});
    }
    return corpus;
}

std::string factbook_split(const std::string& code) {
    const std::uint64_t bucket = fnv1a(code) % 10;
    return bucket == 0 ? "test" : bucket == 1 ? "val" : "train";
}

namespace {

// The files a run reads of a folder corpus, relative to it (see data_digest).
std::vector<std::string> corpus_files(const std::string& folder) {
    std::error_code ec;
    std::vector<std::string> files;
    if (fs::exists(fs::path(folder) / "train.jsonl", ec)) {
        for (const char* name : {"train.jsonl", "val.jsonl", "test.jsonl"})
            if (fs::exists(fs::path(folder) / name, ec)) files.push_back(name);
        return files;
    }
    for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::end(it); it.increment(ec))
        if (it->path().extension() == ".json" && it->is_regular_file(ec))
            files.push_back(fs::relative(it->path(), folder, ec).string());
    std::sort(files.begin(), files.end());
    return files;
}

std::string gigabytes(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, bytes >= (1 << 30) ? "%.1f GB" : "%.0f MB",
                  bytes / (bytes >= (1 << 30) ? 1024.0 * 1024.0 * 1024.0 : 1024.0 * 1024.0));
    return buf;
}

}  // namespace

std::string data_digest(const std::string& path, std::string* error) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) return file_digest(path, error);
    std::string all;
    for (const std::string& f : corpus_files(path)) {
        const std::string d = file_digest((fs::path(path) / f).string(), error);
        if (d.empty()) return "";
        all += f + '\0' + d + '\n';
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(all)));
    return hex;
}

std::uint64_t data_bytes(const std::string& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
        const auto size = fs::file_size(path, ec);
        return ec ? 0 : size;
    }
    std::uint64_t total = 0;
    for (const std::string& f : corpus_files(path)) {
        const auto size = fs::file_size(fs::path(path) / f, ec);
        if (!ec) total += size;
    }
    return total;
}

void check_corpus_memory(const std::string& path, std::uint64_t bytes_per_byte, std::uint64_t have) {
    const std::uint64_t bytes = data_bytes(path);
    const long double need = static_cast<long double>(bytes) * bytes_per_byte;
    if (have == 0 || need <= static_cast<long double>(have)) return;
    throw TextDataError(path + ": preparing this corpus of " + gigabytes(static_cast<double>(bytes)) +
                        " needs about " + gigabytes(static_cast<double>(need)) + " of memory (about " +
                        std::to_string(bytes_per_byte) +
                        " bytes per byte of text: its tokens, targets and number labels), more than this "
                        "machine's " +
                        gigabytes(static_cast<double>(have)) + ": train on a part of it (a shorter file)");
}

TextSplits hashed_splits(const std::vector<TextExample>& documents) {
    TextSplits s;
    for (const TextExample& d : documents) {
        const std::string split = factbook_split(d.prompt + d.answer);
        (split == "test" ? s.test : split == "val" ? s.val : s.train).push_back(d);
    }
    return s;
}

namespace {

// The numbers of the splits by their digit counts: (integer digits, fractional digits) -> how many.
using DigitShapes = std::map<std::pair<int, int>, std::size_t>;

// The slots that hold the most numbers among those with m + n = max_slots (m >= 1), a given m or n kept;
// ties go to more integer slots. Then shrunk to the numbers held.
std::pair<int, int> best_split(const DigitShapes& shapes, int want_int, int want_frac, int max_slots) {
    std::size_t best_held = 0;
    std::pair<int, int> best{want_int >= 0 ? want_int : 1, want_frac >= 0 ? want_frac : 0};
    for (int m = 1; m <= max_slots; ++m) {
        const int mi = want_int >= 0 ? want_int : m;
        const int nf = want_frac >= 0 ? want_frac : std::max(0, max_slots - mi);
        std::size_t held = 0;
        for (const auto& [shape, count] : shapes)
            held += shape.first <= mi && shape.second <= nf ? count : 0;
        if (held >= best_held) {
            best_held = held;
            best = {mi, nf};
        }
        if (want_int >= 0) break;  // one candidate
    }
    int most_int = 1, most_frac = 0;
    for (const auto& [shape, count] : shapes)
        if (shape.first <= best.first && shape.second <= best.second) {
            most_int = std::max(most_int, shape.first);
            most_frac = std::max(most_frac, shape.second);
        }
    return {want_int >= 0 ? want_int : most_int, want_frac >= 0 ? want_frac : most_frac};
}

}  // namespace

TextSlots choose_text_slots(const TextSplits& splits, int want_int, int want_frac, int max_slots) {
    TextSlots out;
    DigitShapes shapes;
    int most_int = 1, most_frac = 0;
    for (const auto* split : {&splits.train, &splits.val, &splits.test})
        for (const TextExample& e : *split)
            for (const std::string* text : {&e.prompt, &e.answer})
                for (const ParsedNumber& x : parse_numbers(*text).numbers) {
                    const int i = x.value.int_digit_count(), f = x.value.frac_digit_count();
                    ++shapes[{i, f}];
                    ++out.numbers;
                    most_int = std::max(most_int, i);
                    most_frac = std::max(most_frac, f);
                    if (out.longest.empty() || i + f > out.longest_int + out.longest_frac) {
                        out.longest = x.text.substr(0, 24) + (x.text.size() > 24 ? "..." : "");
                        out.longest_int = i;
                        out.longest_frac = f;
                    }
                }
    const int m = want_int >= 0 ? want_int : most_int, n = want_frac >= 0 ? want_frac : most_frac;
    std::tie(out.int_digits, out.frac_digits) =
        m + n <= max_slots ? std::pair{m, n} : best_split(shapes, want_int, want_frac, max_slots);
    const NumberLimits limits{out.int_digits, out.frac_digits};
    for (const auto& [shape, count] : shapes)
        out.held += shape.first <= limits.int_digits && shape.second <= limits.frac_digits ? count : 0;
    return out;
}

TextSplits factbook_splits(const FactbookCorpus& corpus) {
    TextSplits s;
    for (const FactbookDocument& d : corpus.documents) {
        const std::string split = factbook_split(d.code);
        (split == "test" ? s.test : split == "val" ? s.val : s.train).push_back({"", d.text});
    }
    return s;
}

CorpusReport corpus_report(const std::vector<TextExample>& examples, const NumberLimits& limits) {
    constexpr std::size_t kExamplesShown = 10, kExamplesPerKind = 8;
    CorpusReport r;
    Decimal largest;
    for (const TextExample& e : examples) {
        ++r.documents;
        for (const std::string* text : {&e.prompt, &e.answer}) {
            r.characters += text->size();
            r.longest_document = std::max(r.longest_document, text->size());
            bool in_word = false;
            for (const char c : *text) {
                const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
                r.words += !space && !in_word;
                in_word = !space;
            }
            const ParsedText parsed = parse_numbers(*text, limits);
            for (const ParsedNumber& x : parsed.numbers) {
                ++r.numbers;
                ++r.digit_lengths[x.value.int_digit_count() + x.value.frac_digit_count()];
                if (x.value.negative()) ++r.signs["negative"];
                r.most_int_digits = std::max(r.most_int_digits, x.value.int_digit_count());
                r.most_frac_digits = std::max(r.most_frac_digits, x.value.frac_digit_count());
                if (compare_abs(x.value, largest) > 0) largest = x.value;
            }
            for (const std::string& w : parsed.warnings) {
                ++r.not_read;
                const std::size_t colon = w.rfind(": ");
                ++r.not_read_reasons[colon == std::string::npos ? w : w.substr(colon + 2)];
                if (r.not_read_examples.size() < kExamplesShown) r.not_read_examples.push_back(w);
            }
            for (const AsTextSpan& span : parsed.as_text) {
                const std::string kind = as_text_kind_name(span.kind);
                ++r.as_text[kind];
                auto& shown = r.as_text_examples[kind];
                if (shown.size() < kExamplesPerKind &&
                    std::find(shown.begin(), shown.end(), span.text) == shown.end())
                    shown.push_back(span.text);
            }
        }
    }
    r.largest = largest.to_string();
    return r;
}

nlohmann::json corpus_report_json(const CorpusReport& r) {
    nlohmann::json lengths = nlohmann::json::object(), as_text = nlohmann::json::object();
    for (const auto& [digits, count] : r.digit_lengths)
        lengths[std::to_string(digits)] = count;
    for (const auto& [kind, count] : r.as_text)
        as_text[kind] = {{"count", count}, {"examples", r.as_text_examples.at(kind)}};
    return {
        {"documents", r.documents},
        {"characters", r.characters},
        {"words", r.words},
        {"longest_document_characters", r.longest_document},
        {"numbers", r.numbers},
        {"numbers_per_word", r.words ? static_cast<double>(r.numbers) / static_cast<double>(r.words) : 0.0},
        {"negative_numbers", r.signs.count("negative") ? r.signs.at("negative") : 0},
        {"digit_lengths", lengths},
        {"most_int_digits", r.most_int_digits},
        {"most_frac_digits", r.most_frac_digits},
        {"largest", r.largest},
        {"not_read", r.not_read},
        {"not_read_reasons", r.not_read_reasons},
        {"not_read_examples", r.not_read_examples},
        {"as_text", as_text}};
}

nlohmann::json corpus_numbers_json(const TextSplits& s, const NumberLimits& limits) {
    std::vector<TextExample> all = s.train;
    all.insert(all.end(), s.val.begin(), s.val.end());
    all.insert(all.end(), s.test.begin(), s.test.end());
    const nlohmann::json r = corpus_report_json(corpus_report(all, limits));
    return {{"documents", r["documents"]}, {"numbers", r["numbers"]}, {"as_text", r["as_text"]}};
}

}  // namespace fone
