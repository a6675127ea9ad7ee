// The paper's scaling figures, live: test accuracy against training-set size (log-2 x axis) or against
// model size (parameters, log x), one line per method (and model / training-set size), the mean over
// seeds with ±1 standard deviation as error bars. Finished runs only; it redraws as runs finish.
#pragma once

#include <QList>
#include <QVector>

#include "plot_panel.h"
#include "run_catalog.h"

class QComboBox;
class QLabel;

namespace fone::gui {

enum class ScalingMode { data_size, model_size };
enum class ScalingMetric { final_exact_match, best_exact_match, digit_accuracy };

struct ScalingPoint {
    double x = 0, mean = 0, stddev = 0;  // stddev: sample standard deviation over seeds (0 for one seed)
    int n = 0;                           // runs averaged
};
struct ScalingSeries {
    QString name;                  // "fone, level 2" (data size) or "fone, 3,200 examples" (model size)
    QVector<ScalingPoint> points;  // sorted by x
};

// The series of one figure from the finished runs among rows (of one task; "" = every task).
std::vector<ScalingSeries> scaling_series(const RunCatalog& catalog, const QList<int>& rows, ScalingMode mode,
                                          const QString& task, ScalingMetric metric);

class ScalingView : public PlotPanel {
    Q_OBJECT
  public:
    ScalingView(RunCatalog* catalog, ScalingMode mode, QWidget* parent = nullptr);
    // The runs the figure may use (the table's rows after its filter).
    void set_runs(const QList<int>& rows);
    void refresh();
    const std::vector<ScalingSeries>& series() const { return series_; }
    QString data_csv() const override;
    void apply_theme(const Theme& theme) override;  // recolours the series

  private:
    void update_tasks();
    RunCatalog* catalog_;
    ScalingMode mode_;
    QList<int> rows_;
    std::vector<ScalingSeries> series_;
    QComboBox *task_box_, *metric_box_;
    QLabel* note_;
};

}  // namespace fone::gui
