// QCustomPlot drawings of interventions and training dynamics; see dynamics_plots.h.
#include "dynamics_plots.h"

#include <qcustomplot.h>

#include "plot_kit.h"

namespace fone::plots {

using namespace kit;

namespace {

// White (nothing) through orange to dark red (everything): damage reads as heat.
QCPColorGradient damage_gradient() {
    QCPColorGradient g;
    g.setColorStopAt(0.0, QColor(255, 255, 255));
    g.setColorStopAt(0.3, QColor(253, 174, 97));
    g.setColorStopAt(0.7, QColor(215, 48, 39));
    g.setColorStopAt(1.0, QColor(103, 0, 13));
    return g;
}

// A colour scale to the right of the axis rect, its margins tied to it.
QCPColorScale* add_colour_scale(QCustomPlot& plot, QCPColorMap* map, const QString& label) {
    auto* scale = new QCPColorScale(&plot);
    plot.plotLayout()->addElement(plot.plotLayout()->rowCount() - 1, 1, scale);
    scale->setType(QCPAxis::atRight);
    scale->axis()->setLabel(label);
    map->setColorScale(scale);
    auto* margins = new QCPMarginGroup(&plot);
    plot.axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    return scale;
}

QSharedPointer<QCPAxisTickerText> text_ticks(const std::vector<QString>& names) {
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (std::size_t i = 0; i < names.size(); ++i)
        ticks->addTick(static_cast<double>(i), names[i]);
    return ticks;
}

}  // namespace

void draw_damage_map(QCustomPlot& plot, const analysis::DamageMap& map, const std::string& title) {
    reset(plot);
    const int rows = static_cast<int>(map.layers.size()), cols = static_cast<int>(map.periods.size());
    auto* colours = new QCPColorMap(plot.xAxis, plot.yAxis);
    colours->data()->setSize(cols, rows);
    colours->data()->setRange(QCPRange(0, std::max(1, cols - 1)), QCPRange(0, std::max(1, rows - 1)));
    for (int l = 0; l < rows; ++l)
        for (int t = 0; t < cols; ++t) {
            const double v = map.answers_changed(l, t);
            colours->data()->setCell(t, l, v);
            add_text(plot, t, l, QString::number(100 * v, 'f', v > 0 && v < 0.01 ? 1 : 0) + "%",
                     Qt::AlignCenter, label_font(9, true), v > 0.55 ? QColor(Qt::white) : kInk);
        }
    colours->setGradient(damage_gradient());
    colours->setInterpolate(false);
    colours->setDataRange(QCPRange(0, 1));
    add_colour_scale(plot, colours, QStringLiteral("answers changed"))->axis()->setRange(0, 1);
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
    add_title(plot, q(title.empty() ? "Knockout damage" : title) +
                        QStringLiteral(" · %1 prompts, exact match %2% before")
                            .arg(map.prompts)
                            .arg(100 * map.exact_before, 0, 'f', 1));
}

namespace {

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

// A label at the right end of row y and a marker at column x (the step the row's period emerged).
void mark_row(QCustomPlot& plot, int cols, double y, int emerged_column, const QString& label) {
    auto* line = new QCPItemLine(&plot);
    line->start->setCoords(-0.5, y);
    line->end->setCoords(cols - 0.5, y);
    line->setPen(QPen(QColor(255, 255, 255, 140), 1, Qt::DashLine));
    add_text(plot, cols - 0.5, y, label + " ", Qt::AlignRight | Qt::AlignVCenter, label_font(9, true), Qt::white);
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

void draw_timeline(QCustomPlot& plot, const analysis::Timeline& t, std::size_t layer, const std::string& title,
                   int current) {
    reset(plot);
    const int cols = static_cast<int>(t.steps.size()), rows = static_cast<int>(t.k.size()) - 1;  // k >= 1
    auto* map = step_map(plot, t.steps, rows);
    // Row r is frequency k = r + 1: the longest period at the bottom.
    for (int s = 0; s < cols; ++s)
        for (int r = 0; r < rows; ++r)
            map->data()->setCell(s, r, t.magnitude.at(layer)(s, r + 1));
    map->setGradient(QCPColorGradient::gpThermal);
    map->rescaleDataRange(true);
    add_colour_scale(plot, map, QStringLiteral("magnitude"));
    QSharedPointer<QCPAxisTickerText> periods(new QCPAxisTickerText);
    const int every = std::max(1, rows / 10);
    for (int r = 0; r < rows; r += every)
        periods->addTick(r, QStringLiteral("T=%1").arg(number_label(t.period[static_cast<std::size_t>(r + 1)])));
    plot.yAxis->setTicker(periods);
    plot.yAxis->setLabel(QStringLiteral("period along the number axis (frequency k = N/T)"));
    for (const analysis::KeyPeriod& k : t.key_periods.at(layer)) {
        const QString when = k.emerged_at >= 0 ? QStringLiteral(", from step %1").arg(k.emerged_at) : QString();
        mark_row(plot, cols, k.k - 1, column_of(t.steps, k.emerged_at),
                 QStringLiteral("T=%1%2").arg(number_label(k.period), when));
    }
    if (current >= 0 && current < cols) {
        auto* cursor = new QCPItemLine(&plot);
        cursor->start->setCoords(current, -0.5);
        cursor->end->setCoords(current, rows - 0.5);
        cursor->setPen(QPen(QColor(0, 200, 255), 2));
    }
    add_title(plot, q(title.empty() ? "Spectrum over training" : title));
}

void draw_grokking_losses(QCustomPlot& plot, const analysis::GrokkingCurves& c, const std::string& title) {
    reset(plot);
    struct Series {
        QString name;
        double analysis::GrokkingStep::*field;
        QColor colour;
        Qt::PenStyle style;
    };
    const Series series[] = {{"train loss", &analysis::GrokkingStep::train_loss, kPalette[0], Qt::SolidLine},
                             {"test loss", &analysis::GrokkingStep::test_loss, kPalette[1], Qt::SolidLine},
                             {"restricted loss (key frequencies only, test)", &analysis::GrokkingStep::restricted_loss,
                              kPalette[2], Qt::DashLine},
                             {"excluded loss (key frequencies removed, train)",
                              &analysis::GrokkingStep::excluded_loss, kPalette[3], Qt::DashLine}};
    double low = 1e300, high = 0;
    for (const Series& s : series) {
        auto* g = plot.addGraph();
        g->setName(s.name);
        g->setPen(QPen(s.colour, 2, s.style));
        for (const auto& step : c.steps) {
            const double v = std::max(step.*(s.field), 1e-8);
            g->addData(static_cast<double>(step.step), v);
            low = std::min(low, v);
            high = std::max(high, v);
        }
    }
    plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot.yAxis->setRange(low / 2, high * 2);
    plot.xAxis->setRange(c.steps.front().step, c.steps.back().step);
    plot.xAxis->setLabel(QStringLiteral("training step"));
    plot.yAxis->setLabel(QStringLiteral("cross-entropy over the p residues (log scale)"));
    plot.legend->setVisible(true);
    plot.legend->setFont(label_font(9));
    plot.axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    QStringList keys;
    for (int k : c.key_frequencies)
        keys << QString::number(k);
    add_title(plot, q(title.empty() ? "Grokking" : title) +
                        QStringLiteral(" · p = %1, key frequencies %2").arg(c.modulus).arg(keys.join(", ")));
}

void draw_frequency_norms(QCustomPlot& plot, const analysis::GrokkingCurves& c, const std::string& title) {
    reset(plot);
    std::vector<std::int64_t> steps;
    for (const auto& s : c.steps)
        steps.push_back(s.step);
    const int rows = c.steps.empty() ? 0 : static_cast<int>(c.steps[0].embedding_norms.size());
    auto* map = step_map(plot, steps, rows);
    for (std::size_t s = 0; s < c.steps.size(); ++s)
        for (int k = 0; k < rows; ++k)
            map->data()->setCell(static_cast<int>(s), k, c.steps[s].embedding_norms[static_cast<std::size_t>(k)]);
    map->setGradient(QCPColorGradient::gpThermal);
    map->rescaleDataRange(true);
    add_colour_scale(plot, map, QStringLiteral("norm of the embedding along k"));
    QSharedPointer<QCPAxisTickerText> ks(new QCPAxisTickerText);
    for (int k = 0; k < rows; k += std::max(1, rows / 10))
        ks->addTick(k, QString::number(k + 1));
    plot.yAxis->setTicker(ks);
    plot.yAxis->setLabel(QStringLiteral("frequency k (cos, sin of 2πk·x/p)"));
    for (int k : c.key_frequencies)
        mark_row(plot, static_cast<int>(steps.size()), k - 1, -1, QStringLiteral("k=%1").arg(k));
    add_title(plot, q(title.empty() ? "Key frequencies" : title));
}

}  // namespace fone::plots
