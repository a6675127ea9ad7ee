// Text with numbers in it (issue 4): examples, the built-in generators of text where numbers matter
// (word problems, unit conversions, small tables), the rule that writes a number into text, and the
// readers of the user's corpora. No LibTorch: the tokenizers (text_tokenizer.h) and the engine read it.
// The generators and the writing rule are described in docs/text.md.
#pragma once

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fone/numbers/decimal.h"
#include "fone/numbers/number_parser.h"

namespace fone {

// A prompt and the answer the model should write after it; the answer holds numbers. A plain-text
// document is an example with an empty prompt and the whole document as its answer.
struct TextExample {
    std::string prompt;
    std::string answer;
    friend bool operator==(const TextExample&, const TextExample&) = default;
};

struct TextSplits {
    std::vector<TextExample> train, val, test;
};

enum class TextTask {
    word_problems,  // prices, quantities, units: total cost, change, unit price, two purchases, % off,
                    // bags x kg; additive: two prices, money left, combined weight
    units,          // km/m, kg/g, L/mL, h/min, °C/°F conversions, every answer exact
    tables,         // a 3-5 row, 2-4 column table of numbers and a question: column sum, larger cell,
                    // difference of two cells
};

// "word-problems", "units", "tables".
std::string text_task_name(TextTask task);
// Throws std::invalid_argument listing the valid names.
TextTask text_task_from_name(std::string_view name);
bool is_text_task_name(std::string_view name);
std::vector<std::string> text_task_names();
// The one list of text tasks a run trains on: "text" (a corpus of one's own, --data) and the generated
// ones above. fone train, the Launch panel and validation read it.
std::vector<std::string> text_task_names_for_training();
bool is_text_training_task(const std::string& name);

// How a number is written into text, the one rule shared by the generators and every tokenizer
// scheme, so that a FoNE value alone gives its text back: the canonical form (Decimal::to_string:
// "-3", "2.5", "1000"), except right after a currency sign ($, €, £) where an amount with cents keeps
// two decimals ("$41.40", "$0.05") and a whole amount has none ("$20").
std::string write_number(const Decimal& value, std::string_view text_before);
// The text with every number the parser finds written back by write_number: "costs $3.5, 1,000 g"
// becomes "costs $3.50, 1000 g". The generators' texts are unchanged by it (tested). Throws
// NumberError when the text contains the placeholder [NUM]. Numbers that `limits` do not hold stay as
// written (they are text to a run with those slots).
std::string write_numbers(std::string_view text, const NumberLimits& limits = {});

// One example of the task, drawn from rng (all draws through random_below, so the same on every
// platform). Every number in it is written by write_number and every answer is computed exactly.
TextExample generate_text_example(TextTask task, std::mt19937_64& rng);

// Seeded and deterministic. The test split is drawn first, then val, then train, from one random
// stream; an example whose prompt was drawn before is drawn again, so no prompt is in two splits (or
// twice in one). Throws std::invalid_argument when the task cannot make that many distinct prompts.
// `drills` (word-problems only; 0 to kMaxDrills) is the share of training examples that are drills: an
// additive template's operands as a bare sum ("$452.34 + $65.26 =" -> "$517.60"); val and test hold
// none, and with drills 0 the splits are those of earlier versions. Throws std::invalid_argument for a
// share out of range or drills in another task.
inline constexpr double kMaxDrills = 0.9;
inline constexpr double kWordProblemDrills = 0.75;
// The drill rules, for a task by name: "" when `drills` is allowed, else why not (one line, no key prefix).
// generate_text_splits throws it; TrainConfig::validate reports it before a run directory is made.
std::string drills_problem(std::string_view task, double drills);  // the default of fone train and fone data
// fone train's default number of word problems a run trains on (one pass; fewer are passed over again).
inline constexpr std::size_t kWordProblemTrainSize = 240000;
TextSplits generate_text_splits(TextTask task, std::size_t train_size, std::size_t val_size,
                                std::size_t test_size, std::uint64_t seed, double drills = 0);

// User data split by a seeded shuffle: identical examples are merged, examples with the same prompt
// (documents: the same text) stay in one split; test and val take their sizes first, train the rest
// (capped at train_size when non-zero). Throws std::invalid_argument when too few prompts remain.
TextSplits split_text_examples(const std::vector<TextExample>& examples, std::size_t train_size,
                               std::size_t val_size, std::size_t test_size, std::uint64_t seed);

// The table of a tables example: the lines of its prompt that start with '|' (header and rows), joined
// by '\n'; empty for other examples. The paper's tokens-per-table figure counts this text.
std::string table_text(const TextExample& example);

// A file that cannot be read as text examples; the message names file:line and what is wrong.
class TextDataError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// JSONL: one object per line with string fields "prompt" and "answer" (other fields are ignored);
// blank lines are skipped. Strict: a line that is not such an object, holds invalid UTF-8, has an
// empty answer or contains the placeholder [NUM] throws TextDataError naming file:line.
std::vector<TextExample> read_text_jsonl(const std::string& path);
// Plain text: one document per line (CRLF and a UTF-8 byte-order mark accepted, blank lines skipped),
// each an example with an empty prompt. Invalid UTF-8 or [NUM] throws TextDataError naming file:line.
std::vector<TextExample> read_text_documents(const std::string& path);
// Plain text by paragraphs: the lines up to a blank line are one document, their line breaks kept
// ("\n"; CRLF and a byte-order mark accepted). Errors as read_text_documents'.
std::vector<TextExample> read_text_paragraphs(const std::string& path);
// read_text_jsonl for *.jsonl files, read_text_documents for any other file.
std::vector<TextExample> read_text_file(const std::string& path);
// One {"prompt", "answer"} object per line, written to a temporary file and renamed.
void write_text_jsonl(const std::string& path, const std::vector<TextExample>& examples);

}  // namespace fone
