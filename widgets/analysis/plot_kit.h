// The pieces every drawing of fone_analysis_plots shares (defined in analysis_plots.cpp): the palette, a
// plot cleared of an earlier drawing, a title row, labels. Private to widgets/analysis/*plots*.cpp.
#pragma once

#include <qcustomplot.h>
#include <QColor>
#include <QFont>
#include <QString>
#include <string>

namespace fone::plots::kit {

extern const QColor kPalette[10];  // Tableau's ten categorical colours
extern const QColor kAccent, kInk, kFaint;

QString q(const std::string& s);
// A period in number units with at most 4 significant digits: 10, 2.5, 333.3.
QString number_label(double value);
// Clears plottables, items, an earlier title row and colour scale, tickers and labels.
void reset(QCustomPlot& plot);
void add_title(QCustomPlot& plot, const QString& title);
QFont label_font(int size = 9, bool bold = false);
QCPItemText* add_text(QCustomPlot& plot, double x, double y, const QString& text, Qt::Alignment align,
                      const QFont& font, const QColor& colour = kInk);
// A legend in rows of per_row across the top of the axis rect.
void top_legend(QCustomPlot& plot, int per_row);

}  // namespace fone::plots::kit
