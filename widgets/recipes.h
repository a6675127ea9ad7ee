// The recipes the window starts from (experiments/recipes/: the Launch panel's presets, the Welcome race),
// read once per experiments folder rather than at every sentence, menu and click that needs them.
#pragma once

#include <string>

#include "fone/store/experiments.h"

namespace fone::gui {

// find_recipe(name), kept for the life of the program (GUI thread only). A missing or bad recipe throws
// std::invalid_argument with the file's problem, each time it is asked for.
const Experiment& window_recipe(const std::string& name);

}  // namespace fone::gui
