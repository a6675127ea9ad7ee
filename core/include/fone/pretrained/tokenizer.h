// A model folder's tokenizer.json, for the byte-level BPE tokenizers of Llama-3, GPT-2, Pythia and Qwen2:
// the ids transformers' tokenizer(text) gives, computed the same way:
//   1. added tokens (<|begin_of_text|>, ...) found in the text are split out as they are;
//   2. the rest is normalised (none, NFC, NFD, NFKC, NFKD, Lowercase, or a sequence of them; ICU);
//   3. pre-tokenised: Split by the file's own regex (ICU's engine: \p{L}, \p{N}, look-ahead) and/or the
//      ByteLevel step (GPT-2's regex when use_regex), every byte then written as GPT-2's printable char;
//   4. each piece merged by the BPE merges, lowest rank first (ignore_merges: a piece that is a token
//      as a whole is taken as it is);
//   5. the post-processor's special tokens added (TemplateProcessing: Llama-3's <|begin_of_text|>).
// Anything else in the file (a Unigram or WordPiece model, a Metaspace pre-tokenizer, byte_fallback...)
// is refused with an error that names it, never tokenised approximately.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fone::pretrained {

// A tokenizer.json this reader cannot use, or text that is not UTF-8; the message names the file.
class TokenizerError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class BpeTokenizer {
  public:
    static BpeTokenizer load(const std::string& path);
    // The file's text already read (tests, fuzzers); `what` names it in errors.
    static BpeTokenizer from_json_text(std::string_view text, const std::string& what);

    BpeTokenizer(BpeTokenizer&&) noexcept;
    BpeTokenizer& operator=(BpeTokenizer&&) noexcept;
    ~BpeTokenizer();

    // The ids of a UTF-8 text; with add_special, the post-processor's tokens too (as transformers'
    // add_special_tokens=True). Throws TokenizerError for text that is not UTF-8.
    std::vector<int64_t> encode(std::string_view text, bool add_special = true) const;
    // The id of a text that is exactly one token without special tokens (e.g. "527" in Llama-3).
    std::optional<int64_t> single_token(std::string_view text) const;
    // A token's bytes, decoded from the byte-level alphabet ("Ġ527" -> " 527"); an added token's content.
    // Throws TokenizerError for an id that is no token.
    std::string token_text(int64_t id) const;
    // The id of a token as the vocabulary spells it ("Ġthe", "<|begin_of_text|>").
    std::optional<int64_t> token_id(std::string_view token) const;
    // One more than the largest id.
    int64_t vocab_size() const;
    // The ids the post-processor puts before and after a text (Llama-3: [128000] and []).
    const std::vector<int64_t>& prefix_ids() const;
    const std::vector<int64_t>& suffix_ids() const;

  private:
    struct Impl;
    explicit BpeTokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace fone::pretrained
