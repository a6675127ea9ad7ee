#include "curve_view.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <cmath>

namespace fone::gui {

namespace {

constexpr int kLegendMaxRuns = 12;
constexpr double kHoverPixels = 40;      // how far (up or down) a curve may be from the mouse to be picked
constexpr int kLegendEntryPixels = 230;  // a legend entry's width: the legend has as many columns as fit
constexpr int kAntialiasMaxPoints = 4000;

const QVector<double>& keys_of(const RunSeries& s, CurveMetric metric, CurveAxis axis) {
    const bool loss = metric == CurveMetric::loss;
    switch (axis) {
        case CurveAxis::epoch:
            return loss ? s.loss_epoch : s.eval_epoch;
        case CurveAxis::wall_time:
            return loss ? s.loss_time : s.eval_time;
        default:
            return loss ? s.loss_step : s.eval_step;
    }
}

const QVector<double>& values_of(const RunSeries& s, CurveMetric metric) {
    switch (metric) {
        case CurveMetric::loss:
            return s.loss;
        case CurveMetric::digit_accuracy:
            return s.digit_accuracy;
        case CurveMetric::typed_lowest:
            return s.typed_lowest;
        default:
            return s.exact_match;
    }
}

QString metric_title(CurveMetric m) {
    return m == CurveMetric::loss           ? "loss"
           : m == CurveMetric::exact_match  ? "exact match"
           : m == CurveMetric::typed_lowest ? "typed sums (lowest shape)"
                                            : "digit accuracy";
}

QString axis_title(CurveAxis a) {
    return a == CurveAxis::step ? "step" : a == CurveAxis::epoch ? "epoch" : "wall time (s)";
}

}  // namespace

double EmaSmoother::next(double x) {
    if (weight_ <= 0) return x;
    ema_ = weight_ * ema_ + (1 - weight_) * x;
    decay_ *= weight_;
    return ema_ / (1 - decay_);
}

CurveView::CurveView(RunCatalog* catalog, QWidget* parent) : PlotPanel(parent), catalog_(catalog) {
    metric_box_ = new QComboBox;
    metric_box_->addItems({"Exact match", "Digit accuracy", "Loss", "Typed sums"});
    metric_box_->setToolTip(
        "Exact match: the whole answer right. Digit accuracy: the share of right answer "
        "digits. Loss: the training loss (cross-entropy of the digits). Typed sums: exact match on the "
        "shape of the typed suite that the model gets least right (round numbers, short ones, carries "
        "to a round number, ...; addition and subtraction runs).");
    x_box_ = new QComboBox;
    x_box_->addItems({"Step", "Epoch", "Wall time"});
    smoothing_slider_ = new QSlider(Qt::Horizontal);
    smoothing_slider_->setRange(0, 999);
    smoothing_slider_->setMaximumWidth(140);
    smoothing_slider_->setToolTip("Smoothing: debiased exponential moving average, weight 0 … 0.999");
    smoothing_value_ = new QLabel;
    smoothing_value_->setMinimumWidth(smoothing_value_->fontMetrics().horizontalAdvance("0.999") + 4);
    smoothing_value_->setText(smoothing_text());
    log_x_box_ = new QCheckBox("log x");
    log_y_box_ = new QCheckBox("log y");
    log_x_box_->setToolTip("True logarithmic axis; points at or below 0 are left out (and counted).");
    log_y_box_->setToolTip(log_x_box_->toolTip());
    note_ = new QLabel;
    // The note takes what room is left: it never widens the row (the dock may be narrow).
    note_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* export_button = new QPushButton("Export…");
    export_button->setToolTip("Save the plot as PNG, SVG or PDF, or its data as CSV (Ctrl+E)");
    controls()->addWidget(new QLabel("Show"));
    controls()->addWidget(metric_box_);
    controls()->addWidget(new QLabel("against"));
    controls()->addWidget(x_box_);
    controls()->addWidget(new QLabel("Smoothing"));
    controls()->addWidget(smoothing_slider_);
    controls()->addWidget(smoothing_value_);
    controls()->addWidget(log_x_box_);
    controls()->addWidget(log_y_box_);
    controls()->addWidget(note_, 1);
    controls()->addWidget(export_button);

    connect(metric_box_, &QComboBox::currentIndexChanged, this, [this](int i) {
        set_metric(i == 0   ? CurveMetric::exact_match
                   : i == 1 ? CurveMetric::digit_accuracy
                   : i == 2 ? CurveMetric::loss
                            : CurveMetric::typed_lowest);
    });
    connect(x_box_, &QComboBox::currentIndexChanged, this,
            [this](int i) { set_x_axis(static_cast<CurveAxis>(i)); });
    connect(smoothing_slider_, &QSlider::valueChanged, this, [this](int v) { set_smoothing(v / 1000.0); });
    connect(log_x_box_, &QCheckBox::toggled, this, [this](bool on) { set_log_axes(on, log_y_); });
    connect(log_y_box_, &QCheckBox::toggled, this, [this](bool on) { set_log_axes(log_x_, on); });
    connect(export_button, &QPushButton::clicked, this, &PlotPanel::export_dialog);
    connect(catalog_, &RunCatalog::seriesChanged, this, &CurveView::on_series_changed);

    QCustomPlot* p = plot();
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // Live curves of many runs: thin pens drawn as fast polylines, without antialiasing once there are many
    // points (a replot of 20 runs x 5,000 points stays in a few ms).
    p->setPlottingHint(QCP::phFastPolylines, true);
    // The legend in rows under the plot: long run names never cover a curve.
    p->legend->setVisible(true);
    p->axisRect()->insetLayout()->take(p->legend);
    p->plotLayout()->addElement(1, 0, p->legend);
    p->plotLayout()->setRowStretchFactor(1, 0.001);
    p->plotLayout()->setRowSpacing(2);
    p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    p->legend->setBorderPen(Qt::NoPen);
    p->legend->setMargins(QMargins(4, 0, 4, 2));
    QFont legend_font = p->legend->font();
    legend_font.setPointSizeF(std::max(7.5, legend_font.pointSizeF() - 1));
    p->legend->setFont(legend_font);
    tracer_ = new QCPItemTracer(p);
    tracer_->setStyle(QCPItemTracer::tsCrosshair);
    tracer_->setVisible(false);
    tracer_label_ = new QCPItemText(p);
    tracer_label_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    tracer_label_->setPadding(QMargins(4, 2, 4, 2));
    tracer_label_->setVisible(false);
    tracer_label_->position->setType(QCPItemPosition::ptAbsolute);
    connect(p, &QCustomPlot::mouseMove, this, &CurveView::on_mouse_move);
    connect(p, &QCustomPlot::mouseDoubleClick, this, [this] {
        auto_range_ = true;
        update_axes();
        request_replot();
    });
    connect(p, &QCustomPlot::mouseWheel, this, [this] { auto_range_ = false; });
    connect(p, &QCustomPlot::afterLayout, this, [this] { update_legend_layout(); });
    connect(p, &QCustomPlot::mousePress, this, [this] { auto_range_ = false; });
    rebuild();
}

void CurveView::set_runs(const QList<int>& rows) {
    std::vector<Shown> next;
    for (int row : rows) {
        if (row < 0 || row >= catalog_->size() || catalog_->at(row).dir.isEmpty()) continue;
        Shown s;
        s.row = row;
        s.name = catalog_->at(row).name;
        next.push_back(s);
    }
    shown_ = std::move(next);
    auto_range_ = true;
    rebuild();
}

void CurveView::set_metric(CurveMetric metric) {
    metric_ = metric;
    const int index = metric == CurveMetric::exact_match      ? 0
                      : metric == CurveMetric::digit_accuracy ? 1
                      : metric == CurveMetric::loss           ? 2
                                                              : 3;
    if (metric_box_->currentIndex() != index) metric_box_->setCurrentIndex(index);
    auto_range_ = true;
    rebuild();
}

void CurveView::set_x_axis(CurveAxis axis) {
    x_axis_ = axis;
    if (x_box_->currentIndex() != static_cast<int>(axis)) x_box_->setCurrentIndex(static_cast<int>(axis));
    auto_range_ = true;
    rebuild();
}

void CurveView::set_smoothing(double weight) {
    smoothing_ = std::clamp(weight, 0.0, 0.999);
    const int v = static_cast<int>(std::lround(smoothing_ * 1000));
    if (smoothing_slider_->value() != v) smoothing_slider_->setValue(v);
    smoothing_value_->setText(smoothing_text());
    rebuild();
}

QString CurveView::smoothing_text() const {
    return smoothing_ <= 0 ? QStringLiteral("off")
                           : QString::number(smoothing_, 'f', smoothing_ >= 0.99 ? 3 : 2);
}

QString CurveView::hover_label() const {
    return tracer_label_->visible() ? tracer_label_->text() : QString();
}

void CurveView::show_legend(bool visible) {
    // Out of the layout while hidden: an empty legend's row would still take room from the axes.
    QCustomPlot* p = plot();
    QCPLayoutGrid* layout = p->plotLayout();
    const bool placed = layout->rowCount() > 1 && layout->element(1, 0) == p->legend;
    if (visible && !placed) {
        layout->addElement(1, 0, p->legend);
        layout->setRowStretchFactor(1, 0.001);
    } else if (!visible && placed) {
        layout->take(p->legend);
        layout->simplify();
    }
    p->legend->setVisible(visible);
}

void CurveView::update_legend_layout() {
    // As many columns as entries of kLegendEntryPixels fit across.
    const int columns = std::max(1, plot()->width() / kLegendEntryPixels);
    if (plot()->legend->wrap() != columns) {
        plot()->legend->setWrap(columns);
        request_replot();
    }
}

void CurveView::set_log_axes(bool log_x, bool log_y) {
    log_x_ = log_x;
    log_y_ = log_y;
    if (log_x_box_->isChecked() != log_x) log_x_box_->setChecked(log_x);
    if (log_y_box_->isChecked() != log_y) log_y_box_->setChecked(log_y);
    auto_range_ = true;
    rebuild();
}

void CurveView::style_graph(Shown& s, int index, bool emphasised) {
    // The run's own colour (the same in every view); its place here only for runs shown unselected.
    const int slot = catalog_->colour_slot(s.name);
    QPen pen(theme().series(slot >= 0 ? slot : index));
    pen.setWidthF(emphasised ? 2.5 : 1.0);
    s.graph->setPen(pen);
    s.graph->setLayer(emphasised ? "overlay" : "main");
}

void CurveView::rebuild() {
    QCustomPlot* p = plot();
    p->clearGraphs();
    hidden_points_ = 0;
    for (std::size_t i = 0; i < shown_.size(); ++i) {
        Shown& s = shown_[i];
        s.graph = p->addGraph();
        s.graph->setName(s.name);
        s.graph->setAdaptiveSampling(true);
        s.consumed = 0;
        s.smoother = EmaSmoother(smoothing_);
        style_graph(s, static_cast<int>(i), s.name == highlighted_);
        append_new_points(s);
        catalog_->ensure_series(s.row);  // the points come with seriesChanged when not loaded yet
    }
    show_legend(!shown_.empty() && shown_.size() <= kLegendMaxRuns);
    update_antialiasing();
    x_name_ = axis_title(x_axis_);
    y_name_ = metric_title(metric_);
    p->xAxis->setLabel(x_name_);
    p->yAxis->setLabel(y_name_);
    update_axes();
    apply_theme_to_plot(theme(), p);
    request_replot();
}

void CurveView::append_new_points(Shown& s) {
    const RunSeries& series = catalog_->at(s.row).series;
    const QVector<double>& keys = keys_of(series, metric_, x_axis_);
    const QVector<double>& values = values_of(series, metric_);
    const int n = static_cast<int>(std::min(keys.size(), values.size()));
    if (n <= s.consumed) return;
    QVector<double> k, v;
    k.reserve(n - s.consumed);
    v.reserve(n - s.consumed);
    for (int i = s.consumed; i < n; ++i) {
        if (!std::isfinite(values[i])) continue;
        const double y = s.smoother.next(values[i]);
        if ((log_x_ && keys[i] <= 0) || (log_y_ && y <= 0)) {
            ++hidden_points_;
            continue;
        }
        k.push_back(keys[i]);
        v.push_back(y);
    }
    s.consumed = n;
    s.graph->addData(k, v, true);
}

void CurveView::update_antialiasing() {
    const bool many = point_count() > kAntialiasMaxPoints;
    if (many)
        plot()->setNotAntialiasedElements(QCP::aePlottables);
    else
        plot()->setAntialiasedElements(QCP::aePlottables);
}

void CurveView::on_series_changed(int row) {
    bool any = false;
    for (Shown& s : shown_)
        if (s.row == row && s.graph) {
            append_new_points(s);
            any = true;
        }
    if (!any) return;
    axes_dirty_ = auto_range_;  // rescaled once per replot, not once per run
    request_replot();
}

void CurveView::before_replot() {
    update_antialiasing();
    if (axes_dirty_ && auto_range_) update_axes();
    axes_dirty_ = false;
}

void CurveView::update_axes() {
    QCustomPlot* p = plot();
    for (auto [axis, log] : {std::pair{p->xAxis, log_x_}, std::pair{p->yAxis, log_y_}}) {
        axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
        if (log) {
            auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
            axis->setTicker(ticker);
            axis->setNumberFormat("eb");
            axis->setNumberPrecision(0);
        } else {
            axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
            axis->setNumberFormat("gb");
            axis->setNumberPrecision(6);
        }
    }
    if (auto_range_ && p->graphCount() > 0) {
        p->rescaleAxes();
        if (!log_y_ && metric_ != CurveMetric::loss) p->yAxis->setRange(0, 1.02);
        if (log_x_ == false && p->xAxis->range().lower > 0) p->xAxis->setRangeLower(0);
    }
    note_->setText(hidden_points_ > 0
                       ? QStringLiteral("%1 points ≤ 0 not shown on the log axis").arg(hidden_points_)
                   : shown_.empty() ? QStringLiteral("Select runs in the table to see their curves")
                                    : QString());
}

void CurveView::highlight(const QString& name) {
    if (name == highlighted_) return;
    highlighted_ = name;
    for (std::size_t i = 0; i < shown_.size(); ++i)
        if (shown_[i].graph) style_graph(shown_[i], static_cast<int>(i), shown_[i].name == name);
    request_replot();
}

void CurveView::apply_theme(const Theme& theme) {
    PlotPanel::apply_theme(theme);
    rebuild();
}

int CurveView::point_count() const {
    int n = 0;
    for (const Shown& s : shown_)
        if (s.graph) n += s.graph->dataCount();
    return n;
}

void CurveView::on_mouse_move(QMouseEvent* event) {
    // The curve nearest the mouse at its x: each curve's point nearest in x, then the nearest of those in y
    // (within kHoverPixels), so that a curve is picked without aiming at a pixel.
    QCustomPlot* p = plot();
    const QPointF pos = event->position();
    double best = kHoverPixels;
    QCPGraph* nearest = nullptr;
    double key = 0, value = 0;
    // (a few pixels round the axes count: the last point sits on the right edge)
    const bool inside = p->axisRect()->rect().adjusted(-6, -6, 6, 6).contains(pos.toPoint());
    for (const Shown& s : shown_) {
        if (!inside || !s.graph || s.graph->dataCount() == 0) continue;
        const double x = p->xAxis->pixelToCoord(pos.x());
        auto it = s.graph->data()->findBegin(x, true);
        auto closest = it;
        double closest_dx = 1e300;
        for (int k = 0; k < 3 && it != s.graph->data()->constEnd(); ++k, ++it) {
            const double dx = std::abs(p->xAxis->coordToPixel(it->key) - pos.x());
            if (dx < closest_dx) {
                closest_dx = dx;
                closest = it;
            }
        }
        if (closest_dx > 3 * kHoverPixels) continue;  // the curve has no point near this x
        const double dy = std::abs(p->yAxis->coordToPixel(closest->value) - pos.y());
        if (dy < best) {
            best = dy;
            nearest = s.graph;
            key = closest->key;
            value = closest->value;
        }
    }
    tracer_->setVisible(nearest != nullptr);
    tracer_label_->setVisible(nearest != nullptr);
    const QString name = nearest ? nearest->name() : QString();
    if (nearest) {
        tracer_->setGraph(nearest);
        tracer_->setGraphKey(key);
        tracer_->setPen(QPen(theme().foreground, 0, Qt::DashLine));
        tracer_label_->setColor(theme().foreground);
        tracer_label_->setBrush(theme().background);
        tracer_label_->setText(QStringLiteral("%1\n%2 %3, %4 %5")
                                   .arg(name, axis_title(x_axis_), QString::number(key, 'g', 6),
                                        metric_title(metric_), QString::number(value, 'g', 5)));
        // Right of and above the mouse, flipped where that would leave the plot.
        const QFontMetrics metrics(tracer_label_->font());
        const QRect text = metrics.boundingRect(QRect(), 0, tracer_label_->text());
        const double w = text.width() + 8, h = text.height() + 4;
        const QRect area = p->axisRect()->rect();
        const bool left = pos.x() + 10 + w > area.right();
        const bool below = pos.y() - 6 - h < area.top();
        tracer_label_->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) |
                                            (below ? Qt::AlignTop : Qt::AlignBottom));
        tracer_label_->position->setCoords(left ? pos.x() - 10 : pos.x() + 10,
                                           below ? pos.y() + 12 : pos.y() - 6);
    }
    highlight(name);
    Q_EMIT runHovered(name);
    request_replot();
}

}  // namespace fone::gui
