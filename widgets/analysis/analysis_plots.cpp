// QCustomPlot drawings of the analyses; see analysis_plots.h.
#include "analysis_plots.h"

#include <qcustomplot.h>

#include "plot_kit.h"
#include <QApplication>
#include <QDir>
#include <QLocale>
#include <QSaveFile>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace fone::plots {
namespace kit {

// Tableau's ten categorical colours: distinguishable, and readable on white.
const QColor kPalette[] = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                           QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                           QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34),
                           QColor(23, 190, 207)};
const QColor kAccent(214, 39, 40);
const QColor kInk(40, 40, 40);
const QColor kFaint(170, 170, 170);

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// A period in number units with at most 4 significant digits: 10, 2.5, 333.3.
QString number_label(double value) {
    if (std::isinf(value)) return QStringLiteral("∞");
    return QString::number(value, 'g', value >= 1e4 ? 6 : 4);
}

void reset(QCustomPlot& plot) {
    plot.clearPlottables();
    plot.clearItems();
    plot.clearGraphs();
    if (plot.plotLayout()->rowCount() > 1) {
        // A title row from an earlier drawing.
        plot.plotLayout()->remove(plot.plotLayout()->element(0, 0));
        plot.plotLayout()->simplify();
    }
    while (plot.plotLayout()->columnCount() > 1) {
        // A colour scale from an earlier drawing.
        plot.plotLayout()->remove(plot.plotLayout()->element(0, plot.plotLayout()->columnCount() - 1));
        plot.plotLayout()->simplify();
    }
    plot.legend->setVisible(false);
    plot.legend->setWrap(0);
    plot.legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
    for (QCPAxis* axis : {plot.xAxis, plot.yAxis, plot.xAxis2, plot.yAxis2}) {
        axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        axis->setLabel(QString());
        axis->setScaleType(QCPAxis::stLinear);
    }
    plot.xAxis->setVisible(true);
    plot.yAxis->setVisible(true);
    plot.xAxis2->setVisible(false);
    plot.yAxis2->setVisible(false);
    plot.axisRect()->setAutoMargins(QCP::msAll);
    plot.setBackground(Qt::white);
}

void add_title(QCustomPlot& plot, const QString& title) {
    if (title.isEmpty()) return;
    plot.plotLayout()->insertRow(0);
    auto* text = new QCPTextElement(&plot, title, QFont("DejaVu Sans", 12, QFont::Bold));
    plot.plotLayout()->addElement(0, 0, text);
}

QFont label_font(int size, bool bold) {
    return QFont("DejaVu Sans", size, bold ? QFont::Bold : QFont::Normal);
}

QCPItemText* add_text(QCustomPlot& plot, double x, double y, const QString& text, Qt::Alignment align,
                      const QFont& font, const QColor& colour) {
    auto* item = new QCPItemText(&plot);
    item->position->setCoords(x, y);
    item->setPositionAlignment(align);
    item->setText(text);
    item->setFont(font);
    item->setColor(colour);
    return item;
}

// A legend in one or two rows across the top of the axis rect; the caller leaves head room for it.
void top_legend(QCustomPlot& plot, int per_row) {
    plot.legend->setVisible(true);
    plot.legend->setFont(label_font(8));
    plot.legend->setBrush(QColor(255, 255, 255, 225));
    plot.legend->setWrap(per_row);
    plot.legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot.axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignHCenter);
}

// How many circles per row make them largest in the plot (cells of cell_w x cell_h units; title row about
// 40 px); among equally large layouts, the one with the fullest rows.
int best_columns(const QCustomPlot& plot, int count, double cell_w, double cell_h) {
    const double width = std::max(50, plot.width() - 12), height = std::max(50, plot.height() - 52);
    int best = std::max(1, std::min(count, 5));
    double best_scale = 0.0;
    for (int c = 1; c <= count; ++c) {
        const int rows = (count + c - 1) / c;
        const double scale = std::min(width / (c * cell_w), height / (rows * cell_h));
        if (scale >= best_scale * 0.9999) {
            best_scale = scale;
            best = c;
        }
    }
    return best;
}

// Ranges with equal scales on both axes that show [x_low, x_high] x [y_low, y_high] whole and centred in a
// plot of any shape (title row about 40 px), so circles stay round.
void equal_scale_ranges(QCustomPlot& plot, double x_low, double x_high, double y_low, double y_high) {
    plot.xAxis->setVisible(false);
    plot.yAxis->setVisible(false);
    plot.axisRect()->setAutoMargins(QCP::msNone);
    plot.axisRect()->setMargins(QMargins(6, 6, 6, 6));
    const double width = std::max(50, plot.width() - 12), height = std::max(50, plot.height() - 52);
    const double units_per_pixel = std::max((y_high - y_low) / height, (x_high - x_low) / width);
    const double x_centre = (x_low + x_high) / 2.0;
    const double x_half = width * units_per_pixel / 2.0, y_half = height * units_per_pixel / 2.0;
    plot.xAxis->setRange(x_centre - x_half, x_centre + x_half);
    const double y_centre = (y_low + y_high) / 2.0;
    plot.yAxis->setRange(y_centre - y_half, y_centre + y_half);
}

}  // namespace kit
using namespace kit;

void draw_spectrum(QCustomPlot& plot, const analysis::Spectrum& spectrum, const SpectrumStyle& style) {
    reset(plot);
    QVector<double> k, magnitude;
    double largest = 0.0;
    for (std::size_t i = 0; i < spectrum.k.size(); ++i) {
        if (style.log_k && spectrum.k[i] == 0) continue;
        k << spectrum.k[i];
        magnitude << spectrum.magnitude[i];
        largest = std::max(largest, spectrum.magnitude[i]);
    }
    QCPGraph* impulses = plot.addGraph();
    impulses->setData(k, magnitude, true);
    impulses->setLineStyle(QCPGraph::lsImpulse);
    impulses->setPen(QPen(kPalette[0], 1.6));

    const double k_max = std::max(2.0, static_cast<double>(spectrum.k.empty() ? 2 : spectrum.k.back()));
    if (style.log_k) {
        plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        ticker->setSubTickCount(8);
        plot.xAxis->setTicker(ticker);
        plot.xAxis->setRange(0.55, k_max * 1.25);
    } else {
        plot.xAxis->setRange(-0.01 * k_max, k_max * 1.01);
    }
    // Where a k lands across the axis (0..1), to stack labels that would overlap.
    auto across = [&](double x) {
        return style.log_k ? std::log(x / 0.55) / std::log(k_max * 1.25 / 0.55)
                           : (x + 0.01 * k_max) / (1.02 * k_max);
    };
    auto spikes = analysis::top_spikes(spectrum, style.labelled_spikes, 0.05);
    std::sort(spikes.begin(), spikes.end(), [](const auto& a, const auto& b) { return a.k < b.k; });
    QCPGraph* tops = plot.addGraph();
    tops->setLineStyle(QCPGraph::lsNone);
    tops->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kAccent, kAccent, 6));
    const double label_width = 80.0 / std::max(300, plot.width());  // about one label, as a share of the axis
    double previous = -1.0;
    int level = 0, levels = 1;
    for (const auto& spike : spikes) {
        tops->addData(spike.k, spike.magnitude);
        const double at = across(spike.k);
        level = previous >= 0.0 && at - previous < label_width ? level + 1 : 0;
        levels = std::max(levels, level + 1);
        previous = at;
        add_text(plot, spike.k, spike.magnitude + (0.03 + 0.08 * level) * largest,
                 QStringLiteral("T = %1").arg(number_label(spike.period * style.period_unit)),
                 Qt::AlignBottom | Qt::AlignHCenter, label_font(9, true), kAccent);
    }
    plot.xAxis->setLabel(QStringLiteral("frequency k (cycles over the %1 numbers)%2")
                             .arg(spectrum.count)
                             .arg(style.log_k ? QStringLiteral(", log scale") : QString()));
    plot.yAxis->setLabel(QStringLiteral("magnitude  (2/N)·‖X(k)‖"));
    plot.yAxis->setRange(0, largest > 0 ? largest * (1.15 + 0.08 * levels) : 1.0);
    add_title(plot, q(style.title));
}

void draw_layer_heatmap(QCustomPlot& plot, const analysis::LayerSpectra& spectra,
                        const std::vector<std::string>& layer_names, const std::string& title,
                        double period_unit) {
    reset(plot);
    const int layers = static_cast<int>(spectra.magnitude.rows()),
              ks = static_cast<int>(spectra.magnitude.cols());
    auto* map = new QCPColorMap(plot.xAxis, plot.yAxis);
    map->data()->setSize(ks, layers);
    map->data()->setRange(QCPRange(0, std::max(1, ks - 1)), QCPRange(0, std::max(1, layers - 1)));
    for (int l = 0; l < layers; ++l)
        for (int k = 0; k < ks; ++k)
            map->data()->setCell(k, l, spectra.magnitude(l, k));
    auto* scale = new QCPColorScale(&plot);
    plot.plotLayout()->addElement(0, 1, scale);
    scale->setType(QCPAxis::atRight);
    scale->axis()->setLabel(QStringLiteral("magnitude"));
    map->setColorScale(scale);
    map->setGradient(QCPColorGradient::gpThermal);
    map->setInterpolate(false);
    map->rescaleDataRange(true);
    auto margins = new QCPMarginGroup(&plot);
    plot.axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

    QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
    for (int l = 0; l < layers; ++l)
        names->addTick(l, l < static_cast<int>(layer_names.size())
                              ? q(layer_names[static_cast<std::size_t>(l)])
                              : QStringLiteral("layer %1").arg(l));
    plot.yAxis->setTicker(names);
    plot.yAxis->setLabel(QStringLiteral("layer"));
    plot.xAxis->setLabel(QStringLiteral("frequency k"));
    // Period labels on the top axis at the strongest frequencies over all layers.
    QSharedPointer<QCPAxisTickerText> periods(new QCPAxisTickerText);
    std::vector<std::pair<double, int>> strongest;
    for (int k = 1; k < ks; ++k)
        strongest.push_back({spectra.magnitude.col(k).maxCoeff(), k});
    std::sort(strongest.rbegin(), strongest.rend());
    std::vector<int> labelled;
    for (std::size_t i = 0; i < strongest.size() && labelled.size() < 6; ++i) {
        if (strongest[i].first < 0.25 * strongest[0].first) break;
        const int k = strongest[i].second;
        const bool crowded = std::any_of(labelled.begin(), labelled.end(), [&](int other) {
            return std::abs(other - k) < std::max(2, ks / 25);
        });
        if (crowded) continue;
        labelled.push_back(k);
        periods->addTick(k, QStringLiteral("T=%1").arg(
                                number_label(spectra.period[static_cast<std::size_t>(k)] * period_unit)));
    }
    plot.xAxis2->setVisible(true);
    plot.xAxis2->setTicker(periods);
    plot.xAxis2->setTickLabels(true);
    plot.xAxis2->setLabel(QStringLiteral("period of the strongest frequencies"));
    plot.xAxis->setRange(-0.5, ks - 0.5);
    plot.xAxis2->setRange(-0.5, ks - 0.5);
    plot.yAxis->setRange(-0.5, layers - 0.5);
    add_title(plot, q(title.empty() ? "Spectrum per layer" : title));
}

void draw_pca(QCustomPlot& plot, const analysis::Pca& pca, const std::vector<int>& classes, int class_count,
              const std::string& class_name, const std::string& title) {
    reset(plot);
    const bool two = pca.projection.cols() >= 2;
    const bool legend = class_count <= 10;
    QCPColorGradient hues(QCPColorGradient::gpHues);
    hues.setPeriodic(true);
    for (int c = 0; c < class_count; ++c) {
        QVector<double> x, y;
        for (Eigen::Index i = 0; i < pca.projection.rows(); ++i)
            if (static_cast<std::size_t>(i) < classes.size() && classes[static_cast<std::size_t>(i)] == c) {
                x << pca.projection(i, 0);
                y << (two ? pca.projection(i, 1) : 0.0);
            }
        if (x.isEmpty()) continue;
        const QColor colour = legend ? kPalette[c] : hues.color(c, QCPRange(0, class_count));
        QCPGraph* g = plot.addGraph();
        g->setData(x, y);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 6));
        g->setName(QStringLiteral("%1 = %2").arg(q(class_name)).arg(c));
    }
    auto ratio = [&](int c) {
        return c < static_cast<int>(pca.explained_ratio.size())
                   ? 100.0 * pca.explained_ratio[static_cast<std::size_t>(c)]
                   : 0.0;
    };
    plot.xAxis->setLabel(QStringLiteral("PC1 (%1% of the variance)").arg(ratio(0), 0, 'f', 1));
    plot.yAxis->setLabel(two ? QStringLiteral("PC2 (%1% of the variance)").arg(ratio(1), 0, 'f', 1)
                             : QString());
    plot.rescaleAxes();
    for (QCPAxis* axis : {plot.xAxis, plot.yAxis})
        axis->scaleRange(1.1, axis->range().center());
    if (legend) {
        // Head room above the points for a legend in rows of five.
        const QCPRange y = plot.yAxis->range();
        plot.yAxis->setRange(y.lower, y.upper + 0.22 * y.size());
        top_legend(plot, 5);
    } else {
        auto* scale = new QCPColorScale(&plot);
        plot.plotLayout()->addElement(0, 1, scale);
        scale->setGradient(hues);
        scale->setDataRange(QCPRange(0, class_count - 1));
        scale->axis()->setLabel(q(class_name));
    }
    add_title(plot, q(title.empty() ? "PCA coloured by " + class_name : title));
}

std::pair<int, int> circles_size(const analysis::UnitCircles& circles) {
    const int count = std::max<int>(1, static_cast<int>(circles.circles.size()));
    const int columns = std::min(count, 5), rows = (count + 4) / 5;
    // 80 pixels per unit: a cell is 3 x 4 units, plus the title row and margins.
    return {std::max(420, 240 * columns + 12), static_cast<int>(52 + 80 * ((rows - 1) * 4.0 + 3.8))};
}

namespace {

constexpr char kHandsLayer[] = "circles-hands";

QString residue_caption(const analysis::CircleReading& c) {
    QString caption = QStringLiteral("x mod T = %1").arg(q(c.residue));
    if (caption.size() > 30) caption = caption.left(27) + QStringLiteral("…");
    return caption;
}

QString digit_caption(const analysis::CircleReading& c) {
    const double degrees = c.angle * 180.0 / std::numbers::pi;
    return c.digit >= 0 ? QStringLiteral("digit %1 · %2°").arg(c.digit).arg(degrees, 0, 'f', 1)
                        : QStringLiteral("%1°").arg(degrees, 0, 'f', 1);
}

// Moves circle i's number-dependent items to reading c (centre cx, cy).
void place_circle(CircleHandles& h, std::size_t i, const analysis::CircleReading& c,
                  const std::vector<analysis::DigitMarker>& markers) {
    const double cx = h.centres[i].first, cy = h.centres[i].second;
    h.hands[i]->end->setCoords(cx + c.x, cy + c.y);
    h.residues[i]->setText(residue_caption(c));
    h.digits[i]->setText(digit_caption(c));
    h.digits[i]->setFont(label_font(9, c.digit >= 0));
    h.digits[i]->setColor(c.digit >= 0 ? kPalette[2] : kInk);
    const bool carried = c.digit >= 0 && c.digit < static_cast<int>(markers.size());
    h.carried[i]->data()->clear();
    h.carried_labels[i]->setVisible(carried);
    if (!carried) return;
    const auto& m = markers[static_cast<std::size_t>(c.digit)];
    h.carried[i]->addData(cx + m.x, cy + m.y);
    h.carried_labels[i]->position->setCoords(cx + 1.2 * m.x, cy + 1.2 * m.y);
    h.carried_labels[i]->setText(QString::number(m.digit, 36));
}

}  // namespace

void draw_circles(QCustomPlot& plot, const analysis::UnitCircles& circles, const std::string& title,
                  CircleHandles* handles) {
    reset(plot);
    const int count = static_cast<int>(circles.circles.size());
    constexpr double kCellWidth = 3.0, kCellHeight = 4.0;
    const int columns = best_columns(plot, std::max(1, count), kCellWidth, kCellHeight);
    const int rows = std::max(1, (count + columns - 1) / columns);
    // What follows the number goes on a buffered layer of its own when the caller keeps handles, so that
    // update_circles() can repaint just that layer.
    CircleHandles local;
    CircleHandles& h = handles ? *handles : local;
    h = CircleHandles{};
    h.base = circles.base;
    if (handles) {
        if (!plot.layer(kHandsLayer)) plot.addLayer(kHandsLayer, plot.layer("main"), QCustomPlot::limAbove);
        h.layer = plot.layer(kHandsLayer);
        h.layer->setMode(QCPLayer::lmBuffered);
    }
    auto dynamic = [&](QCPLayerable* item) {
        if (h.layer) item->setLayer(h.layer);
    };
    QVector<double> ring_x, ring_y;
    for (int i = 0; i <= 120; ++i) {
        ring_x << std::cos(2.0 * std::numbers::pi * i / 120);
        ring_y << std::sin(2.0 * std::numbers::pi * i / 120);
    }
    // Largest period (highest digit) first, reading like the number from left to right.
    for (int index = 0; index < count; ++index) {
        const std::size_t k = static_cast<std::size_t>(count - 1 - index);
        const auto& c = circles.circles[k];
        const double cx = (index % columns) * kCellWidth, cy = -(index / columns) * kCellHeight;
        auto* ring = new QCPCurve(plot.xAxis, plot.yAxis);
        QVector<double> xs, ys;
        for (int i = 0; i < ring_x.size(); ++i) {
            xs << cx + ring_x[i];
            ys << cy + ring_y[i];
        }
        ring->setData(xs, ys);
        ring->setPen(QPen(kFaint, 1.2));
        // Every marker grey with its digit; the digit this circle carries drawn again on top, in green.
        auto* markers = new QCPCurve(plot.xAxis, plot.yAxis);
        auto* carried = new QCPCurve(plot.xAxis, plot.yAxis);
        for (auto* curve : {markers, carried})
            curve->setLineStyle(QCPCurve::lsNone);
        markers->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kFaint, kFaint, 6));
        carried->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kPalette[2], kPalette[2], 9));
        dynamic(carried);
        for (const auto& m : circles.markers) {
            markers->addData(cx + m.x, cy + m.y);
            add_text(plot, cx + 1.2 * m.x, cy + 1.2 * m.y, QString::number(m.digit, 36), Qt::AlignCenter,
                     label_font(8), QColor(110, 110, 110));
        }
        QCPItemText* carried_label =
            add_text(plot, cx, cy, QString(), Qt::AlignCenter, label_font(8, true), kPalette[2]);
        carried_label->setBrush(Qt::white);  // hides the grey digit under it
        dynamic(carried_label);
        auto* hand = new QCPItemLine(&plot);
        hand->start->setCoords(cx, cy);
        hand->setPen(QPen(kAccent, 2.0));
        hand->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 9, 12));
        dynamic(hand);
        add_text(plot, cx, cy + 1.42, QStringLiteral("T = %1").arg(q(analysis::period_text(c.period))),
                 Qt::AlignBottom | Qt::AlignHCenter, label_font(10, true));
        QCPItemText* residue =
            add_text(plot, cx, cy - 1.38, QString(), Qt::AlignTop | Qt::AlignHCenter, label_font(9), kAccent);
        QCPItemText* digit =
            add_text(plot, cx, cy - 1.68, QString(), Qt::AlignTop | Qt::AlignHCenter, label_font(9), kInk);
        dynamic(residue);
        dynamic(digit);
        // Handles are kept in the readings' order (smallest period first).
        if (h.hands.size() < circles.circles.size()) {
            const std::size_t n = circles.circles.size();
            h.hands.resize(n);
            h.residues.resize(n);
            h.digits.resize(n);
            h.carried.resize(n);
            h.carried_labels.resize(n);
            h.centres.resize(n);
            h.periods.resize(n);
        }
        h.hands[k] = hand;
        h.residues[k] = residue;
        h.digits[k] = digit;
        h.carried[k] = carried;
        h.carried_labels[k] = carried_label;
        h.centres[k] = {cx, cy};
        h.periods[k] = analysis::period_text(c.period);
        place_circle(h, k, c, circles.markers);
    }
    equal_scale_ranges(plot, -1.5, (columns - 1) * kCellWidth + 1.5, -(rows - 1) * kCellHeight - 2.05, 1.75);
    add_title(plot,
              q(title.empty() ? "FoNE unit circles of " + circles.number.to_string() +
                                    (circles.base == 10 ? "" : " (base " + std::to_string(circles.base) + ")")
                              : title));
}

bool update_circles(CircleHandles& handles, const analysis::UnitCircles& circles) {
    if (circles.base != handles.base || circles.circles.size() != handles.hands.size()) return false;
    for (std::size_t i = 0; i < circles.circles.size(); ++i)
        if (analysis::period_text(circles.circles[i].period) != handles.periods[i]) return false;
    for (std::size_t i = 0; i < circles.circles.size(); ++i)
        place_circle(handles, i, circles.circles[i], circles.markers);
    return true;
}

namespace {

constexpr double kHiddenCellWidth = 3.2, kHiddenCellHeight = 5.45;

// A unit circle's outline around (cx, cy).
void add_ring(QCustomPlot& plot, double cx, double cy) {
    auto* ring = new QCPCurve(plot.xAxis, plot.yAxis);
    for (int i = 0; i <= 120; ++i)
        ring->addData(i, cx + std::cos(2.0 * std::numbers::pi * i / 120),
                      cy + std::sin(2.0 * std::numbers::pi * i / 120));
    ring->setPen(QPen(kFaint, 1.2));
}

}  // namespace

std::pair<int, int> hidden_circles_size(const analysis::HiddenCircles& circles) {
    const int count = std::max<int>(1, static_cast<int>(circles.pairs.size()));
    const int columns = std::min(count, 5), rows = (count + 4) / 5;
    return {std::max(420, static_cast<int>(75 * kHiddenCellWidth * columns) + 12),
            static_cast<int>(52 + 75 * ((rows - 1) * kHiddenCellHeight + 5.4))};
}

void draw_hidden_circles(QCustomPlot& plot, const analysis::HiddenCircles& circles,
                         const std::string& title) {
    reset(plot);
    const int count = static_cast<int>(circles.pairs.size());
    const int columns = best_columns(plot, std::max(1, count), kHiddenCellWidth, kHiddenCellHeight);
    const int rows = std::max(1, (count + columns - 1) / columns);
    const int base = circles.base;
    const double cell_pixels = (plot.width() - 12.0) / columns;
    const bool compact = cell_pixels < 130.0;
    const bool tiny =
        cell_pixels < 95.0;  // ten labels round a small ring crowd it: only the ones that matter
    for (int index = 0; index < count; ++index) {
        const auto& pair = circles.pairs[static_cast<std::size_t>(count - 1 - index)];  // highest digit first
        const double cx = (index % columns) * kHiddenCellWidth, cy = -(index / columns) * kHiddenCellHeight;
        const QColor verdict = pair.wrong() ? kAccent : kPalette[2];
        add_ring(plot, cx, cy);
        auto* markers = new QCPCurve(plot.xAxis, plot.yAxis);
        auto* predicted = new QCPCurve(plot.xAxis, plot.yAxis);
        auto* truth = new QCPCurve(plot.xAxis, plot.yAxis);
        for (auto* curve : {markers, predicted, truth})
            curve->setLineStyle(QCPCurve::lsNone);
        markers->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kFaint, kFaint, 6));
        predicted->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, verdict, verdict, 9));
        truth->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kInk, 1.5), Qt::NoBrush, 15));
        for (const auto& m : circles.markers) {
            (m.digit == pair.predicted ? predicted : markers)->addData(cx + m.x, cy + m.y);
            if (pair.wrong() && m.digit == pair.truth) truth->addData(cx + m.x, cy + m.y);
            if (tiny && m.digit != pair.predicted && m.digit != 0 && !(pair.wrong() && m.digit == pair.truth))
                continue;
            add_text(plot, cx + 1.2 * m.x, cy + 1.2 * m.y, QString::number(m.digit), Qt::AlignCenter,
                     label_font(8, m.digit == pair.predicted),
                     m.digit == pair.predicted ? verdict : QColor(110, 110, 110));
        }
        auto* hand = new QCPItemLine(&plot);
        hand->start->setCoords(cx, cy);
        hand->end->setCoords(cx + pair.x, cy + pair.y);
        hand->setPen(QPen(kPalette[0], 2.0));
        hand->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 9, 12));
        const QString period = q(analysis::period_text(pair.period));
        add_text(plot, cx, cy + 1.42,
                 (compact ? QStringLiteral("T=%1") : QStringLiteral("T = %1")).arg(period),
                 Qt::AlignBottom | Qt::AlignHCenter, label_font(compact ? 9 : 10, true));
        QString caption = QStringLiteral("predicted %1").arg(pair.predicted);
        if (pair.truth >= 0) caption += QStringLiteral(" · true %1").arg(pair.truth);
        if (compact)  // a narrow cell: the words would run into the next circle's
            caption = pair.truth < 0 ? QString::number(pair.predicted)
                      : pair.wrong() ? QStringLiteral("%1 ✗ (true %2)").arg(pair.predicted).arg(pair.truth)
                                     : QStringLiteral("%1 ✓").arg(pair.predicted);
        add_text(plot, cx, cy - 1.34, caption, Qt::AlignTop | Qt::AlignHCenter, label_font(8, pair.wrong()),
                 verdict);
        add_text(plot, cx, cy - 1.62, QStringLiteral("|h| = %1").arg(pair.length, 0, 'f', 2),
                 Qt::AlignTop | Qt::AlignHCenter, label_font(8), QColor(110, 110, 110));
        // Probability bars: digit j at x = cx - 1.35 + 2.7·(j + 0.5)/base, 1.3 units high for p = 1.
        const double baseline = cy - 3.3, slot = 2.7 / base;
        for (int j = 0; j < base; ++j) {
            const double p = j < static_cast<int>(pair.probabilities.size())
                                 ? pair.probabilities[static_cast<std::size_t>(j)]
                                 : 0.0;
            const double x = cx - 1.35 + slot * (j + 0.5);
            auto* bar = new QCPItemRect(&plot);
            bar->topLeft->setCoords(x - 0.38 * slot, baseline + 1.3 * std::max(p, 0.004));
            bar->bottomRight->setCoords(x + 0.38 * slot, baseline);
            const QColor fill = j == pair.predicted ? verdict
                                : j == pair.truth   ? kInk
                                                    : QColor(190, 190, 190);
            bar->setBrush(fill);
            bar->setPen(Qt::NoPen);
            add_text(plot, x, baseline - 0.03, QString::number(j), Qt::AlignTop | Qt::AlignHCenter,
                     label_font(7), QColor(110, 110, 110));
        }
    }
    equal_scale_ranges(plot, -1.6, (columns - 1) * kHiddenCellWidth + 1.6,
                       -(rows - 1) * kHiddenCellHeight - 3.65, 1.75);
    std::string heading = "Hidden state on the circles: predicted " + circles.predicted.to_string();
    if (circles.has_truth) heading += ", true " + circles.truth.to_string();
    add_title(plot, q(title.empty() ? heading : title));
}

void draw_probe(QCustomPlot& plot, const std::vector<analysis::ProbeResult>& results,
                const std::string& title) {
    reset(plot);
    auto* group = new QCPBarsGroup(&plot);
    auto* accuracy = new QCPBars(plot.xAxis, plot.yAxis);
    auto* chance = new QCPBars(plot.xAxis, plot.yAxis);
    accuracy->setName(QStringLiteral("held-out accuracy"));
    chance->setName(QStringLiteral("chance (most frequent class)"));
    accuracy->setBrush(kPalette[0]);
    accuracy->setPen(Qt::NoPen);
    chance->setBrush(QColor(200, 200, 200));
    chance->setPen(Qt::NoPen);
    for (auto* bars : {accuracy, chance}) {
        bars->setWidth(0.35);
        bars->setBarsGroup(group);
    }
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (std::size_t i = 0; i < results.size(); ++i) {
        const double x = static_cast<double>(i);
        accuracy->addData(x, results[i].accuracy);
        chance->addData(x, results[i].chance);
        ticks->addTick(x, QStringLiteral("x mod %1").arg(results[i].period));
        add_text(plot, x - 0.18, results[i].accuracy + 0.01,
                 QStringLiteral("%1%").arg(100.0 * results[i].accuracy, 0, 'f', 1),
                 Qt::AlignBottom | Qt::AlignHCenter, label_font(8, true));
    }
    plot.xAxis->setTicker(ticks);
    plot.xAxis->setRange(-0.6, static_cast<double>(results.size()) - 0.4);
    // Head room above 100% for the value labels and the legend, ticks only up to 100%.
    plot.yAxis->setRange(0, 1.4);
    plot.yAxis->setLabel(QStringLiteral("accuracy on held-out numbers"));
    QSharedPointer<QCPAxisTickerText> tenths(new QCPAxisTickerText);
    for (int i = 0; i <= 5; ++i)
        tenths->addTick(0.2 * i, QStringLiteral("%1%").arg(20 * i));
    plot.yAxis->setTicker(tenths);
    top_legend(plot, 2);
    add_title(plot, q(title.empty() ? "Linear probe: can x mod T be read linearly?" : title));
}

namespace {

// One tick per distinct x of the data, but none closer to the previous one than a tenth of a decade (log)
// or 3% of the range: methods of one size level differ by a few parameters, and their labels would overlap.
void add_data_ticks(QCPAxisTickerText& ticks, std::vector<double> xs, bool log_scale, bool compact) {
    std::sort(xs.begin(), xs.end());
    if (xs.empty()) return;
    const double range = xs.back() - xs.front();
    double last = 0;
    bool any = false;
    for (double x : xs) {
        const bool close = any && (log_scale ? std::log10(x / last) < 0.1 : x - last < 0.03 * range);
        if (close) continue;
        QString label = QLocale(QLocale::English).toString(x, 'g', 7);
        if (compact && x >= 1e6)
            label = QStringLiteral("%1M").arg(x / 1e6, 0, 'g', 3);
        else if (compact && x >= 1e4)
            label = QStringLiteral("%1k").arg(x / 1e3, 0, 'g', 3);
        ticks.addTick(x, label);
        last = x;
        any = true;
    }
}

}  // namespace

void draw_lines(QCustomPlot& plot, const std::vector<LineSeries>& series, const LinesStyle& style) {
    reset(plot);
    QSharedPointer<QCPAxisTickerText> xticks(new QCPAxisTickerText);
    double x_lo = 1e300, x_hi = -1e300;
    std::vector<double> tick_xs;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const LineSeries& s = series[i];
        auto* g = plot.addGraph();
        g->setName(q(s.name));
        const QColor colour = kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
        g->setPen(QPen(colour, 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, Qt::white, 7));
        for (std::size_t k = 0; k < s.x.size(); ++k) {
            g->addData(s.x[k], s.y[k]);
            x_lo = std::min(x_lo, s.x[k]);
            x_hi = std::max(x_hi, s.x[k]);
            tick_xs.push_back(s.x[k]);
        }
        if (!s.low.empty() && s.low.size() == s.x.size()) {
            auto* bars = new QCPErrorBars(plot.xAxis, plot.yAxis);
            bars->setDataPlottable(g);
            bars->setPen(QPen(colour, 1));
            bars->removeFromLegend();
            QVector<double> minus, plus;
            for (std::size_t k = 0; k < s.x.size(); ++k) {
                minus << s.y[k] - s.low[k];
                plus << s.high[k] - s.y[k];
            }
            bars->setData(minus, plus);
        }
    }
    add_data_ticks(*xticks, tick_xs, style.log_base > 0 && x_lo > 0, style.log_base == 10);
    if (style.log_base > 0 && x_lo > 0) {
        plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
        plot.xAxis->setTicker(xticks);
        plot.xAxis->setRange(x_lo / 1.4, x_hi * 1.4);
    } else if (x_lo <= x_hi) {
        plot.xAxis->setTicker(xticks);
        const double pad = std::max(0.5, 0.05 * (x_hi - x_lo));
        plot.xAxis->setRange(x_lo - pad, x_hi + pad);
    }
    plot.yAxis->setRange(style.y_min, style.y_max + (style.y_max - style.y_min) * 0.18);
    if (style.percent) {
        QSharedPointer<QCPAxisTickerText> yticks(new QCPAxisTickerText);
        for (double v = style.y_min; v <= style.y_max + 1e-9; v += (style.y_max - style.y_min) / 5)
            yticks->addTick(v, QStringLiteral("%1%").arg(100 * v, 0, 'f', 0));
        plot.yAxis->setTicker(yticks);
    }
    plot.xAxis->setLabel(q(style.x_label));
    plot.yAxis->setLabel(q(style.y_label));
    plot.xAxis->grid()->setSubGridVisible(false);
    top_legend(plot, std::min<int>(4, static_cast<int>(series.size())));
    add_title(plot, q(style.title));
}

void draw_bars(QCustomPlot& plot, const std::vector<std::string>& labels, const std::vector<double>& values,
               const LinesStyle& style) {
    reset(plot);
    auto* bars = new QCPBars(plot.xAxis, plot.yAxis);
    bars->setBrush(kPalette[0]);
    bars->setPen(Qt::NoPen);
    bars->setWidth(0.6);
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const double x = static_cast<double>(i);
        bars->addData(x, values[i]);
        ticks->addTick(x, q(labels[i]));
        add_text(plot, x, values[i] + 0.01 * (style.y_max - style.y_min),
                 style.percent ? QStringLiteral("%1%").arg(100.0 * values[i], 0, 'f', 1)
                               : QString::number(values[i], 'g', 4),
                 Qt::AlignBottom | Qt::AlignHCenter, label_font(8, true));
    }
    plot.xAxis->setTicker(ticks);
    plot.xAxis->setRange(-0.6, static_cast<double>(labels.size()) - 0.4);
    plot.yAxis->setRange(style.y_min, style.y_max * 1.12);
    if (style.percent) {
        QSharedPointer<QCPAxisTickerText> yticks(new QCPAxisTickerText);
        // As many decimals as the tick step needs (0.2% steps on a 0-1% axis).
        const double step = (style.y_max - style.y_min) / 5;
        const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(100 * step) + 1e-9)));
        for (double v = style.y_min; v <= style.y_max + 1e-9; v += step)
            yticks->addTick(v, QStringLiteral("%1%").arg(100 * v, 0, 'f', decimals));
        plot.yAxis->setTicker(yticks);
    }
    plot.xAxis->setLabel(q(style.x_label));
    plot.yAxis->setLabel(q(style.y_label));
    add_title(plot, q(style.title));
}

void write_png(const std::string& path, int width, int height,
               const std::function<void(QCustomPlot&)>& draw) {
    if (!QApplication::instance()) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
            qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
            // Qt wants one (and warns on stderr without it); a private 0700 folder, as the spec asks.
            static QTemporaryDir runtime_dir(QDir::tempPath() + QStringLiteral("/fone-runtime-XXXXXX"));
            if (runtime_dir.isValid()) qputenv("XDG_RUNTIME_DIR", runtime_dir.path().toLocal8Bit());
        }
        static int argc = 1;
        static char name[] = "fone";
        static char* argv[] = {name, nullptr};
        new QApplication(argc, argv);  // lives for the rest of the process
    }
    QCustomPlot plot;
    plot.resize(width, height);
    plot.setFont(label_font());
    draw(plot);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    const QPixmap pixmap = plot.toPixmap(width, height);
    QSaveFile file(q(path));
    if (pixmap.isNull() || !file.open(QIODevice::WriteOnly) || !pixmap.save(&file, "PNG") || !file.commit())
        throw std::runtime_error(
            "cannot write " + path +
            (file.errorString().isEmpty() ? "" : ": " + file.errorString().toStdString()));
}

}  // namespace fone::plots
