// LaunchPanel's presets: the Preset menu (experiments/recipes/launch.json's entries, then the text and
// pretrained-model experiments of `fone reproduce`) and what applying one does to the form.
#include <QComboBox>
#include <QLineEdit>

#include "fone/store/experiments.h"
#include "launch_panel.h"
#include "recipes.h"

namespace fone::gui {

using nlohmann::json;

namespace {

struct Preset {
    QString title;
    json settings;
};

// The Preset menu is a recipe (experiments/recipes/launch.json): one entry per cell, titled by its labels.
// Without the file (a broken install) the menu's first part is empty and its tooltip says why. Then the
// text and pretrained-model experiments of `fone reproduce` (their quick preset, else their first), one
// entry per cell: the runs a terminal made before, from the window. Paths in a recipe ("data", "init_from")
// are relative to the folder `fone reproduce` runs from (recipe_path).
std::vector<Preset> presets(QString* problem = nullptr, int* recipe_entries = nullptr) {
    std::vector<Preset> out;
    const auto with_paths = [](json settings) {
        for (const char* key : {"data", "init_from"})
            if (settings.contains(key) && settings[key].is_string())
                settings[key] = recipe_path(setting_text(settings[key])).toStdString();
        return settings;
    };
    try {
        for (const ExperimentCell& cell : window_recipe("launch").preset("window").cells)
            out.push_back(
                {QString::fromStdString(cell.labels.value("title", cell.id)), with_paths(cell.settings)});
    } catch (const std::exception& e) {
        if (problem) *problem = QString::fromStdString(e.what());
    }
    if (recipe_entries) *recipe_entries = static_cast<int>(out.size());
    for (const Experiment& e : reproduce_experiments()) {
        if (e.presets.empty()) continue;
        const ExperimentPreset* preset = &e.presets.front();
        for (const ExperimentPreset& p : e.presets)
            if (p.name == "quick") preset = &p;
        if (preset->cells.empty() || launch_kind_of(preset->cells.front().settings) == LaunchKind::arithmetic)
            continue;
        for (const ExperimentCell& cell : preset->cells)
            out.push_back({QStringLiteral("fone reproduce %1 (%2): %3")
                               .arg(QString::fromStdString(e.name), QString::fromStdString(preset->name),
                                    QString::fromStdString(cell.id)),
                           with_paths(cell.settings)});
    }
    return out;
}

}  // namespace

void LaunchPanel::fill_presets() {
    presets_->addItem("Choose a preset…");
    QString problem;
    int recipe_entries = 0;
    const std::vector<Preset> all = presets(&problem, &recipe_entries);
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (static_cast<int>(i) == recipe_entries) presets_->insertSeparator(presets_->count());
        presets_->addItem(all[i].title);
        presets_->setItemData(presets_->count() - 1, QString::fromStdString(all[i].settings.dump()),
                              Qt::ToolTipRole);
    }
    presets_->setToolTip(
        problem.isEmpty()
            ? "Fill the fields with a recipe (experiments/recipes/launch.json), or with a cell of one of "
              "fone reproduce's text experiments. \"Paper\" is the paper's training recipe: size level 4, "
              "lr 5e-3, batch 512, 100 epochs, 20% warm-up then cosine, clip 1.0."
            : "No presets: " + problem);
}

QStringList LaunchPanel::preset_titles() const {
    QStringList out;
    for (const Preset& p : presets())
        out << p.title;
    return out;
}

void LaunchPanel::apply_preset(const QString& title) {
    for (const Preset& p : presets()) {
        if (title != p.title) continue;
        load_settings(p.settings);
        recipe_ = title;
        // What the form cannot show is kept and sent with it (settings()), and named in "Will train".
        for (auto it = p.settings.begin(); it != p.settings.end(); ++it) {
            const QString key = QString::fromStdString(it.key());
            if (key == "model" && it->is_object()) {
                for (auto m = it->begin(); m != it->end(); ++m)
                    if (!edits_.contains(QString::fromStdString(m.key()))) extra_["model"][m.key()] = *m;
            } else if (!edits_.contains(key) && !combos_.contains(key) &&
                       !QStringList{"data", "init_from", "size_level", "preset"}.contains(key)) {
                extra_[it.key()] = *it;
            }
        }
        validate();
    }
}

}  // namespace fone::gui
