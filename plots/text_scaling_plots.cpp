// QCustomPlot drawing of the FoNE/digit text-perplexity ratio against model size; see text_scaling_plots.h.
#include "text_scaling_plots.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "plot_style.h"

namespace fone::plots {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// "30k", "1M", "100M": a parameter count as a tick label.
QString count_label(double n) {
    if (n >= 1e9) return QStringLiteral("%1B").arg(n / 1e9, 0, 'g', 3);
    if (n >= 1e6) return QStringLiteral("%1M").arg(n / 1e6, 0, 'g', 3);
    if (n >= 1e3) return QStringLiteral("%1k").arg(n / 1e3, 0, 'g', 3);
    return QString::number(n, 'g', 3);
}

// Ticks at 1, 3, 10, 30, ... times the powers of ten within [lo, hi].
QSharedPointer<QCPAxisTickerText> count_ticks(double lo, double hi) {
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (double p = std::pow(10.0, std::floor(std::log10(lo))); p <= hi; p *= 10)
        for (const double m : {1.0, 3.0})
            if (p * m >= lo && p * m <= hi) ticks->addTick(p * m, count_label(p * m));
    return ticks;
}

// The measured lines with their spread over seeds; widens [y_lo, y_hi] and [x_lo, x_hi] to take them.
void add_ratio_lines(QCustomPlot& plot, const std::vector<RatioLine>& lines, double& x_lo, double& x_hi,
                     double& y_lo, double& y_hi) {
    const style::Ink& paper = style::ink();
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const QColor colour = paper.palette(static_cast<int>(i));
        auto* g = plot.addGraph();
        g->setName(q(lines[i].corpus));
        g->setPen(QPen(colour, 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, paper.page, 7));
        auto* bars = new QCPErrorBars(plot.xAxis, plot.yAxis);
        bars->setDataPlottable(g);
        bars->setPen(QPen(colour, 1.5));
        bars->removeFromLegend();
        QVector<double> minus, plus;
        for (const RatioPoint& p : lines[i].points) {
            g->addData(p.params, p.mean);
            minus << p.mean - p.low;
            plus << p.high - p.mean;
            x_lo = std::min(x_lo, p.params), x_hi = std::max(x_hi, p.params);
            y_lo = std::min(y_lo, p.low), y_hi = std::max(y_hi, p.high);
        }
        bars->setData(minus, plus);
    }
}

// The published ratios as markers of their own, each named in the legend and labelled with its value.
void add_published(QCustomPlot& plot, double& x_lo, double& x_hi, double& y_lo, double& y_hi) {
    const style::Ink& paper = style::ink();
    const QCPScatterStyle::ScatterShape shapes[] = {QCPScatterStyle::ssDiamond, QCPScatterStyle::ssTriangle};
    const auto& points = published_ratios();
    for (std::size_t i = 0; i < points.size(); ++i) {
        const PublishedRatio& p = points[i];
        auto* g = plot.addGraph();
        g->setName(q(p.label) + QStringLiteral(": %1").arg(p.ratio, 0, 'f', 2));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(shapes[i % 2], paper.muted, paper.muted, 11));
        g->addData(p.params, p.ratio);
        x_lo = std::min(x_lo, p.params), x_hi = std::max(x_hi, p.params);
        y_lo = std::min(y_lo, p.ratio), y_hi = std::max(y_hi, p.ratio);
    }
}

}  // namespace

void draw_text_scaling(QCustomPlot& plot, const std::vector<RatioLine>& lines, const std::string& title,
                       const std::string& footer) {
    const style::Ink& paper = style::begin_drawing(plot);
    double x_lo = 1e300, x_hi = 0, y_lo = 1.0, y_hi = 1.0;
    add_ratio_lines(plot, lines, x_lo, x_hi, y_lo, y_hi);
    add_published(plot, x_lo, x_hi, y_lo, y_hi);
    x_lo /= 2, x_hi *= 2;
    auto* parity = new QCPItemStraightLine(&plot);
    parity->point1->setCoords(x_lo, 1.0);
    parity->point2->setCoords(x_hi, 1.0);
    parity->setPen(QPen(paper.muted, 1, Qt::DashLine));
    style::add_text(plot, x_lo * 1.1, 1.0, QStringLiteral("equal text perplexity"),
                    Qt::AlignLeft | Qt::AlignBottom, style::font(8), paper.muted);
    plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.xAxis->setTicker(count_ticks(x_lo, x_hi));
    plot.xAxis->setRange(x_lo, x_hi);
    const double pad = 0.08 * (y_hi - y_lo) + 0.02;
    plot.yAxis->setRange(y_lo - pad, y_hi + pad);
    plot.xAxis->grid()->setSubGridVisible(false);
    plot.xAxis->setLabel(QStringLiteral("parameters without the embedding (log scale)"));
    plot.yAxis->setLabel(style::fit_lines(QStringLiteral("FoNE / digit-wise text perplexity"), style::font(9),
                                          std::max(100, plot.height() - 60), 1));
    plot.legend->setVisible(true);
    style::legend_row(plot, std::clamp(plot.width() / 320, 1, 2));
    style::add_title(plot, q(title));
    style::add_footer(plot, q(footer));
}

}  // namespace fone::plots
