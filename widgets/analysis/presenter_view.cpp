#include "presenter_view.h"

#include <qcustomplot.h>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "hidden_view.h"
#include "plot_panel.h"
#include "run_picker.h"
#include "welcome_view.h"

namespace fone::gui {

namespace {

const char* const kStepNames[PresenterView::kSteps] = {"Type a sum", "Watch the clocks", "Train it live",
                                                       "The verdict"};
const char* const kHeadings[PresenterView::kSteps] = {"Every number is one token", "One clock per digit",
                                                      "Two models learn to add, live", "The verdict"};
const char* const kTexts[PresenterView::kSteps] = {
    "A language model reads text in pieces called tokens. Most models cut 654.321 into seven pieces: "
    "6, 5, 4, ., 3, 2, 1. FoNE gives every number one token and puts it on a set of clocks, one clock per "
    "digit. Type a sum for a small FoNE model and press Return.",
    "Each clock is one digit of the answer. The hand is what the model computed; the dot it points at is the "
    "digit it answers. The bars under a clock show how sure it is.",
    "Both models see the same {train_size} additions on this computer. One reads numbers as FoNE tokens, the "
    "other "
    "digit by digit, as most language models do. The lines show how many of {test_size} new problems each "
    "gets "
    "exactly right.",
    ""};

QFont sized(const QFont& base, double pixels, bool bold = false) {
    QFont f = base;
    f.setPixelSize(std::max(8, static_cast<int>(pixels)));
    f.setBold(bold);
    return f;
}

}  // namespace

PresenterView::PresenterView(WelcomeView* welcome, RunCatalog* catalog, const QString& program,
                             QWidget* parent)
    : AnalysisView(parent), welcome_(welcome) {
    setWindowTitle("FoNE Workbench — presenter mode");
    setFocusPolicy(Qt::StrongFocus);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(32, 16, 32, 12);
    steps_ = new QLabel;
    steps_->setTextFormat(Qt::RichText);
    steps_->setAlignment(Qt::AlignCenter);
    layout->addWidget(steps_);
    pages_ = new QStackedWidget;
    pages_->addWidget(make_sum_page());
    pages_->addWidget(make_clocks_page(catalog, program));
    pages_->addWidget(make_race_page());
    pages_->addWidget(make_verdict_page());
    layout->addWidget(pages_, 1);
    hint_ = new QLabel("→ next     ← back     Esc: back to the workbench");
    hint_->setAlignment(Qt::AlignCenter);
    hint_->setStyleSheet("color: gray;");
    layout->addWidget(hint_);
    if (welcome_) {
        connect(welcome_, &WelcomeView::liveChanged, this, [this] {
            redraw_race();
            update_busy();
        });
    }
    connect(clocks_, &AnalysisView::busyChanged, this, [this] { update_busy(); });
    update_steps();
    redraw_race();
    apply_sizes();
}

// A heading and a paragraph over the page's own widgets.
static QVBoxLayout* page_layout(QWidget* page, QList<QLabel*>& headings, QList<QLabel*>& texts, int index) {
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 8, 0, 0);
    auto* heading = new QLabel(kHeadings[index]);
    heading->setAlignment(Qt::AlignCenter);
    heading->setWordWrap(true);
    auto* text = new QLabel(race_sentence(kTexts[index]));
    text->setAlignment(Qt::AlignCenter);
    text->setWordWrap(true);
    text->setVisible(*kTexts[index] != '\0');
    layout->addWidget(heading);
    layout->addWidget(text);
    headings << heading;
    texts << text;
    return layout;
}

QWidget* PresenterView::make_sum_page() {
    auto* page = new QWidget;
    QVBoxLayout* layout = page_layout(page, headings_, texts_, 0);
    layout->addStretch(1);
    auto* row = new QHBoxLayout;
    prompt_ = new QLineEdit("123.456+654.321=");
    prompt_->setAlignment(Qt::AlignCenter);
    ask_ = new QPushButton("Ask the model →");
    row->addStretch(1);
    row->addWidget(prompt_, 3);
    row->addWidget(ask_);
    row->addStretch(1);
    layout->addLayout(row);
    layout->addStretch(2);
    connect(prompt_, &QLineEdit::returnPressed, this, [this] {
        ask();
        set_step(2);
    });
    connect(ask_, &QPushButton::clicked, this, [this] {
        ask();
        set_step(2);
    });
    return page;
}

QWidget* PresenterView::make_clocks_page(RunCatalog* catalog, const QString& program) {
    auto* page = new QWidget;
    QVBoxLayout* layout = page_layout(page, headings_, texts_, 1);
    clocks_ = new HiddenView(catalog);
    clocks_->set_program(program);
    clocks_->set_plain(
        true);  // words for visitors, as the Welcome's clocks: no prompt tokens, no "checkpoint"
    clocks_->set_controls_visible(false);
    const QString demo = demo_model_dir();
    if (!demo.isEmpty() && clocks_->set_run(demo)) use_demo_rules(clocks_);  // Welcome's rules and words
    clocks_->set_prompt(prompt_->text());
    layout->addWidget(clocks_, 1);
    return page;
}

QWidget* PresenterView::make_race_page() {
    auto* page = new QWidget;
    QVBoxLayout* layout = page_layout(page, headings_, texts_, 2);
    start_ = new QPushButton("Start the race");
    start_->setEnabled(welcome_ != nullptr);
    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(start_);
    row->addStretch(1);
    layout->addLayout(row);
    race_ = new PlotPanel;
    race_->layout()->setContentsMargins(0, 0, 0, 0);
    QCustomPlot* p = race_->plot();
    for (const char* name : {"FoNE", "digit-wise"}) {
        QCPGraph* graph = p->addGraph();
        graph->setName(name);
    }
    p->xAxis->setLabel("seconds of training");
    p->yAxis->setLabel("exactly right (%)");
    p->yAxis->setRange(0, 100);
    p->legend->setVisible(true);
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    layout->addWidget(race_, 1);
    race_summary_ = new QLabel;
    race_summary_->setAlignment(Qt::AlignCenter);
    race_summary_->setWordWrap(true);
    layout->addWidget(race_summary_);
    connect(start_, &QPushButton::clicked, this, [this] { set_live(true); });
    return page;
}

QWidget* PresenterView::make_verdict_page() {
    auto* page = new QWidget;
    QVBoxLayout* layout = page_layout(page, headings_, texts_, 3);
    layout->addStretch(1);
    verdict_ = new QLabel;
    verdict_->setAlignment(Qt::AlignCenter);
    verdict_->setWordWrap(true);
    layout->addWidget(verdict_);
    auto* paper = new QLabel(
        "In the paper, FoNE needs 64 times less data than digit-wise tokens to reach 99% on 6-digit decimal "
        "addition, and every number costs one token instead of seven.");
    paper->setAlignment(Qt::AlignCenter);
    paper->setWordWrap(true);
    paper->setStyleSheet("color: gray;");
    texts_ << paper;
    layout->addWidget(paper);
    layout->addStretch(2);
    return page;
}

void PresenterView::set_step(int step) {
    step_ = std::clamp(step, 1, kSteps);
    pages_->setCurrentIndex(step_ - 1);
    if (step_ == 2 && !clocks_->prediction().is_object() && !clocks_->busy()) ask();
    if (step_ == 1)
        prompt_->setFocus();
    else
        setFocus();
    update_steps();
}

void PresenterView::showEvent(QShowEvent* event) {
    AnalysisView::showEvent(event);
    // Typing goes into the prompt from the first key (a full-screen window takes the focus only once shown).
    if (step_ == 1) QTimer::singleShot(0, prompt_, [this] { prompt_->setFocus(Qt::OtherFocusReason); });
}

QString PresenterView::prompt() const {
    return prompt_->text();
}

void PresenterView::set_prompt(const QString& prompt) {
    prompt_->setText(prompt);
}

void PresenterView::ask() {
    clocks_->set_prompt(prompt_->text().trimmed());
    clocks_->predict();
    update_busy();
}

bool PresenterView::live() const {
    return welcome_ && welcome_->live_running();
}

void PresenterView::set_live(bool on) {
    if (!welcome_) return;
    welcome_->set_live(on);
    update_steps();
    update_busy();
}

QString PresenterView::heading() const {
    return headings_.value(step_ - 1) ? headings_[step_ - 1]->text() : QString();
}

QString PresenterView::verdict_text() const {
    return verdict_->text();
}

void PresenterView::update_steps() {
    QStringList parts;
    for (int i = 0; i < kSteps; ++i) {
        const QString name = QStringLiteral("%1  %2").arg(i + 1).arg(kStepNames[i]);
        parts << (i + 1 == step_ ? "<b>" + name + "</b>" : "<span style='color:gray'>" + name + "</span>");
    }
    steps_->setText(parts.join("&nbsp;&nbsp;&nbsp;·&nbsp;&nbsp;&nbsp;"));
    const QString verdict = welcome_ ? welcome_->verdict() : QString();
    verdict_->setText(verdict.isEmpty() ? "Start the race on the previous step: the verdict comes from it."
                                        : verdict);
    race_summary_->setText(welcome_ ? welcome_->verdict() : "Train it live needs the Welcome view.");
    start_->setVisible(welcome_ && !welcome_->live_running());
}

void PresenterView::redraw_race() {
    QCustomPlot* p = race_->plot();
    double last = 30;
    if (welcome_) {
        const auto curves = welcome_->live_curves();
        for (int i = 0; i < curves.size() && i < p->graphCount(); ++i) {
            QPen pen(race_->theme().series(i));
            pen.setWidthF(4);
            p->graph(i)->setPen(pen);
            p->graph(i)->setName(curves[i].label);
            p->graph(i)->setData(curves[i].seconds, curves[i].percent, true);
            if (!curves[i].seconds.isEmpty()) last = std::max(last, curves[i].seconds.back() * 1.1);
        }
    }
    p->xAxis->setRange(0, last);
    race_->request_replot();
    update_steps();
}

void PresenterView::update_busy() {
    set_busy(clocks_->busy() || live());
}

void PresenterView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Right:
        case Qt::Key_Space:
        case Qt::Key_PageDown:
            next();
            return;
        case Qt::Key_Left:
        case Qt::Key_PageUp:
            back();
            return;
        case Qt::Key_Home:
            set_step(1);
            return;
        case Qt::Key_Escape:
            Q_EMIT closeRequested();
            return;
        default:
            AnalysisView::keyPressEvent(event);
    }
}

void PresenterView::resizeEvent(QResizeEvent* event) {
    AnalysisView::resizeEvent(event);
    apply_sizes();
}

// Type sized from the screen: a heading of about a twentieth of its height, paragraphs half that.
void PresenterView::apply_sizes() {
    const double unit = std::max(12.0, std::min(height() / 42.0, width() / 70.0));
    steps_->setFont(sized(font(), unit * 0.95));
    hint_->setFont(sized(font(), unit * 0.7));
    for (QLabel* h : headings_)
        h->setFont(sized(font(), unit * 2.2, true));
    for (QLabel* t : texts_)
        t->setFont(sized(font(), unit * 1.15));
    prompt_->setFont(sized(font(), unit * 2.4));
    for (QPushButton* b : {ask_, start_})
        b->setFont(sized(font(), unit * 1.3));
    race_summary_->setFont(sized(font(), unit * 1.3));
    verdict_->setFont(sized(font(), unit * 1.9, true));
    set_text_scale(clocks_->panel(), std::clamp(unit / 11.0, 1.0, 3.0));
    QCustomPlot* p = race_->plot();
    for (QCPAxis* axis : {p->xAxis, p->yAxis}) {
        axis->setTickLabelFont(sized(font(), unit * 0.9));
        axis->setLabelFont(sized(font(), unit * 1.0));
    }
    p->legend->setFont(sized(font(), unit * 1.0));
    race_->request_replot();
    if (clocks_->prediction().is_object()) clocks_->redraw();
}

}  // namespace fone::gui
