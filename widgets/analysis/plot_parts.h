// What the drawings share (analysis_plots.cpp, geometry_plots.cpp): colours, clearing a plot, titles,
// labels, legends and round circles. Private to widgets/analysis.
#pragma once

#include <qcustomplot.h>
#include <QColor>
#include <QString>
#include <string>

namespace fone::plots::parts {

// Tableau's ten categorical colours: distinguishable, and readable on white.
extern const QColor kPalette[10];
extern const QColor kAccent;
extern const QColor kInk;
extern const QColor kFaint;

QString q(const std::string& s);
// A period in number units with at most 4 significant digits: 10, 2.5, 333.3.
QString number_label(double value);
// Clears what an earlier drawing left: plottables, items, a title row, a colour scale, axis settings.
void reset(QCustomPlot& plot);
void add_title(QCustomPlot& plot, const QString& title);
QFont label_font(int size = 9, bool bold = false);
QCPItemText* add_text(QCustomPlot& plot, double x, double y, const QString& text, Qt::Alignment align,
                      const QFont& font, const QColor& colour = kInk);
// A legend in one or two rows across the top of the axis rect; the caller leaves head room for it.
void top_legend(QCustomPlot& plot, int per_row);
// How many circles per row make them largest in the plot (cells of cell_w x cell_h units).
int best_columns(const QCustomPlot& plot, int count, double cell_w, double cell_h);
// Equal scales on both axes showing the box whole and centred, so circles stay round.
void equal_scale_ranges(QCustomPlot& plot, double x_low, double x_high, double y_low, double y_high);

}  // namespace fone::plots::parts
