// The sweep designer: a grid over training-set sizes (doubling from one size to another), model size
// levels, methods and seeds, on top of the launch panel's other settings. It shows the number of runs and
// an estimate of the time for every cell: from finished runs of the same model shape and method in the store
// ("measured"), else scaled by parameters from finished runs of the same method, else of any method; cells
// are without an estimate only while the store has no finished run, and it says which. A sweep of more than
// kConfirmRuns runs is queued only once confirmed; the cells are queued a slice at a time, so the window
// stays responsive. The grid (name, sizes, levels, methods, seeds) is saved with the window's settings.
//
// The grid and its cell names are core's (fone/store/sweep.h), so cells are named as `fone sweep` names
// them: SWEEP-n<size>-l<level>-<method>-s<seed> ("default" level: no -l part). Queuing the same sweep again
// continues it by the store's rule for each cell's run (fone/store/run_policy.h): finished (or training)
// cells are skipped, stopped/interrupted ones resumed, failed ones trained again (kept as NAME.failed-<k>).
// It writes no sweep file (`fone sweep` alone does), so `fone sweep --resume` does not know its sweeps.
#pragma once

#include <QWidget>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep_estimate.h"

class QCheckBox;
class QTimer;
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
    // Seconds for one cell (sweep_estimate.h); -1 when the store has no finished run to go by.
    double estimate_seconds(const nlohmann::json& settings) const { return estimate(settings).seconds; }
    CellEstimate estimate(const nlohmann::json& settings) const;
    QString summary_text() const;  // the summary under the grid, as plain text
    bool queuing() const { return !pending_.empty(); }
    // The grid's settings as JSON (for the window's settings) and back.
    nlohmann::json state() const;
    void set_state(const nlohmann::json& state);
    // Why sweeps cannot be queued into the open store (read-only); "" when they can.
    void set_store_problem(const QString& problem);

    static constexpr int kConfirmRuns = 200;  // larger sweeps ask first
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
    // One slice of the sweep's runs to queue (a large sweep comes in several).
    void sweepRequested(const QList<QStringList>& train_args, const QStringList& labels);
    void maxParallelChanged(int n);
    void sweepQueued(int queued, int skipped);  // all its slices are out

  private:
    void queue_slice();
    void update_choices();

    LaunchPanel* launch_panel_;
    RunCatalog* catalog_;
    QLineEdit *name_, *from_, *to_, *seeds_;
    std::vector<QCheckBox*> levels_;
    std::vector<QCheckBox*> methods_;
    QSpinBox *parallel_, *threads_;
    QLabel* summary_;
    QPushButton* queue_button_;
    QString store_problem_;
    QTimer* speeds_timer_ = nullptr;  // one summary after a burst of finished rows
    QString estimate_line_;           // "about 45:00:00 of training", for the question before a large sweep
    RunSpeeds speeds_;                // the finished runs' costs, read again when runs finish
    bool speeds_stale_ = true;
    // A sweep being queued: its cells not sent yet, and the counts so far.
    std::vector<SweepCell> pending_;
    int queued_ = 0, skipped_ = 0;
};

}  // namespace fone::gui
