// Named views of the workbench window. The window makes its own views (runs, launch, sweep, curves,
// data-size, model-size, compare); other view groups (widgets/analysis/) add theirs here before the window
// is made, and each becomes a dock. `fone-workbench --screenshot F --view NAME` shows one view by name.
#pragma once

#include <QString>
#include <functional>
#include <vector>

class QWidget;

namespace fone::gui {

class RunCatalog;
class JobRunner;

// What a view may use: the run store as the window sees it, the queue of training children, and the views
// made before it (by name; nullptr for none).
struct WorkbenchContext {
    RunCatalog* catalog = nullptr;
    JobRunner* jobs = nullptr;
    std::function<QWidget*(const QString&)> view;
};

struct ViewSpec {
    QString name;   // "spectrum": what --view takes (lower case, no spaces)
    QString title;  // "Spectrum": the dock's title
    std::function<QWidget*(const WorkbenchContext&)> make;
    bool in_front = false;  // raised in front of its tab group when the window opens without saved state
};

// Adds a view for every window made afterwards; a name already taken is replaced.
void register_view(const ViewSpec& spec);
const std::vector<ViewSpec>& registered_views();

// Presenter mode: a widget the window shows full screen over itself (View > Presenter mode,
// `fone-workbench --presenter`), made once, when first asked for, from the window's views. Closing it (its
// closeRequested() signal, or hiding it) returns to the window. None registered: no presenter mode.
using PresenterFactory = std::function<QWidget*(const WorkbenchContext&)>;
void register_presenter(PresenterFactory make);
const PresenterFactory& registered_presenter();

}  // namespace fone::gui
