// The workbench window: docks for the run table, the launch panel, the sweep designer, live curves, the
// scaling figures and the comparison table (plus any registered view), a status bar with the running jobs,
// keyboard shortcuts, light/dark themes, and (unless told not to) its layout, geometry, column choices and
// last settings kept in QSettings.
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
class RunFilterProxy;
class RunTableModel;
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
    SweepDesigner* sweep_designer() const { return sweep_; }
    CurveView* curves() const { return curves_; }
    ScalingView* data_size_view() const { return data_size_; }
    ScalingView* model_size_view() const { return model_size_; }
    ComparisonView* comparison() const { return compare_; }
    QTableView* run_table() const { return table_; }
    RunTableModel* run_model() const { return model_; }
    RunFilterProxy* run_proxy() const { return proxy_; }

    // View names ("runs", "launch", "sweep", "curves", "data-size", "model-size", "compare", registered
    // ones).
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

  public Q_SLOTS:
    void stop_selected();
    void resume_selected();
    void rerun_selected();
    void export_current_plot();

  protected:
    void closeEvent(class QCloseEvent* event) override;

  private:
    QDockWidget* add_dock(const QString& name, const QString& title, QWidget* widget,
                          Qt::DockWidgetArea area);
    QWidget* make_runs_view();
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
    QLabel* status_label_;
    QMap<QString, QDockWidget*> docks_;
    QList<PlotPanel*> plots_;
    PlotPanel* last_plot_ = nullptr;
    Theme theme_;
    QTimer* scaling_timer_;
    QProcess* cuda_probe_ = nullptr;
    QString cli_version_;  // the CLI's `fone --version` line, once the probe has answered
};

}  // namespace fone::gui
