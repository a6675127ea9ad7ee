// QCustomPlot drawings of training dynamics; see timeline_plots.h.
#include "timeline_plots.h"

#include <qcustomplot.h>

#include <algorithm>

#include "plot_style.h"

namespace fone::plots {

namespace {

// A period in number units with at most 4 significant digits: 10, 2.5, 333.3.
QString period_label(double value) {
    return QString::number(value, 'g', value >= 1e4 ? 6 : 4);
}

// A colour map of columns (steps) x rows, the x axis ticked with the steps (thinned to about 8 labels).
QCPColorMap* step_map(QCustomPlot& plot, const std::vector<std::int64_t>& steps, int rows) {
    const int cols = static_cast<int>(steps.size());
    auto* map = new QCPColorMap(plot.xAxis, plot.yAxis);
    map->data()->setSize(cols, rows);
    map->data()->setRange(QCPRange(0, std::max(1, cols - 1)), QCPRange(0, std::max(1, rows - 1)));
    map->setInterpolate(false);
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    const int every = std::max(1, cols / 8);
    for (int s = 0; s < cols; s += every)
        ticks->addTick(s, QString::number(steps[static_cast<std::size_t>(s)]));
    if ((cols - 1) % every) ticks->addTick(cols - 1, QString::number(steps.back()));
    plot.xAxis->setTicker(ticks);
    plot.xAxis->setLabel(QStringLiteral("training step (one column per snapshot)"));
    plot.xAxis->setRange(-0.5, cols - 0.5);
    plot.yAxis->setRange(-0.5, rows - 0.5);
    return map;
}

// Row y's line, a marker at column x (the step the row's period emerged) and a label at the right (or left)
// end, its bottom at row label_y (y, or above it when the rows below hold labels).
void mark_row(QCustomPlot& plot, int cols, double y, double label_y, int emerged_column, const QString& label,
              bool left) {
    auto* line = new QCPItemLine(&plot);
    line->start->setCoords(-0.5, y);
    line->end->setCoords(cols - 0.5, y);
    line->setPen(QPen(QColor(255, 255, 255, 140), 1, Qt::DashLine));
    auto* text = style::add_text(plot, left ? -0.5 : cols - 0.5, label_y, label,
                                 (left ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignBottom,
                                 style::font(9, true), Qt::white);
    text->setBrush(QColor(0, 0, 0, 150));  // readable on the brightest cells too
    text->setPadding(QMargins(3, 1, 3, 1));
    if (emerged_column >= 0) {
        auto* tick = new QCPItemTracer(&plot);
        tick->position->setCoords(emerged_column, y);
        tick->setStyle(QCPItemTracer::tsCircle);
        tick->setSize(9);
        tick->setPen(QPen(Qt::white, 2));
    }
}

int column_of(const std::vector<std::int64_t>& steps, std::int64_t step) {
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i] == step) return static_cast<int>(i);
    return -1;
}

}  // namespace

void draw_timeline(QCustomPlot& plot, const analysis::Timeline& t, std::size_t layer,
                   const std::string& title, int current) {
    style::begin_drawing(plot);
    const int cols = static_cast<int>(t.steps.size()), rows = static_cast<int>(t.k.size()) - 1;  // k >= 1
    auto* map = step_map(plot, t.steps, rows);
    // Row r is frequency k = r + 1: the longest period at the bottom.
    for (int s = 0; s < cols; ++s)
        for (int r = 0; r < rows; ++r)
            map->data()->setCell(s, r, t.magnitude.at(layer)(s, r + 1));
    style::add_color_scale(plot, map, QStringLiteral("magnitude"));
    map->setGradient(QCPColorGradient::gpThermal);
    map->rescaleDataRange(true);
    QSharedPointer<QCPAxisTickerText> periods(new QCPAxisTickerText);
    const int every = std::max(1, rows / 10);
    for (int r = 0; r < rows; r += every)
        periods->addTick(r,
                         QStringLiteral("T=%1").arg(period_label(t.period[static_cast<std::size_t>(r + 1)])));
    plot.yAxis->setTicker(periods);
    plot.yAxis->setLabel(QStringLiteral("period along the number axis"));
    // Labels sit above their rows, at the right end, else at the left; where both ends are taken within a
    // line of text, the label goes above the one before it (its marker stays on its row): none overprints.
    std::vector<analysis::KeyPeriod> keys = t.key_periods.at(layer);
    std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.k < b.k; });
    // Rows per line of label text (16 px: 9 pt bold and its padding): the data rectangle's height as laid
    // out before, or, when that is stale from a larger size or not laid out yet, the page's less the
    // title's and x axis' room.
    const int laid_out = plot.axisRect()->height() > 0 ? plot.axisRect()->height() : 1 << 20;
    const int axis_pixels = std::max(60, std::min(laid_out, plot.viewport().height() - 100));
    const double rows_per_line = rows * 16.0 / axis_pixels;
    double free_from[2] = {-1e9, -1e9};  // per end (right, left): the lowest row a new label may start at
    for (const analysis::KeyPeriod& k : keys) {
        const double row = k.k - 1;
        const int end = row >= free_from[0]            ? 0
                        : row >= free_from[1]          ? 1
                        : free_from[0] <= free_from[1] ? 0
                                                       : 1;
        const double at = std::max(row, free_from[end]);
        free_from[end] = at + rows_per_line;
        const QString when =
            k.emerged_at >= 0 ? QStringLiteral(", from step %1").arg(k.emerged_at) : QString();
        mark_row(plot, cols, row, at, column_of(t.steps, k.emerged_at),
                 QStringLiteral("T=%1%2").arg(period_label(k.period), when), end == 1);
    }
    if (current >= 0 && current < cols) {
        auto* cursor = new QCPItemLine(&plot);
        cursor->start->setCoords(current, -0.5);
        cursor->end->setCoords(current, rows - 0.5);
        cursor->setPen(QPen(QColor(0, 200, 255), 2));
    }
    style::add_title(plot, QString::fromStdString(title.empty() ? "Spectrum over training" : title));
}

}  // namespace fone::plots
