// The circles of analysis_plots.h: FoNE's unit circles of a number, and a hidden state on the circles.
//
// Both are laid out in pixels first: one unit of the plot is a circle's radius, and each cell has bands
// of fixed pixel height above and below its circle for the texts (the place and period over it, captions
// and bars under it), so texts keep their size and never run into each other, whatever the plot's size; the
// radius is the largest that fits the cells in the axis rect. Both axes get the same pixels per unit, so
// circles stay round in the plot and in every export of the same shape.
#include <qcustomplot.h>
#include <QFontMetrics>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

#include "analysis_plots.h"
#include "circle_plots.h"
#include "plot_style.h"

namespace fone::plots {

using style::add_text;
using style::font;
using style::line_height;
using style::text_width;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// Where the cells go: `columns` x `rows` cells of cell_w x cell_h pixels with circles of radius r pixels,
// centred in an area of the axis rect's size.
struct CellGrid {
    int columns = 1, rows = 1;
    double r = 10, cell_w = 0, cell_h = 0, left = 0, top = 0;
};

// A cell's shape: 2·half_w·r + side_px wide (and at least min_cell_px, the width of its texts) and
// units_high·r + fixed_px high, for circles of radius r pixels.
struct CellShape {
    double half_w, side_px, units_high, fixed_px, min_cell_px = 0;
};

// The cells' size and position for circles of radius r, centred in the area.
void place_grid(CellGrid& g, QSizeF area, const CellShape& s, double r) {
    g.r = std::max(r, 4.0);  // a tiny plot still draws something
    g.cell_w = std::max(2 * s.half_w * g.r + s.side_px, s.min_cell_px);
    g.cell_h = s.units_high * g.r + s.fixed_px;
    g.left = std::max(0.0, (area.width() - g.columns * g.cell_w) / 2);
    g.top = std::max(0.0, (area.height() - g.rows * g.cell_h) / 2);
}

// The grid with the largest circles for `count` cells; among equally large layouts, the one with the
// fewest empty cells (seven clocks as 4 + 3, not 6 + 1, when the height decides their size), and among
// those the widest.
CellGrid best_grid(QSizeF area, int count, const CellShape& s) {
    CellGrid best;
    best.r = -1;
    int best_empty = 0;
    for (int c = 1; c <= std::max(1, count); ++c) {
        if (c > 1 && area.width() / c < s.min_cell_px) break;  // the texts of neighbours would run together
        const int rows = (count + c - 1) / c, empty = c * rows - count;
        const double r = std::min((area.width() / c - s.side_px) / (2 * s.half_w),
                                  (area.height() / rows - s.fixed_px) / s.units_high);
        const bool larger = r > best.r * 1.0001, as_large = !larger && r >= best.r * 0.9999;
        if (larger || (as_large && empty <= best_empty)) {
            best_empty = empty;
            best.columns = c;
            best.rows = rows;
            best.r = r;
        }
    }
    place_grid(best, area, s, best.r);
    return best;
}

// Pixels to plot units: one unit is the radius r; y grows upwards, the top of the area is y = 0.
struct Units {
    double r;
    double x(double px) const { return px / r; }
    double y(double px) const { return -px / r; }
    double len(double px) const { return px / r; }
};

void set_ranges(QCustomPlot& plot, QSizeF area, const Units& u) {
    plot.xAxis->setRange(0, u.x(area.width()));
    plot.yAxis->setRange(u.y(area.height()), 0);
}

// The place a circle's digit has ("tens") and its period ("T = 100"); for mixed periods only the period.
std::pair<QString, QString> circle_names(const Period& period, int base) {
    const QString t = QStringLiteral("T = %1").arg(q(analysis::period_text(period)));
    if (period.multiplier != 1) return {t, QString()};
    return {q(place_name(period.exponent - 1, base)), t};
}

// A unit circle's outline around (cx, cy).
void add_ring(QCustomPlot& plot, double cx, double cy) {
    auto* ring = new QCPCurve(plot.xAxis, plot.yAxis);
    for (int i = 0; i <= 120; ++i)
        ring->addData(i, cx + std::cos(2.0 * std::numbers::pi * i / 120),
                      cy + std::sin(2.0 * std::numbers::pi * i / 120));
    ring->setPen(QPen(style::ink().faint, 1.2));
}

// The font made smaller (down to 7.5 points, the legibility rule's 10 px) until `text` is at most `pixels`
// wide: names of neighbouring circles never run into each other.
QFont fitted(QFont f, const QString& text, double pixels) {
    while (text_width(f, text) > pixels && f.pointSizeF() > 7.5)
        f.setPointSizeF(f.pointSizeF() - 0.5);
    return f;
}

// The place as a power of the base ("10⁻²"): what a circle too narrow for "hundredths" at the smallest
// legible size shows instead (eliding "hundre…" beside "thousa…" would say nothing).
QString place_as_power(const Period& period, int base) {
    static const QString kSuper[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    const int position = period.exponent - 1;
    QString out = QString::number(base) + (position < 0 ? "⁻" : "");
    for (const QChar c : QString::number(std::abs(position)))
        out += kSuper[c.digitValue()];
    return out;
}

// The two name lines over a circle whose top label ring is at `ring_top` (units), each at most `width`
// pixels wide (the circle's cell).
void add_names(QCustomPlot& plot, double cx, double ring_top, const Units& u, const Period& period, int base,
               QFont place_font, QFont period_font, double width) {
    auto [place, t] = circle_names(period, base);
    place_font = fitted(place_font, place, width);
    if (!t.isEmpty() && text_width(place_font, place) > width) place = place_as_power(period, base);
    period_font = fitted(period_font, t, width);
    if (t.isEmpty()) {
        add_text(plot, cx, ring_top + u.len(2), place, Qt::AlignBottom | Qt::AlignHCenter, place_font);
        return;
    }
    add_text(plot, cx, ring_top + u.len(2), t, Qt::AlignBottom | Qt::AlignHCenter, period_font,
             style::ink().muted);
    add_text(plot, cx, ring_top + u.len(4 + line_height(period_font)), place,
             Qt::AlignBottom | Qt::AlignHCenter, place_font);
}

// T as an exact decimal where it has one (base 10, or an integer period), to read |x| mod T.
std::optional<Decimal> period_decimal(const Period& p) {
    if (p.exponent >= 0) return Decimal::from_int(p.multiplier) * Decimal::power(p.base, p.exponent);
    if (p.base != 10) return std::nullopt;
    return Decimal::from_int(p.multiplier) * Decimal::parse("0." + std::string(-p.exponent - 1, '0') + "1");
}

QString residue_caption(const analysis::CircleReading& c, bool negative) {
    // A negative x's digits are those of |x|, and |x| mod T = T - (x mod T): say that one.
    if (negative && c.residue_exact) {
        if (const auto t = period_decimal(c.period)) {
            const Decimal r = Decimal::parse(c.residue);
            return QStringLiteral("|x| mod T = %1").arg(q((r.is_zero() ? r : *t - r).to_string()));
        }
    }
    return QStringLiteral("x mod T = %1").arg(q(c.residue));
}

QString digit_caption(const analysis::CircleReading& c, bool negative) {
    const double degrees = c.angle * 180.0 / std::numbers::pi;
    // Mirrored circles are read clockwise: the hand's angle from 0, turning the other way.
    const QString angle =
        negative ? QStringLiteral("%1° clockwise").arg(degrees > 0 ? 360.0 - degrees : 0.0, 0, 'f', 1)
                 : QStringLiteral("%1°").arg(degrees, 0, 'f', 1);
    return c.digit >= 0 ? QStringLiteral("digit %1 · %2").arg(c.digit).arg(angle) : angle;
}

constexpr char kHandsLayer[] = "circles-hands";
constexpr double kRing = 1.2;  // digit labels sit at 1.2 radii

// Moves circle i's number-dependent items to reading c (centre cx, cy).
void place_circle(CircleHandles& h, std::size_t i, const analysis::CircleReading& c,
                  const std::vector<analysis::DigitMarker>& markers) {
    const double cx = h.centres[i].first, cy = h.centres[i].second, mirror = h.mirrored ? -1.0 : 1.0;
    const QFontMetrics caption(h.residues[i]->font());
    h.hands[i]->end->setCoords(cx + c.x, cy + c.y);
    h.residues[i]->setText(
        caption.elidedText(residue_caption(c, h.mirrored), Qt::ElideRight, h.caption_pixels));
    h.digits[i]->setText(caption.elidedText(digit_caption(c, h.mirrored), Qt::ElideRight, h.caption_pixels));
    QFont digit_font = h.digits[i]->font();
    digit_font.setBold(c.digit >= 0);
    h.digits[i]->setFont(digit_font);
    h.digits[i]->setColor(c.digit >= 0 ? style::ink().good : style::ink().ink);
    const bool carried = c.digit >= 0 && c.digit < static_cast<int>(markers.size());
    h.carried[i]->data()->clear();
    h.carried_labels[i]->setVisible(carried);
    if (!carried) return;
    const auto& m = markers[static_cast<std::size_t>(c.digit)];
    h.carried[i]->addData(cx + m.x, cy + mirror * m.y);
    h.carried_labels[i]->position->setCoords(cx + kRing * m.x, cy + kRing * mirror * m.y);
    h.carried_labels[i]->setText(QString::number(m.digit, 36));
}

void set_footer_text(QCPTextElement* footer, const std::string& text) {
    if (!footer) return;
    const int width = std::max(80, footer->parentPlot()->width() - 16);
    footer->setText(style::fit_lines(q(text), footer->font(), width));
}

// The fonts of a unit circle's texts: the place and period over it, the digit labels round it, the
// residue and digit captions under it.
struct CircleFonts {
    QFont place = font(10, true), period = font(8), label = font(8), caption = font(9);
};

// Empties h and sizes it for `circles`. What follows the number goes on a buffered layer of its own when
// the caller keeps the handles (`kept`), so that update_circles() can repaint just that layer.
void reset_handles(QCustomPlot& plot, CircleHandles& h, bool kept, const analysis::UnitCircles& circles,
                   QCPTextElement* footer, int caption_pixels) {
    h = CircleHandles{};
    h.base = circles.base;
    h.mirrored = circles.number.negative();
    h.caption_pixels = caption_pixels;
    if (kept) {
        if (!plot.layer(kHandsLayer)) plot.addLayer(kHandsLayer, plot.layer("main"), QCustomPlot::limAbove);
        h.layer = plot.layer(kHandsLayer);
        h.layer->setMode(QCPLayer::lmBuffered);
        if (footer) footer->setLayer(h.layer);
        h.footer = footer;
    }
    const std::size_t n = circles.circles.size();
    for (auto* list : {&h.residues, &h.digits, &h.carried_labels})
        list->resize(n);
    h.hands.resize(n);
    h.carried.resize(n);
    h.centres.resize(n);
    h.periods.resize(n);
}

// Circle k of `circles` round (cx, cy), in a cell cell_w pixels wide: its ring, digit markers and labels,
// hand, names and captions; the items that depend on the number are kept in h and placed by place_circle().
void draw_unit_circle(QCustomPlot& plot, CircleHandles& h, const analysis::UnitCircles& circles,
                      std::size_t k, double cx, double cy, const Units& u, const CircleFonts& f,
                      double cell_w, const style::Ink& paper) {
    const auto& c = circles.circles[k];
    const double label_h = line_height(f.label), mirror = h.mirrored ? -1.0 : 1.0;
    auto dynamic = [&](QCPLayerable* item) {
        if (h.layer) item->setLayer(h.layer);
    };
    add_ring(plot, cx, cy);
    // Every marker grey with its digit; the digit this circle carries drawn again on top, in green.
    auto* markers = new QCPCurve(plot.xAxis, plot.yAxis);
    auto* carried = new QCPCurve(plot.xAxis, plot.yAxis);
    for (auto* curve : {markers, carried})
        curve->setLineStyle(QCPCurve::lsNone);
    markers->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, paper.faint, paper.faint, 6));
    carried->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, paper.good, paper.good, 9));
    dynamic(carried);
    for (const auto& m : circles.markers) {
        markers->addData(cx + m.x, cy + mirror * m.y);
        add_text(plot, cx + kRing * m.x, cy + kRing * mirror * m.y, QString::number(m.digit, 36),
                 Qt::AlignCenter, f.label, paper.muted);
    }
    QCPItemText* carried_label =
        add_text(plot, cx, cy, QString(), Qt::AlignCenter, font(8, true), paper.good);
    carried_label->setBrush(paper.page);  // hides the grey digit under it
    dynamic(carried_label);
    auto* hand = new QCPItemLine(&plot);
    hand->start->setCoords(cx, cy);
    hand->setPen(QPen(paper.accent, 2.0));
    hand->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 9, 12));
    dynamic(hand);
    add_names(plot, cx, cy + kRing + u.len(label_h / 2), u, c.period, circles.base, f.place, f.period,
              cell_w - 6);
    const double caption_top = cy - kRing - u.len(label_h / 2 + 2);
    QCPItemText* residue =
        add_text(plot, cx, caption_top, QString(), Qt::AlignTop | Qt::AlignHCenter, f.caption, paper.accent);
    QCPItemText* digit = add_text(plot, cx, caption_top - u.len(line_height(f.caption)), QString(),
                                  Qt::AlignTop | Qt::AlignHCenter, f.caption);
    dynamic(residue);
    dynamic(digit);
    // Handles are kept in the readings' order (smallest period first).
    h.hands[k] = hand;
    h.residues[k] = residue;
    h.digits[k] = digit;
    h.carried[k] = carried;
    h.carried_labels[k] = carried_label;
    h.centres[k] = {cx, cy};
    h.periods[k] = analysis::period_text(c.period);
    place_circle(h, k, c, circles.markers);
}

}  // namespace

std::pair<int, int> circles_size(const analysis::UnitCircles& circles) {
    const int count = std::max<int>(1, static_cast<int>(circles.circles.size()));
    const int columns = std::min(count, 5), rows = (count + 4) / 5;
    // Circles of 80 pixels' radius with their texts, the title and a footer.
    return {std::max(420, 240 * columns + 12), 110 + rows * 300};
}

void draw_circles(QCustomPlot& plot, const analysis::UnitCircles& circles, const std::string& title,
                  CircleHandles* handles, const std::string& footer) {
    const style::Ink& paper = style::begin_drawing(plot);
    const int count = static_cast<int>(circles.circles.size());
    style::add_title(
        plot, q(title.empty() ? "FoNE unit circles of " + circles.number.to_string() +
                                    (circles.base == 10 ? "" : " (base " + std::to_string(circles.base) + ")")
                              : title));
    QCPTextElement* footer_element = style::add_footer(plot, q(footer));
    const QSizeF area = style::bare_axis_rect_pixels(plot);
    // A cell: the place and period, the label ring round the circle, the residue and digit lines.
    const CircleFonts f;
    const double label_h = line_height(f.label), label_w = text_width(f.label, "0") + 4;
    const double above = 4 + line_height(f.place) + line_height(f.period) + 2;
    const double below = 2 + 2 * line_height(f.caption) + 6;
    const CellGrid grid =
        best_grid(area, count, {kRing, 2 * label_w + 12, 2 * kRing, above + label_h + below});
    const Units u{grid.r};
    CircleHandles local;
    CircleHandles& h = handles ? *handles : local;
    reset_handles(plot, h, handles != nullptr, circles, footer_element, static_cast<int>(grid.cell_w) - 4);
    // Largest period (highest digit) first, reading like the number from left to right.
    for (int index = 0; index < count; ++index) {
        const std::size_t k = static_cast<std::size_t>(count - 1 - index);
        const double cell_x = grid.left + (index % grid.columns) * grid.cell_w;
        const double cell_y = grid.top + (index / grid.columns) * grid.cell_h;
        const double cx = u.x(cell_x + grid.cell_w / 2), cy = u.y(cell_y + above + label_h / 2) - kRing;
        draw_unit_circle(plot, h, circles, k, cx, cy, u, f, grid.cell_w, paper);
    }
    set_ranges(plot, area, u);
}

bool update_circles(CircleHandles& handles, const analysis::UnitCircles& circles, const std::string& footer) {
    if (circles.base != handles.base || circles.circles.size() != handles.hands.size() ||
        circles.number.negative() != handles.mirrored)
        return false;
    for (std::size_t i = 0; i < circles.circles.size(); ++i)
        if (analysis::period_text(circles.circles[i].period) != handles.periods[i]) return false;
    for (std::size_t i = 0; i < circles.circles.size(); ++i)
        place_circle(handles, i, circles.circles[i], circles.markers);
    set_footer_text(qobject_cast<QCPTextElement*>(handles.footer), footer);
    return true;
}

namespace {

constexpr double kBarsWide = 2.7, kBarsHigh = 1.3;  // the probability bars, in radii
constexpr double kMinBarsRadius = 16;               // circles smaller than this (pixels) go without bars

// A slot's verdict in a narrow cell ("7 ✓", "9 ✗ (true 0)"), and its hidden pair's length.
QString compact_caption(const analysis::HiddenSlot& pair) {
    return pair.truth < 0 ? QString::number(pair.predicted)
           : pair.wrong() ? QStringLiteral("%1 ✗ (true %2)").arg(pair.predicted).arg(pair.truth)
                          : QStringLiteral("%1 ✓").arg(pair.predicted);
}

QString length_caption(const analysis::HiddenSlot& pair) {
    return QStringLiteral("length %1").arg(pair.length, 0, 'f', 2);
}

// One slot of a hidden state: its circle, markers, hand, names, captions and bars, around (cx, cy).
struct HiddenCell {
    double cx, cy, width;  // width: of the cell, in pixels
    bool compact, tiny;
    bool bars = true;   // the probability bars (left out where a short plot has no room for them)
    bool site = false;  // a clock of a patch's site: its angle, no verdict, no bars
};

// Returns the slot's hand.
QCPItemLine* draw_hidden_slot(QCustomPlot& plot, analysis::HiddenSlot pair,
                              const analysis::HiddenCircles& circles, const HiddenCell& cell,
                              const Units& u) {
    const style::Ink& paper = style::ink();
    const double cx = cell.cx, cy = cell.cy;
    if (cell.site) pair.predicted = -1;  // a site's pair is not read by the head: no digit marked
    const QColor verdict = pair.wrong() ? paper.accent : paper.good;
    const QFont label_font = font(8), caption_font = font(8, pair.wrong());
    const double label_h = line_height(label_font);
    add_ring(plot, cx, cy);
    auto* markers = new QCPCurve(plot.xAxis, plot.yAxis);
    auto* predicted = new QCPCurve(plot.xAxis, plot.yAxis);
    auto* truth = new QCPCurve(plot.xAxis, plot.yAxis);
    for (auto* curve : {markers, predicted, truth})
        curve->setLineStyle(QCPCurve::lsNone);
    markers->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, paper.faint, paper.faint, 6));
    predicted->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, verdict, verdict, 9));
    truth->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(paper.ink, 1.5), Qt::NoBrush, 15));
    for (const auto& m : circles.markers) {
        (m.digit == pair.predicted ? predicted : markers)->addData(cx + m.x, cy + m.y);
        if (pair.wrong() && m.digit == pair.truth) truth->addData(cx + m.x, cy + m.y);
        // Ten labels round a small ring crowd it: then only the ones that matter.
        if (cell.tiny && m.digit != pair.predicted && m.digit != 0 &&
            !(pair.wrong() && m.digit == pair.truth))
            continue;
        add_text(plot, cx + kRing * m.x, cy + kRing * m.y, QString::number(m.digit), Qt::AlignCenter,
                 font(8, m.digit == pair.predicted), m.digit == pair.predicted ? verdict : paper.muted);
    }
    auto* hand = new QCPItemLine(&plot);
    hand->start->setCoords(cx, cy);
    hand->end->setCoords(cx + pair.x, cy + pair.y);
    hand->setPen(QPen(paper.palette(cell.site ? 1 : 0), 2.0));
    hand->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 9, 12));
    add_names(plot, cx, cy + kRing + u.len(label_h / 2), u, pair.period, circles.base, font(10, true),
              font(8), cell.width - 6);
    QString caption = QStringLiteral("predicted %1").arg(pair.predicted);
    if (pair.truth >= 0) caption += QStringLiteral(" · true %1").arg(pair.truth);
    if (cell.compact) caption = compact_caption(pair);  // a narrow cell: words would run into the next one's
    if (cell.site) caption = QStringLiteral("%1°").arg(pair.angle * 180.0 / std::numbers::pi, 0, 'f', 1);
    double y = cy - kRing - u.len(label_h / 2 + 2);
    add_text(plot, cx, y, caption, Qt::AlignTop | Qt::AlignHCenter, caption_font, verdict);
    y -= u.len(line_height(caption_font));
    add_text(plot, cx, y, length_caption(pair), Qt::AlignTop | Qt::AlignHCenter, label_font, paper.muted);
    if (!cell.bars) return hand;
    // Probability bars: digit j at x = cx - 1.35 + 2.7·(j + 0.5)/base, 1.3 radii high for p = 1.
    const int base = circles.base;
    const double baseline = y - u.len(line_height(label_font) + 4) - kBarsHigh, slot = kBarsWide / base;
    // Narrow bars: only the digits that matter are named (ten labels would run together).
    const bool every_label = slot * u.r >= text_width(font(7.5), "0") + 2;
    for (int j = 0; j < base; ++j) {
        const double p = j < static_cast<int>(pair.probabilities.size())
                             ? pair.probabilities[static_cast<std::size_t>(j)]
                             : 0.0;
        const double x = cx - kBarsWide / 2 + slot * (j + 0.5);
        auto* bar = new QCPItemRect(&plot);
        bar->topLeft->setCoords(x - 0.38 * slot, baseline + kBarsHigh * std::max(p, 0.004));
        bar->bottomRight->setCoords(x + 0.38 * slot, baseline);
        bar->setBrush(j == pair.predicted ? verdict : j == pair.truth ? paper.ink : paper.faint);
        bar->setPen(Qt::NoPen);
        if (every_label || j == 0 || j == pair.predicted || j == pair.truth)
            add_text(plot, x, baseline - u.len(1), QString::number(j), Qt::AlignTop | Qt::AlignHCenter,
                     font(7.5), paper.muted);
    }
    return hand;
}

}  // namespace

std::pair<int, int> hidden_circles_size(const analysis::HiddenCircles& circles) {
    const int count = std::max<int>(1, static_cast<int>(circles.pairs.size()));
    const int columns = std::min(count, 5), rows = (count + 4) / 5;
    // Circles of 75 pixels' radius with their texts and bars, the title and a footer.
    return {std::max(420, 240 * columns + 12), 110 + rows * 400};
}

void draw_hidden_circles(QCustomPlot& plot, const analysis::HiddenCircles& circles, const std::string& title,
                         const std::string& footer) {
    draw_turnable_circles(plot, circles, nullptr, title, footer);
}

namespace {

// The fixed parts of a hidden-state cell, in pixels.
struct HiddenCellTexts {
    double label_w, above, label_h, captions, bars;
};

HiddenCellTexts hidden_cell_texts() {
    const QFont label_font = font(8), caption_font = font(8, true), bar_font = font(7.5);
    return {text_width(label_font, "0") + 4.0, 4 + line_height(font(10, true)) + line_height(font(8)) + 2.0,
            double(line_height(label_font)), 2.0 + line_height(caption_font) + line_height(label_font),
            4 + 1.0 + line_height(bar_font)};
}

CellShape hidden_shape(const HiddenCellTexts& t, bool bars, double min_cell) {
    if (bars)
        return {kBarsWide / 2, 2 * t.label_w + 12, 2 * kRing + kBarsHigh,
                t.above + t.label_h + t.captions + t.bars + 6, min_cell};
    return {kRing, 2 * t.label_w + 12, 2 * kRing, t.above + t.label_h + t.captions + 6, min_cell};
}

// A cell is as wide as its captions at least ("7 ✓", "9 ✗ (true 0)", "length 5.74"): neighbours never
// overlap.
double min_cell_pixels(const analysis::HiddenCircles& circles) {
    double min_cell = text_width(font(8, true), "000.0°");
    for (const auto& pair : circles.pairs)
        min_cell = std::max({min_cell, double(text_width(font(8, true), compact_caption(pair))),
                             double(text_width(font(8), length_caption(pair)))});
    return min_cell + 8;
}

// Draws one group's clocks (highest digit first) on `grid`, `top_px` pixels under the area's top.
void draw_slots(QCustomPlot& plot, const analysis::HiddenCircles& circles, const CellGrid& grid,
                double top_px, HiddenCell cell, const HiddenCellTexts& t, std::vector<ClockSpot>& spots) {
    const Units u{grid.r};
    cell.width = grid.cell_w;
    cell.compact = text_width(font(8, true), "predicted 0 · true 0") > grid.cell_w - 8;
    cell.tiny = grid.r < 30;
    const int count = static_cast<int>(circles.pairs.size());
    for (int index = 0; index < count; ++index) {
        const auto& pair = circles.pairs[static_cast<std::size_t>(count - 1 - index)];  // highest digit first
        const double cell_x = grid.left + (index % grid.columns) * grid.cell_w;
        const double cell_y = top_px + grid.top + (index / grid.columns) * grid.cell_h;
        cell.cx = u.x(cell_x + grid.cell_w / 2);
        cell.cy = u.y(cell_y + t.above + t.label_h / 2) - kRing;
        QCPItemLine* hand = draw_hidden_slot(plot, pair, circles, cell, u);
        spots.push_back({cell.cx, cell.cy, pair.period.exponent - 1, cell.site, hand});
    }
}

}  // namespace

std::vector<ClockSpot> draw_turnable_circles(QCustomPlot& plot, const analysis::HiddenCircles& circles,
                                             const SiteClocks* site, const std::string& title,
                                             const std::string& footer) {
    style::begin_drawing(plot);
    std::string heading = "Hidden state on the circles: predicted " + circles.predicted.to_string();
    if (circles.has_truth) heading += ", true " + circles.truth.to_string();
    style::add_title(plot, q(title.empty() ? heading : title));
    style::add_footer(plot, q(footer));
    const QSizeF area = style::bare_axis_rect_pixels(plot);
    const HiddenCellTexts t = hidden_cell_texts();
    const int count = static_cast<int>(circles.pairs.size());
    // The site's row takes the upper 40% of the area (under its label), the answer's clocks the rest.
    const double label_px = site ? line_height(font(9, true)) + 4.0 : 0.0;
    const double site_px = site ? 0.4 * area.height() : 0.0;
    const QSizeF answer_area(area.width(), area.height() - site_px);
    const double min_cell = min_cell_pixels(circles);
    CellGrid grid = best_grid(answer_area, count, hidden_shape(t, true, min_cell));
    // A short plot (the welcome view on a small screen): the circles without their bars rather than circles
    // too small to read.
    const bool with_bars = grid.r >= kMinBarsRadius;
    if (!with_bars) grid = best_grid(answer_area, count, hidden_shape(t, false, min_cell));
    HiddenCell cell{};
    cell.bars = with_bars;
    std::vector<ClockSpot> spots;
    if (site) {
        const QSizeF site_area(area.width(), site_px - label_px);
        const int site_count = static_cast<int>(site->circles.pairs.size());
        const CellShape site_shape = hidden_shape(t, false, min_cell_pixels(site->circles));
        CellGrid site_grid = best_grid(site_area, site_count, site_shape);
        // One radius for both groups: a unit of the plot is a radius.
        const double r = std::min(site_grid.r, grid.r);
        place_grid(site_grid, site_area, site_shape, r);
        place_grid(grid, answer_area, hidden_shape(t, with_bars, min_cell), r);
        const Units u{r};
        add_text(plot, u.x(area.width() / 2), u.y(2), q(site->label), Qt::AlignTop | Qt::AlignHCenter,
                 font(9, true), style::ink().palette(1));
        HiddenCell site_cell{};
        site_cell.bars = false;
        site_cell.site = true;
        draw_slots(plot, site->circles, site_grid, label_px, site_cell, t, spots);
    }
    draw_slots(plot, circles, grid, site_px, cell, t, spots);
    set_ranges(plot, area, Units{grid.r});
    return spots;
}

const ClockSpot* clock_at(const std::vector<ClockSpot>& spots, double x, double y) {
    for (const ClockSpot& s : spots)
        if (std::hypot(x - s.cx, y - s.cy) <= kRing + 0.15) return &s;
    return nullptr;
}

double angle_around(const ClockSpot& spot, double x, double y) {
    const double a = std::atan2(y - spot.cy, x - spot.cx);
    return a < 0 ? a + 2 * std::numbers::pi : a;
}

}  // namespace fone::plots
