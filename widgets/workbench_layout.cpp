// WorkbenchWindow's size and layout (state the window keeps between sessions): sized for the screen it
// opens on, the docks' first proportions, and the settings saved on close and restored on open (geometry
// only when it fits this screen).
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
#include "workbench_window.h"

namespace fone::gui {

namespace {
constexpr int kDefaultWidth = 1400, kDefaultHeight = 900;
// Room the window manager takes round a window (title bar, borders) on a typical desktop.
constexpr int kFrameWidth = 16, kFrameHeight = 48;
const char* const kSettingsGroup = "workbench";
}  // namespace

void WorkbenchWindow::fit_to_screen() {
    const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
    if (!s) {
        resize(kDefaultWidth, kDefaultHeight);
        return;
    }
    const QRect area = s->availableGeometry();
    const QSize size(std::min(kDefaultWidth, area.width() - kFrameWidth),
                     std::min(kDefaultHeight, area.height() - kFrameHeight));
    resize(size);
    move(area.left() + (area.width() - size.width() - kFrameWidth) / 2,
         area.top() + (area.height() - size.height() - kFrameHeight) / 2);
}

void WorkbenchWindow::size_docks() {
    // In proportion to the window as shown (resizeDocks before the first show works on sizes the window
    // does not have yet): the forms on the left a quarter or so, the views above the training plots two
    // thirds of the height. resizeDocks takes the dock in front of each tab group.
    const int left = std::clamp(width() * 27 / 100, 300, 420);
    resizeDocks({docks_["launch"], front_dock_}, {left, width() - left}, Qt::Horizontal);
    // The training plots get at least what the legibility rule needs (the curves' minimum: controls and a
    // plot of kMinPlotWidgetHeight, plus the dock's title bar), else a third of the height.
    constexpr int kDockTitle = 28;
    const int plots = std::max(curves_->minimumSizeHint().height() + kDockTitle, height() * 32 / 100);
    resizeDocks({front_dock_, docks_["curves"]}, {height() - plots, plots}, Qt::Vertical);
}

void WorkbenchWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (!docks_sized_) {
        docks_sized_ = true;
        if (!state_restored_) size_docks();
    }
}

void WorkbenchWindow::save_settings() {
    QSettings s;
    s.beginGroup(kSettingsGroup);
    s.setValue("geometry", saveGeometry());
    s.setValue("state", saveState());
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
    // Saved geometry only when it fits this screen (a window saved on a large monitor, opened on a
    // projector, is sized afresh).
    if (s.contains("geometry") && restoreGeometry(s.value("geometry").toByteArray())) {
        const QScreen* scr = screen() ? screen() : QGuiApplication::primaryScreen();
        if (scr && !scr->availableGeometry()
                        .adjusted(-kFrameWidth, -kFrameHeight, kFrameWidth, kFrameHeight)
                        .contains(frameGeometry()))
            fit_to_screen();
    }
    if (s.contains("state")) state_restored_ = restoreState(s.value("state").toByteArray());
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
