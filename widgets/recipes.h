// The recipes the window starts from (experiments/recipes/: the Launch panel's presets, the Welcome race),
// read once per experiments folder rather than at every sentence, menu and click that needs them.
#pragma once

#include <string>
#include <vector>

#include "fone/store/experiments.h"

namespace fone::gui {

// find_recipe(name), kept for the life of the program (GUI thread only). A missing or bad recipe throws
// std::invalid_argument with the file's problem, each time it is asked for.
const Experiment& window_recipe(const std::string& name);
// The experiments `fone reproduce` lists (the experiments folder's *.json, by order then name), kept the same
// way; a file that does not load is left out (`fone reproduce --list` names its problem).
const std::vector<Experiment>& reproduce_experiments();

}  // namespace fone::gui
