#include "playground_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <cmath>

#include "encoding_zoo.h"
#include "fone/numbers/number_parser.h"
#include "fone/tasks/tasks.h"
#include "fone/text/text_data.h"
#include "hidden_view.h"

namespace fone::gui {

using nlohmann::json;

namespace {

constexpr double kPaperFoneTokensPerTable = 149.25, kPaperDigitTokensPerTable = 329.7;
const TextScheme kSchemes[3] = {TextScheme::fone, TextScheme::digit, TextScheme::subword};
// Each scheme's name and what it makes a token of (the pane's tooltip says more).
const char* const kSchemeTitles[3][2] = {{"FoNE", "a token per number"},
                                         {"Digit-wise", "a token per character"},
                                         {"Subword", "chunks of ≤ 3 digits"}};
// The token panes show at least this many lines of tokens (more where there is room).
constexpr int kMinTokenLines = 5;

// The trained text pieces, shared by every playground of the session (GUI thread only).
std::shared_ptr<const std::vector<TextTokenizer>> g_tokenizers;
QString g_tokenizer_error;

const char* const kDefaultText = "Ana buys 12 pens at $3.45 each and pays with a $50 note. 12+345=";
const char* const kDefaultTable =
    "Country,Year,Population,Area (km²),Growth %\n"
    "Norway,2023,\"5,550,203\",385207,0.96\n"
    "Denmark,2023,5946952,42943,0.41\n"
    "Finland,2023,5603851,338455,0.24\n"
    "Iceland,2023,393600,103000,2.27\n";

// "<0x2B>" -> "+" for printable ASCII bytes; other pieces as they are.
QString shown_piece(const std::string& piece) {
    if (piece.size() == 6 && piece.rfind("<0x", 0) == 0 && piece.back() == '>') {
        bool ok = false;
        const int byte = QString::fromStdString(piece.substr(3, 2)).toInt(&ok, 16);
        if (ok && byte > 32 && byte < 127) return QString(QChar(byte));
        if (ok && byte == 32) return QStringLiteral("▁");
        if (ok && byte == 10) return QStringLiteral("⏎");
    }
    return QString::fromStdString(piece);
}

// The height of a token pane that shows `lines` lines of tokens (each token a bold, shaded span).
int token_pane_height(QTextBrowser* pane, int lines) {
    QFont bold = pane->font();
    bold.setBold(true);
    return lines * QFontMetrics(bold).lineSpacing() + 2 * int(pane->document()->documentMargin()) + 2;
}

int scheme_index(TextScheme s) {
    return s == TextScheme::fone ? 0 : s == TextScheme::digit ? 1 : 2;
}

// Words (letters, digits, '_' or non-ASCII) and single other non-space characters.
void simple_text_tokens(std::string_view text, std::vector<PlaygroundToken>& out) {
    std::size_t i = 0;
    auto word_char = [](unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; };
    while (i < text.size()) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (std::isspace(c)) {
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        if (word_char(c))
            while (j < text.size() && word_char(static_cast<unsigned char>(text[j])))
                ++j;
        out.push_back({QString::fromUtf8(text.data() + i, static_cast<qsizetype>(j - i)), false});
        i = j;
    }
}

}  // namespace

std::vector<PlaygroundToken> playground_tokens(const QString& text, TextScheme scheme,
                                               const TextTokenizer* tokenizer) {
    const std::string utf8 = text.toStdString();
    std::vector<PlaygroundToken> out;
    if (tokenizer) {
        const EncodedText e = tokenizer->encode(utf8);
        for (const int id : e.ids)
            out.push_back({shown_piece(tokenizer->piece(id)), tokenizer->is_number_token(id)});
        return out;
    }
    const ParsedText parsed = parse_numbers(utf8);
    std::size_t at = 0;
    for (const ParsedNumber& n : parsed.numbers) {
        simple_text_tokens(std::string_view(utf8).substr(at, n.byte_start - at), out);
        at = n.byte_end;
        if (scheme == TextScheme::fone) {
            out.push_back({QString::fromStdString(std::string(kNumPlaceholder)), true});
            continue;
        }
        const std::string written = write_number(n.value, std::string_view(utf8).substr(0, n.byte_start));
        if (scheme == TextScheme::digit) {
            for (char c : written)
                out.push_back({QString(QChar(c)), true});
        } else {
            for (const std::string& chunk : subword_chunks(written))
                out.push_back({QString::fromStdString(chunk), true});
        }
    }
    simple_text_tokens(std::string_view(utf8).substr(at), out);
    return out;
}

std::vector<TextExample> playground_corpus() {
    std::vector<TextExample> corpus = generate_text_splits(TextTask::word_problems, 1500, 0, 0, 42).train;
    for (const auto& [task, count] : {std::pair{TextTask::units, 400}, std::pair{TextTask::tables, 150}}) {
        const auto more = generate_text_splits(task, static_cast<std::size_t>(count), 0, 0, 42).train;
        corpus.insert(corpus.end(), more.begin(), more.end());
    }
    // Arithmetic prompts, so '+', '-', '*', '=' and "mod" get pieces of their own.
    for (TaskKind kind :
         {TaskKind::dec_add, TaskKind::int_add, TaskKind::sub, TaskKind::mul3, TaskKind::mod_add}) {
        TaskOptions task;
        task.kind = kind;
        for (const Example& e : generate_splits(task, 60, 0, 0, 42).train)
            corpus.push_back({e.prompt(), e.answer.to_string()});
    }
    return corpus;
}

PlaygroundView::PlaygroundView(RunCatalog* catalog, QWidget* parent) : AnalysisView(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    text_ = new QPlainTextEdit;
    text_->setPlaceholderText("Type free text or an expression: Ana buys 12 pens at $3.45 each. 12+345=");
    text_->setToolTip(
        "Numbers are found by FoNE's number parser (\"1,234.5\" is one number, \"$3.45\" keeps its "
        "cents); the rest of the text is cut the same way for all three schemes.");
    // Two lines of text: the room below is for the tokens and the run's answer.
    const int two_lines = 2 * text_->fontMetrics().lineSpacing() +
                          2 * int(text_->document()->documentMargin()) + 2 * text_->frameWidth() + 2;
    text_->setMinimumHeight(two_lines);
    text_->setMaximumHeight(two_lines);
    layout->addWidget(text_);
    // The tokens of the three schemes one above the other (their lengths compare at a glance) on the left;
    // asking a run and counting a table's tokens on the right. It fits a 1280 x 720 screen: five lines of
    // tokens per scheme, every digit's column of the answer's probabilities.
    auto* pages = pages_ = new QTabWidget;
    pages->addTab(build_ask_box(catalog), "Ask a trained run");
    pages->setTabToolTip(0, pages->widget(0)->toolTip());
    pages->addTab(build_table_box(), "Tokens per table");
    pages->setTabToolTip(1, pages->widget(1)->toolTip());
    zoo_ = new EncodingZoo;
    pages->addTab(zoo_, "Encoding zoo");
    pages->setTabToolTip(2,
                         "One number under every encoding: its tokens, their count, and the vector "
                         "one-token methods read beside [NUM]");
    auto* right = new QWidget;
    auto* right_layout = new QVBoxLayout(right);
    right_layout->setContentsMargins(0, 0, 0, 0);
    right_layout->addWidget(pages, 1);
    right_layout->addWidget(status_label());
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(build_token_columns());
    split->addWidget(right);
    split->setStretchFactor(0, 11);
    split->setStretchFactor(1, 9);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    connect(text_, &QPlainTextEdit::textChanged, this, &PlaygroundView::retokenize);
    connect_asking();
    table_timer_ = new QTimer(this);
    table_timer_->setSingleShot(true);
    table_timer_->setInterval(150);
    connect(table_timer_, &QTimer::timeout, this, &PlaygroundView::recount_table);
    connect(table_, &QPlainTextEdit::textChanged, table_timer_, qOverload<>(&QTimer::start));
    connect(&trainer_, &QFutureWatcher<std::pair<std::shared_ptr<const Tokenizers>, QString>>::finished, this,
            &PlaygroundView::on_tokenizer_trained);
    text_->setPlainText(kDefaultText);
    table_->setPlainText(kDefaultTable);
    recount_table();
    if (g_tokenizers || !g_tokenizer_error.isEmpty()) ensure_tokenizer();
}

// The text's tokens under the three schemes, one above the other, and which text tokenizer cut them.
QWidget* PlaygroundView::build_token_columns() {
    const char* const tips[3] = {
        "FoNE: every number is ONE [NUM] token; its exact value goes in beside the token as [cos 2πx/T, sin "
        "2πx/T] pairs, so the model sees 12 and 345 as two tokens whatever their length.",
        "Digit-wise: each character of a number (digits, '.', '-') is its own token, as in most "
        "arithmetic transformers: longer numbers cost more tokens.",
        "Subword: the integer part in chunks of up to three digits from the left (1234567 → 123 456 7), as "
        "Llama 3 splits digits; a chunk is a string, so 007 and 7 are different tokens."};
    auto* box = new QWidget;
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    for (int i = 0; i < 3; ++i) {
        counts_[i] = new QLabel;
        counts_[i]->setTextFormat(Qt::RichText);
        counts_[i]->setWordWrap(true);
        counts_[i]->setToolTip(tips[i]);
        columns_[i] = new QTextBrowser;
        columns_[i]->setToolTip(tips[i]);
        columns_[i]->setFrameShape(QFrame::NoFrame);
        columns_[i]->document()->setDocumentMargin(2);
        columns_[i]->setMinimumHeight(token_pane_height(columns_[i], kMinTokenLines));
        columns_[i]->viewport()->setAutoFillBackground(false);
        columns_[i]->setStyleSheet("QTextBrowser { background: transparent; }");
        v->addWidget(counts_[i]);
        v->addWidget(columns_[i], 1);
    }
    pieces_note_ = new QLabel;
    pieces_note_->setWordWrap(true);
    pieces_note_->setStyleSheet("color: #666;");
    pieces_note_->setToolTip(
        "The text around the numbers is cut by one SentencePiece model, trained this session on a generated "
        "corpus of word problems, unit conversions, tables and arithmetic, the same way for all three "
        "schemes: only the numbers differ.");
    v->addWidget(pieces_note_);
    return box;
}

// Ask a trained run: the run, the prompt, its answer and the digit probabilities.
QWidget* PlaygroundView::build_ask_box(RunCatalog* catalog) {
    auto* ask_box = new QWidget;
    ask_box->setToolTip(
        "Runs `fone predict --run RUN TEXT` (a child process): the run's answer to the text above "
        "and, for a FoNE run, the probability of every digit at every position.");
    auto* ask_layout = new QVBoxLayout(ask_box);
    auto* ask_row = new QHBoxLayout;
    runs_ = new RunPicker(catalog);
    ask_button_ = new QPushButton("Ask");
    ask_button_->setToolTip("Run `fone predict` on the prompt (a child process; the window stays free)");
    prompt_ = new QLineEdit;
    prompt_->setPlaceholderText("a prompt of the run's task, e.g. 12+345=");
    prompt_->setToolTip(
        "What the run is asked. An arithmetic text typed above (ending in '=') is copied here.");
    ask_row->addWidget(runs_, 1);
    ask_layout->addLayout(ask_row);
    auto* prompt_row = new QHBoxLayout;
    prompt_row->addWidget(new QLabel("Prompt"));
    prompt_row->addWidget(prompt_, 1);
    prompt_row->addWidget(ask_button_);
    ask_layout->addLayout(prompt_row);
    answer_ = new QLabel;
    answer_->setTextFormat(Qt::RichText);
    answer_->setWordWrap(true);
    ask_layout->addWidget(answer_);
    probabilities_ = new QTableWidget;
    probabilities_->setToolTip(
        "Rows: the answer's digit positions, highest first. Columns: the digits 0-9. Darker = "
        "more probable; the model's choice is bold.");
    probabilities_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    probabilities_->verticalHeader()->setDefaultSectionSize(20);
    // Every digit's column in the box's width (the numbers are whole percentages: "100" at most).
    probabilities_->horizontalHeader()->setMinimumSectionSize(
        probabilities_->fontMetrics().horizontalAdvance("100") + 8);
    probabilities_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    probabilities_->hide();
    probabilities_->setMinimumHeight(80);
    ask_layout->addWidget(probabilities_);
    ask_layout->addStretch(1);
    return ask_box;
}

// Tokens per table: a pasted CSV counted under each scheme, next to the paper's figure.
QWidget* PlaygroundView::build_table_box() {
    auto* table_box = new QWidget;
    table_box->setToolTip(
        "Each cell is scanned by the number parser. FoNE pays one token per number, digit-wise one "
        "per character of it, subword one per ≤3-digit chunk; the words cost the same everywhere.");
    auto* table_layout = new QVBoxLayout(table_box);
    table_ = new QPlainTextEdit;
    table_->setPlaceholderText("Paste a table as CSV (comma-separated, quotes allowed)");
    table_->setLineWrapMode(QPlainTextEdit::NoWrap);
    table_counts_label_ = new QLabel;
    table_counts_label_->setTextFormat(Qt::RichText);
    table_counts_label_->setWordWrap(true);
    table_counts_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_layout->addWidget(table_, 1);
    table_layout->addWidget(table_counts_label_);
    return table_box;
}

// `fone predict` for the run and prompt: asked by the button, by Return, when the run changes and when an
// arithmetic text is typed above.
void PlaygroundView::connect_asking() {
    call_ = new FoneCall(default_fone_program(), this);
    call_->set_timeout_ms(120000);
    connect(call_, &FoneCall::succeeded, this, [this](const json& result) {
        prediction_ = result;
        ask_button_->setEnabled(true);
        show_info(QString());
        show_prediction();
        asking_ = false;
        set_busy(training_ || asking_);
        Q_EMIT predicted();
    });
    connect(call_, &FoneCall::failed, this, [this](const QString& message) {
        ask_button_->setEnabled(true);
        prediction_ = json();
        answer_->clear();
        probabilities_->clear();
        probabilities_->setRowCount(0);
        probabilities_->hide();
        show_error("fone predict: " + message);
        asking_ = false;
        set_busy(training_ || asking_);
        Q_EMIT predictionFailed(message);
    });
    connect(ask_button_, &QPushButton::clicked, this, &PlaygroundView::ask);
    connect(prompt_, &QLineEdit::returnPressed, this, &PlaygroundView::ask);
    ask_timer_ = new QTimer(this);
    ask_timer_->setSingleShot(true);
    ask_timer_->setInterval(700);
    connect(ask_timer_, &QTimer::timeout, this, [this] { request_refresh(); });
    connect(text_, &QPlainTextEdit::textChanged, this, [this] {
        // An arithmetic text is a prompt the run can answer: ask it.
        const QString text = text_->toPlainText().trimmed();
        if (expected_answer(text) && text != prompt_->text() && !runs_->run_dir().isEmpty()) {
            prompt_->setText(text);
            ask_timer_->start();
        }
    });
    connect(runs_, &RunPicker::runChanged, this, [this] {
        const QString example = example_prompt(runs_->config());
        if (prompt_->text().isEmpty() || prompt_->text() == default_prompt_) prompt_->setText(example);
        default_prompt_ = example;
        if (!runs_->run_dir().isEmpty()) request_refresh();
    });
    if (!runs_->run_dir().isEmpty()) {
        default_prompt_ = example_prompt(runs_->config());
        prompt_->setText(default_prompt_);
        request_refresh();
    }
}

void PlaygroundView::on_tokenizer_trained() {
    const auto [tokenizers, error] = trainer_.result();
    g_tokenizers = tokenizers;
    g_tokenizer_error = error;
    tokenizers_ = tokenizers;
    tokenizer_error_ = error;
    training_ = false;
    set_busy(training_ || asking_);
    retokenize();
    Q_EMIT tokenizerReady();
}

void PlaygroundView::ensure_tokenizer() {
    // The text pieces: trained once per session (shared by every playground), in a worker thread, when a
    // playground is first shown or given a text, so that opening the window costs nothing.
    if (tokenizers_ || training_ || !tokenizer_error_.isEmpty()) return;
    if (g_tokenizers || !g_tokenizer_error.isEmpty()) {
        tokenizers_ = g_tokenizers;
        tokenizer_error_ = g_tokenizer_error;
        retokenize();
        return;
    }
    training_ = true;
    set_busy(training_ || asking_);
    trainer_.setFuture(QtConcurrent::run([]() -> std::pair<std::shared_ptr<const Tokenizers>, QString> {
        try {
            const TextTokenizer base = TextTokenizer::train(playground_corpus(), TextScheme::fone);
            auto all = std::make_shared<Tokenizers>();
            for (TextScheme s : kSchemes)
                all->push_back(base.with_scheme(s));
            return {all, {}};
        } catch (const std::exception& e) {
            return {nullptr, QString::fromStdString(e.what())};
        }
    }));
}

void PlaygroundView::showEvent(QShowEvent* event) {
    AnalysisView::showEvent(event);
    ensure_tokenizer();
}

PlaygroundView::~PlaygroundView() {
    trainer_.waitForFinished();
}

void PlaygroundView::set_text(const QString& text) {
    ensure_tokenizer();
    text_->setPlainText(text);
}

QString PlaygroundView::text() const {
    return text_->toPlainText();
}

const std::vector<PlaygroundToken>& PlaygroundView::tokens(TextScheme scheme) const {
    return tokens_[scheme_index(scheme)];
}

int PlaygroundView::token_count(TextScheme scheme) const {
    return static_cast<int>(tokens(scheme).size());
}

int PlaygroundView::number_token_count(TextScheme scheme) const {
    int n = 0;
    for (const PlaygroundToken& t : tokens(scheme))
        n += t.number;
    return n;
}

QTextBrowser* PlaygroundView::token_pane(TextScheme scheme) const {
    return columns_[scheme_index(scheme)];
}

QString PlaygroundView::token_heading(TextScheme scheme) const {
    return plain_text(counts_[scheme_index(scheme)]->text());
}

QString PlaygroundView::text_pieces_note() const {
    return pieces_note_->text();
}

namespace {
const QStringList kPageNames = {"ask", "table", "zoo"};
}  // namespace

void PlaygroundView::set_page(const QString& name) {
    const auto i = kPageNames.indexOf(name);
    if (i >= 0) pages_->setCurrentIndex(static_cast<int>(i));
}

QString PlaygroundView::page() const {
    return kPageNames.value(pages_->currentIndex());
}

void PlaygroundView::set_zoo_number(const QString& number) {
    zoo_->set_number(number);
}

QString PlaygroundView::zoo_number() const {
    return zoo_->number();
}

void PlaygroundView::retokenize() {
    const QString text = text_->toPlainText();
    QString error;
    int counts[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        tokens_[i].clear();
        try {
            tokens_[i] = playground_tokens(
                text, kSchemes[i], tokenizers_ ? &(*tokenizers_)[static_cast<std::size_t>(i)] : nullptr);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        counts[i] = static_cast<int>(tokens_[i].size());
    }
    for (int i = 0; i < 3; ++i) {
        QString html;
        for (const PlaygroundToken& t : tokens_[i]) {
            const QString style = t.number ? "background-color:#d6e6f7; color:#0b3d91; font-weight:bold;"
                                           : "background-color:#eeeeee; color:#303030;";
            html +=
                QStringLiteral("<span style='%1'>&nbsp;%2&nbsp;</span> ").arg(style, t.text.toHtmlEscaped());
        }
        columns_[i]->setText(html);
        const int numbers = number_token_count(kSchemes[i]);
        QString ratio;
        if (i > 0 && counts[0] > 0)
            ratio =
                QStringLiteral(" · ×%1 FoNE's").arg(static_cast<double>(counts[i]) / counts[0], 0, 'f', 2);
        counts_[i]->setText(QStringLiteral("<b>%1</b> (%2): <b>%3 tokens</b>, %4 of them for numbers%5")
                                .arg(kSchemeTitles[i][0], kSchemeTitles[i][1])
                                .arg(counts[i])
                                .arg(numbers)
                                .arg(ratio));
    }
    if (!error.isEmpty()) {
        show_error(error);
        text_error_ = true;
    } else if (text_error_) {
        show_info(QString());
        text_error_ = false;
    }
    if (tokenizers_)
        pieces_note_->setText(
            QStringLiteral("Text pieces: one SentencePiece model (%1 pieces) for all three schemes; ▁ marks "
                           "a space. Numbers are blue.")
                .arg((*tokenizers_)[0].text_piece_count()));
    else if (!tokenizer_error_.isEmpty())
        pieces_note_->setText(
            "Text pieces: words and single punctuation marks (SentencePiece could not be used: " +
            tokenizer_error_ + "). Numbers are blue.");
    else
        pieces_note_->setText(
            "Training the text pieces (SentencePiece, about a second)… meanwhile the text is cut into "
            "words and punctuation. Numbers are blue.");
    Q_EMIT tokensChanged();
}

void PlaygroundView::set_table_csv(const QString& csv) {
    table_->setPlainText(csv);
    recount_table();
}

QString PlaygroundView::table_csv() const {
    return table_->toPlainText();
}

QString PlaygroundView::table_summary() const {
    return plain_text(table_counts_label_->text());
}

void PlaygroundView::recount_table() {
    table_timer_->stop();
    table_counts_ = analysis::count_table_tokens(table_->toPlainText().toStdString());
    const analysis::TokenCounts& t = table_counts_;
    const double ratio =
        t.fone_number_tokens > 0 ? static_cast<double>(t.digit_number_tokens) / t.fone_number_tokens : 0.0;
    table_counts_label_->setText(
        QStringLiteral(
            "%1 rows, %2 cells, <b>%3 numbers</b>. Tokens for the numbers: <b>FoNE %4</b> · digit-wise %5 "
            "(×%6) · subword %7. With the %8 text tokens: FoNE %9 · digit-wise %10 · subword %11.<br>"
            "<span style='color:#666'>The paper, on WikiTableQuestions: %12 FoNE vs %13 digit-wise tokens "
            "per table on average (×%14).</span>")
            .arg(t.rows)
            .arg(t.cells)
            .arg(t.numbers)
            .arg(t.fone_number_tokens)
            .arg(t.digit_number_tokens)
            .arg(ratio, 0, 'f', 2)
            .arg(t.subword_number_tokens)
            .arg(t.text_tokens)
            .arg(t.fone_total())
            .arg(t.digit_total())
            .arg(t.subword_total())
            .arg(kPaperFoneTokensPerTable)
            .arg(kPaperDigitTokensPerTable)
            .arg(kPaperDigitTokensPerTable / kPaperFoneTokensPerTable, 0, 'f', 2));
}

bool PlaygroundView::set_run(const QString& name_or_dir) {
    return runs_->set_run(name_or_dir);
}

QString PlaygroundView::run() const {
    return runs_->run_dir();
}

void PlaygroundView::set_program(const QString& fone) {
    call_->set_program(fone);
}

void PlaygroundView::set_prompt(const QString& prompt) {
    prompt_->setText(prompt);
}

QString PlaygroundView::prompt() const {
    return prompt_->text();
}

void PlaygroundView::ask() {
    ask_timer_->stop();
    if (runs_->run_dir().isEmpty()) {
        show_error("Choose a trained run first.");
        return;
    }
    const QString prompt = prompt_->text().trimmed();
    if (prompt.isEmpty()) {
        show_error("Type a prompt for the run, e.g. 12+345=");
        return;
    }
    show_info("Asking " + runs_->run_name() + " …");
    asking_ = true;
    set_busy(training_ || asking_);
    ask_button_->setEnabled(false);
    follow_run(runs_->run_dir());
    call_->start({"predict", "--run", runs_->run_dir(), prompt});
}

QString PlaygroundView::answer_text() const {
    return plain_text(answer_->text());
}

void PlaygroundView::show_prediction() {
    const QString value = QString::fromStdString(prediction_.value("value", std::string()));
    QString text =
        QStringLiteral("%1 answers <b>%2</b>")
            .arg(runs_->run_name().toHtmlEscaped(), value.isEmpty() ? "(no number)" : value.toHtmlEscaped());
    probabilities_->clear();
    probabilities_->setRowCount(0);
    probabilities_->setVisible(prediction_.contains("digits") && prediction_["digits"].is_array());
    if (prediction_.contains("digits") && prediction_["digits"].is_array()) {
        std::vector<json> digits(prediction_["digits"].begin(), prediction_["digits"].end());
        std::sort(digits.begin(), digits.end(), [](const json& a, const json& b) {
            return a.value("position", 0) > b.value("position", 0);
        });
        const int base = digits.empty() || !digits[0].contains("probabilities")
                             ? 10
                             : static_cast<int>(digits[0]["probabilities"].size());
        probabilities_->setRowCount(static_cast<int>(digits.size()));
        probabilities_->setColumnCount(base);
        QStringList columns, rows;
        for (int j = 0; j < base; ++j)
            columns << QString::number(j, 36);
        for (int r = 0; r < static_cast<int>(digits.size()); ++r) {
            const json& d = digits[static_cast<std::size_t>(r)];
            const int position = d.value("position", 0);
            rows << power_of_ten(position);
            const int chosen = d.value("digit", -1);
            const std::vector<double> p = d.contains("probabilities")
                                              ? d["probabilities"].get<std::vector<double>>()
                                              : std::vector<double>();
            for (int j = 0; j < base && j < static_cast<int>(p.size()); ++j) {
                auto* item =
                    new QTableWidgetItem(QString::number(100.0 * p[static_cast<std::size_t>(j)], 'f', 0));
                item->setTextAlignment(Qt::AlignCenter);
                item->setToolTip(QStringLiteral("P(digit %1 at 10^%2) = %3")
                                     .arg(j)
                                     .arg(position)
                                     .arg(p[static_cast<std::size_t>(j)], 0, 'g', 3));
                const double v = std::clamp(p[static_cast<std::size_t>(j)], 0.0, 1.0);
                item->setBackground(QColor::fromRgbF(1.0 - 0.85 * v, 1.0 - 0.55 * v, 1.0 - 0.15 * v));
                item->setForeground(v > 0.55 ? Qt::white : Qt::black);
                if (j == chosen) {
                    QFont f = item->font();
                    f.setBold(true);
                    item->setFont(f);
                }
                probabilities_->setItem(r, j, item);
            }
        }
        probabilities_->setHorizontalHeaderLabels(columns);
        probabilities_->setVerticalHeaderLabels(rows);
        // As high as its rows (no blank below them); less, scrolling, in a short window.
        probabilities_->setMaximumHeight(probabilities_->horizontalHeader()->sizeHint().height() +
                                         probabilities_->rowCount() *
                                             probabilities_->verticalHeader()->defaultSectionSize() +
                                         2 * probabilities_->frameWidth() + 2);
        text += " · probabilities in % per digit position:";
    } else if (prediction_.contains("generated") && prediction_["generated"].is_array()) {
        QStringList steps;
        for (const json& s : prediction_["generated"])
            steps << QStringLiteral("%1 (%2%)")
                         .arg(QString::fromStdString(s.value("token", std::string())).toHtmlEscaped())
                         .arg(100.0 * s.value("probability", 0.0), 0, 'f', 0);
        text += " · generated token by token: " + steps.join(" ");
    }
    if (prediction_.contains("tokens") && prediction_["tokens"].is_array()) {
        QStringList tokens;
        for (const json& t : prediction_["tokens"])
            tokens << QString::fromStdString(t.get<std::string>()).toHtmlEscaped();
        text += "<br><span style='color:#666'>the run's tokens: " + tokens.join(" ") + "</span>";
    }
    answer_->setText(text);
}

}  // namespace fone::gui
