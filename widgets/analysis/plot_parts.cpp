// The pieces every drawing shares (plot_parts.h).
#include "plot_parts.h"

#include <algorithm>
#include <cmath>

namespace fone::plots::parts {

// Tableau's ten categorical colours: distinguishable, and readable on white.
const QColor kPalette[10] = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
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

}  // namespace fone::plots::parts
