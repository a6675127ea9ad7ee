// Live training curves of the selected runs: loss, exact match or digit accuracy against step, epoch or
// wall time; several runs overlaid (their legend in rows under the plot, never over a curve); debiased
// exponential smoothing (its weight shown by the slider); true log axes; a hover crosshair on the curve
// nearest the mouse (by its x, within a generous reach) with the values in a label kept inside the plot;
// the hovered curve is emphasised and its run reported (runHovered) so the table can mark it. New points of
// running runs are appended as they arrive, not redrawn from scratch.
#pragma once

#include <QVector>

#include "plot_panel.h"
#include "run_catalog.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QCPGraph;
class QCPItemTracer;
class QCPItemText;

namespace fone::gui {

enum class CurveMetric { loss, exact_match, digit_accuracy, typed_lowest };
enum class CurveAxis { step, epoch, wall_time };

// Debiased exponential moving average (as TensorBoard's): s_t = w·s_{t-1} + (1-w)·x_t, shown as
// s_t / (1 - w^t), so the first points are not pulled towards 0. weight 0 leaves the data as it is.
class EmaSmoother {
  public:
    explicit EmaSmoother(double weight = 0) : weight_(weight) {}
    double next(double x);

  private:
    double weight_, ema_ = 0, decay_ = 1;
};

class CurveView : public PlotPanel {
    Q_OBJECT
  public:
    explicit CurveView(RunCatalog* catalog, QWidget* parent = nullptr);

    // The catalog rows to draw (their series are loaded on demand).
    void set_runs(const QList<int>& rows);
    int shown_count() const { return static_cast<int>(shown_.size()); }
    void set_metric(CurveMetric metric);
    void set_x_axis(CurveAxis axis);
    void set_smoothing(double weight);  // 0 .. 0.999
    void set_log_axes(bool log_x, bool log_y);
    // Emphasises one run's curve ("" for none).
    void highlight(const QString& name);
    // Number of points drawn over all curves.
    int point_count() const;
    void apply_theme(const Theme& theme) override;  // recolours the curves

    QString smoothing_text() const;  // what the label by the slider says: "off", "0.60"
    QString hover_label() const;     // the crosshair's label ("" when none)

  Q_SIGNALS:
    void runHovered(const QString& name);  // "" when the mouse leaves every curve

  protected:
    void before_replot() override;

  private:
    struct Shown {
        int row = -1;
        QString name;
        QCPGraph* graph = nullptr;
        int consumed = 0;  // points of the series already appended
        EmaSmoother smoother;
    };
    void rebuild();
    void append_new_points(Shown& shown);
    void on_series_changed(int row);
    void on_mouse_move(class QMouseEvent* event);
    void update_axes();
    void update_antialiasing();
    void update_legend_layout();
    void show_legend(bool visible);
    void style_graph(Shown& shown, int index, bool emphasised);

    RunCatalog* catalog_;
    std::vector<Shown> shown_;
    CurveMetric metric_ = CurveMetric::exact_match;
    CurveAxis x_axis_ = CurveAxis::step;
    double smoothing_ = 0;
    bool log_x_ = false, log_y_ = false, auto_range_ = true, axes_dirty_ = false;
    int hidden_points_ = 0;  // non-positive values left out on a log axis
    QString highlighted_;
    QComboBox *metric_box_, *x_box_;
    QSlider* smoothing_slider_;
    QLabel* smoothing_value_;
    QCheckBox *log_x_box_, *log_y_box_;
    QLabel* note_;
    QCPItemTracer* tracer_;
    QCPItemText* tracer_label_;
};

}  // namespace fone::gui
