// The helix and the digit clocks (geometry_plots.h).
#include "geometry_plots.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <qcustomplot.h>

#include "plot_style.h"

namespace fone::plots {

namespace {

using style::add_text;
using style::add_title;

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// A period in number units with at most 4 significant digits: 10, 2.5, 333.3.
QString number_label(double value) {
    if (std::isinf(value)) return QStringLiteral("∞");
    return QString::number(value, 'g', value >= 1e4 ? 6 : 4);
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
    const double x_centre = (x_low + x_high) / 2.0, y_centre = (y_low + y_high) / 2.0;
    plot.xAxis->setRange(x_centre - width * units_per_pixel / 2.0, x_centre + width * units_per_pixel / 2.0);
    plot.yAxis->setRange(y_centre - height * units_per_pixel / 2.0,
                         y_centre + height * units_per_pixel / 2.0);
}

// The colour of class c of `count`: the palette for up to ten, periodic hues beyond.
QColor class_colour(int c, int count) {
    if (count <= 10) return style::ink().palette(c % 10);
    QCPColorGradient hues(QCPColorGradient::gpHues);
    hues.setPeriodic(true);
    return hues.color(c, QCPRange(0, count));
}

// One scatter graph per class, named "<name> = c" for the legend ("c" when name is empty).
void add_classes(QCustomPlot& plot, const Eigen::MatrixX2d& points, const std::vector<int>& classes,
                 int count, const QString& name, double size) {
    for (int c = 0; c < count; ++c) {
        QVector<double> x, y;
        for (Eigen::Index i = 0; i < points.rows(); ++i)
            if (classes[static_cast<std::size_t>(i)] == c) {
                x << points(i, 0);
                y << points(i, 1);
            }
        if (x.isEmpty()) continue;
        QCPGraph* g = plot.addGraph();
        g->setData(x, y);
        g->setLineStyle(QCPGraph::lsNone);
        const QColor colour = class_colour(c, count);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, size));
        g->setName(name.isEmpty() ? QString::number(c) : QStringLiteral("%1 = %2").arg(name).arg(c));
    }
}

}  // namespace

Eigen::MatrixX2d turn_3d(const Eigen::VectorXd& a, const Eigen::VectorXd& b, const Eigen::VectorXd& c,
                         double yaw, double pitch) {
    Eigen::MatrixX2d out(a.size(), 2);
    const Eigen::VectorXd u = std::cos(yaw) * a - std::sin(yaw) * b;
    const Eigen::VectorXd v = std::sin(yaw) * a + std::cos(yaw) * b;
    out.col(0) = u;
    out.col(1) = std::cos(pitch) * v - std::sin(pitch) * c;
    return out;
}

void draw_helix(QCustomPlot& plot, const analysis::HelixFit& fit, const std::vector<Decimal>& numbers,
                const HelixStyle& style) {
    style::begin_drawing(plot);
    const Eigen::Index n = fit.coordinates.rows();
    auto column = [&](const std::string& name) -> Eigen::VectorXd {
        const int c = fit.column(name);
        return c >= 0 ? Eigen::VectorXd(fit.coordinates.col(c)) : Eigen::VectorXd::Zero(n);
    };
    // The circle of the period lies flat, the linear term rises: larger numbers higher.
    const Eigen::MatrixX2d points =
        turn_3d(column(analysis::helix_cos_name(style.period)),
                column(analysis::helix_sin_name(style.period)), -column("x"), style.yaw, style.pitch);
    auto* path = new QCPCurve(plot.xAxis, plot.yAxis);
    for (Eigen::Index i = 0; i < n; ++i)
        path->addData(static_cast<double>(i), points(i, 0), points(i, 1));
    path->setPen(QPen(style::ink().faint, 0.8));
    path->removeFromLegend();  // the legend lists the classes only
    const auto period = static_cast<std::int64_t>(std::llround(style.period));
    const bool integer_period =
        std::abs(style.period - static_cast<double>(period)) < 1e-9 && period >= 1 && period <= 1000;
    std::vector<int> classes(static_cast<std::size_t>(n), 0);
    if (integer_period) classes = analysis::residue_classes(numbers, period);
    const int count = integer_period ? static_cast<int>(period) : 1;
    // The legend's cells are narrow (five a row): each class by its residue alone, the title names the
    // colouring ("x mod 10" in every cell was cut to "x mod 1" ten times).
    add_classes(plot, points, classes, count, QString(), 5);
    if (count <= 10) style::legend_row(plot, 5);
    const int linear = fit.column("x");
    const QString period_text = number_label(style.period);
    add_title(plot,
              q(style.title.empty() ? "Helix of period " + period_text.toStdString() : style.title) +
                  (integer_period ? QStringLiteral(", coloured by x mod %1").arg(period_text) : QString()));
    // The caption under the drawing, never over it.
    style::add_footer(plot, QStringLiteral("circle: cos, sin of 2πx/%1 · up: %2 · R² helix %3%, PCA of %4 "
                                           "dims %5%")
                                .arg(period_text)
                                .arg(linear >= 0 ? QStringLiteral("the linear term x")
                                                 : QStringLiteral("nothing (no linear term)"))
                                .arg(100 * fit.r2, 0, 'f', 1)
                                .arg(fit.rank)
                                .arg(100 * fit.pca_r2, 0, 'f', 1));
    // Equal scales in the room left under the title, legend and caption: the circle stays round.
    const QSizeF room = style::bare_axis_rect_pixels(plot);
    const double extent = std::max(1e-9, points.cwiseAbs().maxCoeff()) * 1.1;
    const double per_pixel = std::max(2 * extent / room.width(), 2 * extent / room.height());
    plot.xAxis->setRange(0, per_pixel * room.width(), Qt::AlignCenter);
    plot.yAxis->setRange(0, per_pixel * room.height(), Qt::AlignCenter);
}

std::pair<int, int> clocks_size(std::size_t places) {
    const int count = std::max<int>(1, static_cast<int>(places));
    return {std::max(420, 260 * count + 12), 380};
}

void draw_clocks(QCustomPlot& plot, const analysis::DigitProbeTable& table, std::size_t layer,
                 const std::vector<Decimal>& numbers, const std::string& title) {
    style::begin_drawing(plot);
    constexpr double kCell = 3.2, kReach = 1.5;  // points beyond 1.5 are drawn at 1.5, on their angle
    QVector<double> ring_x, ring_y;
    for (int i = 0; i <= 120; ++i) {
        ring_x << std::cos(2.0 * std::numbers::pi * i / 120);
        ring_y << std::sin(2.0 * std::numbers::pi * i / 120);
    }
    const auto& results = table.results.at(layer);
    std::vector<std::vector<Eigen::RowVector2d>> by_digit(10);
    for (std::size_t p = 0; p < table.places.size(); ++p) {
        const double cx = static_cast<double>(p) * kCell;
        auto* ring = new QCPCurve(plot.xAxis, plot.yAxis);
        for (int i = 0; i < ring_x.size(); ++i)
            ring->addData(i, cx + ring_x[i], ring_y[i]);
        ring->setPen(QPen(style::ink().faint, 1.0));
        ring->removeFromLegend();
        for (int d = 0; d < 10; ++d) {
            const double angle = 2.0 * std::numbers::pi * d / 10;
            add_text(plot, cx + 1.2 * std::cos(angle), 1.2 * std::sin(angle), QString::number(d),
                     Qt::AlignCenter, style::font(9, true), style::ink().palette(d));
        }
        const analysis::ProbeResult& r = results[p];
        const std::vector<int> truth = analysis::digit_classes(numbers, table.places[p]);
        for (std::size_t i = 0; i < r.points.size(); ++i) {
            Eigen::RowVector2d point(r.points[i][0], r.points[i][1]);
            if (point.norm() > kReach) point *= kReach / point.norm();
            point[0] += cx;
            by_digit[static_cast<std::size_t>(truth[static_cast<std::size_t>(r.test_rows[i])])].push_back(
                point);
        }
        // Two short lines: one long line runs into its neighbour's when the clocks are small.
        add_text(plot, cx, -1.75,
                 QStringLiteral("%1: %2%\nchance %3%")
                     .arg(q(analysis::place_name(table.places[p])))
                     .arg(100 * r.accuracy, 0, 'f', 1)
                     .arg(100 * r.chance, 0, 'f', 0),
                 Qt::AlignCenter, style::font(8, true));
    }
    for (int d = 0; d < 10; ++d) {
        if (by_digit[static_cast<std::size_t>(d)].empty()) continue;
        QVector<double> x, y;
        for (const auto& point : by_digit[static_cast<std::size_t>(d)]) {
            x << point[0];
            y << point[1];
        }
        QCPGraph* g = plot.addGraph();
        g->setData(x, y);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDisc, style::ink().palette(d), style::ink().palette(d), 4));
        g->setName(QStringLiteral("digit %1").arg(d));
    }
    const double width = std::max<double>(1, static_cast<double>(table.places.size())) * kCell;
    equal_scale_ranges(plot, -kCell / 2, width - kCell / 2, -2.2, 2.3);
    style::legend_row(plot, 5);
    add_title(plot, q(title.empty() ? "Digit places on their clocks (held-out numbers)" : title));
}

}  // namespace fone::plots
