#include "recipes.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <tuple>
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

const std::vector<Experiment>& reproduce_experiments() {
    static std::map<std::string, std::vector<Experiment>> read;
    const std::string dir = experiments_dir();
    auto it = read.find(dir);
    if (it != read.end()) return it->second;
    std::vector<Experiment> out;
    std::error_code ec;
    if (!dir.empty())
        for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
            if (entry.is_regular_file() && entry.path().extension() == ".json") try {
                    out.push_back(load_experiment(entry.path().string()));
                } catch (const std::exception&) {
                }
    std::sort(out.begin(), out.end(), [](const Experiment& a, const Experiment& b) {
        return std::tie(a.order, a.name) < std::tie(b.order, b.name);
    });
    return read.emplace(dir, std::move(out)).first->second;
}

}  // namespace fone::gui
