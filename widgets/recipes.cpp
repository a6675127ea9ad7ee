#include "recipes.h"

#include <map>
#include <stdexcept>
#include <variant>

namespace fone::gui {

const Experiment& window_recipe(const std::string& name) {
    // Keyed by the folder too: a test (or FONE_EXPERIMENTS_DIR) may point at another one.
    static std::map<std::string, std::variant<Experiment, std::string>> read;
    const std::string key = experiments_dir() + "\n" + name;
    auto it = read.find(key);
    if (it == read.end()) {
        try {
            it = read.emplace(key, find_recipe(name)).first;
        } catch (const std::exception& e) {
            it = read.emplace(key, std::string(e.what())).first;
        }
    }
    if (const auto* problem = std::get_if<std::string>(&it->second)) throw std::invalid_argument(*problem);
    return std::get<Experiment>(it->second);
}

}  // namespace fone::gui
