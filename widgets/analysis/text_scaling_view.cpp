#include "text_scaling_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "plot_panel.h"
#include "run_catalog.h"
#include "text_scaling_plots.h"

namespace fone::gui {

namespace {

constexpr const char* kPrefix = "repro-text-scaling-";

}  // namespace

std::vector<ScalingRun> text_scaling_runs(const RunCatalog& catalog, bool numbers) {
    std::vector<ScalingRun> runs;
    for (int row = 0; row < catalog.size(); ++row) {
        const RunEntry& e = catalog.at(row);
        if (e.status != "finished" || !e.name.startsWith(kPrefix)) continue;
        // PRESET-CORPUS-SIZE-METHOD-sSEED (experiments/text-scaling.json's ids have no other '-').
        const QStringList parts = e.name.mid(static_cast<int>(qstrlen(kPrefix))).split('-');
        if (parts.size() != 5 || !parts[4].startsWith('s')) continue;
        const nlohmann::json final_eval = e.summary.value("final", nlohmann::json::object());
        const nlohmann::json ppl =
            final_eval.value(numbers ? "text_perplexity_numbers" : "text_perplexity", nlohmann::json());
        const nlohmann::json params = e.summary.value("params_without_embedding", nlohmann::json());
        if (!ppl.is_number() || !params.is_number()) continue;
        runs.push_back({(parts[1] + " (" + parts[0] + ")").toStdString(), parts[2].toStdString(),
                        parts[3].toStdString(), parts[4].mid(1).toLongLong(), params.get<double>(),
                        ppl.get<double>()});
    }
    return runs;
}

TextScalingView::TextScalingView(RunCatalog* catalog, QWidget* parent)
    : AnalysisView(parent), catalog_(catalog) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    panel_ = new PlotPanel;
    panel_->layout()->setContentsMargins(0, 0, 0, 0);
    measure_ = new QComboBox;
    measure_->addItems({"All windows", "Windows with numbers"});
    measure_->setToolTip(
        "Text-token perplexity over every test window, or over the windows that hold a number (the FoNE "
        "paper's Table 5 measure)");
    note_ = new QLabel;
    panel_->controls()->addWidget(new QLabel("Perplexity of"));
    panel_->controls()->addWidget(measure_);
    panel_->controls()->addWidget(note_, 1);
    panel_->add_export_button();
    panel_->plot()->setMinimumSize(320, 240);
    make_figure(panel_, [this] { draw(); });
    layout->addWidget(panel_, 1);
    layout->addWidget(status_label());
    setToolTip(
        "fone reproduce text-scaling: for each corpus and model size, FoNE's text perplexity divided by "
        "digit-wise numbers' (same text, model and seed); below the dashed line FoNE's is the lower");
    connect(measure_, &QComboBox::currentIndexChanged, this, [this] { request_refresh(); });
    if (catalog_) {
        connect(catalog_, &RunCatalog::loaded, this, [this] { request_refresh(); });
        connect(catalog_, &RunCatalog::rowChanged, this, [this](int row) {
            if (catalog_->at(row).status == "finished" && catalog_->at(row).name.startsWith(kPrefix))
                request_refresh();
        });
    }
    request_refresh();
}

void TextScalingView::refresh() {
    const std::vector<ScalingRun> runs =
        catalog_ ? text_scaling_runs(*catalog_, measure_->currentIndex() == 1) : std::vector<ScalingRun>{};
    lines_ = perplexity_ratios(runs);
    runs_ = static_cast<int>(runs.size());
    note_->setText(lines_.empty() ? QStringLiteral("No pair of finished fone and digit runs yet")
                                  : QStringLiteral("%1 finished runs").arg(runs_));
    if (lines_.empty())
        show_info(
            "Run `fone reproduce text-scaling --preset quick` (or cpu): the curve fills in as its runs "
            "finish.");
    else
        show_info({});
    draw();
}

void TextScalingView::draw() {
    plots::draw_text_scaling(*panel_->plot(), lines_, "FoNE / digit-wise text perplexity against model size",
                             "points: the mean of the seeds' ratios, bars: lowest and highest seed; the "
                             "published points under their own protocols");
    panel_->request_replot();
}

}  // namespace fone::gui
