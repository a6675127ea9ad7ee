// QCustomPlot drawings of the analyses; see analysis_plots.h. The circles are in circle_plots.cpp; the
// page, fonts and fitted titles in plot_style.cpp.
#include "analysis_plots.h"

#include <qcustomplot.h>
#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QLocale>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fone/io/json_files.h"
#include "plot_style.h"

namespace fone::plots {

using style::add_text;
using style::add_title;
using style::font;
using style::ink;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// A period in number units with at most 4 significant digits: 10, 2.5, 333.3.
QString number_label(double value) {
    if (std::isinf(value)) return QStringLiteral("∞");
    return QString::number(value, 'g', value >= 1e4 ? 6 : 4);
}

QString superscript(int n) {
    static const QString kDigits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    QString out = n < 0 ? QStringLiteral("⁻") : QString();
    for (const QChar c : QString::number(std::abs(n)))
        out += kDigits[c.digitValue()];
    return out;
}

// A spike's "T = ..." label: where its spike is (k, magnitude; across the axis 0..1, with the label's half
// width), and the height its text stands on.
struct SpikeLabel {
    double k = 0, magnitude = 0;
    QString text;
    double centre = 0, half_width = 0, y = 0;
};

// Sets each label just above every marker under it (its spike's and a taller neighbour's) and above every
// earlier label it would touch across; returns the y range's top that holds them. Heights in pixels (the
// axis rect as laid out) turned into magnitudes for a range that itself depends on how high the labels
// stack: a few rounds settle it.
double stack_spike_labels(std::vector<SpikeLabel>& labels, double largest, double axis_pixels,
                          double label_pixels) {
    constexpr double kGapPixels = 5;
    double y_max = largest * 1.15;
    for (int round = 0; round < 4; ++round) {
        const double per_pixel = y_max / axis_pixels, line = label_pixels * per_pixel,
                     gap = kGapPixels * per_pixel;
        double top = largest * 1.15;
        for (std::size_t i = 0; i < labels.size(); ++i) {
            SpikeLabel& l = labels[i];
            l.y = l.magnitude + gap;
            for (const SpikeLabel& other : labels)
                if (std::abs(other.centre - l.centre) < l.half_width)
                    l.y = std::max(l.y, other.magnitude + gap);
            for (std::size_t j = 0; j < i; ++j)
                if (std::abs(labels[j].centre - l.centre) < l.half_width + labels[j].half_width)
                    l.y = std::max(l.y, labels[j].y + line);
            top = std::max(top, l.y + line + gap);
        }
        y_max = top;
    }
    return y_max;
}

}  // namespace

std::string place_name(int position, int base) {
    static const char* const kWhole[] = {
        "units", "tens", "hundreds", "thousands", "ten-thousands", "hundred-thousands", "millions"};
    static const char* const kFraction[] = {"tenths",          "hundredths",          "thousandths",
                                            "ten-thousandths", "hundred-thousandths", "millionths"};
    if (position == 0) return "units";
    if (base == 10 && position > 0 && position <= 6) return kWhole[position];
    if (base == 10 && position < 0 && position >= -6) return kFraction[-position - 1];
    return (QString::number(base) + superscript(position) + "s").toStdString();
}

void draw_spectrum(QCustomPlot& plot, const analysis::Spectrum& spectrum, const SpectrumStyle& style) {
    const style::Ink& paper = style::begin_drawing(plot);
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
    impulses->setPen(QPen(paper.palette(0), 1.6));

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
    tops->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, paper.accent, paper.accent, 6));
    for (const auto& spike : spikes)
        tops->addData(spike.k, spike.magnitude);
    plot.xAxis->setLabel(style::fit_lines(QStringLiteral("frequency k (cycles over the %1 numbers)%2")
                                              .arg(spectrum.count)
                                              .arg(style.log_k ? QStringLiteral(", log scale") : QString()),
                                          font(9), std::max(120, plot.width() - 80), 1));
    plot.yAxis->setLabel(QStringLiteral("magnitude (2/N)·‖X(k)‖"));
    add_title(plot, q(style.title));
    if (largest <= 0) {
        plot.yAxis->setRange(0, 1.0);
        return;
    }

    const QFont label_font = font(9, true);
    const QRect axis_rect = style::laid_out_axis_rect(plot);
    std::vector<SpikeLabel> labels;
    for (const auto& spike : spikes) {
        SpikeLabel l{static_cast<double>(spike.k), spike.magnitude,
                     QStringLiteral("T = %1").arg(number_label(spike.period * style.period_unit))};
        l.centre = across(spike.k);
        l.half_width = (style::text_width(label_font, l.text) / 2.0 + 4) / std::max(40, axis_rect.width());
        labels.push_back(l);
    }
    const double y_max = stack_spike_labels(labels, largest, std::max(40, axis_rect.height()),
                                            QFontMetricsF(label_font).height() + 2);
    for (const SpikeLabel& l : labels)
        add_text(plot, l.k, l.y, l.text, Qt::AlignBottom | Qt::AlignHCenter, label_font, paper.accent);
    plot.yAxis->setRange(0, y_max);
}

void draw_layer_heatmap(QCustomPlot& plot, const analysis::LayerSpectra& spectra,
                        const std::vector<std::string>& layer_names, const std::string& title,
                        double period_unit) {
    style::begin_drawing(plot);
    const int layers = static_cast<int>(spectra.magnitude.rows()),
              ks = static_cast<int>(spectra.magnitude.cols());
    auto* map = new QCPColorMap(plot.xAxis, plot.yAxis);
    map->data()->setSize(ks, layers);
    map->data()->setRange(QCPRange(0, std::max(1, ks - 1)), QCPRange(0, std::max(1, layers - 1)));
    for (int l = 0; l < layers; ++l)
        for (int k = 0; k < ks; ++k)
            map->data()->setCell(k, l, spectra.magnitude(l, k));
    style::add_color_scale(plot, map, QStringLiteral("magnitude"));
    map->setGradient(QCPColorGradient::gpThermal);
    map->setInterpolate(false);
    map->rescaleDataRange(true);

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
    const style::Ink& paper = style::begin_drawing(plot);
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
        const QColor colour = legend ? paper.palette(c) : hues.color(c, QCPRange(0, class_count));
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
        style::legend_row(plot, 5);
    } else {
        auto* scale = new QCPColorScale(&plot);
        plot.plotLayout()->addElement(0, 1, scale);
        style::ink_axis(scale->axis());
        scale->setGradient(hues);
        scale->setDataRange(QCPRange(0, class_count - 1));
        scale->axis()->setLabel(q(class_name));
    }
    add_title(plot, q(title.empty() ? "PCA coloured by " + class_name : title));
    // Both axes are principal components in the same units: equal scales, or a ring looks like a stripe.
    style::equal_aspect(plot);
}

void draw_probe(QCustomPlot& plot, const std::vector<analysis::ProbeResult>& results,
                const std::string& title, const std::vector<std::string>& labels) {
    const style::Ink& paper = style::begin_drawing(plot);
    auto* group = new QCPBarsGroup(&plot);
    auto* accuracy = new QCPBars(plot.xAxis, plot.yAxis);
    auto* chance = new QCPBars(plot.xAxis, plot.yAxis);
    accuracy->setName(QStringLiteral("held-out accuracy"));
    chance->setName(QStringLiteral("chance (most frequent class)"));
    accuracy->setBrush(paper.palette(0));
    accuracy->setPen(Qt::NoPen);
    chance->setBrush(paper.faint);
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
        ticks->addTick(x,
                       i < labels.size() ? q(labels[i]) : QStringLiteral("x mod %1").arg(results[i].period));
        add_text(plot, x - 0.18, results[i].accuracy + 0.01, style::percent_label(results[i].accuracy),
                 Qt::AlignBottom | Qt::AlignHCenter, font(8, true));
    }
    plot.xAxis->setTicker(ticks);
    plot.xAxis->setRange(-0.6, static_cast<double>(results.size()) - 0.4);
    // Head room above 100% for the value labels, ticks only up to 100%; the legend has a row of its own.
    plot.yAxis->setRange(0, 1.12);
    plot.yAxis->setLabel(QStringLiteral("held-out accuracy"));
    QSharedPointer<QCPAxisTickerText> tenths(new QCPAxisTickerText);
    for (int i = 0; i <= 5; ++i)
        tenths->addTick(0.2 * i, QStringLiteral("%1%").arg(20 * i));
    plot.yAxis->setTicker(tenths);
    style::legend_row(plot, plot.width() > 420 ? 2 : 1);
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

LineSeries per_layer_series(const std::string& name, const std::vector<double>& values) {
    LineSeries s{name, {}, {}, {}, {}};
    for (std::size_t l = 0; l < values.size(); ++l) {
        s.x.push_back(static_cast<double>(l));
        s.y.push_back(values[l]);
    }
    return s;
}

void draw_lines(QCustomPlot& plot, const std::vector<LineSeries>& series, const LinesStyle& style) {
    const style::Ink& paper = style::begin_drawing(plot);
    QSharedPointer<QCPAxisTickerText> xticks(new QCPAxisTickerText);
    double x_lo = 1e300, x_hi = -1e300;
    std::vector<double> tick_xs;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const LineSeries& s = series[i];
        auto* g = plot.addGraph();
        g->setName(q(s.name));
        const QColor colour = paper.palette(static_cast<int>(i));
        g->setPen(QPen(colour, 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, paper.page, 7));
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
    plot.yAxis->setRange(style.y_min, style.y_max + (style.y_max - style.y_min) * 0.04);
    if (style.percent) {
        QSharedPointer<QCPAxisTickerText> yticks(new QCPAxisTickerText);
        for (double v = style.y_min; v <= style.y_max + 1e-9; v += (style.y_max - style.y_min) / 5)
            yticks->addTick(v, QStringLiteral("%1%").arg(100 * v, 0, 'f', 0));
        plot.yAxis->setTicker(yticks);
    }
    plot.xAxis->setLabel(q(style.x_label));
    plot.yAxis->setLabel(q(style.y_label));
    plot.xAxis->grid()->setSubGridVisible(false);
    style::legend_row(plot, std::clamp(plot.width() / 220, 1, std::max(1, static_cast<int>(series.size()))));
    add_title(plot, q(style.title));
}

void draw_bars(QCustomPlot& plot, const std::vector<std::string>& labels, const std::vector<double>& values,
               const LinesStyle& style) {
    const style::Ink& paper = style::begin_drawing(plot);
    auto* bars = new QCPBars(plot.xAxis, plot.yAxis);
    bars->setBrush(paper.palette(0));
    bars->setPen(Qt::NoPen);
    bars->setWidth(0.6);
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    // The values over narrow bars in smaller type: neighbours' labels never run together.
    const double slot = (plot.width() - 80.0) / static_cast<double>(std::max<std::size_t>(1, labels.size()));
    QFont value_font = font(8, true);
    while (value_font.pointSizeF() > 7.5 && style::text_width(value_font, "88.8%") > slot - 4)
        value_font.setPointSizeF(value_font.pointSizeF() - 0.5);
    // Narrower still: whole percents ("17%"), so that 17.0% and 17.0% side by side do not touch.
    const bool whole_percents = style.percent && style::text_width(value_font, "88.8%") > slot - 4;
    const auto value_label = [&](double v) {
        if (!style.percent) return QString::number(v, 'g', 4);
        // Under 1% as it is: 0.04% must not read 0% or 1%.
        return whole_percents && 100 * v >= 1 ? QStringLiteral("%1%").arg(std::round(100 * v))
                                              : style::percent_label(v);
    };
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const double x = static_cast<double>(i);
        bars->addData(x, values[i]);
        ticks->addTick(x, q(labels[i]));
        add_text(plot, x, values[i] + 0.01 * (style.y_max - style.y_min), value_label(values[i]),
                 Qt::AlignBottom | Qt::AlignHCenter, value_font);
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
    plot.xAxis->setLabel(style::fit_lines(q(style.x_label), font(9), std::max(120, plot.width() - 80), 1));
    plot.yAxis->setLabel(style::fit_lines(q(style.y_label), font(9), std::max(100, plot.height() - 60), 1));
    add_title(plot, q(style.title));
}

void add_footer(QCustomPlot& plot, const std::string& text) {
    style::add_footer(plot, q(text));
}

void draw_message(QCustomPlot& plot, const std::string& message) {
    const style::Ink& paper = style::begin_drawing(plot);
    for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
        axis->setVisible(false);
        axis->grid()->setVisible(false);
    }
    plot.xAxis->setRange(0, 1);
    plot.yAxis->setRange(0, 1);
    add_text(plot, 0.5, 0.5, style::fit_lines(q(message), font(11), std::max(100, plot.width() - 40)),
             Qt::AlignCenter, font(11), paper.muted);
}

void ensure_application() {
    if (QApplication::instance()) return;
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

QPixmap render_plot(int width, int height, const std::function<void(QCustomPlot&)>& draw) {
    ensure_application();
    QCustomPlot plot;
    plot.resize(width, height);
    plot.setFont(QFont(QStringLiteral("DejaVu Sans"), 9));
    draw(plot);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    return plot.toPixmap(width, height);
}

void write_png(const std::string& path, int width, int height,
               const std::function<void(QCustomPlot&)>& draw) {
    const QPixmap pixmap = render_plot(width, height, draw);
    if (pixmap.isNull()) throw std::runtime_error("cannot write " + path + ": the plot could not be drawn");
    save_png(path, pixmap.toImage());
}

void save_png(const std::string& path, const QImage& image) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    if (image.isNull() || !buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG"))
        throw std::runtime_error("cannot write " + path + ": the PNG could not be encoded");
    write_file_atomic(path, std::string(bytes.constData(), static_cast<std::size_t>(bytes.size())));
}

}  // namespace fone::plots
