// WorkbenchWindow's layout and the state it keeps between sessions: where the docks start (for the screen
// it opens on), their first proportions, and the settings saved on close and restored on open (the layout
// per screen size class: window_layout.h).
#include <QDockWidget>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLineEdit>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QTableView>
#include <algorithm>

#include "curve_view.h"
#include "launch_panel.h"
#include "run_catalog.h"
#include "sweep_designer.h"
#include "window_layout.h"
#include "workbench_window.h"

namespace fone::gui {

namespace {
const char* const kSettingsGroup = "workbench";
// A window shorter than this (a 1280 x 720 or 1366 x 768 screen) cannot show the view in front (the
// Welcome: its clocks, bars, race chart and verdict) and the training plots under it, each at a legible
// size: the training plots then join the views' tabs, and each view has the whole height.
constexpr int kSplitPlotsHeight = 800;
const char* const kTrainingPlots[] = {"curves", "data-size", "model-size", "compare", "compare-settings"};
}  // namespace

void WorkbenchWindow::fit_to_screen() {
    layout_->fit_to_screen();
}

void WorkbenchWindow::arrange_docks() {
    // Launch and Sweep on the left; the run table, the welcome and analysis views top right, the training
    // plots below them (or in their tabs, on a short screen). Docks already placed are taken out first.
    for (QDockWidget* dock : docks_)
        if (dockWidgetArea(dock) != Qt::NoDockWidgetArea) removeDockWidget(dock);
    addDockWidget(Qt::LeftDockWidgetArea, docks_["launch"]);
    tabifyDockWidget(docks_["launch"], docks_["sweep"]);
    addDockWidget(Qt::RightDockWidgetArea, docks_["runs"]);
    // Split before the views join Runs' tabs: splitting a dock that has tabs adds a tab instead (Qt's rule).
    const bool split = height() >= kSplitPlotsHeight;
    if (split) splitDockWidget(docks_["runs"], docks_["curves"], Qt::Vertical);
    for (const ViewSpec& spec : registered_views())
        if (docks_.contains(spec.name)) tabifyDockWidget(docks_["runs"], docks_[spec.name]);
    for (const char* name : kTrainingPlots)
        if (!split || QString(name) != "curves")
            tabifyDockWidget(split ? docks_["curves"] : docks_["runs"], docks_[name]);
    for (QDockWidget* dock : docks_)
        dock->show();
    docks_["launch"]->raise();
    docks_["curves"]->raise();
    front_dock_->raise();
}

void WorkbenchWindow::size_docks() {
    // In proportion to the window as shown (resizeDocks before the first show works on sizes the window
    // does not have yet): the forms on the left a quarter or so, the views above the training plots two
    // thirds of the height. resizeDocks takes the dock in front of each tab group.
    const int left = std::clamp(width() * 27 / 100, 300, 420);
    resizeDocks({docks_["launch"], front_dock_}, {left, width() - left}, Qt::Horizontal);
    if (dockWidgetArea(docks_["curves"]) != Qt::RightDockWidgetArea ||
        tabifiedDockWidgets(front_dock_).contains(docks_["curves"]))
        return;
    // The training plots get at least what the legibility rule needs (the curves' minimum: controls and a
    // plot of kMinPlotWidgetHeight, plus the dock's title bar), else a third of the height.
    constexpr int kDockTitle = 28;
    const int plots = std::max(curves_->minimumSizeHint().height() + kDockTitle, height() * 32 / 100);
    resizeDocks({front_dock_, docks_["curves"]}, {height() - plots, plots}, Qt::Vertical);
}

void WorkbenchWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    layout_->shown();
}

void WorkbenchWindow::lay_out_for(const QSize& size) {
    resize(size);
    // Again only when the size asks for the other arrangement (the training plots below the views, or in
    // their tabs): placed afresh before the first show, the docks lost the view in front (Runs came first);
    // the screenshot raises its view again once shown.
    const bool split = !tabifiedDockWidgets(docks_["runs"]).contains(docks_["curves"]);
    if (split != (height() >= kSplitPlotsHeight)) arrange_docks();
}

void WorkbenchWindow::reset_layout() {
    layout_->reset();
}

void WorkbenchWindow::save_settings() {
    QSettings s;
    s.beginGroup(kSettingsGroup);
    layout_->save(s);
    s.setValue("columns", table_->horizontalHeader()->saveState());
    s.setValue("theme", theme_.name);
    s.setValue("launch", QString::fromStdString(launch_->settings().dump()));
    s.setValue("sweep", QString::fromStdString(sweep_->state().dump()));
    s.setValue("parallel", sweep_->max_parallel());
    s.setValue("filter", filter_->text());
    QStringList selected;
    for (int row : selected_rows())
        if (!catalog_->at(row).name.isEmpty()) selected << catalog_->at(row).name;
    s.setValue("selection", selected);
    s.endGroup();
}

void WorkbenchWindow::restore_settings() {
    QSettings s;
    s.beginGroup(kSettingsGroup);
    // The layout of this screen's size class, if one was saved and it fits (window_layout.h).
    layout_->restore(s);
    if (s.contains("columns")) table_->horizontalHeader()->restoreState(s.value("columns").toByteArray());
    if (s.contains("theme")) theme_ = theme_named(s.value("theme").toString());
    const auto launch = nlohmann::json::parse(s.value("launch").toString().toStdString(), nullptr, false);
    if (launch.is_object() && !launch.empty()) launch_->load_settings(launch);
    const auto sweep = nlohmann::json::parse(s.value("sweep").toString().toStdString(), nullptr, false);
    if (sweep.is_object() && !sweep.empty()) sweep_->set_state(sweep);
    if (s.contains("parallel")) sweep_->set_max_parallel(s.value("parallel").toInt());
    filter_->setText(s.value("filter").toString());
    // The selection comes back once the store is read (the runs are not rows before).
    const QStringList selected = s.value("selection").toStringList();
    if (!selected.isEmpty())
        connect(
            catalog_, &RunCatalog::loaded, this, [this, selected] { select_runs(selected); },
            Qt::SingleShotConnection);
    s.endGroup();
}

}  // namespace fone::gui
