// Real corpora of text with numbers (issue 30): the CIA World Factbook reader (each country a document,
// split by country), and the report of what a corpus holds (documents, words, numbers, their digit
// lengths, the largest, what the parser could not read and why). No LibTorch. docs/text.md, "A real
// corpus: the World Factbook".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/numbers/number_parser.h"
#include "fone/text/text_data.h"

namespace fone {

// One country (or region) of the Factbook as a document: its first line the country's name, then one
// line per field, "Section: Field: subfield: text" with the markup removed.
struct FactbookDocument {
    std::string code;    // the file's name without .json ("in"), what the split is decided by
    std::string region;  // the folder it was in ("south-asia")
    std::string name;    // the conventional short name ("India"), else the long one, else the code
    std::string text;
};

// A file the reader left out, and why (a documented skip: a country without any field text).
struct FactbookSkip {
    std::string file, reason;
};

struct FactbookCorpus {
    std::vector<FactbookDocument> documents;  // sorted by code, so the same folder reads the same way
    std::vector<FactbookSkip> skipped;
};

// The text of a field with its markup removed: tags dropped (<br> and <p> become a space), HTML
// entities decoded (&nbsp; &amp; &eacute; &#233; ...; an unknown one stays as written), whitespace runs
// made one space, trimmed.
std::string strip_markup(const std::string& html);

// One country's JSON (the package's format: sections of fields, each field {"text": ...} or subfields,
// notes as strings) rendered as a document's lines (without the name line). Throws TextDataError naming
// `where` for a value that is neither an object nor a string.
std::string render_factbook_fields(const std::string& json_text, const std::string& where);

// Every *.json file under `folder` (the package's data/ folder, or any folder above it: its region
// subfolders are searched), each a document. Throws TextDataError with one line naming the file for a
// file that is not JSON (or not UTF-8, or larger than 64 MB) and for a folder with no .json file; a
// country with no field text is skipped and listed in `skipped`.
FactbookCorpus read_factbook(
    const std::string& folder);  // (a file whose JSON is not an object: an error too)

// The split of a country: "test", "val" or "train", from a hash of its code (FNV-1a 64, mod 10: 0 test,
// 1 val, else train), so a country is in one split whatever else the folder holds.
std::string factbook_split(const std::string& code);

// The content digest of a run's data (config "data_digest": how a run notices that its data changed): a
// file's (file_digest, fone/io/file_read.h), or for a folder corpus the digest of the files a run reads
// there: train.jsonl, val.jsonl and test.jsonl when train.jsonl exists, else every .json file below it (the
// Factbook's), each by its path relative to the folder and its own digest. "" and *error set when one
// cannot be read.
std::string data_digest(const std::string& path, std::string* error = nullptr);
// Memory that preparing one byte of a text corpus takes (the strings, the tokens and targets, the number
// labels at every position), measured: for the methods with one [NUM] per number (fone, xval, bittokens),
// and for the others. docs/reliability.md has the measurement.
inline constexpr std::uint64_t kCorpusBytesPerByteNum = 200;
inline constexpr std::uint64_t kCorpusBytesPerByte = 200;

// The bytes of a run's data: a file's size, or a folder corpus's files (those data_digest reads).
std::uint64_t data_bytes(const std::string& path);
// TextDataError, one line with the figures, when preparing the corpus at path (bytes_per_byte of memory for
// each of its bytes: a method's batches, measured) needs more than `have` bytes of memory; checked before
// the corpus is read.
void check_corpus_memory(const std::string& path, std::uint64_t bytes_per_byte, std::uint64_t have);
// The documents as text examples (empty prompt, the document as answer), split by factbook_split.
TextSplits factbook_splits(const FactbookCorpus& corpus);

// The split of a document by a hash of its text, as factbook_split splits countries (FNV-1a 64 mod 10:
// 0 test, 1 val, else train): the same document is in the same split whatever else the file holds.
TextSplits hashed_splits(const std::vector<TextExample>& documents);

// The most digit slots (integer + fractional) a text run takes, for every method (the same numbers for
// all), so that a 400-digit run of digits is text, not a model 800 features wide. The World Factbook needs
// 11 + 4 (docs/number-parsing.md, "Numbers in real text").
inline constexpr int kMaxTextNumberDigits = 40;

// The digit slots of a text run, the same for every method: the most integer and fractional digits of
// the corpus's numbers when they fit `max_slots` in all; else the split of max_slots that holds the most
// numbers (the longer ones stay text: AsTextKind::beyond_slots), shrunk to the numbers it holds. A
// given int_digits or frac_digits (>= 0) is kept as given. docs/number-parsing.md, "Numbers a run
// cannot hold".
struct TextSlots {
    int int_digits = 1, frac_digits = 0;
    std::size_t numbers = 0, held = 0;  // the corpus's numbers, and those the slots hold
    // The number with the most digits (for messages): its text and digit counts.
    std::string longest;
    int longest_int = 0, longest_frac = 0;
};
TextSlots choose_text_slots(const TextSplits& splits, int int_digits, int frac_digits, int max_slots);

// What a corpus holds. Words are runs of non-space characters; numbers are what parse_numbers finds
// (with `limits`: those a run with these slots reads as numbers).
struct CorpusReport {
    std::size_t documents = 0, characters = 0, words = 0, numbers = 0, longest_document = 0;
    std::map<int, std::size_t> digit_lengths;  // significant digits (int + fraction) -> numbers
    std::map<std::string, std::size_t> signs;  // "negative" -> numbers with a minus
    std::string largest;                       // the largest absolute value, canonical
    int most_int_digits = 0, most_frac_digits = 0;
    std::size_t not_read = 0;                             // spans the parser kept as text
    std::map<std::string, std::size_t> not_read_reasons;  // "more than one decimal point" -> count
    std::vector<std::string> not_read_examples;           // the first few, as the parser words them
    // The same spans by kind (as_text_kind_name: "dotted", "in a word", "hexadecimal", "out of range",
    // "beyond the slots"), each with its first few spans as written.
    std::map<std::string, std::size_t> as_text;
    std::map<std::string, std::vector<std::string>> as_text_examples;
};
CorpusReport corpus_report(const std::vector<TextExample>& examples, const NumberLimits& limits = {});
// The report as report.json writes it: documents, characters, words, longest_document_characters,
// numbers, numbers_per_word, negative_numbers, digit_lengths, most_int_digits, most_frac_digits, largest,
// not_read, not_read_reasons, not_read_examples, and as_text: {kind: {"count", "examples"}}.
nlohmann::json corpus_report_json(const CorpusReport& report);

// What a run reads as numbers in all its splits, and what stays text and why (by kind, with examples):
// {"documents", "numbers", "as_text"} of corpus_report_json, the start event's text.corpus.
nlohmann::json corpus_numbers_json(const TextSplits& splits, const NumberLimits& limits);

}  // namespace fone
