// Experiments as files (nanoGPT's habit): each experiment `fone reproduce` runs is one JSON file in the
// experiments/ folder (installed as share/fone-workbench/experiments); a new file is a new experiment, and
// `fone reproduce --list` shows them. docs/reproduction.md describes the format; in short:
//
//   {"title": "Exact match against training-set size",        the heading of results.md
//    "description": "exact match against training-set size",   one line for --list
//    "order": 2,                                               where --list puts it (optional)
//    "report": "data-size",                                    which tables and plots (optional: "table")
//    "id": "{method}-n{train_size}-s{seed}",                   a cell's id: its run is repro-NAME-PRESET-ID
//    "labels": ["method", "train_size", "seed"],               settings the tables group by (optional)
//    "settings": {"task": "dec-add", "val_size": 0},           every cell's (optional)
//    "grid": {...},                                            every preset's cells, unless it has its own
//    "presets": {"quick": {"description": "...", "settings": {...}, "axes": {...}}, "cpu": {...}}}
//
// A grid is an object of axes (or a list of such objects, their cells one after the other); the first
// axis varies slowest. A preset takes the file's grid, or the file's grid with the axes of its "axes"
// replaced, or a "grid" of its own. An axis is a list of values: a plain value v of axis "k" sets the setting
// k (and is {k} in the id); an object value sets several settings at once and may carry "id" (its part of the
// id, {k}) and "labels" (label values that are not settings). A cell's settings are the file's, then the
// preset's, then its axis values' (each a JSON merge patch: a "model" object merges into the model).
// "notes" (text) may stand anywhere a field may: it is for the reader and ignored.
//
// At most 10,000 cells per preset. Bad files are std::invalid_argument naming the file and the field
// ("experiments/x.json: presets.cpu: grid: axis \"seed\": ..."); every cell's settings are checked as `fone
// train` would check them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace fone {

struct ExperimentCell {
    std::string id;           // unique within its preset, part of the run name
    nlohmann::json labels;    // what the tables group by (task, method, variant, train_size, ...)
    nlohmann::json settings;  // TrainConfig keys
};

struct ExperimentPreset {
    std::string name, description;
    std::vector<ExperimentCell> cells;
};

struct Experiment {
    std::string name;  // the file's name without ".json"
    std::string file;  // its path
    std::string title, description;
    std::string report;  // one of experiment_reports()
    int order = 1000;
    std::vector<ExperimentPreset> presets;  // in the file's order
    // "measure" (optional): what a program that runs the experiment itself measures, free-form (the text
    // comparison's CPU-second budget, bench/text_compare.py). `fone reproduce` ignores it.
    nlohmann::json measure = nlohmann::json::object();

    // std::invalid_argument "unknown preset 'x' (presets: quick, cpu, full)".
    const ExperimentPreset& preset(const std::string& name) const;
};

// The report kinds `fone reproduce` knows (app/cli/cmd_reproduce_report.cpp), each needing some labels:
// efficiency (task, method), data-size (method, train_size), model-size (method, size_level), ablations
// (variant), ntl (method, ntl_lambda), modular (modulus, method), peers (task, method: means over seeds of
// exact match, log-sMAPE and training CPU), text (method: a text run's perplexities and number measures,
// mean and spread over seeds), text-scaling (corpus, size, method: the FoNE/digit text-perplexity ratio
// against parameters, per corpus; issue 41), table (none: one row per cell).
std::vector<std::string> experiment_reports();

// One file. Its name is the file's name without ".json".
Experiment load_experiment(const std::string& path);
// The same for text already read (path names it and gives the name); the experiment fuzzer's entry point.
Experiment parse_experiment(std::string_view text, const std::string& path);
// Every *.json in dir, by "order", then name.
std::vector<Experiment> load_experiments(const std::string& dir);
// The experiments folder: $FONE_EXPERIMENTS_DIR, else share/fone-workbench/experiments beside the running
// program (an installed fone), else the source tree's experiments/ (a build tree). "" when none exists.
std::string experiments_dir();
// The recipes the window and the benchmarks start from (nanoGPT's configs): experiment files in the
// experiments folder's recipes/ subfolder, which `fone reproduce --list` does not list (they are not the
// paper's experiments) but `fone reproduce experiments/recipes/NAME.json` runs. launch: the Launch panel's
// presets; welcome-race: the Welcome view's live race; text-compare: bench/text_compare.py's comparison.
inline constexpr const char* kRecipesFolder = "recipes";
// A recipe by name. std::invalid_argument naming the file for a missing or bad one.
Experiment find_recipe(const std::string& name);
// An experiment by name (in experiments_dir()) or by the path of a .json file. std::invalid_argument
// "unknown experiment 'x' (experiments: efficiency, ...)".
Experiment find_experiment(const std::string& name_or_file);

}  // namespace fone
