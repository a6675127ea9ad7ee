// Light and dark themes: the application palette (Fusion style) and the colours plots follow.
#pragma once

#include <QColor>
#include <QIcon>
#include <QString>
#include <QVector>

class QCustomPlot;

namespace fone::gui {

struct Theme {
    QString name;  // "light" or "dark"
    QColor background, foreground, grid, subgrid;
    // Distinct line colours (Tableau 10), reused in order.
    QColor series(int i) const;
};

Theme light_theme();
Theme dark_theme();
Theme theme_named(const QString& name);  // "dark" or anything else: light

// A run's colour as a table shows it beside its name: a square with a light rim, the same when its row is
// selected (Qt would tint it with the selection's colour, and a blue run on a blue row would vanish).
QIcon colour_swatch(const QColor& colour);
// The colour a swatch shows (for tests: the middle of its square).
QColor swatch_colour(const QVariant& decoration);

// Sets the application palette and style.
void apply_theme_to_app(const Theme& theme);
// Sets a plot's background, axes, grid, legend and text colours (call replot after).
void apply_theme_to_plot(const Theme& theme, QCustomPlot* plot);

}  // namespace fone::gui
