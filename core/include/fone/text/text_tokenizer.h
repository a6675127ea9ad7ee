// Tokenizers for text with numbers (issue 4), three ways of writing the numbers on IDENTICAL text so
// that they can be compared:
//   fone     each number is ONE [NUM] token; its exact value travels beside the ids (the FoNE input)
//   digit    each character of the number is a token: 0-9, '.', '-'
//   subword  the integer part in chunks of up to 3 digits from the left ("1234567" -> 123 456 7, as
//            Llama 3 splits digits), then '.', then the fraction in chunks of up to 3 digits from the
//            left; a chunk is a digit STRING, so "007", "07" and "7" are three different tokens
// The text around the numbers is cut into pieces by one SentencePiece model (BPE with byte fallback,
// so any UTF-8 text encodes) trained on the corpus after the number parser replaced every number by
// [NUM]; digits the parser leaves as text ("1.2.3") are kept out of training, so no digit is a piece.
// Numbers are written by write_number (text_data.h): "$41.40" keeps two decimals, others are canonical.
//
// One id layout for all schemes; each uses a prefix of it (vocab_size()):
//   0 [PAD]  1 [BOS]  2 [EOS]  3 [UNK]  4 [ANS]  5 [NUM]  6..261 the bytes  262..P-1 text pieces
//   P '.'  P+1 '-'  P+2..P+11 "0".."9"                          digit uses ids < P+12
//   P+12..P+111 "00".."99"  P+112..P+1111 "000".."999"          subword uses ids < P+1112
// where P = text_piece_count(). fone uses ids < P.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fone/numbers/decimal.h"
#include "fone/numbers/number_parser.h"
#include "fone/text/text_data.h"

namespace fone {

enum class TextScheme { fone, digit, subword };
std::string text_scheme_name(TextScheme scheme);  // "fone", "digit", "subword"
// Throws std::invalid_argument listing the valid names.
TextScheme text_scheme_from_name(std::string_view name);
std::vector<TextScheme> all_text_schemes();

// Bad input to a tokenizer (invalid UTF-8, an unknown id, a model file that is not ours); the message
// names it.
class TokenizerError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

namespace text_token {
inline constexpr int kPad = 0, kBos = 1, kEos = 2, kUnk = 3, kAns = 4, kNum = 5;
inline constexpr int kDigitTokens = 12;      // '.', '-', 0-9
inline constexpr int kSubwordTokens = 1112;  // '.', '-', all digit strings of length 1 to 3
}  // namespace text_token

struct TokenizerOptions {
    // Size of the SentencePiece vocabulary: the 6 special tokens, the 256 byte pieces and the learned
    // pieces. A small corpus may give fewer (the limit is soft).
    int vocab_size = 1000;
    // Share of the corpus's characters that get pieces of their own; the rarest others are written as
    // bytes. SentencePiece takes 0.98 to 1; text with thousands of distinct characters (CJK) needs a
    // vocabulary larger than the characters that this share covers.
    double character_coverage = 0.9995;
    // The numbers that are numbers (a run's digit slots): longer ones are text to the pieces too.
    NumberLimits number_limits;
    // A folder of trained models by a digest of their training text and options ("" : none): training
    // on the same text with the same options gives the same model (one thread), so a model found there is
    // loaded instead of trained again. The runs of one corpus share it (the run store's .tokenizers).
    std::string cache_dir;
};

struct TokenSpan {
    int begin = 0, end = 0;  // token indexes [begin, end)
    friend bool operator==(const TokenSpan&, const TokenSpan&) = default;
};

struct EncodedText {
    std::vector<int> ids;
    std::vector<Decimal> numbers;         // the numbers' values, in order
    std::vector<TokenSpan> number_spans;  // the tokens of each number (one [NUM] for fone)
    // For an encoded example, 1 for the answer's tokens and the closing [EOS] (what the model learns to
    // write), 0 for [BOS], the prompt and [ANS]. All 0 for encode(text).
    std::vector<std::uint8_t> answer_mask;
};

class TextTokenizer {
  public:
    // Trains the text pieces on the examples' prompts and answers (one thread, so the same corpus gives
    // the same model). Throws TokenizerError for an empty corpus and with SentencePiece's message when it
    // fails; NumberError when a text contains [NUM].
    static TextTokenizer train(const std::vector<TextExample>& corpus, TextScheme scheme,
                               const TokenizerOptions& options = {});
    // A serialized SentencePiece model, as model_bytes() gives and save() writes. Throws TokenizerError
    // when it is not one, or not laid out as above.
    static TextTokenizer from_bytes(const std::string& model, TextScheme scheme);
    static TextTokenizer load(const std::string& path, TextScheme scheme);
    // Writes the SentencePiece model (a standard .model file; the scheme is not in it: a run records it
    // in its config) to a temporary file and renames it.
    void save(const std::string& path) const;
    const std::string& model_bytes() const { return model_; }

    TextScheme scheme() const { return scheme_; }
    // The same text pieces with another number scheme (shares the model).
    TextTokenizer with_scheme(TextScheme scheme) const;
    // The same tokenizer, reading as numbers only those that `limits` hold (a run's digit slots): a
    // longer one is text, its digits byte pieces, for every scheme alike (docs/number-parsing.md).
    TextTokenizer with_number_limits(const NumberLimits& limits) const;
    const NumberLimits& number_limits() const { return limits_; }
    int text_piece_count() const;  // P in the layout above
    int vocab_size() const;        // ids of this scheme: P, P + 12 or P + 1112

    // Text -> ids, no [BOS]/[EOS]. Throws TokenizerError for invalid UTF-8, NumberError for "[NUM]".
    EncodedText encode(std::string_view text) const;
    // [BOS] prompt [ANS] answer [EOS]; without a prompt (a document): [BOS] answer [EOS].
    EncodedText encode(const TextExample& example) const;
    // Ids -> text, the numbers written by write_number: decode(encode(t).ids, encode(t).numbers) ==
    // write_numbers(t). fone takes the k-th value for the k-th [NUM] (the counts must match); digit
    // and subword read the numbers from their tokens and need no values. [PAD], [BOS], [EOS] and [ANS]
    // write nothing. Throws TokenizerError for an id outside vocab_size() or a missing value.
    std::string decode(const std::vector<int>& ids, const std::vector<Decimal>& values = {}) const;
    // The inverse of encode(example): the prompt before [ANS], the answer after it.
    TextExample decode_example(const std::vector<int>& ids, const std::vector<Decimal>& values = {}) const;
    // A token's name for display: "[NUM]", "▁pays", "<0x0A>", "7", "007", ".".
    std::string piece(int id) const;
    bool is_number_token(int id) const;  // [NUM] or a digit/subword token
    // The ids that cannot come next after `ids` in well-formed text (what a generator must not write):
    // a byte piece that does not continue or start a valid UTF-8 character (a stray byte decodes to
    // U+FFFD), anything but the right continuation byte while a character is incomplete, and for fone
    // a [NUM] right after a [NUM] (two values would print as one number). Looks at the last four ids
    // only. vocab_size() flags, 1 = not allowed.
    std::vector<std::uint8_t> not_allowed_after(const std::vector<int>& ids) const;

  private:
    TextTokenizer(std::string model, TextScheme scheme);
    std::vector<int> encode_pieces(std::string_view templ) const;
    void append_number(const std::string& written, EncodedText& out) const;

    std::string model_;
    std::shared_ptr<void> processor_;  // a SentencePiece processor, behind spm_bridge (core/src)
    TextScheme scheme_ = TextScheme::fone;
    NumberLimits limits_;
};

// Chunks of the subword scheme: "1234567.891" -> {"123", "456", "7", ".", "891"}, "-0.05" -> {"-", "0",
// ".", "05"}. Takes a number as write_number writes it.
std::vector<std::string> subword_chunks(std::string_view number);

// Token counts of a corpus under one scheme: the text's tokens without [BOS]/[ANS]/[EOS] (the same
// three for every scheme).
struct TokenCounts {
    std::size_t examples = 0, numbers = 0;
    std::size_t tokens = 0;                    // prompt and answer tokens of every example
    std::size_t number_tokens = 0;             // of which tokens that write numbers
    std::size_t tables = 0, table_tokens = 0;  // examples with a table (table_text) and its tokens
    double tokens_per_example() const { return examples ? double(tokens) / double(examples) : 0.0; }
    double tokens_per_number() const { return numbers ? double(number_tokens) / double(numbers) : 0.0; }
    double tokens_per_table() const { return tables ? double(table_tokens) / double(tables) : 0.0; }
};
TokenCounts count_tokens(const TextTokenizer& tokenizer, const std::vector<TextExample>& corpus);

}  // namespace fone
