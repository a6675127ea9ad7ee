// Private to the drawings of analysis_plots.h (analysis_plots.cpp, circle_plots.cpp): the page and ink a
// drawing uses, its fonts, texts and titles that fit the plot's width, and legends in a row of their own.
//
// A drawing starts with begin_drawing(plot): it clears what an earlier drawing left (plottables, items, title
// and legend rows, colour scales), reads the plot's Paper (set_paper) and makes it the ink of every helper
// below until the next begin_drawing. Drawing happens on one thread (the GUI's, or the CLI's main thread).
#pragma once

#include <QColor>
#include <QFont>
#include <QSizeF>
#include <QString>

#include "analysis_plots.h"

class QCPAxis;
class QCPColorMap;
class QCPColorScale;
class QCPItemText;
class QCPTextElement;

namespace fone::plots::style {

struct Ink {
    bool dark = false;
    double text_scale = 1.0;
    QColor page, ink, muted, faint, grid, accent, good;
    // Tableau's ten categorical colours (lighter on a dark page).
    QColor palette(int i) const;
};

// Clears the plot for a new drawing and sets its page, axes and legend colours from its paper.
const Ink& begin_drawing(QCustomPlot& plot);
const Ink& ink();

// An axis (a colour scale's too) in the ink: pens, tick labels, label and grid.
void ink_axis(QCPAxis* axis);

// A colour scale for `map` at the right of the plot, labelled and inked, its height kept to the axis rect's.
// The map takes the scale's gradient and data range: set them on the scale (or on the map before).
QCPColorScale* add_color_scale(QCustomPlot& plot, QCPColorMap* map, const QString& label);

// DejaVu Sans at `points` times the paper's text scale.
QFont font(double points, bool bold = false);
// Height and width of a line of text in pixels.
int line_height(const QFont& font);
int text_width(const QFont& font, const QString& text);
// The text in at most `max_lines` lines of at most `width` pixels: broken at ", ", ": ", " (", " — " or a
// space nearest the middle, the last line elided when it still does not fit.
QString fit_lines(const QString& text, const QFont& font, int width, int max_lines = 2);

QCPItemText* add_text(QCustomPlot& plot, double x, double y, const QString& text, Qt::Alignment align,
                      const QFont& font, const QColor& colour);
QCPItemText* add_text(QCustomPlot& plot, double x, double y, const QString& text, Qt::Alignment align,
                      const QFont& font);

// A bold title in a row above everything, in up to two lines that fit the plot's width (smaller type when
// two lines are not enough). Returns nullptr for an empty title.
QCPTextElement* add_title(QCustomPlot& plot, const QString& title);
// A line under the drawing (the answer of a hidden state, the digits read off the circles), fitted the same
// way. Returns nullptr for empty text.
QCPTextElement* add_footer(QCustomPlot& plot, const QString& text);
// Pixels a title or footer row of this text takes (0 for none), as the layout will give it.
int title_height(const QCustomPlot& plot, const QString& title);
int footer_height(const QCustomPlot& plot, const QString& text);

// The legend in a row of its own between the title and the axes (never over the data), `per_row` entries a
// row. Call before add_title.
void legend_row(QCustomPlot& plot, int per_row);

// For drawings in plot units (clocks): hides both axes and their grids, takes the margins away, lays the plot
// out as a replot would for its current size, and returns the axis rect's size in pixels (at least 40 × 40)
// once the title and footer rows have theirs.
QSizeF bare_axis_rect_pixels(QCustomPlot& plot);

// The axis rectangle in pixels once the plot is laid out at its size (at least 50 x 50) with the titles,
// legend and axis labels it has now, before it is drawn.
QRect laid_out_axis_rect(QCustomPlot& plot);

// Widens the x or the y range, about its centre, so that a unit is as long on both axes for the plot's
// size as laid out now (a PCA's rings stay rings instead of stripes). Call once titles, legend and labels
// are in place.
void equal_aspect(QCustomPlot& plot);

// "3.2%", "0.04%" (two significant digits below 0.1%), "0%", "100%": a share as a label.
QString percent_label(double fraction);

}  // namespace fone::plots::style
