#include "timeline_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

#include "analysis_plots.h"
#include "plot_panel.h"
#include "timeline_plots.h"

namespace fone::gui {

using nlohmann::json;

analysis::Timeline timeline_from_csv(const std::string& csv, const json& result,
                                     std::vector<std::string>* names) {
    analysis::Timeline t = analysis::timeline_from_csv(csv, names);
    t.key_periods.resize(names->size());
    for (const json& layer : result.value("layers", json::array())) {
        const auto l =
            std::find(names->begin(), names->end(), layer.value("layer", std::string())) - names->begin();
        if (l >= static_cast<long>(names->size())) continue;
        for (const json& k : layer.value("key_periods", json::array()))
            t.key_periods[std::size_t(l)].push_back(
                {k.value("k", 0), k.value("period", 0.0), k.value("final_magnitude", 0.0),
                 k["emerged_at"].is_null() ? -1 : k["emerged_at"].get<std::int64_t>()});
    }
    return t;
}

TimelineView::TimelineView(RunCatalog* catalog, QWidget* parent) : AnalysisView(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* row = new QHBoxLayout;
    runs_ = new RunPicker(catalog);
    layer_box_ = new QComboBox;
    layer_box_->setToolTip("The layer whose spectrum over training is drawn");
    layer_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    compute_button_ = new QPushButton("Compute");
    cancel_button_ = new QPushButton("Cancel");
    cancel_button_->setEnabled(false);
    panel_ = new PlotPanel;
    panel_->layout()->setContentsMargins(0, 0, 0, 0);
    panel_->plot()->setMinimumSize(160, 120);
    panel_->plot()->setToolTip(
        "The spectrum of the probe numbers' representations (columns centred) at every snapshot the run's "
        "evaluations recorded: period (rows) x training step (columns). The key periods are labelled at the "
        "right, each with a ring at the step it first reached half its final magnitude.");
    row->addWidget(new QLabel("Run"));
    row->addWidget(runs_, 1);
    row->addWidget(new QLabel("Layer"));
    row->addWidget(layer_box_);
    row->addWidget(compute_button_);
    row->addWidget(cancel_button_);
    row->addWidget(panel_->add_export_button());
    layout->addLayout(row);
    make_figure(panel_, [this] { draw(); });
    layout->addWidget(panel_, 1);
    summary_ = new QLabel;
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    layout->addWidget(status_label());
    call_ = new FoneCall(default_fone_program(), this);
    connect(call_, &FoneCall::succeeded, this, &TimelineView::on_result);
    connect(call_, &FoneCall::failed, this, [this](const QString& why) {
        cancel_button_->setEnabled(false);
        timeline_.reset();
        summary_->clear();
        plots::draw_message(*panel_->plot(), why.section('\n', 0, 0).toStdString());
        panel_->plot()->replot(QCustomPlot::rpQueuedReplot);
        set_busy(false);
        show_error(why.section('\n', 0, 0));
        Q_EMIT failed(why);
    });
    connect(compute_button_, &QPushButton::clicked, this, &TimelineView::compute);
    connect(cancel_button_, &QPushButton::clicked, this, [this] {
        call_->cancel();
        cancel_button_->setEnabled(false);
        set_busy(false);
        show_info("Cancelled.");
    });
    connect(layer_box_, &QComboBox::currentIndexChanged, this, [this] { draw(); });
    connect(runs_, &RunPicker::runChanged, this, [this] {
        timeline_.reset();
        request_refresh();
    });
    on_resize(panel_->plot(), [this] {
        if (timeline_) draw();
    });
    if (!runs_->run_dir().isEmpty()) request_refresh();
}

TimelineView::~TimelineView() = default;

QCustomPlot* TimelineView::plot() const {
    return panel_->plot();
}

bool TimelineView::set_run(const QString& name_or_dir) {
    return runs_->set_run(name_or_dir);
}

QString TimelineView::run() const {
    return runs_->run_dir();
}

void TimelineView::set_layer(int layer) {
    wanted_layer_ = layer;
    if (layer_box_->count()) layer_box_->setCurrentIndex(layer < 0 ? layer_box_->count() - 1 : layer);
}

int TimelineView::layer() const {
    return layer_box_->currentIndex();
}

void TimelineView::set_program(const QString& fone) {
    call_->set_program(fone);
}

void TimelineView::compute() {
    if (runs_->run_dir().isEmpty()) {
        show_error("Choose a trained run first.");
        return;
    }
    call_->cancel();  // before its folder goes
    out_ = std::make_unique<QTemporaryDir>();
    show_info("Reading the run's snapshots…");
    set_busy(true);
    cancel_button_->setEnabled(true);
    follow_run(runs_->run_dir());
    call_->start({"analyse", "timeline", "--run", runs_->run_dir(), "--out", out_->path(), "--no-png"});
}

void TimelineView::on_result(const json& result) {
    cancel_button_->setEnabled(false);
    QFile file(QString::fromStdString(result.at("files").at("csv").get<std::string>()));
    try {
        if (!file.open(QIODevice::ReadOnly))
            throw std::invalid_argument("cannot read " + file.fileName().toStdString());
        timeline_ = timeline_from_csv(file.readAll().toStdString(), result, &layer_names_);
    } catch (const std::exception& e) {
        set_busy(false);
        show_error(QString::fromStdString(e.what()));
        return;
    }
    {
        const QSignalBlocker block(layer_box_);
        layer_box_->clear();
        for (const std::string& name : layer_names_)
            layer_box_->addItem(QString::fromStdString(name));
        layer_box_->setCurrentIndex(wanted_layer_ >= 0 && wanted_layer_ < layer_box_->count()
                                        ? wanted_layer_
                                        : layer_box_->count() - 1);
    }
    summary_->setText(QStringLiteral("%1 snapshots, steps %2 to %3, %4 probe numbers")
                          .arg(result.value("snapshots", 0))
                          .arg(result.value("first_step", 0))
                          .arg(result.value("last_step", 0))
                          .arg(result.value("numbers", 0)));
    show_info(QString());
    set_busy(false);
    draw();
    Q_EMIT computed();
}

QString TimelineView::summary() const {
    return summary_->text();
}

void TimelineView::draw() {
    if (!timeline_ || layer_box_->currentIndex() < 0) return;
    const std::size_t l = std::size_t(layer_box_->currentIndex());
    plots::draw_timeline(
        *panel_->plot(), *timeline_, l,
        "Spectrum of " + runs_->run_name().toStdString() + " over training, " + layer_names_[l]);
    panel_->plot()->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace fone::gui
