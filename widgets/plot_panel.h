// What every plot view shares: a QCustomPlot under a row of controls, the theme, a replot throttle (live
// data asks for a replot as often as it likes; at most one happens per frame interval), export of the
// figure (PNG, SVG, PDF: the picture on screen, its shape and layout, PNG at twice the pixels or more) and
// of its data (CSV), and for the analysis figures zoom, pan and the value under the mouse. Files are written
// to a temporary file and renamed.
#pragma once

#include <QElapsedTimer>
#include <QSize>
#include <QStringList>
#include <QTimer>
#include <QVector>
#include <QWidget>
#include <functional>

#include "theme.h"

class QCustomPlot;
class QCPAbstractPlottable;
class QHBoxLayout;
class QPushButton;

namespace fone::gui {

// The legibility rule (docs/workbench.md, "Legible at 1280 x 720"): every text the window draws is at least
// kMinTextPixels pixels high (logical pixels: twice as many device pixels at 2x), and every plot's data
// rectangle at least kMinPlotRectHeight x kMinPlotRectWidth. A figure that cannot have that in the room its
// dock gives it takes more (its view scrolls) rather than shrink below it.
inline constexpr int kMinTextPixels = 10;
inline constexpr int kMinPlotRectHeight = 120;
inline constexpr int kMinPlotRectWidth = 160;
// A plot widget this high leaves its data rectangle kMinPlotRectHeight after the axes' ticks and titles.
inline constexpr int kMinPlotWidgetHeight = 200;

// What breaks the rule among the visible widgets under root, one line each ("" parts: none): texts below
// kMinTextPixels (labels, buttons, fields, the plots' ticks, titles, legends and text items) and plot
// rectangles below the minimum.
QStringList legibility_problems(QWidget* root);

// Writes the plot by the file's suffix: .png, .svg, .pdf, at the plot's size on screen (PNG at a scale of 2,
// more for a small plot, so that it is at least 1600 pixels wide). False with *error set on failure.
// figure: the picture's size in pixels, laid out afresh at that size whatever the dock's shape (a PNG of
// exactly that many pixels); empty: the plot as on screen (a PNG at twice its size at least).
bool save_plot(QCustomPlot* plot, const QString& path, QString* error, QSize figure = {});

// The figure sizes Export… offers: as on screen, then fixed ones (the reproduction report's 960 x 480, the
// `fone analyse` PNGs' 1200 x 750, a square, a 16:9 slide).
struct FigureSize {
    QString name;
    QSize size;  // empty: as on screen
};
const QVector<FigureSize>& figure_sizes();
// The file name an export offers: the plot's title in lower case with dashes ("spectrum-of-the-fone-
// encoder"), "plot" when it has none; no folder, no suffix.
QString export_base_name(QCustomPlot* plot);
// What was typed in the export dialog, with the suffix of the chosen filter ("PNG image (*.png)") added when
// it has none.
QString export_path(const QString& typed, const QString& filter);

// A data point under the mouse: the plottable, its key and value, and the key's tick label when the axis
// names its ticks ("x mod 10", "10⁻¹").
struct PlotHit {
    QCPAbstractPlottable* plottable = nullptr;
    double key = 0, value = 0;
    QString key_label;
};
// Writes text through a temporary file and a rename (QSaveFile).
bool save_text(const QString& path, const QString& text, QString* error);
// The data of every visible graph of a plot: "series,x,y" rows (names quoted when needed).
QString plot_data_csv(QCustomPlot* plot, const QString& x_name, const QString& y_name);
// One CSV field, quoted when it holds a comma, a quote or a newline.
QString csv_field(const QString& s);

class PlotPanel : public QWidget {
    Q_OBJECT
  public:
    explicit PlotPanel(QWidget* parent = nullptr);
    QCustomPlot* plot() const { return plot_; }
    QHBoxLayout* controls() const { return controls_; }

    // Asks for a replot; coalesced so that at most one runs per interval (default 100 ms).
    void request_replot();
    void set_replot_interval_ms(int ms) { throttle_.setInterval(ms); }
    // Time the last replot took (QCustomPlot's own measure), in ms.
    double last_replot_ms() const;

    virtual void apply_theme(const Theme& theme);
    const Theme& theme() const { return theme_; }
    // The plotted data as CSV; the default writes every graph as series,x,y.
    virtual QString data_csv() const;
    // Exports by suffix: .csv is the data, .png/.svg/.pdf the figure.
    bool export_to(const QString& path, QString* error, QSize figure = {});
    // An "Export…" button at the end of the controls' row that opens export_dialog() (the window's export
    // shortcut finds a view's button by this text).
    QPushButton* add_export_button();

    // An analysis figure (drawn by fone::plots), which `redraw(dark_page)` draws again: on screen it follows
    // the theme (a dark page in the dark theme); exports are drawn on a white page; a double-click draws it
    // again (undoing zoom and pan).
    void set_figure(std::function<void(bool dark_page)> redraw);
    bool is_figure() const { return static_cast<bool>(redraw_); }
    // Drag to pan, wheel to zoom, double-click to fit, and the value under the mouse in a tooltip, in the
    // words `describe` gives (default: "name: key → value").
    void enable_inspection(std::function<QString(const PlotHit&)> describe = {});
    // The data point nearest a pixel of the plot (within a few pixels; a bar anywhere over its width) and its
    // tooltip text; "" where there is none.
    PlotHit hit_at(const QPointF& pixel) const;
    QString hover_text(const QPointF& pixel) const;

  public Q_SLOTS:
    void export_dialog();  // asks for a file name and exports

  protected:
    // Called just before each throttled replot: views that update axis ranges do it here, once per frame.
    virtual void before_replot() {}
    // A plot that is inspected answers the tooltip event (the mouse at rest) with the value under the mouse;
    // its help text only where there is no value.
    bool eventFilter(QObject* watched, QEvent* event) override;
    QString x_name_ = "x", y_name_ = "y";

  private:
    void redraw_figure(bool dark_page);
    void on_hover(const QPointF& pixel, const QPoint& global);

    QCustomPlot* plot_;
    QHBoxLayout* controls_;
    QTimer throttle_;
    bool pending_ = false;
    Theme theme_ = light_theme();
    std::function<void(bool)> redraw_;
    std::function<QString(const PlotHit&)> describe_;
    bool inspecting_ = false;
};

}  // namespace fone::gui
