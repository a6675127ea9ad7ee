// Token by token, where one text run's model beats another on a document (issue 30, "See the difference"):
// the pieces of a document with the loss each run's model pays for it, aligned between two runs. The text
// pieces are the same for every method (one tokenizer trained on the same corpus); only the numbers differ
// (fone: one [NUM] token and the digit head; digit and subword: several tokens), so a number is one piece
// whatever its tokens. No LibTorch: the losses are computed by fone/train/token_loss.h; the window and
// `fone analyse token-loss` read them from here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fone::analysis {

// One piece of a document: a text token, a run of byte tokens that make one character, or a whole number.
struct LossPiece {
    std::string text;     // as written in the document (a number as the parser found it: "3,287,263")
    bool number = false;  // a number of the document
    // Nats the model pays for the piece, teacher-forced: a text piece -log p(its token(s)); a number the
    // sum over its tokens of -log p(token), and for fone also -log p(its digits and sign) under the digit
    // head (every slot of the run's digit slots, leading zeros included): the cost of writing that value.
    double loss = 0;
    int tokens = 1;  // tokens the run spends on the piece
    // Numbers: the value written (write_number), and the number the model writes at that place,
    // teacher-forced (fone: the digit head's value; digit/subword: its most probable token at each of the
    // number's tokens, read as a number; "" when those do not spell a number).
    std::string value, predicted;
};

// A run's losses on one document of its test split, and where they came from.
struct DocumentLosses {
    std::string run, method, checkpoint;  // checkpoint: the file the weights came from
    std::string document;                 // the document's first line (a country's name)
    std::size_t index = 0;                // in the run's test split (0-based)
    std::size_t documents = 0;            // of the test split
    std::vector<LossPiece> pieces;

    std::size_t text_pieces() const;
    std::size_t numbers() const;
    // Mean nats per text token (the [EOS] included): the log of the document's text perplexity.
    double text_loss() const;
    std::size_t text_tokens() const;
    double number_loss() const;  // mean nats per number (0 without numbers)
};

// Two runs on the same document: a and b hold the same pieces in the same order (the same text, the same
// numbers). Throws std::invalid_argument naming the first piece where they differ (runs on different
// tokenizers or corpora) or when the documents differ.
struct TokenLossComparison {
    DocumentLosses a, b;
};
TokenLossComparison compare_documents(DocumentLosses a, DocumentLosses b);

// What the comparison says in a few figures: mean text-token and number losses of each run, and the share
// of text pieces and numbers where a pays less than b.
struct ComparisonSummary {
    double text_loss_a = 0, text_loss_b = 0, number_loss_a = 0, number_loss_b = 0;
    double text_a_lower = 0, numbers_a_lower = 0;  // shares in [0, 1]
    std::size_t text_pieces = 0, numbers = 0;
};
ComparisonSummary summarise(const TokenLossComparison& c);

// {"analysis": "token-loss", "document", "index", "documents", "a": {run, method, checkpoint, text_loss,
// text_tokens, number_loss}, "b": {...}, "summary": {...}, "pieces": [{"text", "number", "loss_a",
// "loss_b", "tokens_a", "tokens_b", and for numbers "value", "predicted_a", "predicted_b"}]}.
nlohmann::json token_loss_json(const TokenLossComparison& c);
// The comparison back from token_loss_json's output; throws std::invalid_argument for JSON of another shape.
TokenLossComparison token_loss_from_json(const nlohmann::json& j);

}  // namespace fone::analysis
