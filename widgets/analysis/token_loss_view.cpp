#include "token_loss_view.h"

#include <QComboBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>

#include "fone/io/json_files.h"
#include "fone/store/run_kind.h"
#include "fone/store/run_store.h"
#include "fone/text/text_data.h"

namespace fone::gui {

using nlohmann::json;

namespace {

constexpr int kMargin = 6;

const char* const kHoverHint =
    "Hover over a piece: its loss under each run; over a number (framed): its value and what each model "
    "writes there.";

// config.json of a run directory ({} when unreadable).
json run_config(const QString& dir) {
    try {
        const json j = read_json_file((dir + "/" + kConfigFile).toStdString());
        return j.is_object() ? j : json::object();
    } catch (const std::exception&) {
        return json::object();
    }
}

// A run that `fone analyse token-loss` answers: a text or a fone-adapter run (fone/store/run_kind.h).
bool is_text_run(const json& config) {
    return answers(RunCommand::token_loss, run_kind_of(config));
}

}  // namespace

// ---- the text ----------------------------------------------------------------------------------------

TokenText::TokenText(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAutoFillBackground(true);
    QPalette p = palette();
    p.setColor(QPalette::Window, Qt::white);  // the colours are drawn for a white page, in either theme
    setPalette(p);
}

void TokenText::show_comparison(const analysis::TokenLossComparison* c, plots::LossColouring colouring) {
    comparison_ = c;
    colouring_ = colouring;
    hovered_ = -1;
    relayout();
    update();
}

void TokenText::relayout() {
    layout_ = {};
    if (comparison_)
        layout_ = plots::layout_pieces(*comparison_, font(), kMargin, kMargin, width() - 2 * kMargin);
    const int height = static_cast<int>(layout_.bottom) + kMargin;
    if (minimumHeight() != height) setMinimumHeight(height);
}

void TokenText::paintEvent(QPaintEvent*) {
    if (!comparison_) return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    plots::paint_pieces(p, *comparison_, layout_, colouring_, font());
    if (hovered_ >= 0)
        for (const plots::PieceBox& b : layout_.boxes)
            if (static_cast<int>(b.piece) == hovered_) {
                p.setPen(QPen(QColor(30, 90, 200), 2));
                p.drawRect(b.box.adjusted(1, 1, -1, -1));
            }
}

void TokenText::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    relayout();
}

void TokenText::mouseMoveEvent(QMouseEvent* event) {
    const int piece = plots::piece_at(layout_, event->position());
    if (piece != hovered_) {
        hovered_ = piece;
        update();
        Q_EMIT hovered(piece);
    }
    if (piece >= 0 && comparison_)
        QToolTip::showText(event->globalPosition().toPoint(),
                           plots::piece_description(*comparison_, static_cast<std::size_t>(piece)), this);
}

void TokenText::leaveEvent(QEvent*) {
    if (hovered_ < 0) return;
    hovered_ = -1;
    update();
    Q_EMIT hovered(-1);
}

// ---- the view ----------------------------------------------------------------------------------------

TokenLossView::TokenLossView(RunCatalog* catalog, QWidget* parent) : AnalysisView(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(make_controls(catalog));
    headline_ = new QLabel;
    headline_->setWordWrap(true);
    headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    key_ = new QLabel;
    key_->setWordWrap(true);
    layout->addWidget(headline_);
    layout->addWidget(key_);
    text_ = new TokenText;
    scroll_ = new QScrollArea;
    scroll_->setWidget(text_);
    scroll_->setWidgetResizable(true);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll_->setMinimumHeight(60);
    layout->addWidget(scroll_, 1);
    detail_ = new QLabel(kHoverHint);
    detail_->setWordWrap(true);
    detail_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(detail_);
    layout->addWidget(status_label());
    call_ = new FoneCall(default_fone_program(), this);
    connect_signals();
    choose_other_run();
    request_refresh();
}

QGridLayout* TokenLossView::make_controls(RunCatalog* catalog) {
    auto* grid = new QGridLayout;
    run_a_ = new RunPicker(catalog);
    run_b_ = new RunPicker(catalog);
    run_a_->setToolTip("Run a: a text run (fone train --task text). Green where it pays less than run b.");
    run_b_->setToolTip("Run b: a text run on the same corpus with the same text tokenizer (another method).");
    document_ = new QLineEdit("0");
    document_->setToolTip(
        "A document of the runs' test split: its index from 0, or its first line (a "
        "Factbook country's name, e.g. India)");
    document_->setMaximumWidth(160);
    colouring_ = new QComboBox;
    colouring_->addItem("a − b", "a-b");
    colouring_->addItem("loss of a", "a");
    colouring_->addItem("loss of b", "b");
    colouring_->setToolTip("What the colours show: the difference of the two losses, or one run's loss");
    compare_button_ = new QPushButton("Compare");
    cancel_button_ = new QPushButton("Cancel");
    cancel_button_->setEnabled(false);
    grid->addWidget(new QLabel("Run a"), 0, 0);
    grid->addWidget(run_a_, 0, 1, 1, 5);
    grid->addWidget(new QLabel("against b"), 1, 0);
    grid->addWidget(run_b_, 1, 1, 1, 5);
    grid->addWidget(new QLabel("Document"), 2, 0);
    grid->addWidget(document_, 2, 1);
    grid->addWidget(new QLabel("Colour"), 2, 2);
    grid->addWidget(colouring_, 2, 3);
    grid->addWidget(compare_button_, 2, 4);
    grid->addWidget(cancel_button_, 2, 5);
    grid->setColumnStretch(1, 1);
    return grid;
}

void TokenLossView::connect_signals() {
    connect(call_, &FoneCall::succeeded, this, &TokenLossView::on_result);
    connect(call_, &FoneCall::failed, this, [this](const QString& why) {
        cancel_button_->setEnabled(false);
        comparison_.reset();
        text_->show_comparison(nullptr, colouring());
        headline_->clear();
        key_->clear();
        set_busy(false);
        show_error(why.section('\n', 0, 0));
        Q_EMIT failed(why);
    });
    connect(compare_button_, &QPushButton::clicked, this, &TokenLossView::compare);
    connect(cancel_button_, &QPushButton::clicked, this, [this] {
        call_->cancel();
        cancel_button_->setEnabled(false);
        set_busy(false);
        show_info("Cancelled.");
    });
    connect(document_, &QLineEdit::returnPressed, this, &TokenLossView::compare);
    connect(colouring_, &QComboBox::currentIndexChanged, this, [this] {
        if (!comparison_) return;
        text_->show_comparison(&*comparison_, colouring());
        key_->setText(plots::colouring_key(*comparison_, colouring()));
    });
    connect(text_, &TokenText::hovered, this, &TokenLossView::hover);
    connect(run_a_, &RunPicker::runChanged, this, [this] {
        choose_other_run();
        request_refresh();
    });
    connect(run_b_, &RunPicker::runChanged, this, [this] { request_refresh(); });
}

void TokenLossView::choose_other_run() {
    // Run b by itself: a text run of the same task and data as a, with another method, when b is not one.
    const json a = run_config(run_a_->run_dir()), b = run_config(run_b_->run_dir());
    if (!is_text_run(a)) return;
    const auto partner = [&](const json& c) {
        return is_text_run(c) && c.value("data", json()) == a.value("data", json()) &&
               c.value("task", json()) == a.value("task", json()) &&
               c.value("method", json()) != a.value("method", json());
    };
    if (partner(b)) return;
    for (int i = 0; i < run_b_->combo()->count(); ++i) {
        const QString dir = run_b_->combo()->itemData(i).toString();
        if (!dir.isEmpty() && partner(run_config(dir))) {
            const QSignalBlocker block(run_b_);
            run_b_->set_run(dir);
            return;
        }
    }
}

bool TokenLossView::set_run(const QString& name_or_dir) {
    return run_a_->set_run(name_or_dir);
}

QString TokenLossView::run() const {
    return run_a_->run_dir();
}

bool TokenLossView::set_against(const QString& name_or_dir) {
    return run_b_->set_run(name_or_dir);
}

QString TokenLossView::against() const {
    return run_b_->run_dir();
}

void TokenLossView::set_document(const QString& index_or_name) {
    document_->setText(index_or_name);
    request_refresh();
}

QString TokenLossView::document() const {
    return document_->text().trimmed();
}

void TokenLossView::set_colouring(const QString& name) {
    const int i = colouring_->findData(name);
    if (i >= 0) colouring_->setCurrentIndex(i);
}

QString TokenLossView::colouring_name() const {
    return colouring_->currentData().toString();
}

plots::LossColouring TokenLossView::colouring() const {
    return plots::loss_colouring_from_name(colouring_name().toStdString());
}

void TokenLossView::set_program(const QString& fone) {
    call_->set_program(fone);
}

QString TokenLossView::headline() const {
    return headline_->text();
}

QString TokenLossView::detail() const {
    return detail_->text();
}

void TokenLossView::hover(int piece) {
    if (!comparison_ || piece < 0 || piece >= static_cast<int>(comparison_->a.pieces.size())) {
        detail_->setText(kHoverHint);
        return;
    }
    detail_->setText(
        plots::piece_description(*comparison_, static_cast<std::size_t>(piece)).replace('\n', " · "));
}

void TokenLossView::compare() {
    const QString a = run_a_->run_dir(), b = run_b_->run_dir();
    for (const QString& dir : {a, b}) {
        // A run of another kind: the sentence `fone analyse token-loss` gives it, naming what answers it.
        const json c = run_config(dir);
        if (dir.isEmpty() || is_text_run(c)) continue;
        show_info(
            QString::fromStdString(not_answered(QFileInfo(dir).fileName().toStdString(), run_kind_of(c),
                                                c.value("task", std::string("?")), RunCommand::token_loss)));
        return;
    }
    if (a.isEmpty() || b.isEmpty()) {
        show_info(
            "Choose two text runs of the same corpus (fone train --task text --data … with two methods).");
        return;
    }
    if (a == b) {
        show_info("Choose two different runs: a against b.");
        return;
    }
    const QString doc = document().isEmpty() ? QStringLiteral("0") : document();
    show_info("Scoring the document under both runs…");
    set_busy(true);
    cancel_button_->setEnabled(true);
    follow_runs({a, b});
    call_->start(
        {"analyse", "token-loss", "--run", a, "--against", b, "--doc", doc, "--json", "--threads", "1"});
}

void TokenLossView::on_result(const json& result) {
    cancel_button_->setEnabled(false);
    try {
        comparison_ = analysis::token_loss_from_json(result);
    } catch (const std::exception& e) {
        set_busy(false);
        show_error(QString::fromStdString(e.what()));
        return;
    }
    const analysis::TokenLossComparison& c = *comparison_;
    headline_->setText(QStringLiteral("<b>%1</b> (test document %2 of %3). %4")
                           .arg(QString::fromStdString(c.a.document).toHtmlEscaped())
                           .arg(c.a.index)
                           .arg(c.a.documents)
                           .arg(plots::comparison_headline(c).toHtmlEscaped()));
    key_->setText(plots::colouring_key(c, colouring()));
    text_->show_comparison(&*comparison_, colouring());
    detail_->setText(kHoverHint);
    show_info(QString());
    set_busy(false);
    Q_EMIT compared();
}

}  // namespace fone::gui
