// Playground (workbench view "playground"): type free text or an expression and see, side by side, how the
// three number schemes tokenize it (fone: one [NUM] token per number; digit: one token per character of
// the number; subword: chunks of up to 3 digits), with the token counts; ask a trained run for its
// answer and digit probabilities (`fone predict`, a child process); and paste a CSV table to count its
// tokens per scheme (the paper's WikiTableQuestions figure: 149.25 FoNE vs 329.7 digit-wise tokens per
// table on average); and see one number under every encoding (the encoding zoo: FoNE, BitTokens, xVal,
// digits, subword chunks both ways, NumeroLogic).
//
// The text around the numbers is cut by the same SentencePiece model for every scheme (fone/text_tokenizer.h,
// no LibTorch), trained once per session in a worker thread on a generated corpus (word problems, unit
// conversions, tables and arithmetic prompts; about half a second). If SentencePiece cannot be opened the
// text falls back to words and single punctuation marks; the view says which it uses. Reusable: the
// welcome view embeds it with set_text() and set_run().
#pragma once

#include <QFutureWatcher>
#include <memory>

#include "analysis_view.h"
#include "fone/analysis/analysis.h"
#include "fone/text/text_tokenizer.h"
#include "fone_call.h"
#include "run_picker.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTextBrowser;
class QPushButton;
class QTableWidget;
class QTabWidget;

namespace fone::gui {

class EncodingZoo;

struct PlaygroundToken {
    QString text;  // as shown: "[NUM]", "▁pens", "12", "+"
    bool number = false;
};

// The tokens of a text under a scheme. With a tokenizer: its pieces (byte pieces of printable ASCII shown
// as the character). Without one: words and single other characters for the text, the numbers as the
// scheme writes them. Throws NumberError for text containing "[NUM]" and TokenizerError for invalid UTF-8.
std::vector<PlaygroundToken> playground_tokens(const QString& text, TextScheme scheme,
                                               const TextTokenizer* tokenizer);

// The corpus the playground's text pieces are trained on (seeded: the same on every machine).
std::vector<TextExample> playground_corpus();

class PlaygroundView : public AnalysisView {
    Q_OBJECT
    Q_PROPERTY(QString text READ text WRITE set_text)
    Q_PROPERTY(QString run READ run WRITE set_run)
    Q_PROPERTY(QString prompt READ prompt WRITE set_prompt)
    Q_PROPERTY(QString table READ table_csv WRITE set_table_csv)
    Q_PROPERTY(QString page READ page WRITE set_page)
    Q_PROPERTY(QString zoo_number READ zoo_number WRITE set_zoo_number)
  public:
    explicit PlaygroundView(RunCatalog* catalog, QWidget* parent = nullptr);
    ~PlaygroundView() override;

    void set_text(const QString& text);
    QString text() const;
    // Tokens of the current text (updated as it is typed; text pieces once the tokenizer is trained).
    const std::vector<PlaygroundToken>& tokens(TextScheme scheme) const;
    int token_count(TextScheme scheme) const;
    int number_token_count(TextScheme scheme) const;
    bool tokenizer_ready() const { return tokenizers_ != nullptr; }
    QString text_pieces_note() const;  // which text tokenizer is in use
    // The pane that shows a scheme's tokens, and its heading (the scheme, its token count).
    QTextBrowser* token_pane(TextScheme scheme) const;
    QString token_heading(TextScheme scheme) const;

    void set_table_csv(const QString& csv);
    QString table_csv() const;
    const analysis::TokenCounts& table_counts() const { return table_counts_; }
    QString table_summary() const;

    // The page on the right: "ask" (a trained run), "table" (tokens per table) or "zoo" (the encoding zoo);
    // any other name changes nothing.
    void set_page(const QString& name);
    QString page() const;
    // The encoding zoo's number (encoding_zoo.h): one number under every encoding.
    EncodingZoo* zoo() const { return zoo_; }
    void set_zoo_number(const QString& number);
    QString zoo_number() const;

    bool set_run(const QString& name_or_dir);
    QString run() const;
    // What the run is asked: the run's example prompt at first; an arithmetic text typed above ("12+345=")
    // becomes the prompt too.
    void set_prompt(const QString& prompt);
    QString prompt() const;
    void set_program(const QString& fone);
    void
    ask();  // `fone predict --run DIR PROMPT` (also by itself when the run changes and the view is shown)
    const nlohmann::json& prediction() const { return prediction_; }
    QString answer_text() const;
    QTableWidget* probabilities() const { return probabilities_; }

  Q_SIGNALS:
    void tokensChanged();
    void tokenizerReady();
    void predicted();
    void predictionFailed(const QString& why);

  protected:
    void refresh() override { ask(); }
    void showEvent(QShowEvent* event) override;

  private:
    QWidget* build_token_columns();
    QWidget* build_ask_box(RunCatalog* catalog);
    QWidget* build_table_box();
    void connect_asking();
    void on_tokenizer_trained();
    void ensure_tokenizer();
    void retokenize();
    void recount_table();
    void show_prediction();

    QPlainTextEdit* text_;
    QTextBrowser* columns_[3];
    QLabel* counts_[3];
    QLabel* pieces_note_;
    std::vector<PlaygroundToken> tokens_[3];
    using Tokenizers = std::vector<TextTokenizer>;  // fone, digit, subword: one model, three schemes
    std::shared_ptr<const Tokenizers> tokenizers_;
    QString tokenizer_error_;
    bool text_error_ = false;
    bool training_ = false,
         asking_ = false;  // busy while either runs  // the status line shows a tokenizing error
    QFutureWatcher<std::pair<std::shared_ptr<const Tokenizers>, QString>> trainer_;
    RunPicker* runs_;
    QLineEdit* prompt_;
    QString default_prompt_;
    QTimer* ask_timer_;
    QPushButton* ask_button_;
    QLabel* answer_;
    QTableWidget* probabilities_;
    FoneCall* call_;
    nlohmann::json prediction_;
    QPlainTextEdit* table_;
    QLabel* table_counts_label_;
    analysis::TokenCounts table_counts_;
    QTimer* table_timer_;
    QTabWidget* pages_;
    EncodingZoo* zoo_;
};

}  // namespace fone::gui
