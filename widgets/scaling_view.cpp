#include "scaling_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMap>
#include <QPushButton>
#include <QSet>
#include <cmath>
#include <map>
#include <tuple>

namespace fone::gui {

namespace {

constexpr int kMaxTextTicks = 14;

double metric_of(const RunEntry& e, ScalingMetric metric) {
    switch (metric) {
        case ScalingMetric::best_exact_match:
            return e.best_exact_match;
        case ScalingMetric::digit_accuracy:
            return e.digit_accuracy;
        default:
            return e.exact_match;
    }
}

QString metric_title(ScalingMetric m) {
    return m == ScalingMetric::final_exact_match  ? "test exact match (final)"
           : m == ScalingMetric::best_exact_match ? "test exact match (best)"
                                                  : "test digit accuracy (final)";
}

QString format_short(double n) {
    if (n >= 1e6) return QString::number(n / 1e6, 'g', 3) + "M";
    if (n >= 1e3) return QString::number(std::round(n / 1e3)) + "k";
    return QString::number(n);
}

}  // namespace

std::vector<ScalingSeries> scaling_series(const RunCatalog& catalog, const QList<int>& rows, ScalingMode mode,
                                          const QString& task, ScalingMetric metric) {
    // series name -> x -> values over seeds
    // Keyed by (method, numeric order, name) so that "3,200 examples" comes before "12,800 examples".
    std::map<std::tuple<QString, double, QString>, std::map<double, std::vector<double>>> groups;
    for (int row : rows) {
        if (row < 0 || row >= catalog.size()) continue;
        const RunEntry& e = catalog.at(row);
        if (e.status != "finished" || (!task.isEmpty() && e.task != task)) continue;
        const double value = metric_of(e, metric);
        if (value < 0) continue;
        if (mode == ScalingMode::data_size) {
            if (e.train_size <= 0) continue;
            const QString shape = e.shape.isEmpty() ? "default model" : e.shape;
            groups[{e.method, e.size_level, e.method + ", " + shape}][e.train_size].push_back(value);
        } else {
            if (e.params <= 0) continue;
            groups[{e.method, e.train_size, e.method + ", " + format_count(e.train_size) + " examples"}]
                  [e.params]
                      .push_back(value);
        }
    }
    std::vector<ScalingSeries> out;
    for (const auto& [key, by_x] : groups) {
        ScalingSeries s;
        s.name = std::get<2>(key);
        for (const auto& [x, values] : by_x) {
            ScalingPoint p;
            p.x = x;
            p.n = static_cast<int>(values.size());
            for (double v : values)
                p.mean += v / p.n;
            if (p.n > 1) {
                double ss = 0;
                for (double v : values)
                    ss += (v - p.mean) * (v - p.mean);
                p.stddev = std::sqrt(ss / (p.n - 1));
            }
            s.points.push_back(p);
        }
        out.push_back(std::move(s));
    }
    return out;
}

ScalingView::ScalingView(RunCatalog* catalog, ScalingMode mode, QWidget* parent)
    : PlotPanel(parent), catalog_(catalog), mode_(mode) {
    task_box_ = new QComboBox;
    task_box_->setToolTip("The task whose runs are plotted");
    task_box_->setMinimumContentsLength(10);
    metric_box_ = new QComboBox;
    metric_box_->addItems({"Final exact match", "Best exact match", "Final digit accuracy"});
    note_ = new QLabel;
    auto* export_button = new QPushButton("Export…");
    controls()->addWidget(new QLabel("Task"));
    controls()->addWidget(task_box_);
    controls()->addWidget(metric_box_);
    controls()->addWidget(note_, 1);
    controls()->addWidget(export_button);
    connect(export_button, &QPushButton::clicked, this, &PlotPanel::export_dialog);
    connect(task_box_, &QComboBox::currentIndexChanged, this, &ScalingView::refresh);
    connect(metric_box_, &QComboBox::currentIndexChanged, this, &ScalingView::refresh);
    connect(catalog_, &RunCatalog::rowChanged, this, [this](int row) {
        if (catalog_->at(row).status == "finished" && rows_.contains(row)) refresh();
    });
    setToolTip(mode == ScalingMode::data_size
                   ? "The paper's Figure: accuracy against the number of training examples, for each method. "
                     "Each point is the mean over seeds; bars show ±1 standard deviation."
                   : "The paper's Figure: accuracy against model size (parameters), for each method. Each "
                     "point is the mean over seeds; bars show ±1 standard deviation.");
    QCustomPlot* p = plot();
    p->legend->setVisible(true);
    // The legend sits right of the plot, never over a point.
    p->axisRect()->insetLayout()->take(p->legend);
    auto* side = new QCPLayoutGrid;
    p->plotLayout()->addElement(0, 1, side);
    p->plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, p->legend);
    side->addElement(1, 0, new QCPLayoutElement(p));  // takes the height below the legend
    side->setRowStretchFactor(0, 0.001);
    p->legend->setMargins(QMargins(6, 4, 6, 4));
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    x_name_ = mode == ScalingMode::data_size ? "training examples" : "parameters";
}

void ScalingView::set_runs(const QList<int>& rows) {
    rows_ = rows;
    update_tasks();
    refresh();
}

void ScalingView::update_tasks() {
    // Tasks of the finished runs, the most common first.
    QMap<QString, int> counts;
    for (int row : rows_)
        if (row < catalog_->size() && catalog_->at(row).status == "finished")
            ++counts[catalog_->at(row).task];
    QStringList tasks = counts.keys();
    std::stable_sort(tasks.begin(), tasks.end(),
                     [&](const QString& a, const QString& b) { return counts[a] > counts[b]; });
    const QString current = task_box_->currentText();
    QSignalBlocker block(task_box_);
    task_box_->clear();
    task_box_->addItems(tasks);
    if (tasks.contains(current)) task_box_->setCurrentText(current);
}

void ScalingView::refresh() {
    if (task_box_->count() == 0) update_tasks();
    const auto metric = static_cast<ScalingMetric>(metric_box_->currentIndex());
    series_ = scaling_series(*catalog_, rows_, mode_, task_box_->currentText(), metric);
    y_name_ = metric_title(metric);
    QCustomPlot* p = plot();
    p->clearPlottables();
    QSet<double> xs;
    int runs = 0;
    for (std::size_t i = 0; i < series_.size(); ++i) {
        const ScalingSeries& s = series_[i];
        QVector<double> x, y, err;
        for (const ScalingPoint& pt : s.points) {
            x << pt.x;
            y << pt.mean;
            err << pt.stddev;
            xs.insert(pt.x);
            runs += pt.n;
        }
        QCPGraph* graph = p->addGraph();
        graph->setName(s.name);
        const QColor color = theme().series(static_cast<int>(i));
        graph->setPen(QPen(color, 2));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 7));
        graph->setData(x, y, true);
        auto* bars = new QCPErrorBars(p->xAxis, p->yAxis);
        bars->removeFromLegend();
        bars->setDataPlottable(graph);
        bars->setData(err);
        bars->setPen(QPen(color, 1.5));
    }
    QCPAxis* xa = p->xAxis;
    xa->setScaleType(QCPAxis::stLogarithmic);
    QList<double> sorted_x = xs.values();
    std::sort(sorted_x.begin(), sorted_x.end());
    if (!sorted_x.isEmpty() && sorted_x.size() <= kMaxTextTicks) {
        // A tick at every value the runs have: training sizes in full, parameter counts short (494k, 2.1M).
        // None closer to the previous one than a tenth of a decade: methods of one size level differ by a
        // few parameters (740k and 741k), and their labels would print over each other.
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        double last = 0;
        for (double x : sorted_x) {
            if (last > 0 && std::log10(x / last) < 0.1) continue;
            ticker->addTick(x, mode_ == ScalingMode::data_size ? format_count(x) : format_short(x));
            last = x;
        }
        xa->setTicker(ticker);
    } else {
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        ticker->setLogBase(mode_ == ScalingMode::data_size ? 2 : 10);
        xa->setTicker(ticker);
        xa->setNumberFormat(mode_ == ScalingMode::data_size ? "gb" : "eb");
        xa->setNumberPrecision(mode_ == ScalingMode::data_size ? 6 : 0);
    }
    xa->setLabel(mode_ == ScalingMode::data_size ? "training examples (log₂ scale)"
                                                 : "parameters (log scale)");
    p->yAxis->setLabel(y_name_);
    p->rescaleAxes();
    if (!sorted_x.isEmpty()) xa->setRange(sorted_x.first() / 1.4, sorted_x.last() * 1.4);
    p->yAxis->setRange(0, 1.05);
    note_->setText(series_.empty() ? QStringLiteral("No finished runs yet: launch a sweep (Sweep dock)")
                                   : QStringLiteral("%1 finished runs, mean ± sd over seeds").arg(runs));
    apply_theme_to_plot(theme(), p);
    request_replot();
}

void ScalingView::apply_theme(const Theme& theme) {
    PlotPanel::apply_theme(theme);
    refresh();
}

QString ScalingView::data_csv() const {
    QString out = "series," + csv_field(x_name_) + ",mean,stddev,runs\n";
    for (const ScalingSeries& s : series_)
        for (const ScalingPoint& p : s.points)
            out += csv_field(s.name) + "," + QString::number(p.x, 'g', 10) + "," +
                   QString::number(p.mean, 'g', 10) + "," + QString::number(p.stddev, 'g', 10) + "," +
                   QString::number(p.n) + "\n";
    return out;
}

}  // namespace fone::gui
