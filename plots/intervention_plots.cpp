// QCustomPlot drawings of interventions; see intervention_plots.h.
#include "intervention_plots.h"

#include <qcustomplot.h>

#include "plot_style.h"

namespace fone::plots {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// Page colour (nothing) through orange to dark red (everything): damage reads as heat.
QCPColorGradient damage_gradient(const QColor& page) {
    QCPColorGradient g;
    g.setColorStopAt(0.0, page);
    g.setColorStopAt(0.3, QColor(253, 174, 97));
    g.setColorStopAt(0.7, QColor(215, 48, 39));
    g.setColorStopAt(1.0, QColor(103, 0, 13));
    return g;
}

QSharedPointer<QCPAxisTickerText> text_ticks(const std::vector<QString>& names) {
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (std::size_t i = 0; i < names.size(); ++i)
        ticks->addTick(static_cast<double>(i), names[i]);
    return ticks;
}

}  // namespace

void draw_damage_map(QCustomPlot& plot, const analysis::DamageMap& map, const std::string& title) {
    style::begin_drawing(plot);
    const int rows = static_cast<int>(map.layers.size()), cols = static_cast<int>(map.periods.size());
    auto* colours = new QCPColorMap(plot.xAxis, plot.yAxis);
    colours->data()->setSize(cols, rows);
    colours->data()->setRange(QCPRange(0, std::max(1, cols - 1)), QCPRange(0, std::max(1, rows - 1)));
    for (int l = 0; l < rows; ++l)
        for (int t = 0; t < cols; ++t) {
            const double v = map.answers_changed(l, t);
            colours->data()->setCell(t, l, v);
            // Dark text on the pale cells, white on the red ones.
            style::add_text(plot, t, l, style::percent_label(v), Qt::AlignCenter, style::font(9, true),
                            v > 0.55 ? QColor(Qt::white) : QColor(40, 40, 40));
        }
    colours->setInterpolate(false);
    // The map takes the scale's gradient and range.
    auto* scale = style::add_color_scale(plot, colours, QStringLiteral("answers changed"));
    scale->setGradient(damage_gradient(QColor(255, 255, 255)));
    scale->setDataRange(QCPRange(0, 1));
    std::vector<QString> layers, periods;
    for (const auto& l : map.layers)
        layers.push_back(q(l));
    for (std::size_t t = 0; t < map.periods.size(); ++t)
        periods.push_back(QStringLiteral("T=%1\n(place %2)").arg(q(map.periods[t])).arg(map.places[t]));
    plot.yAxis->setTicker(text_ticks(layers));
    plot.xAxis->setTicker(text_ticks(periods));
    plot.yAxis->setLabel(QStringLiteral("layer where the pair is scaled"));
    plot.xAxis->setLabel(QStringLiteral("period whose pair is scaled by %1").arg(map.scale));
    plot.xAxis->setRange(-0.5, cols - 0.5);
    plot.yAxis->setRange(-0.5, rows - 0.5);
    style::add_title(plot, q(title.empty() ? "Knockout damage" : title) +
                               QStringLiteral(" · %1 prompts, exact match %2 before")
                                   .arg(map.prompts)
                                   .arg(style::percent_label(map.exact_before)));
}

}  // namespace fone::plots
