#include "helix_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "analysis_plots.h"
#include "geometry_plots.h"
#include "plot_panel.h"

namespace fone::gui {

namespace fa = fone::analysis;

namespace {

// A probe holds out a quarter of the numbers: with fewer than 40 (10 held out) it says nothing.
constexpr int kMinProbeNumbers = 40;
constexpr int kCircles[] = {2, 5, 10, 100};

fa::Progress part(const fa::Progress& whole, double from, double to) {
    fa::Progress p{nullptr, whole.cancel};
    if (whole.report)
        p.report = [report = whole.report, from, to](double f) { report(from + (to - from) * f); };
    return p;
}

}  // namespace

HelixResult analyse_helix(std::shared_ptr<const Representations> source, const fa::Progress& progress) {
    HelixResult r;
    r.source = source;
    r.fits = fa::layer_helix_fits(source->layers, source->numbers, {}, part(progress, 0.0, 0.6));
    if (static_cast<int>(source->numbers.size()) >= kMinProbeNumbers)
        r.digits = fa::digit_probes(source->layers, source->numbers, fa::digit_places(source->numbers), {},
                                    part(progress, 0.6, 1.0));
    return r;
}

HelixView::HelixView(RunCatalog* catalog, QWidget* parent) : RepresentationView(catalog, parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(source_);
    layer_->setToolTip(
        "The layer whose helix and clocks are drawn: 0 is the embeddings (a model folder) or "
        "the input (a run), the last one the model's output");
    layer_->setMinimumContentsLength(14);
    layer_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    circle_ = new QComboBox;
    for (const int t : kCircles)
        circle_->addItem(QStringLiteral("T = %1").arg(t), t);
    circle_->setCurrentIndex(2);
    circle_->setToolTip("The period whose cos and sin make the helix's circle in the 3-D picture");
    connect(circle_, &QComboBox::currentIndexChanged, this, [this] { draw_helix(); });
    progress_->setTextVisible(true);
    progress_->setMinimumWidth(200);
    layout->addLayout(controls_row({{"Circle", circle_}}));
    layout->addWidget(build_plots(), 1);
    summary_ = new QLabel;
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    layout->addWidget(status_label());
    connect(&watcher_, &QFutureWatcher<HelixResult>::finished, this, &HelixView::on_analysed);
    request_refresh();
}

// R² and the helix on top, the digit probes and the clocks under them.
QWidget* HelixView::build_plots() {
    r2_panel_ = new PlotPanel;
    helix_panel_ = new PlotPanel;
    digits_panel_ = new PlotPanel;
    clocks_panel_ = new PlotPanel;
    for (PlotPanel* p : {r2_panel_, helix_panel_, digits_panel_, clocks_panel_}) {
        p->layout()->setContentsMargins(0, 0, 0, 0);
        p->controls()->addStretch(1);
        p->add_export_button()->setToolTip("Save this plot (PNG, SVG, PDF)");
    }
    r2_panel_->plot()->setToolTip(
        "Per layer: the share of the variance of the numbers' representations that a helix explains (a "
        "linear term and cos, sin of 2πx/T for T = 2, 5, 10, 100), next to the share of the top principal "
        "components of as many dimensions, the most any fit of that size can explain.");
    helix_panel_->plot()->setToolTip(
        "The chosen layer read back in the helix's coordinates: the circle of one "
        "period flat, the linear term up. Drag to turn.");
    digits_panel_->plot()->setToolTip(
        "Per layer and digit place: the held-out accuracy of a circular probe (the digit as a point on a "
        "base-10 circle, read linearly from the representation).");
    clocks_panel_->plot()->setToolTip(
        "The chosen layer: each held-out number where the probe of each digit "
        "place puts it, coloured by its true digit.");
    QCustomPlot* helix = helix_panel_->plot();
    on_resize(helix, [this] { draw_helix(); });  // its equal scales are for the plot's size
    helix->setInteractions(QCP::Interactions());
    connect(helix, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        dragging_ = e->button() == Qt::LeftButton;
        drag_from_ = e->pos();
    });
    connect(helix, &QCustomPlot::mouseRelease, this, [this] { dragging_ = false; });
    connect(helix, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        if (!dragging_ || !(e->buttons() & Qt::LeftButton)) return;
        const QPoint d = e->pos() - drag_from_;
        drag_from_ = e->pos();
        set_rotation(yaw_ + 0.01 * d.x(), std::clamp(pitch_ + 0.01 * d.y(), 0.0, M_PI / 2));
    });
    auto* top = new QSplitter(Qt::Horizontal);
    top->addWidget(r2_panel_);
    top->addWidget(helix_panel_);
    auto* bottom = new QSplitter(Qt::Horizontal);
    bottom->addWidget(digits_panel_);
    bottom->addWidget(clocks_panel_);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(bottom);
    // Two rows of plots need two legible plots' height (the legibility rule, PlotPanel's minimum, which
    // grows when a drawing needs more): on a short screen the view scrolls rather than squeeze them to
    // 40 pixels under the summary's text.
    split->setChildrenCollapsible(false);
    for (QSplitter* s : {top, bottom})
        s->setChildrenCollapsible(false);
    return split;
}

HelixView::~HelixView() {
    stop_background(watcher_);
}

QCustomPlot* HelixView::r2_plot() const {
    return r2_panel_->plot();
}
QCustomPlot* HelixView::helix_plot() const {
    return helix_panel_->plot();
}
QCustomPlot* HelixView::digits_plot() const {
    return digits_panel_->plot();
}
QCustomPlot* HelixView::clocks_plot() const {
    return clocks_panel_->plot();
}

int HelixView::circle() const {
    return circle_->currentData().toInt();
}

void HelixView::set_circle(int period) {
    const int index = circle_->findData(period);
    if (index >= 0) circle_->setCurrentIndex(index);
}

void HelixView::set_rotation(double yaw, double pitch) {
    yaw_ = yaw;
    pitch_ = pitch;
    draw_helix();
}

QString HelixView::summary() const {
    return summary_->text();
}

void HelixView::on_loaded(std::shared_ptr<const Representations> source) {
    run_in_background(watcher_, "helix fits and digit probes",
                      [source](const fa::Progress& progress) { return analyse_helix(source, progress); });
}

void HelixView::on_analysed() {
    HelixResult r = watcher_.result();
    set_running(false);
    if (r.cancelled) return;
    if (!r.error.isEmpty()) {
        on_failed(r.error);
        return;
    }
    result_ = std::make_shared<const HelixResult>(std::move(r));
    show_info(result_->digits.places.empty()
                  ? QStringLiteral("No digit probes: they need at least %1 numbers (a quarter is held out).")
                        .arg(kMinProbeNumbers)
                  : QString());
    list_layers(*result_->source);
    draw();
    set_busy(false);
    Q_EMIT finished();
}

void HelixView::draw() {
    if (!result_) return;
    const Representations& src = *result_->source;
    const std::string source = src.description.toStdString();
    std::vector<double> r2, pca_r2;
    for (const auto& f : result_->fits) {
        r2.push_back(f.r2);
        pca_r2.push_back(f.pca_r2);
    }
    const std::string layers_label = src.layers.size() > 1 ? "layer" : "the one layer";
    plots::draw_lines(
        *r2_plot(),
        {plots::per_layer_series("helix (T = 2, 5, 10, 100)", r2),
         plots::per_layer_series("PCA, as many dims", pca_r2)},
        {.title = "Variance explained per layer: " + source, .x_label = layers_label, .y_label = "R²"});
    r2_panel_->request_replot();
    const int l = std::clamp(layer(), 0, static_cast<int>(src.layers.size()) - 1);
    QStringList places;
    if (!result_->digits.places.empty()) {
        std::vector<plots::LineSeries> lines;
        for (std::size_t p = 0; p < result_->digits.places.size(); ++p) {
            std::vector<double> accuracy;
            for (const auto& row : result_->digits.results)
                accuracy.push_back(row[p].accuracy);
            lines.push_back(plots::per_layer_series(fa::place_name(result_->digits.places[p]), accuracy));
            places << QStringLiteral("%1 %2%")
                          .arg(QString::fromStdString(fa::place_name(result_->digits.places[p])))
                          .arg(100 * result_->digits.results[static_cast<std::size_t>(l)][p].accuracy, 0, 'f',
                               0);
        }
        plots::draw_lines(*digits_plot(), lines,
                          {.title = "Circular probe per digit place",
                           .x_label = layers_label,
                           .y_label = "held-out accuracy"});
        plots::draw_clocks(*clocks_plot(), result_->digits, static_cast<std::size_t>(l), src.numbers,
                           "Clocks, " + src.layer_names[l].toStdString());
        digits_panel_->request_replot();
        clocks_panel_->request_replot();
    }
    digits_panel_->setVisible(!result_->digits.places.empty());
    clocks_panel_->setVisible(!result_->digits.places.empty());
    draw_helix();
    const fa::HelixFit& fit = result_->fits[static_cast<std::size_t>(l)];
    summary_->setText(
        QStringLiteral("%1 numbers, %2: the helix explains %3% of the variance, PCA of %4 dimensions "
                       "%5%.%6")
            .arg(src.numbers.size())
            .arg(src.layer_names[l])
            .arg(100 * fit.r2, 0, 'f', 1)
            .arg(fit.rank)
            .arg(100 * fit.pca_r2, 0, 'f', 1)
            .arg(places.isEmpty() ? QString() : " Digit probes: " + places.join(", ") + "."));
}

void HelixView::draw_helix() {
    if (!result_) return;
    const Representations& src = *result_->source;
    const int l = std::clamp(layer(), 0, static_cast<int>(src.layers.size()) - 1);
    plots::draw_helix(*helix_plot(), result_->fits[static_cast<std::size_t>(l)], src.numbers,
                      {.period = static_cast<double>(circle()),
                       .yaw = yaw_,
                       .pitch = pitch_,
                       .title = "Helix, " + src.layer_names[l].toStdString()});
    helix_panel_->request_replot();
}

}  // namespace fone::gui
