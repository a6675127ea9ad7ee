#include "plot_style.h"

#include <qcustomplot.h>
#include <QFontMetrics>
#include <algorithm>
#include <cmath>

namespace fone::plots {

namespace {
constexpr char kDarkProperty[] = "fone-paper-dark";
constexpr char kScaleProperty[] = "fone-paper-text-scale";
}  // namespace

void set_paper(QCustomPlot& plot, const Paper& paper) {
    plot.setProperty(kDarkProperty, paper.dark);
    plot.setProperty(kScaleProperty, paper.text_scale);
}

Paper paper_of(const QCustomPlot& plot) {
    Paper p;
    p.dark = plot.property(kDarkProperty).toBool();
    const double scale = plot.property(kScaleProperty).toDouble();
    if (scale > 0) p.text_scale = scale;
    return p;
}

namespace style {

namespace {

Ink ink_for(const Paper& paper) {
    Ink i;
    i.dark = paper.dark;
    i.text_scale = paper.text_scale;
    if (paper.dark) {
        i.page = QColor(0x23, 0x25, 0x29);
        i.ink = QColor(0xe0, 0xe0, 0xe0);
        i.muted = QColor(0xa4, 0xa6, 0xab);
        i.faint = QColor(0x6c, 0x70, 0x77);
        i.grid = QColor(0x44, 0x47, 0x4d);
        i.accent = QColor(0xef, 0x5b, 0x5b);
        i.good = QColor(0x5c, 0xc4, 0x5c);
    } else {
        i.page = Qt::white;
        i.ink = QColor(40, 40, 40);
        i.muted = QColor(110, 110, 110);
        i.faint = QColor(170, 170, 170);
        i.grid = QColor(200, 200, 200);
        i.accent = QColor(214, 39, 40);
        i.good = QColor(44, 160, 44);
    }
    return i;
}

// The ink of the drawing in progress (see plot_style.h: one thread draws); light paper until one is set.
Ink g_ink = ink_for(Paper{});

// Everything an earlier drawing put in the layout (title, legend row, footer, colour scale) goes; the
// legend returns to the axis rect, hidden.
void clear_layout(QCustomPlot& plot) {
    QCPLayoutGrid* grid = plot.plotLayout();
    QCPAxisRect* rect = plot.axisRect();
    if (plot.legend->layout() != rect->insetLayout()) {
        if (plot.legend->layout()) plot.legend->layout()->take(plot.legend);
        rect->insetLayout()->addElement(plot.legend, Qt::AlignRight | Qt::AlignTop);
    }
    for (int i = grid->elementCount() - 1; i >= 0; --i)
        if (QCPLayoutElement* e = grid->elementAt(i); e && e != rect) grid->removeAt(i);
    grid->simplify();
    grid->setRowSpacing(0);
    rect->setMarginGroup(QCP::msAll, nullptr);
}

void style_axes(QCustomPlot& plot) {
    for (QCPAxis* axis : {plot.xAxis, plot.yAxis, plot.xAxis2, plot.yAxis2}) {
        axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        axis->setLabel(QString());
        axis->setScaleType(QCPAxis::stLinear);
        axis->setTickLabels(true);
        axis->grid()->setVisible(axis == plot.xAxis || axis == plot.yAxis);
        ink_axis(axis);
    }
}

}  // namespace

void ink_axis(QCPAxis* axis) {
    const Ink& i = g_ink;
    {
        axis->setBasePen(QPen(i.ink));
        axis->setTickPen(QPen(i.ink));
        axis->setSubTickPen(QPen(i.ink));
        axis->setTickLabelColor(i.ink);
        axis->setLabelColor(i.ink);
        axis->setTickLabelFont(font(8));
        axis->setLabelFont(font(9));
        axis->grid()->setPen(QPen(i.grid, 0, Qt::DotLine));
        axis->grid()->setSubGridPen(
            QPen(i.dark ? i.grid.darker(130) : QColor(225, 225, 225), 0, Qt::DotLine));
        axis->grid()->setZeroLinePen(QPen(i.grid, 0, Qt::SolidLine));
    }
}

QCPColorScale* add_color_scale(QCustomPlot& plot, QCPColorMap* map, const QString& label) {
    auto* scale = new QCPColorScale(&plot);
    plot.plotLayout()->addElement(0, 1, scale);
    scale->setType(QCPAxis::atRight);
    ink_axis(scale->axis());
    scale->axis()->setLabel(label);
    map->setColorScale(scale);
    auto* margins = new QCPMarginGroup(&plot);
    plot.axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    return scale;
}

QColor Ink::palette(int i) const {
    static const QColor kPalette[] = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                                      QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                                      QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34),
                                      QColor(23, 190, 207)};
    const QColor c = kPalette[((i % 10) + 10) % 10];
    return dark ? c.lighter(130) : c;
}

const Ink& begin_drawing(QCustomPlot& plot) {
    g_ink = ink_for(paper_of(plot));
    plot.clearPlottables();
    plot.clearItems();
    plot.clearGraphs();
    clear_layout(plot);
    plot.legend->setVisible(false);
    plot.legend->setWrap(0);
    plot.legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
    plot.legend->setFont(font(8));
    plot.legend->setTextColor(g_ink.ink);
    plot.legend->setBrush(g_ink.page);
    plot.legend->setBorderPen(QPen(g_ink.faint));
    style_axes(plot);
    plot.xAxis->setVisible(true);
    plot.yAxis->setVisible(true);
    plot.xAxis2->setVisible(false);
    plot.yAxis2->setVisible(false);
    plot.axisRect()->setAutoMargins(QCP::msAll);
    plot.axisRect()->setBackground(g_ink.page);
    plot.setBackground(g_ink.page);
    return g_ink;
}

const Ink& ink() {
    return g_ink;
}

QFont font(double points, bool bold) {
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPointSizeF(points * g_ink.text_scale);
    f.setBold(bold);
    return f;
}

int line_height(const QFont& font) {
    return QFontMetrics(font).height();
}

int text_width(const QFont& font, const QString& text) {
    return QFontMetrics(font).horizontalAdvance(text);
}

QString fit_lines(const QString& text, const QFont& font, int width, int max_lines) {
    const QFontMetrics metrics(font);
    if (metrics.horizontalAdvance(text) <= width || max_lines < 2)
        return metrics.elidedText(text, Qt::ElideRight, width);
    // Two lines: the break whose longer line is shortest, a break after a separator preferred.
    struct Break {
        qsizetype end, start;  // line 1 is [0, end), line 2 [start, size)
        bool separator;
    };
    std::vector<Break> breaks;
    for (qsizetype i = 1; i + 1 < text.size(); ++i) {
        if (text[i] != ' ') continue;
        const QChar before = text[i - 1], after = text[i + 1];
        const bool separator = before == ',' || before == ':' || after == '(' || after == u'—' ||
                               after == u'·' || before == u'·';
        breaks.push_back({before == u'·' ? i - 1 : i, after == u'·' ? i + 2 : i + 1, separator});
    }
    const Break* best = nullptr;
    int best_width = 0;
    for (bool separators_only : {true, false}) {
        for (const Break& b : breaks) {
            if (separators_only && !b.separator) continue;
            const int w = std::max(metrics.horizontalAdvance(text.left(b.end).trimmed()),
                                   metrics.horizontalAdvance(text.mid(b.start).trimmed()));
            if (!best || w < best_width) {
                best = &b;
                best_width = w;
            }
        }
        if (best && best_width <= width) break;
        if (separators_only) best = nullptr;
    }
    if (!best) return metrics.elidedText(text, Qt::ElideRight, width);
    return metrics.elidedText(text.left(best->end).trimmed(), Qt::ElideRight, width) + "\n" +
           metrics.elidedText(text.mid(best->start).trimmed(), Qt::ElideRight, width);
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

QCPItemText* add_text(QCustomPlot& plot, double x, double y, const QString& text, Qt::Alignment align,
                      const QFont& f) {
    return add_text(plot, x, y, text, align, f, g_ink.ink);
}

namespace {

constexpr int kTitleSidePixels = 16;  // left and right of a title or footer
const QMargins kTitleMargins(4, 6, 4, 4), kFooterMargins(4, 4, 4, 6);

// The title's text and font: 12 points in one or two lines, else smaller down to 9 points, else elided.
std::pair<QString, QFont> fitted(const QCustomPlot& plot, const QString& text, double points, bool bold) {
    const int width = std::max(80, plot.width() - kTitleSidePixels);
    for (double p = points; p >= 9.0; p -= 1.0) {
        const QFont f = font(p, bold);
        const QString lines = fit_lines(text, f, width);
        if (!lines.contains(u'…') || text.contains(u'…')) return {lines, f};
    }
    const QFont f = font(9.0, bold);
    return {fit_lines(text, f, width), f};
}

int rows_height(const QString& lines, const QFont& f, const QMargins& m) {
    return static_cast<int>(lines.count('\n') + 1) * line_height(f) + m.top() + m.bottom();
}

QCPTextElement* add_row(QCustomPlot& plot, const QString& text, int row, double points, bool bold,
                        const QColor& colour, const QMargins& margins) {
    const auto [lines, f] = fitted(plot, text, points, bold);
    plot.plotLayout()->insertRow(row);
    auto* element = new QCPTextElement(&plot, lines, f);
    element->setTextColor(colour);
    element->setMargins(margins);
    plot.plotLayout()->addElement(row, 0, element);
    return element;
}

}  // namespace

QCPTextElement* add_title(QCustomPlot& plot, const QString& title) {
    if (title.isEmpty()) return nullptr;
    return add_row(plot, title, 0, 12, true, g_ink.ink, kTitleMargins);
}

QCPTextElement* add_footer(QCustomPlot& plot, const QString& text) {
    if (text.isEmpty()) return nullptr;
    return add_row(plot, text, plot.plotLayout()->rowCount(), 10, false, g_ink.ink, kFooterMargins);
}

int title_height(const QCustomPlot& plot, const QString& title) {
    if (title.isEmpty()) return 0;
    const auto [lines, f] = fitted(plot, title, 12, true);
    return rows_height(lines, f, kTitleMargins);
}

int footer_height(const QCustomPlot& plot, const QString& text) {
    if (text.isEmpty()) return 0;
    const auto [lines, f] = fitted(plot, text, 10, false);
    return rows_height(lines, f, kFooterMargins);
}

void legend_row(QCustomPlot& plot, int per_row) {
    plot.legend->setVisible(true);
    plot.legend->setWrap(std::max(1, per_row));
    plot.legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot.legend->setBorderPen(Qt::NoPen);
    plot.legend->setBrush(Qt::NoBrush);
    plot.legend->setMargins(QMargins(4, 2, 4, 2));
    plot.axisRect()->insetLayout()->take(plot.legend);
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(0, 0, plot.legend);
    plot.plotLayout()->setRowStretchFactor(0, 0.001);
}

QString percent_label(double fraction) {
    const double p = 100.0 * fraction;
    if (p == 0.0) return QStringLiteral("0%");
    if (std::abs(p) < 0.1) return QString::number(p, 'g', 2) + "%";
    if (std::abs(p - std::round(p)) < 0.05 && std::abs(p) >= 99.95) return QStringLiteral("100%");
    return QString::number(p, 'f', 1) + "%";
}

QRect laid_out_axis_rect(QCustomPlot& plot) {
    QCPLayoutGrid* grid = plot.plotLayout();
    grid->setOuterRect(QRect(0, 0, std::max(50, plot.width()), std::max(50, plot.height())));
    for (auto phase :
         {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
        grid->update(phase);
    return plot.axisRect()->rect();
}

QSizeF bare_axis_rect_pixels(QCustomPlot& plot) {
    for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
        axis->setVisible(false);
        axis->grid()->setVisible(false);
    }
    plot.axisRect()->setAutoMargins(QCP::msNone);
    plot.axisRect()->setMargins(QMargins(0, 0, 0, 0));
    const QRect rect = laid_out_axis_rect(plot);
    return QSizeF(std::max(40, rect.width()), std::max(40, rect.height()));
}

void equal_aspect(QCustomPlot& plot) {
    const QRect rect = laid_out_axis_rect(plot);
    if (rect.width() < 10 || rect.height() < 10) return;
    const QCPRange x = plot.xAxis->range(), y = plot.yAxis->range();
    const double x_per_pixel = x.size() / rect.width(), y_per_pixel = y.size() / rect.height();
    if (x_per_pixel > y_per_pixel)
        plot.yAxis->setRange(y.center(), x_per_pixel * rect.height(), Qt::AlignCenter);
    else
        plot.xAxis->setRange(x.center(), y_per_pixel * rect.width(), Qt::AlignCenter);
}

}  // namespace style
}  // namespace fone::plots
