// The sweep designer: a grid over training-set sizes (doubling from one size to another), model size
// levels, methods and seeds, on top of the launch panel's other settings. It shows the number of runs and
// an estimate of the time (from the training speed of finished runs of the same model shape in the store),
// and queues the runs in the workbench's queue (at most "runs at once" train together).
//
// The grid and its cell names are core's (fone/store/sweep.h), so cells are named as `fone sweep` names
// them: SWEEP-n<size>-l<level>-<method>-s<seed> ("default" level: no -l part). Queuing the same sweep again
// continues it by the store's rule for each cell's run (fone/store/run_policy.h): finished (or training)
// cells are skipped, stopped/interrupted ones resumed, failed ones trained again (kept as NAME.failed-<k>).
// It writes no sweep file (`fone sweep` alone does), so `fone sweep --resume` does not know its sweeps.
#pragma once

#include <QWidget>
#include <vector>

#include <nlohmann/json.hpp>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace fone::gui {

class LaunchPanel;
class RunCatalog;

struct SweepCell {
    QString name;
    nlohmann::json settings;  // the launch panel's settings with this cell's axes
};

// Doubling steps from `from` while <= `to` (fone::doubling_sizes; empty when from < 1 or to < from).
std::vector<long long> doubling_sizes(long long from, long long to);

class SweepDesigner : public QWidget {
    Q_OBJECT
  public:
    SweepDesigner(LaunchPanel* launch_panel, RunCatalog* catalog, QWidget* parent = nullptr);

    // The grid as it stands; empty with *error set when an axis is invalid.
    std::vector<SweepCell> cells(QString* error) const;
    // Seconds for one cell from the speed of finished runs with the same model shape; -1 if none measured.
    double estimate_seconds(const nlohmann::json& settings) const;
    QLineEdit* field(const QString& key) const;
    int max_parallel() const;
    void set_max_parallel(int n);
    void set_level_checked(int level, bool on);  // 0: the default model
    // Ticks a method by name; false when the designer has no such method.
    bool set_method_checked(const QString& method, bool on);

  public Q_SLOTS:
    void update_summary();
    void queue_sweep();

  Q_SIGNALS:
    void sweepRequested(const QList<QStringList>& train_args, const QStringList& labels);
    void maxParallelChanged(int n);

  private:
    LaunchPanel* launch_panel_;
    RunCatalog* catalog_;
    QLineEdit *name_, *from_, *to_, *seeds_;
    std::vector<QCheckBox*> levels_;
    std::vector<QCheckBox*> methods_;
    QSpinBox *parallel_, *threads_;
    QLabel* summary_;
    QPushButton* queue_button_;
};

}  // namespace fone::gui
