#include "adapter_view.h"

#include <qcustomplot.h>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "adapter_plots.h"
#include "fone/store/run_kind.h"
#include "plot_panel.h"
#include "run_picker.h"

namespace fone::gui {

namespace {

constexpr int kPiecesDrawn = 3;  // clock rows in the figure (the table lists every piece)

QString degrees(double radians) {
    return QString::number(radians * 180 / M_PI, 'f', 0) + "°";
}

QString from_json_text(const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? QString::fromStdString(j[key].get<std::string>())
                                                 : QString();
}

}  // namespace

int number_piece_value(const QString& token) {
    QString t = token;
    if (t.startsWith(' ')) t.remove(0, 1);
    if (t.isEmpty() || t.size() > 3) return -1;
    for (const QChar c : t)
        if (c < '0' || c > '9') return -1;
    return t.toInt();
}

AdapterView::AdapterView(RunCatalog* catalog, QWidget* parent) : AnalysisView(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* paths = new QHBoxLayout;
    runs_ = new RunPicker(catalog);
    runs_->set_accepts([](const nlohmann::json& c) { return run_kind_of(c) == RunKind::adapter; },
                       "fone-adapter run");
    runs_->setToolTip(
        "A fone-adapter run of the store (Launch: Kind \"Pretrained model\", method fone-adapter), or any "
        "run folder with …");
    adapted_edit_ = new QLineEdit;
    adapted_edit_->setPlaceholderText("its export (fone export --format hf), optional");
    paths->addWidget(new QLabel("Adapter run"));
    paths->addWidget(runs_, 2);
    paths->addWidget(new QLabel("Export"));
    paths->addWidget(adapted_edit_, 1);
    layout->addLayout(paths);
    auto* ask_row = new QHBoxLayout;
    question_ = new QLineEdit("Q: What is 98 plus 45? A:");
    question_->setToolTip("The prompt; the models continue it greedily (fone model generate)");
    ask_button_ = new QPushButton("Ask");
    ask_row->addWidget(new QLabel("Question"));
    ask_row->addWidget(question_, 1);
    ask_row->addWidget(ask_button_);
    layout->addLayout(ask_row);
    answers_ = new QLabel;
    answers_->setWordWrap(true);
    answers_->setTextFormat(Qt::RichText);
    answers_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(answers_);
    auto* split = new QSplitter(Qt::Horizontal);
    table_ = new QTableWidget;
    table_->setColumnCount(5);
    table_->setHorizontalHeaderLabels({"Piece", "Value", "T = 10", "T = 100", "T = 1000"});
    table_->setToolTip(
        "Each number piece (a token of 1-3 digits) and, per period, FoNE's angle for it, then where its "
        "input row sits on the adapter's clock before → after the adapter");
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    split->addWidget(table_);
    plot_ = new PlotPanel;
    plot_->layout()->setContentsMargins(0, 0, 0, 0);
    plot_->controls()->addStretch(1);
    plot_->add_export_button();
    plot_->plot()->setMinimumSize(240, 200);
    make_figure(plot_, [this] { draw_clocks(); });
    split->addWidget(plot_);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);
    layout->addWidget(status_label());
    generate_ = new FoneCall(default_fone_program(), this);
    tokenize_ = new FoneCall(default_fone_program(), this);
    connect(generate_, &FoneCall::succeeded, this,
            [this](const nlohmann::json& end) { on_generated(end, asking_adapted_); });
    connect(tokenize_, &FoneCall::succeeded, this, &AdapterView::on_tokens);
    for (FoneCall* call : {generate_, tokenize_})
        connect(call, &FoneCall::failed, this, [this](const QString& why) {
            set_busy(false);
            show_error(why);
        });
    connect(ask_button_, &QPushButton::clicked, this, &AdapterView::ask);
    connect(question_, &QLineEdit::returnPressed, this, &AdapterView::ask);
    connect(runs_, &RunPicker::runChanged, this, [this](const QString& dir) {
        if (!dir.isEmpty() && dir != run_) open_run(dir);
    });
    connect(adapted_edit_, &QLineEdit::editingFinished, this, [this] { set_adapted(adapted_edit_->text()); });
    show_info(
        runs_->count() > 0
            ? QStringLiteral("Pick a fone-adapter run (and its export) and ask a question.")
            : QStringLiteral("No fone-adapter run in this store yet: Launch → Kind of run → \"Pretrained "
                             "model (--init-from)\" with the fone-adapter method trains one on a model "
                             "folder; or open a run folder with …"));
}

AdapterView::~AdapterView() = default;

bool AdapterView::set_run(const QString& name_or_dir) {
    if (!runs_->set_run(name_or_dir)) {
        QFile file(name_or_dir + "/config.json");
        const auto config = nlohmann::json::parse(
            file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string(), nullptr, false);
        show_error(!config.is_object() || config.empty()
                       ? name_or_dir + " is no run with a checkpoint"
                       : name_or_dir + " is a " + QString::fromStdString(run_kind_name(run_kind_of(config))) +
                             " run, not a fone-adapter run (method \"" +
                             QString::fromStdString(config.value("method", std::string())) + "\")");
        return false;
    }
    return run_ == runs_->run_dir() || open_run(runs_->run_dir());
}

bool AdapterView::open_run(const QString& dir) {
    run_ = dir;
    clocks_.reset();
    model_ = QString::fromStdString(runs_->config().value("init_from", std::string()));
    const CheckpointStamp stamp = checkpoint_stamp(dir);
    try {
        if (stamp.file.isEmpty()) throw std::runtime_error("no checkpoint yet");
        clocks_ = analysis::AdapterClocks::open((dir + "/" + stamp.file).toStdString());
    } catch (const std::exception& e) {
        show_error(QString::fromStdString(e.what()));
        return false;
    }
    show_info(
        QStringLiteral("%1: %2; asks %3").arg(QFileInfo(dir).fileName(), checkpoint_words(stamp), model_));
    request_refresh();
    return true;
}

void AdapterView::set_adapted(const QString& dir) {
    adapted_ = dir;
    adapted_edit_->setText(dir);
    if (clocks_) request_refresh();
}

void AdapterView::set_question(const QString& question) {
    question_->setText(question);
    if (clocks_) request_refresh();
}

QString AdapterView::question() const {
    return question_->text();
}

void AdapterView::set_program(const QString& fone) {
    generate_->set_program(fone);
    tokenize_->set_program(fone);
}

void AdapterView::ask() {
    if (!clocks_ || model_.isEmpty()) return;
    answer_before_.clear();
    answer_after_.clear();
    asking_adapted_ = false;
    set_busy(true);
    follow_run(run_);  // the clocks name their checkpoint, and say when the run has trained on
    show_info("Generating with " + model_ + " …");
    generate_->start({"model", "generate", model_, question_->text(), "--json", "--max-new-tokens", "12"});
}

void AdapterView::on_generated(const nlohmann::json& end, bool adapted) {
    (adapted ? answer_after_ : answer_before_) = from_json_text(end, "text");
    if (!adapted && !adapted_.isEmpty()) {
        asking_adapted_ = true;
        show_info("Generating with " + adapted_ + " …");
        generate_->start(
            {"model", "generate", adapted_, question_->text(), "--json", "--max-new-tokens", "12"});
        return;
    }
    show_answers();
    tokenize();
}

void AdapterView::show_answers() {
    QString html = QStringLiteral("<b>Pretrained:</b> %1").arg(answer_before_.toHtmlEscaped());
    html += adapted_.isEmpty()
                ? QStringLiteral("<br><i>Export the run (fone export --format hf) to ask it too.</i>")
                : QStringLiteral("<br><b>With the adapter:</b> %1").arg(answer_after_.toHtmlEscaped());
    answers_->setText(html);
}

void AdapterView::tokenize() {
    const QString answer = adapted_.isEmpty() ? answer_before_ : answer_after_;
    tokenize_->start({"model", "tokenize", run_ + "/pretrained/tokenizer.json", question_->text() + answer});
}

void AdapterView::on_tokens(const nlohmann::json& result) {
    set_busy(false);
    pieces_.clear();
    const auto& ids = result.at("ids");
    const auto& tokens = result.at("tokens");
    for (std::size_t i = 0; i < ids.size() && i < tokens.size(); ++i) {
        const QString token = QString::fromStdString(tokens[i].get<std::string>());
        const int value = number_piece_value(token);
        if (value < 0) continue;
        pieces_.push_back({token, value, clocks_->clocks(ids[i].get<int64_t>(), value)});
    }
    table_->setRowCount(static_cast<int>(pieces_.size()));
    for (int r = 0; r < static_cast<int>(pieces_.size()); ++r) {
        const Piece& p = pieces_[static_cast<std::size_t>(r)];
        table_->setItem(r, 0, new QTableWidgetItem(p.token));
        table_->setItem(r, 1, new QTableWidgetItem(QString::number(p.value)));
        for (int k = 0; k < 3; ++k) {
            const analysis::PieceClock& c = p.clocks[static_cast<std::size_t>(k)];
            table_->setItem(r, 2 + k,
                            new QTableWidgetItem(QStringLiteral("%1: %2 → %3")
                                                     .arg(degrees(c.fone_angle), degrees(c.before.angle()),
                                                          degrees(c.after.angle()))));
        }
    }
    table_->resizeColumnsToContents();
    draw_clocks();
    plot_->plot()->replot();
    show_info(clocks_->untrained()
                  ? QStringLiteral("The adapter is still zero (an untrained run): no clock to read on")
                  : QStringLiteral("%1 number pieces; dots: FoNE's angle; grey hand: the model's own row; "
                                   "blue hand: the row after the adapter")
                        .arg(pieces_.size()));
    Q_EMIT answered();
}

void AdapterView::draw_clocks() {
    std::vector<plots::AdapterPieceRow> rows;
    for (const Piece& p : pieces_) {
        if (static_cast<int>(rows.size()) == kPiecesDrawn) break;
        rows.push_back({p.token.trimmed().toStdString(), p.clocks});
    }
    plots::draw_adapter_clocks(*plot_->plot(), rows, "Number pieces on the adapter's clocks");
}

}  // namespace fone::gui
