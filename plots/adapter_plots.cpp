#include "adapter_plots.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "plot_style.h"

namespace fone::plots {
namespace {

using namespace style;

constexpr double kCell = 3.2;     // plot units per clock, its radius 1
constexpr double kLabel = 2.6;    // the row's label column
constexpr double kCaption = 0.9;  // the lines under a clock

void ring(QCustomPlot& plot, double cx, double cy) {
    auto* curve = new QCPCurve(plot.xAxis, plot.yAxis);
    for (int i = 0; i <= 120; ++i)
        curve->addData(i, cx + std::cos(2.0 * M_PI * i / 120), cy + std::sin(2.0 * M_PI * i / 120));
    curve->setPen(QPen(ink().faint, 1.2));
}

void hand(QCustomPlot& plot, double cx, double cy, const analysis::ClockReading& r, const QColor& colour) {
    if (r.length() == 0) return;
    auto* line = new QCPItemLine(&plot);
    line->start->setCoords(cx, cy);
    line->end->setCoords(cx + 0.92 * std::cos(r.angle()), cy + 0.92 * std::sin(r.angle()));
    line->setPen(QPen(colour, 2.0));
    line->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 8, 10));
}

void clock(QCustomPlot& plot, double cx, double cy, const analysis::PieceClock& c) {
    const Ink& paper = ink();
    ring(plot, cx, cy);
    add_text(plot, cx, cy + 1.05, QStringLiteral("T = %1").arg(c.period), Qt::AlignBottom | Qt::AlignHCenter,
             font(8), paper.muted);
    auto* point = new QCPCurve(plot.xAxis, plot.yAxis);
    point->setLineStyle(QCPCurve::lsNone);
    point->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, paper.accent, paper.accent, 9));
    point->addData(cx + std::cos(c.fone_angle), cy + std::sin(c.fone_angle));
    hand(plot, cx, cy, c.before, paper.muted);
    hand(plot, cx, cy, c.after, paper.palette(0));
    const auto degrees = [](double a) { return QString::number(a * 180 / M_PI, 'f', 0) + "°"; };
    add_text(plot, cx, cy - 1.08, degrees(c.before.angle()) + " → " + degrees(c.after.angle()),
             Qt::AlignTop | Qt::AlignHCenter, font(8), paper.ink);
}

}  // namespace

void draw_adapter_clocks(QCustomPlot& plot, const std::vector<AdapterPieceRow>& rows,
                         const std::string& title) {
    const Ink& paper = begin_drawing(plot);
    add_title(plot, QString::fromStdString(title));
    const QSizeF area = bare_axis_rect_pixels(plot);
    const std::size_t n = std::max<std::size_t>(1, rows.size());
    const double width_units = kLabel + 3 * kCell, height_units = n * (kCell + kCaption) + 0.6;
    const double r = std::min(area.width() / width_units, area.height() / height_units);  // pixels a unit
    plot.xAxis->setRange(0, area.width() / r);
    plot.yAxis->setRange(-area.height() / r, 0);
    if (rows.empty()) {
        add_text(plot, area.width() / r / 2, -area.height() / r / 2, "No number pieces", Qt::AlignCenter,
                 font(10), paper.muted);
        return;
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const double cy = -(0.6 + 1.4 + i * (kCell + kCaption));
        add_text(plot, 0.2, cy, QString::fromStdString(rows[i].label), Qt::AlignVCenter | Qt::AlignLeft,
                 font(12, true), paper.ink);
        for (std::size_t p = 0; p < 3; ++p)
            clock(plot, kLabel + kCell * (static_cast<double>(p) + 0.5), cy, rows[i].clocks[p]);
    }
}

}  // namespace fone::plots
