#include "knockout_view.h"

#include <qcustomplot.h>
#include <QDoubleSpinBox>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <sstream>

#include "analysis_plots.h"
#include "errors_view.h"
#include "intervention_plots.h"
#include "plot_panel.h"
#include "plot_style.h"

namespace fone::gui {

using nlohmann::json;

QString knockout_layer_arg(const std::string& row) {
    if (row == "input") return "0";
    if (row.rfind("block ", 0) == 0) return QString::number(std::stoi(row.substr(6)));
    return "head";
}

KnockoutView::KnockoutView(RunCatalog* catalog, QWidget* parent) : AnalysisView(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* row1 = new QHBoxLayout;
    runs_ = new RunPicker(catalog);
    examples_ = new QSpinBox;
    examples_->setRange(10, 5000);
    examples_->setValue(200);
    examples_->setToolTip("Test prompts of the run the map is averaged over");
    scale_ = new QDoubleSpinBox;
    scale_->setRange(-2, 2);
    scale_->setSingleStep(0.25);
    scale_->setValue(0);
    scale_->setToolTip("What the pair is multiplied by: 0 removes it");
    compute_button_ = new QPushButton("Compute");
    cancel_button_ = new QPushButton("Cancel");
    cancel_button_->setEnabled(false);
    row1->addWidget(new QLabel("Run"));
    row1->addWidget(runs_, 1);
    row1->addWidget(new QLabel("Prompts"));
    row1->addWidget(examples_);
    row1->addWidget(new QLabel("Scale"));
    row1->addWidget(scale_);
    row1->addWidget(compute_button_);
    row1->addWidget(cancel_button_);
    layout->addLayout(row1);
    panel_ = new PlotPanel;
    panel_->layout()->setContentsMargins(0, 0, 0, 0);
    panel_->plot()->setMinimumSize(160, 120);
    panel_->plot()->setToolTip(
        "Each cell: the share of the prompts whose answer changed when that period's (cos, sin) pair was "
        "multiplied by the scale at that layer (at every position). Click a cell to see which places broke.");
    make_figure(panel_, [this] { draw(); });
    layout->addWidget(panel_, 1);
    auto* row2 = new QHBoxLayout;
    prompt_ = new QLineEdit("123.456+654.321=");
    prompt_->setToolTip("A prompt to knock the chosen cell out on, digit by digit");
    row2->addWidget(new QLabel("Prompt"));
    row2->addWidget(prompt_, 1);
    row2->addWidget(panel_->add_export_button());
    layout->addLayout(row2);
    cell_label_ = new QLabel("Click a cell of the map.");
    cell_label_->setTextFormat(Qt::RichText);
    cell_label_->setWordWrap(true);
    cell_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(cell_label_);
    layout->addWidget(status_label());

    map_call_ = new FoneCall(default_fone_program(), this);
    prompt_call_ = new FoneCall(default_fone_program(), this);
    connect(map_call_, &FoneCall::succeeded, this, &KnockoutView::on_map);
    connect(prompt_call_, &FoneCall::succeeded, this, &KnockoutView::on_prompt);
    for (FoneCall* call : {map_call_, prompt_call_})
        connect(call, &FoneCall::failed, this, [this](const QString& why) {
            cancel_button_->setEnabled(false);
            set_busy(map_call_->running() || prompt_call_->running());
            show_error(why.section('\n', 0, 0));
            Q_EMIT failed(why);
        });
    connect(compute_button_, &QPushButton::clicked, this, &KnockoutView::compute);
    connect(cancel_button_, &QPushButton::clicked, this, [this] {
        map_call_->cancel();
        prompt_call_->cancel();
        cancel_button_->setEnabled(false);
        set_busy(false);
        show_info("Cancelled.");
    });
    connect(runs_, &RunPicker::runChanged, this, [this] {
        map_.reset();
        request_refresh();
    });
    connect(prompt_, &QLineEdit::returnPressed, this, &KnockoutView::ask_prompt);
    connect(panel_->plot(), &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (!map_) return;
        const int column =
            static_cast<int>(std::lround(panel_->plot()->xAxis->pixelToCoord(e->position().x())));
        const int row = static_cast<int>(std::lround(panel_->plot()->yAxis->pixelToCoord(e->position().y())));
        if (row >= 0 && column >= 0 && row < int(map_->layers.size()) && column < int(map_->periods.size()))
            choose(row, column);
    });
    on_resize(panel_->plot(), [this] {
        if (map_) draw();
    });
    if (!runs_->run_dir().isEmpty()) request_refresh();
}

KnockoutView::~KnockoutView() = default;

QCustomPlot* KnockoutView::plot() const {
    return panel_->plot();
}

bool KnockoutView::set_run(const QString& name_or_dir) {
    return runs_->set_run(name_or_dir);
}

QString KnockoutView::run() const {
    return runs_->run_dir();
}

void KnockoutView::set_examples(int n) {
    examples_->setValue(n);
}

int KnockoutView::examples() const {
    return examples_->value();
}

void KnockoutView::set_prompt(const QString& prompt) {
    prompt_->setText(prompt);
}

QString KnockoutView::prompt() const {
    return prompt_->text();
}

QString KnockoutView::cell() const {
    return QStringLiteral("%1:%2").arg(row_).arg(column_);
}

void KnockoutView::set_cell(const QString& row_column) {
    wanted_cell_ = row_column;
    if (map_) choose(row_column.section(':', 0, 0).toInt(), row_column.section(':', 1, 1).toInt());
}

void KnockoutView::set_program(const QString& fone) {
    map_call_->set_program(fone);
    prompt_call_->set_program(fone);
}

void KnockoutView::compute() {
    if (runs_->run_dir().isEmpty()) {
        show_error("Choose a trained FoNE run first.");
        return;
    }
    map_call_->cancel();  // before its folder goes
    out_ = std::make_unique<QTemporaryDir>();
    show_info("Knocking out every period at every layer…");
    set_busy(true);
    cancel_button_->setEnabled(true);
    follow_run(runs_->run_dir());
    map_call_->start({"analyse", "knockout", "--run", runs_->run_dir(), "--examples",
                      QString::number(examples_->value()), "--scale", QString::number(scale_->value()),
                      "--out", out_->path(), "--no-png", "--threads", "1"});
}

void KnockoutView::on_map(const json& result) {
    cancel_button_->setEnabled(false);
    QFile file(QString::fromStdString(result.at("files").at("csv").get<std::string>()));
    try {
        if (!file.open(QIODevice::ReadOnly))
            throw std::invalid_argument("cannot read " + file.fileName().toStdString());
        map_ = analysis::damage_map_from_csv(file.readAll().toStdString());
    } catch (const std::exception& e) {
        set_busy(false);
        show_error(QString::fromStdString(e.what()));
        return;
    }
    show_info(QString());
    set_busy(false);
    draw();
    Q_EMIT computed();
    if (!wanted_cell_.isEmpty()) set_cell(wanted_cell_);
}

void KnockoutView::choose(int row, int column) {
    row_ = row;
    column_ = column;
    draw();
    describe_cell();
    ask_prompt();
}

void KnockoutView::ask_prompt() {
    if (!map_ || row_ < 0 || prompt_->text().trimmed().isEmpty()) return;
    set_busy(true);
    prompt_call_->start({"analyse", "knockout", "--run", runs_->run_dir(), "--prompt",
                         prompt_->text().trimmed(), "--period",
                         QString::fromStdString(map_->periods[std::size_t(column_)]), "--layer",
                         knockout_layer_arg(map_->layers[std::size_t(row_)]), "--scale",
                         QString::number(map_->scale), "--threads", "1"});
}

void KnockoutView::on_prompt(const json& result) {
    prompt_result_ = result;
    set_busy(map_call_->running());
    describe_cell();
    Q_EMIT promptAnswered();
}

// The chosen cell over the prompt set (which places' digits changed, and how often), and on the typed
// prompt: the answer before and after, the broken digits in red.
void KnockoutView::describe_cell() {
    if (!map_ || row_ < 0) return;
    const analysis::AnswerChanges& c = map_->cells[std::size_t(row_)][std::size_t(column_)];
    QString text = QStringLiteral("<b>T = %1 at %2</b> (×%3): %4 of %5 answers changed; broken places: ")
                       .arg(QString::fromStdString(map_->periods[std::size_t(column_)]),
                            QString::fromStdString(map_->layers[std::size_t(row_)]))
                       .arg(map_->scale)
                       .arg(plots::style::percent_label(c.answers_changed))
                       .arg(c.prompts);
    QStringList places;
    for (std::size_t p = 0; p < c.places.size(); ++p)
        if (c.place_changed[p] > 0)
            places << QStringLiteral("%1 %2").arg(position_name(c.places[p]),
                                                  plots::style::percent_label(c.place_changed[p]));
    text += places.isEmpty() ? QStringLiteral("none") : places.join(", ");
    if (prompt_result_.is_object() &&
        prompt_result_.value("period", std::string()) == map_->periods[std::size_t(column_)]) {
        std::vector<int> broken = prompt_result_.value("broken", std::vector<int>());
        Decimal before = Decimal::parse(prompt_result_.value("before", std::string("0")));
        Decimal after = Decimal::parse(prompt_result_.value("after", std::string("0")));
        const int int_width = 6, frac_width = 4;
        QStringList names;
        for (int p : broken)
            names << position_name(p);
        text +=
            QStringLiteral("<br>%1 %2 → %3 · broken: %4")
                .arg(QString::fromStdString(prompt_result_.value("prompt", std::string())).toHtmlEscaped(),
                     aligned_number_html(before, {}, int_width, frac_width, "#2e7d32"),
                     aligned_number_html(after, broken, int_width, frac_width, "#c62828"),
                     names.isEmpty() ? QStringLiteral("none") : names.join(", "));
    }
    cell_label_->setText(text);
}

QString KnockoutView::cell_text() const {
    return plain_text(cell_label_->text());
}

void KnockoutView::draw() {
    if (!map_) return;
    QCustomPlot& plot = *panel_->plot();
    plots::draw_damage_map(plot, *map_, "Knockout of " + runs_->run_name().toStdString());
    if (row_ >= 0 && row_ < int(map_->layers.size()) && column_ < int(map_->periods.size())) {
        auto* frame = new QCPItemRect(&plot);
        frame->topLeft->setCoords(column_ - 0.5, row_ + 0.5);
        frame->bottomRight->setCoords(column_ + 0.5, row_ - 0.5);
        frame->setPen(QPen(plots::style::ink().ink, 3));
        frame->setBrush(Qt::NoBrush);
    }
    plot.replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace fone::gui
