#include "welcome_view.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include <qcustomplot.h>

#include "fone/platform/cpu.h"
#include "fone/tasks/tasks.h"
#include "fone/tasks/typed_sums.h"
#include "hidden_view.h"
#include "job_runner.h"
#include "launch_panel.h"
#include "plot_panel.h"
#include "recipes.h"
#include "run_catalog.h"
#include "run_picker.h"

namespace fone::gui {

using nlohmann::json;

namespace {

// The live runs evaluate on 500 unseen problems every 50 steps (a quarter of an epoch), so the curves move
// every few seconds; one thread each, so the two share a 2-core laptop evenly.

const char* const kIntro =
    "<h3>FoNE: every number is one token</h3>"
    "<p>A language model reads text in pieces called <i>tokens</i>; most cut 654.321 into seven (6, 5, 4, "
    "., 3, 2, 1). <b>Fourier Number Embeddings</b> (FoNE) make every number <b>one</b> token, placed on "
    "clocks: one clock per digit, its hand pointing at the digit. <b>Try it</b> below: a small model that "
    "comes "
    "with the workbench answers the sum; each clock is one digit of its answer, the bars how sure it is, a "
    "wrong digit turns red (drag a hand to turn it).</p>";

const char* const kLiveIntro =
    "<b>Train it live.</b> Two models learn decimal addition from the same {train_size} examples on this "
    "computer: one reads numbers as FoNE tokens, the other digit by digit, as most language models do. "
    "Watch how many of {test_size} problems they have never seen each one gets exactly right.";

// The height a column of the welcome page needs at its width: wrapped labels at their height for that
// width, everything else at its minimum.
int column_height(QWidget* column) {
    QLayout* layout = column->layout();
    if (!layout) return column->minimumSizeHint().height();
    const QMargins m = layout->contentsMargins();
    int h = m.top() + m.bottom();
    int items = 0;
    for (int i = 0; i < layout->count(); ++i) {
        QLayoutItem* item = layout->itemAt(i);
        QWidget* w = item->widget();
        if (w && !w->isVisibleTo(column)) continue;
        const int width = column->width() - m.left() - m.right();
        h += w && w->hasHeightForWidth() ? w->heightForWidth(width)
             : w                         ? std::max(w->minimumSizeHint().height(), w->minimumHeight())
                                         : item->minimumSize().height();
        ++items;
    }
    return h + std::max(0, items - 1) * layout->spacing();
}

QString percent(double f) {
    return f < 0 ? QStringLiteral("–") : QString::number(100.0 * f, 'f', 1) + "%";
}

QString seconds(double s) {
    return QString::number(s, 'f', s < 10 ? 1 : 0) + " s";
}

}  // namespace

QString race_sentence(const char* text) {
    // The race's sizes as the recipe has them (experiments/recipes/welcome-race.json), so the words follow
    // it.
    QString out = QString::fromUtf8(text);
    for (const char* key : {"train_size", "test_size"}) {
        QString value = "?";  // no recipe: the race cannot start either, and says why when asked to
        try {
            const json& settings = window_recipe("welcome-race").preset("window").cells.at(0).settings;
            value = QLocale(QLocale::English).toString(settings.value(key, 0LL));
        } catch (const std::exception&) {
        }
        out.replace(QString("{%1}").arg(key), value);
    }
    return out;
}

QStringList live_run_args(const QString& method, const QString& name) {
    // The race is a recipe (experiments/recipes/welcome-race.json): the cell of this method, its half of
    // the cores and its name. Throws std::invalid_argument naming the file when the recipe is missing.
    for (const ExperimentCell& cell : window_recipe("welcome-race").preset("window").cells)
        if (cell.settings.value("method", std::string()) == method.toStdString())
            return LaunchPanel::train_args(cell.settings)
                   << "--threads" << QString::number(threads_per_run(2))  // the two share the cores
                   << "--name" << name;
    throw std::invalid_argument("experiments/recipes/welcome-race.json: no cell for method " +
                                method.toStdString());
}

WelcomeView::WelcomeView(RunCatalog* catalog, const QString& program, QWidget* parent)
    : AnalysisView(parent), catalog_(catalog) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    auto* intro = new QLabel(kIntro);
    intro->setWordWrap(true);
    intro->setTextFormat(Qt::RichText);
    layout->addWidget(intro);
    auto* split = new QSplitter(Qt::Horizontal);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);

    // Left: the demo model answering, on its clocks.
    demo_ = new HiddenView(catalog);
    demo_->set_program(program);
    const QString model = demo_model_dir();
    if (model.isEmpty() || !demo_->set_run(model))
        note_ =
            "The demo model was not found (resources/demo-model, or $FONE_DEMO_MODEL): pick a trained "
            "run above instead.";
    demo_->set_prompt("123.456+654.321=");
    auto* left = new QWidget;
    auto* left_layout = new QVBoxLayout(left);
    left_layout->setContentsMargins(0, 0, 4, 0);
    if (note_.isEmpty()) {
        left_layout->addWidget(range_label());
        demo_->set_run_row_visible(false);  // the demo model, named in the figure's title
        demo_->set_plain(true);             // its height goes to the clocks and their bars
    }
    left_layout->addWidget(demo_, 1);
    if (!note_.isEmpty()) {
        auto* missing = new QLabel(note_);
        missing->setWordWrap(true);
        missing->setStyleSheet("color: #b00020");
        left_layout->addWidget(missing);
    }
    split->addWidget(left);

    // Right: FoNE against digit-wise, trained while you watch.
    auto* right = new QWidget;
    auto* right_layout = new QVBoxLayout(right);
    right_layout->setContentsMargins(4, 0, 0, 0);
    auto* live_intro = new QLabel(race_sentence(kLiveIntro));
    live_intro->setWordWrap(true);
    live_intro->setTextFormat(Qt::RichText);
    right_layout->addWidget(live_intro);
    auto* buttons = new QHBoxLayout;
    train_button_ = new QPushButton("Train it live");
    train_button_->setToolTip(race_sentence(
        "Starts two trainings at once (one processor core each): FoNE and digit-wise, 6-digit decimal "
        "addition, {train_size} examples, the same seed. They are saved in the open run store and appear in "
        "the "
        "Runs table too."));
    stop_button_ = new QPushButton("Stop");
    stop_button_->setEnabled(false);
    buttons->addWidget(train_button_);
    buttons->addWidget(stop_button_);
    buttons->addStretch(1);
    right_layout->addLayout(buttons);
    plot_ = new PlotPanel;
    plot_->setMinimumSize(200, 110);
    QCustomPlot* p = plot_->plot();
    for (const char* name : {"FoNE", "digit-wise"}) {
        QCPGraph* graph = p->addGraph();
        graph->setName(name);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    }
    p->xAxis->setLabel("seconds of training");
    p->yAxis->setLabel("% right");  // short: the plot is short on a small screen
    p->yAxis->setRange(0, 100);
    p->xAxis->setRange(0, 30);
    p->legend->setVisible(true);
    p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    right_layout->addWidget(plot_, 1);
    live_label_ = new QLabel;
    live_label_->setObjectName("welcome-verdict");
    live_label_->setWordWrap(true);
    live_label_->setTextFormat(Qt::RichText);
    right_layout->addWidget(live_label_);
    right_layout->addWidget(status_label());
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({600, 400});
    // Its preferred height must not count as needed (a dock's scroll area asks the view for its height at
    // its width, which adds up preferred heights): what it needs is its minimum, the rest is a bonus.
    split->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
    split->setMinimumHeight(split->minimumSizeHint().height());
    // Wrapped texts need more height as a column narrows, and a figure may ask for more (the legibility
    // rule): the least height is worked out again at each resize, so nothing is drawn over the live plot.
    for (QWidget* column : {left, right})
        on_resize(column, [split, left, right] {
            split->setMinimumHeight(std::max(column_height(left), column_height(right)));
        });

    program_ = program;
    connect(train_button_, &QPushButton::clicked, this, &WelcomeView::train_live);
    connect(stop_button_, &QPushButton::clicked, this, &WelcomeView::stop_live);
    if (catalog_) connect(catalog_, &RunCatalog::loaded, this, &WelcomeView::update_train_button);
    // Busy while the demo model answers or the live runs train (a screenshot waits for both).
    connect(demo_, &AnalysisView::busyChanged, this, [this] { set_busy(demo_->busy() || live_running()); });
    redraw();
    update_summary();
}

QString use_demo_rules(HiddenView* view) {
    const std::string task = view->runs()->config().value("task", std::string());
    const auto tasks = task_names();
    if (std::find(tasks.begin(), tasks.end(), task) == tasks.end() || !has_typed_sums(task_from_name(task)))
        return {};
    const TaskKind kind = task_from_name(task);
    const bool adds = kind != TaskKind::sub;
    view->set_prompt_check([kind](const QString& prompt) {
        return QString::fromStdString(outside_task_range(kind, prompt.toStdString()));
    });
    return QString("<b>What it knows:</b> this model %1 %2. Try %3.")
        .arg(adds ? "adds" : "subtracts", QString::fromStdString(task_range_text(kind)),
             adds ? "500+500=, 0.5+0.25= or 999.999+0.001=" : "1000-1=");
}

// What the demo model has learned, in plain words; the clocks refuse other sums with a friendly sentence.
QLabel* WelcomeView::range_label() {
    auto* label = new QLabel;
    label->setWordWrap(true);
    label->setText(use_demo_rules(demo_));
    return label;
}

QString WelcomeView::prompt() const {
    return demo_->prompt();
}

void WelcomeView::set_prompt(const QString& prompt) {
    demo_->set_prompt(prompt);
}

WelcomeView::~WelcomeView() {
    delete runner_;  // stops the live runs (they checkpoint) before the views go
    runner_ = nullptr;
}

QString WelcomeView::live_store() const {
    return runner_ ? runner_->runs_dir() : QString();
}

bool WelcomeView::live_running() const {
    return (fone_.job && !fone_.ended) || (digit_.job && !digit_.ended);
}

QString WelcomeView::race_refusal() const {
    if (!catalog_ || catalog_->root().isEmpty()) return QStringLiteral("No run store is open.");
    if (!catalog_->write_problem().isEmpty())
        return QStringLiteral(
                   "The race cannot train here: the run store %1 cannot be written to. Open a writable "
                   "one (fone-workbench --runs-dir FOLDER) to train it live.")
            .arg(catalog_->root());
    return {};
}

void WelcomeView::update_train_button() {
    const QString why = race_refusal();
    if (live_running()) return;
    train_button_->setEnabled(why.isEmpty());
    if (!why.isEmpty()) show_info(why);
}

void WelcomeView::train_live() {
    if (live_running()) return;
    if (const QString why = race_refusal(); !why.isEmpty()) {
        show_error(why);
        return;
    }
    // The live runs go to the store the window has open now (it is opened after the views are made).
    if (!runner_ || runner_->runs_dir() != catalog_->root()) {
        delete runner_;
        runner_ = new JobRunner(program_, catalog_->root(), this);
        runner_->set_max_parallel(2);
        connect(runner_, &JobRunner::jobEvent, this, &WelcomeView::on_event);
        connect(runner_, &JobRunner::jobFinished, this, &WelcomeView::on_finished);
    }
    const QString stamp = QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
    fone_ = Live{};
    fone_.method = "fone", fone_.name = "welcome-" + stamp + "-fone", fone_.label = "FoNE";
    digit_ = Live{};
    digit_.method = "digit", digit_.name = "welcome-" + stamp + "-digit", digit_.label = "digit-wise";
    QStringList args[2];
    try {
        args[0] = live_run_args(fone_.method, fone_.name);
        args[1] = live_run_args(digit_.method, digit_.name);
    } catch (const std::exception& e) {
        show_error(QString("Cannot start the race: ") + e.what());
        return;
    }
    fone_.job = runner_->enqueue(args[0], fone_.name);
    digit_.job = runner_->enqueue(args[1], digit_.name);
    train_button_->setEnabled(false);
    stop_button_->setEnabled(true);
    set_busy(true);
    show_info("Training… both models learn in the background; the window stays free to use.");
    redraw();
    update_summary();
}

void WelcomeView::stop_live() {
    for (Live* live : {&fone_, &digit_})
        if (live->job && !live->ended) runner_->cancel(live->job);
}

QVector<WelcomeView::LiveCurve> WelcomeView::live_curves() const {
    return {{fone_.label.isEmpty() ? QStringLiteral("FoNE") : fone_.label, fone_.t, fone_.acc},
            {digit_.label.isEmpty() ? QStringLiteral("digit-wise") : digit_.label, digit_.t, digit_.acc}};
}

QString WelcomeView::verdict() const {
    if (!fone_.job) return {};
    auto where = [](const Live& l) {
        return l.exact_match < 0 ? QStringLiteral("%1 has not been tested yet").arg(l.label)
                                 : QStringLiteral("%1 gets %2 of the unseen problems exactly right")
                                       .arg(l.label, percent(l.exact_match));
    };
    if (fone_.ended && fone_.best >= 0.99 && digit_.ended)
        return QStringLiteral(
                   "FoNE learned to add in %1: %2 exactly right. Given twice that time, the "
                   "digit-wise model reached %3.")
            .arg(seconds(fone_.seconds), percent(fone_.best), percent(digit_.best));
    return where(fone_) + "; " + where(digit_) + (live_running() ? "… still training." : ".");
}

WelcomeView::Live* WelcomeView::live_of_job(int job) {
    if (job == fone_.job) return &fone_;
    if (job == digit_.job) return &digit_;
    return nullptr;
}

void WelcomeView::on_event(int job, const json& event) {
    Live* live = live_of_job(job);
    if (!live || !event.is_object()) return;
    const std::string kind = event.value("event", std::string());
    if (kind == "eval" && event.value("split", std::string("test")) == "test") {
        live->exact_match = event.value("exact_match", -1.0);
        live->best = std::max(live->best, live->exact_match);
        live->seconds = event.value("elapsed_seconds", live->seconds);
        live->t.push_back(live->seconds);
        live->acc.push_back(100.0 * live->exact_match);
        redraw();
        Q_EMIT liveChanged();
    } else if (kind == "end") {
        live->seconds = event.value("elapsed_seconds", live->seconds);
        live->best = std::max(live->best, event.value("best_exact_match", -1.0));
    }
    // FoNE is done: the digit-wise run gets as long again as FoNE took, then it is stopped (resumable).
    if (live == &fone_ && kind == "end" && digit_.job && !digit_.ended) {
        const int more_ms = static_cast<int>(std::max(1.0, fone_.seconds) * 1000.0);
        QTimer::singleShot(more_ms, this, [this, job = digit_.job] {
            if (digit_.job == job && !digit_.ended) runner_->cancel(job);
        });
    }
    update_summary();
}

void WelcomeView::on_finished(int job, const QString& status, const QString& message) {
    Live* live = live_of_job(job);
    if (!live) return;
    live->ended = true;
    live->status = status;
    if (status == "failed") show_error(live->label + " failed: " + message);
    if (!live_running()) {
        train_button_->setEnabled(race_refusal().isEmpty());
        stop_button_->setEnabled(false);
        set_busy(demo_->busy());
        if (fone_.status != "failed" && digit_.status != "failed") show_info({});
        Q_EMIT liveFinished();
    }
    update_summary();
    Q_EMIT liveChanged();
}

void WelcomeView::redraw() {
    QCustomPlot* p = plot_->plot();
    double last = 30;
    int i = 0;
    for (const Live* live : {&fone_, &digit_}) {
        QCPGraph* graph = p->graph(i);
        QPen pen(plot_->theme().series(i++));
        pen.setWidthF(2.5);
        graph->setPen(pen);
        graph->setData(live->t, live->acc, true);
        if (!live->t.isEmpty()) last = std::max(last, live->t.back() * 1.1);
    }
    p->xAxis->setRange(0, last);
    plot_->request_replot();
}

QString WelcomeView::live_summary() const {
    return plain_text(live_label_->text());
}

void WelcomeView::update_summary() {
    if (!fone_.job) {
        live_label_->setText(
            "<span style='color:gray'>On a laptop FoNE reaches 99% in seconds; the digit-wise model is then "
            "still far behind. (In the paper FoNE needs 64× less data than digit-wise and subword "
            "tokens for 99% on this task, and trains several times faster.)</span>");
        return;
    }
    auto line = [](const Live& l) {
        QString text = QStringLiteral("<b>%1</b>: %2 exact match").arg(l.label, percent(l.exact_match));
        if (l.seconds > 0) text += " after " + seconds(l.seconds);
        if (l.ended && l.status == "stopped") text += " (stopped; it can be resumed from the Runs table)";
        return text;
    };
    QString text = line(fone_) + "<br>" + line(digit_);
    if (fone_.ended && fone_.best >= 0.99 && digit_.ended)
        text += QStringLiteral(
                    "<br>FoNE reached %1 in %2. Given twice that time, the digit-wise model "
                    "reached %3.")
                    .arg(percent(fone_.best), seconds(fone_.seconds), percent(digit_.best));
    live_label_->setText(text);
}

}  // namespace fone::gui
