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

// What a view may use: the run store as the window sees it, and the queue of training children.
struct WorkbenchContext {
    RunCatalog* catalog = nullptr;
    JobRunner* jobs = nullptr;
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

}  // namespace fone::gui
