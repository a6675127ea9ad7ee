// The workbench window: docks for the run table, the launch panel, the sweep designer, live curves, the
// scaling figures and the comparison table (plus any registered view), a status bar with the running jobs,
// keyboard shortcuts, light/dark themes, presenter mode, and (unless told not to) its layout, geometry,
// column choices, filter, selection and last settings kept in QSettings.
//
// It fits the screen it opens on: sized from the screen's available area (1400 x 900 where there is room),
// saved geometry restored only when it fits, and every view in a dock that scrolls rather than clips when the
// dock is smaller than the view.
#pragma once

#include <QMainWindow>
#include <QMap>

#include "theme.h"
#include "view_registry.h"

class QDockWidget;
class QLabel;
class QLineEdit;
class QTableView;
class QPlainTextEdit;
class QProcess;
class QTimer;

namespace fone::gui {

class ComparisonView;
class CurveView;
class JobRunner;
class LaunchPanel;
class PlotPanel;
class RunCatalog;
class RunActions;
class RunFilterProxy;
class RunNotesPane;
class RunTableModel;
class SettingsCompareView;
class ScalingView;
class SweepDesigner;

struct WorkbenchOptions {
    QString runs_dir;          // "" : RunStore::default_root()
    QString cli;               // "" : JobRunner::default_cli_path()
    bool use_settings = true;  // read and write QSettings (off for screenshots and tests)
    QString theme;             // "" : the saved one, else light
};

class WorkbenchWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit WorkbenchWindow(const WorkbenchOptions& options, QWidget* parent = nullptr);
    ~WorkbenchWindow() override;

    RunCatalog* catalog() const { return catalog_; }
    JobRunner* jobs() const { return jobs_; }
    LaunchPanel* launch_panel() const { return launch_; }
    QLineEdit* run_filter() const { return filter_; }
    SweepDesigner* sweep_designer() const { return sweep_; }
    CurveView* curves() const { return curves_; }
    ScalingView* data_size_view() const { return data_size_; }
    ScalingView* model_size_view() const { return model_size_; }
    ComparisonView* comparison() const { return compare_; }
    QTableView* run_table() const { return table_; }
    RunTableModel* run_model() const { return model_; }
    RunFilterProxy* run_proxy() const { return proxy_; }
    RunNotesPane* notes_pane() const { return notes_; }
    SettingsCompareView* settings_compare() const { return settings_compare_; }
    RunActions* run_actions() const { return actions_; }

    // View names ("runs", "launch", "sweep", "curves", "data-size", "model-size", "compare",
    // "compare-settings", registered ones).
    QStringList view_names() const;
    QWidget* view(const QString& name) const;
    // Shows only that view's dock (for screenshots); false if no such view.
    bool show_only_view(const QString& name);
    // Brings that view's dock to the front of its tab group (for screenshots); false if no such view.
    bool raise_view(const QString& name);
    // Selects the runs whose names are given (in the table; the curves and comparison follow).
    void select_runs(const QStringList& names);
    // A good default selection for a picture: up to n finished runs of one seed, spread over sizes.
    void select_example_runs(int n);
    void set_theme(const QString& name);
    const Theme& theme() const { return theme_; }
    QString status_text() const;
    // The selected rows of the run table (visible columns) as CSV, or as a Markdown table (Ctrl+C,
    // Ctrl+Shift+C on the table).
    QString selected_rows_text(bool markdown) const;
    // False while `fone --version` (whether CUDA is there) is still running.
    bool cuda_checked() const { return cuda_probe_ == nullptr; }
    // Help > About: the workbench's version and git revision, the `fone --version` line of the CLI it runs
    // (LibTorch, with or without CUDA), Qt's and QCustomPlot's versions (HTML).
    QString about_text() const;
    // Presenter mode (a registered presenter, shown full screen over the window; Esc returns). False when
    // none is registered.
    bool set_presenting(bool on);
    bool presenting() const;
    QWidget* presenter() const { return presenter_; }
    // Trainings this window started that are training or queued (its queue and the views' own, e.g. Train
    // it live).
    int active_trainings() const;
    // The store is open read-only: why (shown in the status bar; launching is off); "" when it is writable.
    const QString& store_problem() const { return store_problem_; }
    // Sizes and places the window for the available area of its screen (1400 x 900 at most).
    void fit_to_screen();

  public Q_SLOTS:
    void remove_selected();  // out of the list, files kept
    void delete_selected();  // after a yes: the folders of the selected runs that are not training
    void stop_selected();
    void resume_selected();
    void rerun_selected();
    void export_current_plot();
    void stop_presenting();

  protected:
    void closeEvent(class QCloseEvent* event) override;
    void showEvent(class QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    bool event(QEvent* event) override;

  private:
    QDockWidget* add_dock(const QString& name, const QString& title, QWidget* widget,
                          Qt::DockWidgetArea area);
    QWidget* make_runs_view();
    void connect_launch_estimate();
    void make_menus();
    void connect_jobs();
    void on_selection_changed();
    void update_scaling_runs();
    void update_status();
    void update_details();
    void check_cuda();
    void stop_row(int row);
    void resume_row(int row);
    QList<int> selected_rows() const;
    void show_column_menu(const QPoint& pos);
    void save_settings();
    void restore_settings();
    void check_store();
    // The docks' first sizes, for the window's size when first shown (not after a restored layout).
    void size_docks();

    WorkbenchOptions options_;
    RunCatalog* catalog_;
    JobRunner* jobs_;
    RunTableModel* model_;
    RunFilterProxy* proxy_;
    QTableView* table_ = nullptr;
    QLineEdit* filter_ = nullptr;
    QPlainTextEdit* details_ = nullptr;
    LaunchPanel* launch_;
    SweepDesigner* sweep_;
    CurveView* curves_;
    ScalingView *data_size_, *model_size_;
    ComparisonView* compare_;
    SettingsCompareView* settings_compare_;
    RunNotesPane* notes_ = nullptr;
    RunActions* actions_;
    QLabel* status_label_;
    QMap<QString, QDockWidget*> docks_;
    QMap<QString, QWidget*> views_;  // a dock's view (the dock holds it in a scroll area)
    QWidget* presenter_ = nullptr;
    QDockWidget* front_dock_ = nullptr;  // the view in front above the training plots
    bool docks_sized_ = false, state_restored_ = false;
    QLabel* store_label_ = nullptr;
    QString store_problem_;
    int launched_job_ = 0;  // the last single launch: its run is selected once it exists
    QList<PlotPanel*> plots_;
    PlotPanel* last_plot_ = nullptr;
    Theme theme_;
    QTimer* scaling_timer_;
    QTimer* status_timer_ = nullptr;
    QProcess* cuda_probe_ = nullptr;
    QString cli_version_;  // the CLI's `fone --version` line, once the probe has answered
};

}  // namespace fone::gui
