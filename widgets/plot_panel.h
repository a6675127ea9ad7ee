// What every plot view shares: a QCustomPlot under a row of controls, the theme, a replot throttle (live
// data asks for a replot as often as it likes; at most one happens per frame interval), and export of the
// figure (PNG at 2x for hi-dpi, SVG, PDF) and of its data (CSV). Files are written to a temporary file and
// renamed.
#pragma once

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include "theme.h"

class QCustomPlot;
class QHBoxLayout;
class QPushButton;

namespace fone::gui {

// Writes the plot by the file's suffix: .png (scale 2), .svg, .pdf. False with *error set on failure.
bool save_plot(QCustomPlot* plot, const QString& path, QString* error);
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
    bool export_to(const QString& path, QString* error);
    // An "Export…" button at the end of the controls' row that opens export_dialog() (the window's export
    // shortcut finds a view's button by this text).
    QPushButton* add_export_button();

  public Q_SLOTS:
    void export_dialog();  // asks for a file name and exports

  protected:
    // Called just before each throttled replot: views that update axis ranges do it here, once per frame.
    virtual void before_replot() {}
    QString x_name_ = "x", y_name_ = "y";

  private:
    QCustomPlot* plot_;
    QHBoxLayout* controls_;
    QTimer throttle_;
    bool pending_ = false;
    Theme theme_ = light_theme();
};

}  // namespace fone::gui
