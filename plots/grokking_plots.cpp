// QCustomPlot drawings of grokking's progress measures; see grokking_plots.h.
#include "grokking_plots.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "plot_style.h"

namespace fone::plots {

namespace {

QCPGraph* add_line(QCustomPlot& plot, const QString& name, const QColor& colour,
                   Qt::PenStyle pen = Qt::SolidLine) {
    auto* g = plot.addGraph();
    g->setName(name);
    g->setPen(QPen(colour, 2, pen));
    return g;
}

void finish(QCustomPlot& plot, const std::string& title, const QString& y_label, int legend_per_row) {
    plot.xAxis->setLabel(QStringLiteral("training step (full batch: one step per epoch)"));
    plot.yAxis->setLabel(y_label);
    plot.legend->setVisible(true);
    style::legend_row(plot, legend_per_row);
    style::add_title(plot, QString::fromStdString(title));
}

}  // namespace

void draw_grokking_losses(QCustomPlot& plot, const std::vector<analysis::GrokkingPoint>& points, int modulus,
                          const std::string& title) {
    const style::Ink& paper = style::begin_drawing(plot);
    struct Series {
        const char* name;
        double analysis::GrokkingMeasures::*field;
        QColor colour;
    };
    const Series series[] = {
        {"train loss", &analysis::GrokkingMeasures::train_loss, paper.palette(0)},
        {"test loss", &analysis::GrokkingMeasures::test_loss, paper.palette(1)},
        {"restricted loss (train)", &analysis::GrokkingMeasures::restricted_loss, paper.palette(2)},
        {"excluded loss (train)", &analysis::GrokkingMeasures::excluded_loss, paper.palette(3)}};
    double lo = 1e300, hi = 0;
    for (const Series& s : series) {
        auto* g = add_line(plot, QString::fromUtf8(s.name), s.colour);
        for (const auto& p : points) {
            const double v = std::max(p.measures.*s.field, 1e-12);  // a log axis has no 0
            g->addData(static_cast<double>(p.step), v);
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    const double uniform = std::log(static_cast<double>(std::max(modulus, 2)));
    auto* chance = add_line(plot, QStringLiteral("ln p (uniform guess)"), paper.muted, Qt::DashLine);
    if (!points.empty()) {
        chance->addData(static_cast<double>(points.front().step), uniform);
        chance->addData(static_cast<double>(points.back().step), uniform);
        plot.xAxis->setRange(static_cast<double>(points.front().step),
                             static_cast<double>(points.back().step));
    }
    hi = std::max(hi, uniform);
    plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot.yAxis->setRange(std::max(lo / 2, 1e-9), hi * 2);
    finish(plot, title, QStringLiteral("cross-entropy over the p answers (log scale)"), 3);
}

void draw_frequency_norms(QCustomPlot& plot, const std::vector<analysis::GrokkingPoint>& points,
                          const std::vector<int>& keys, const std::string& title) {
    const style::Ink& paper = style::begin_drawing(plot);
    double hi = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        auto* g = add_line(plot, QStringLiteral("k = %1").arg(keys[i]), paper.palette(static_cast<int>(i)));
        for (const auto& p : points) {
            const auto k = static_cast<std::size_t>(keys[i] - 1);
            if (k >= p.measures.embedding_norms.size()) continue;
            g->addData(static_cast<double>(p.step), p.measures.embedding_norms[k]);
            hi = std::max(hi, p.measures.embedding_norms[k]);
        }
    }
    auto* top = add_line(plot, QStringLiteral("largest other frequency"), paper.muted, Qt::DashLine);
    auto* mean = add_line(plot, QStringLiteral("mean of the others"), paper.faint);
    for (const auto& p : points) {
        double largest = 0, sum = 0;
        int count = 0;
        for (std::size_t k = 0; k < p.measures.embedding_norms.size(); ++k) {
            if (std::find(keys.begin(), keys.end(), static_cast<int>(k) + 1) != keys.end()) continue;
            largest = std::max(largest, p.measures.embedding_norms[k]);
            sum += p.measures.embedding_norms[k];
            ++count;
        }
        top->addData(static_cast<double>(p.step), largest);
        mean->addData(static_cast<double>(p.step), count ? sum / count : 0.0);
        hi = std::max(hi, largest);
    }
    if (!points.empty())
        plot.xAxis->setRange(static_cast<double>(points.front().step),
                             static_cast<double>(points.back().step));
    plot.yAxis->setRange(0, hi * 1.08 + 1e-9);
    finish(plot, title, QStringLiteral("norm of the embedding's cos/sin pair"), 4);
}

}  // namespace fone::plots
