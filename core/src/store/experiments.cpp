// Experiment files: reading, checking and expanding their grids into cells (fone/store/experiments.h).
#include "fone/store/experiments.h"

#include "fone/io/file_read.h"
#include "fone/io/json_bounded.h"
#include "fone/io/shown_text.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "fone/store/run_store.h"
#include "fone/store/train_config.h"

namespace fone {

namespace fs = std::filesystem;
using nlohmann::json;
// Experiment files are read keeping their keys' order: a grid's axes nest in the order they are written.
using ojson = nlohmann::ordered_json;

namespace {

constexpr std::size_t kMaxExperimentCells = 10000;  // as a sweep's
// What one file may hold in all (1,000 presets of 10,000 cells took 11 GB and 10 minutes to read).
constexpr std::size_t kMaxExperimentPresets = 64;
constexpr std::size_t kMaxExperimentCellsInAll = 4 * kMaxExperimentCells;

// The labels each report reads from every row, and whether each is a number (else a string).
struct ReportNeeds {
    const char* report;
    std::vector<std::pair<const char*, bool>> labels;
};
const std::vector<ReportNeeds>& report_needs() {
    static const std::vector<ReportNeeds> needs = {
        {"efficiency", {{"task", false}, {"method", false}}},
        {"data-size", {{"method", false}, {"train_size", true}}},
        {"model-size", {{"method", false}, {"size_level", true}}},
        {"ablations", {{"variant", false}}},
        {"ntl", {{"method", false}, {"ntl_lambda", true}}},
        {"modular", {{"modulus", true}, {"method", false}}},
        {"grokking", {{"modulus", true}, {"method", false}}},
        {"peers", {{"task", false}, {"method", false}}},
        {"text", {{"method", false}}},
        {"text-scaling", {{"corpus", false}, {"size", false}, {"method", false}}},
        {"table", {}},
    };
    return needs;
}

// Where a problem is: the file, and the field path inside it ("presets.cpu.grid.seed[2]").
struct Where {
    std::string file, path;

    Where field(const std::string& key) const { return {file, path.empty() ? key : path + "." + key}; }
    Where item(std::size_t i) const { return {file, path + "[" + std::to_string(i) + "]"}; }
    [[noreturn]] void fail(const std::string& why) const {
        throw std::invalid_argument(file + ": " + (path.empty() ? "" : path + ": ") + why);
    }
};

// An experiment file may come from someone else: the files its runs read ("data", "init_from") are named
// relative to the folder `fone reproduce` runs in, and never above it, so that a file cannot make a run train
// on ~/.ssh/id_rsa (whose pieces would then be in the run's tokenizer.model, and in what it exports).
void check_paths_stay_here(const nlohmann::json& settings, const Where& w) {
    for (const char* key : {"data", "init_from"}) {
        const auto it = settings.find(key);
        if (it == settings.end() || !it->is_string() || it->get<std::string>().empty()) continue;
        const std::string path = it->get<std::string>();
        const fs::path p(path);
        bool climbs = false;
        for (const fs::path& part : p)
            climbs = climbs || part == "..";
        if (p.is_absolute() || path.front() == '~' || climbs)
            w.field(key).fail("'" + shown_text(path, 80) +
                              "': an experiment names its files relative to the folder it runs in, "
                              "without '..' (give another file with fone train --data)");
    }
}

ojson parse_ordered_json(std::string_view text, const std::string& path) {
    ojson j;
    std::string error;
    if (!parse_json_bounded(text, path, j, &error)) throw std::invalid_argument(error);  // depth limited
    return j;
}

ojson read_ordered_json(const std::string& path) {
    const FileRead file = read_regular_file(path, kMaxJsonFileBytes);
    if (!file.ok()) throw std::invalid_argument(file.error);
    return parse_ordered_json(file.text, path);
}

void check_keys(const ojson& obj, const std::set<std::string>& known, const Where& w) {
    for (auto it = obj.begin(); it != obj.end(); ++it)
        if (!known.count(it.key())) w.field(it.key()).fail("unknown field");
}

const ojson* find(const ojson& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

std::string string_field(const ojson& obj, const char* key, const Where& w, bool required) {
    const ojson* v = find(obj, key);
    if (!v) {
        if (required) w.field(key).fail("missing (a string)");
        return "";
    }
    if (!v->is_string() || (required && v->get<std::string>().empty())) w.field(key).fail("not a text");
    return v->get<std::string>();
}

json settings_field(const ojson& obj, const Where& w) {
    const ojson* v = find(obj, "settings");
    if (!v) return json::object();
    if (!v->is_object()) w.field("settings").fail("not an object of fone train settings");
    return json::parse(v->dump());
}

// True when s can be a word of a run name (an experiment's or a preset's name).
bool is_plain_name(const std::string& s) {
    return !s.empty() && s.front() != '.' && s.front() != '-' && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    });
}

// One value of an axis: the settings it sets, its part of the id, and labels that are not settings.
struct AxisValue {
    json settings = json::object();
    json labels = json::object();
    std::string id;
    bool has_id = false;
};

struct Axis {
    std::string name;
    std::vector<AxisValue> values;
};

std::string plain_text(const json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

AxisValue read_axis_value(const std::string& axis, const ojson& v, const Where& w) {
    AxisValue a;
    if (!v.is_object()) {  // a plain value: the setting named like the axis
        if (v.is_null()) w.fail("null is not a value");
        a.settings[axis] = json::parse(v.dump());
        a.id = plain_text(a.settings[axis]);
        a.has_id = true;
        return a;
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
        if (it.key() == "notes") continue;
        if (it.key() == "id") {
            if (!it->is_string()) w.field("id").fail("not a text");
            a.id = it->get<std::string>();
            a.has_id = true;
        } else if (it.key() == "labels") {
            if (!it->is_object()) w.field("labels").fail("not an object of label values");
            a.labels = json::parse(it->dump());
        } else {
            a.settings[it.key()] = json::parse(it->dump());
        }
    }
    return a;
}

std::vector<Axis> read_grid_object(const ojson& g, const Where& w) {
    if (!g.is_object() || g.empty()) w.fail("a grid is a non-empty object of axes (or a list of them)");
    std::vector<Axis> axes;
    for (auto it = g.begin(); it != g.end(); ++it) {
        if (it.key() == "notes") continue;
        const Where at = w.field(it.key());
        if (!it->is_array() || it->empty()) at.fail("an axis is a non-empty list of values");
        Axis axis{it.key(), {}};
        for (std::size_t i = 0; i < it->size(); ++i)
            axis.values.push_back(read_axis_value(it.key(), (*it)[i], at.item(i)));
        axes.push_back(std::move(axis));
    }
    return axes;
}

// The experiment's fields every preset shares.
struct Template {
    std::string name, id;
    std::vector<std::string> labels;
    json settings;
    std::string report;
};

// A cell's id from the template: {k} is axis k's part (a plain value, or an object value's "id"), else
// the cell's setting k.
std::string render_id(const Template& t, const std::vector<Axis>& axes, const std::vector<std::size_t>& pick,
                      const json& settings, const Where& w) {
    std::string out;
    for (std::size_t pos = 0; pos < t.id.size();) {
        const std::size_t open = t.id.find('{', pos);
        if (open == std::string::npos) {
            out += t.id.substr(pos);
            break;
        }
        const std::size_t close = t.id.find('}', open);
        if (close == std::string::npos) w.fail("\"id\": an unclosed '{' in \"" + t.id + "\"");
        out += t.id.substr(pos, open - pos);
        const std::string key = t.id.substr(open + 1, close - open - 1);
        bool found = false;
        for (std::size_t a = 0; a < axes.size() && !found; ++a)
            if (axes[a].name == key && axes[a].values[pick[a]].has_id) {
                out += axes[a].values[pick[a]].id;
                found = true;
            }
        if (!found && settings.contains(key)) {
            out += plain_text(settings[key]);
            found = true;
        }
        if (!found) w.fail("\"id\": {" + key + "} is neither an axis nor a setting of the cell");
        pos = close + 1;
    }
    return out;
}

ExperimentCell make_cell(const Template& t, const json& base, const std::vector<Axis>& axes,
                         const std::vector<std::size_t>& pick, const Where& w) {
    ExperimentCell c;
    c.settings = base;
    for (std::size_t a = 0; a < axes.size(); ++a)
        c.settings.merge_patch(axes[a].values[pick[a]].settings);
    c.labels = json::object();
    for (const std::string& l : t.labels)
        if (c.settings.contains(l)) c.labels[l] = c.settings[l];
    for (std::size_t a = 0; a < axes.size(); ++a)
        c.labels.merge_patch(axes[a].values[pick[a]].labels);
    c.id = render_id(t, axes, pick, c.settings, w);
    for (const std::string& l : t.labels)
        if (!c.labels.contains(l)) w.fail("cell " + c.id + ": label \"" + l + "\" is not among its settings");
    return c;
}

// Every combination of the axes' values, the first axis slowest.
void expand_grid(const Template& t, const json& base, const std::vector<Axis>& axes, const Where& w,
                 std::vector<ExperimentCell>& cells) {
    std::size_t count = 1;
    for (const Axis& a : axes)
        if ((count *= a.values.size()) + cells.size() > kMaxExperimentCells)
            w.fail("more than " + std::to_string(kMaxExperimentCells) + " cells in one preset");
    std::vector<std::size_t> pick(axes.size(), 0);
    while (true) {
        cells.push_back(make_cell(t, base, axes, pick, w));
        std::size_t a = axes.size();
        while (a > 0 && ++pick[a - 1] == axes[a - 1].values.size())
            pick[--a] = 0;
        if (a == 0) return;
    }
}

std::vector<ExperimentCell> read_grid(const Template& t, const json& base, const ojson& grid,
                                      const Where& w) {
    std::vector<ExperimentCell> cells;
    if (grid.is_array()) {
        if (grid.empty()) w.fail("an empty list of grids");
        for (std::size_t i = 0; i < grid.size(); ++i)
            expand_grid(t, base, read_grid_object(grid[i], w.item(i)), w.item(i), cells);
    } else {
        expand_grid(t, base, read_grid_object(grid, w), w, cells);
    }
    return cells;
}

// Each cell as `fone reproduce` will run it: a unique id, a valid run name, settings `fone train` takes,
// and the labels its report reads.
void check_cells(const Template& t, const std::string& preset, const std::vector<ExperimentCell>& cells,
                 const Where& w) {
    const auto needs = std::find_if(report_needs().begin(), report_needs().end(),
                                    [&](const ReportNeeds& n) { return t.report == n.report; });
    std::set<std::string> ids;
    for (const ExperimentCell& c : cells) {
        const Where at{w.file, w.path + ": cell " + c.id};
        if (!ids.insert(c.id).second) at.fail("two cells have this id (\"id\" must tell them apart)");
        const std::string run = "repro-" + t.name + "-" + preset + "-" + c.id;
        if (const std::string why = run_name_problem(run); !why.empty())
            at.fail("its run name '" + run + "' is not valid: " + why);
        try {
            json st = c.settings;
            st["name"] = run;
            resolve_train_config({st});
        } catch (const std::invalid_argument& e) {
            std::string why = e.what();
            std::replace(why.begin(), why.end(), '\n', ';');
            at.fail(why);
        }
        for (const auto& [label, number] : needs->labels) {
            const auto it = c.labels.find(label);
            if (it == c.labels.end() || (number ? !it->is_number() : !it->is_string()))
                at.fail("the \"" + t.report + "\" report needs the label \"" + label + "\" (" +
                        (number ? "a number" : "a text") + ")");
        }
    }
}

// The file's grid with some axes replaced by a preset's (each must be an axis of the grid).
ojson with_axes(ojson grid, const ojson& axes, const Where& w) {
    if (!axes.is_object() || axes.empty())
        w.fail("an object of axes, each replacing the grid's axis of its name");
    std::set<std::string> used;
    const auto patch = [&](ojson& g) {
        if (!g.is_object()) return;
        for (auto it = axes.begin(); it != axes.end(); ++it)
            if (g.contains(it.key())) {
                g[it.key()] = *it;
                used.insert(it.key());
            }
    };
    if (grid.is_array())
        for (ojson& g : grid)
            patch(g);
    else
        patch(grid);
    for (auto it = axes.begin(); it != axes.end(); ++it)
        if (it.key() != "notes" && !used.count(it.key()))
            w.field(it.key()).fail("the file's grid has no such axis");
    return grid;
}

ExperimentPreset read_preset(const Template& t, const ojson& file_grid, const std::string& name,
                             const ojson& p, const Where& w) {
    if (!is_plain_name(name)) w.fail("a preset's name is letters, digits, '.', '_' and '-' (it names runs)");
    if (!p.is_object()) w.fail("a preset is an object (\"description\", \"settings\", \"grid\")");
    check_keys(p, {"description", "settings", "grid", "axes", "notes"}, w);
    ExperimentPreset preset;
    preset.name = name;
    preset.description = string_field(p, "description", w, false);
    json base = t.settings;
    base.merge_patch(settings_field(p, w));
    const ojson* grid = find(p, "grid");
    const ojson* axes = find(p, "axes");
    if (grid && axes) w.fail("either a \"grid\" of its own or \"axes\" replacing the file's, not both");
    if (grid)
        preset.cells = read_grid(t, base, *grid, w.field("grid"));
    else if (!file_grid.is_null())
        preset.cells = read_grid(t, base, axes ? with_axes(file_grid, *axes, w.field("axes")) : file_grid,
                                 Where{w.file, axes ? w.path + " (the file's grid with its axes)" : "grid"});
    else
        w.fail("no \"grid\" (here, or for every preset at the top)");
    check_cells(t, name, preset.cells, w);
    return preset;
}

Template read_template(const std::string& name, const ojson& doc, const Where& w) {
    Template t;
    t.name = name;
    t.id = string_field(doc, "id", w, true);
    t.report = find(doc, "report") ? string_field(doc, "report", w, true) : "table";
    const auto reports = experiment_reports();
    if (std::find(reports.begin(), reports.end(), t.report) == reports.end()) {
        std::string list;
        for (const auto& r : reports)
            list += (list.empty() ? "" : ", ") + r;
        w.field("report").fail("unknown report '" + t.report + "' (reports: " + list + ")");
    }
    if (const ojson* labels = find(doc, "labels")) {
        if (!labels->is_array()) w.field("labels").fail("a list of setting names");
        for (std::size_t i = 0; i < labels->size(); ++i) {
            if (!(*labels)[i].is_string()) w.field("labels").item(i).fail("not a text");
            t.labels.push_back((*labels)[i].get<std::string>());
        }
    }
    t.settings = settings_field(doc, w);
    return t;
}

// The experiments of a folder by "order", then name, without checking them (for a message).
std::vector<std::string> names_in(const std::string& dir) {
    std::vector<std::pair<long long, std::string>> found;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() != ".json") continue;
        long long order = 1000;
        try {
            const ojson doc = read_ordered_json(it->path().string());
            if (const ojson* o = doc.is_object() ? find(doc, "order") : nullptr; o && o->is_number_integer())
                order = o->get<long long>();
        } catch (const std::exception&) {  // a bad file sorts last; loading it names the problem
        }
        found.emplace_back(order, it->path().stem().string());
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> names;
    for (const auto& f : found)
        names.push_back(f.second);
    return names;
}

}  // namespace

const ExperimentPreset& Experiment::preset(const std::string& wanted) const {
    for (const ExperimentPreset& p : presets)
        if (p.name == wanted) return p;
    std::string list;
    for (const ExperimentPreset& p : presets)
        list += (list.empty() ? "" : ", ") + p.name;
    throw std::invalid_argument("unknown preset '" + wanted + "' (presets: " + list + ")");
}

std::vector<std::string> experiment_reports() {
    std::vector<std::string> names;
    for (const ReportNeeds& n : report_needs())
        names.push_back(n.report);
    return names;
}

Experiment load_experiment(const std::string& path) {
    const FileRead file = read_regular_file(path, kMaxJsonFileBytes);
    if (!file.ok()) throw std::invalid_argument(file.error);
    return parse_experiment(file.text, path);
}

Experiment parse_experiment(std::string_view text, const std::string& path) {
    const Where w{path, ""};
    const ojson doc = parse_ordered_json(text, path);
    if (!doc.is_object()) w.fail("an experiment file is a JSON object");
    check_keys(doc,
               {"title", "description", "order", "report", "id", "labels", "settings", "grid", "presets",
                "notes", "measure"},
               w);
    Experiment e;
    e.name = fs::path(path).stem().string();
    if (!is_plain_name(e.name))
        w.fail("the file's name is letters, digits, '.', '_' and '-' (it names runs)");
    e.file = path;
    e.title = string_field(doc, "title", w, true);
    e.description = string_field(doc, "description", w, true);
    if (const ojson* order = find(doc, "order")) {
        if (!order->is_number_integer()) w.field("order").fail("not a whole number");
        e.order = order->get<int>();
    }
    if (const ojson* measure = find(doc, "measure")) {
        if (!measure->is_object())
            w.field("measure").fail("an object (what a program that runs it measures)");
        e.measure = nlohmann::json::parse(measure->dump());
    }
    const Template t = read_template(e.name, doc, w);
    e.report = t.report;
    const ojson* presets = find(doc, "presets");
    if (!presets || !presets->is_object() || presets->empty())
        w.field("presets").fail("missing: an object of presets, e.g. {\"quick\": {...}}");
    if (presets->size() > kMaxExperimentPresets)
        w.field("presets").fail("more than " + std::to_string(kMaxExperimentPresets) +
                                " presets in one file");
    const ojson* grid = find(doc, "grid");
    std::size_t cells = 0;
    for (auto it = presets->begin(); it != presets->end(); ++it) {
        e.presets.push_back(
            read_preset(t, grid ? *grid : ojson(), it.key(), *it, w.field("presets").field(it.key())));
        if ((cells += e.presets.back().cells.size()) > kMaxExperimentCellsInAll)
            w.field("presets").fail("more than " + std::to_string(kMaxExperimentCellsInAll) +
                                    " cells in all its presets");
        for (const ExperimentCell& c : e.presets.back().cells)
            check_paths_stay_here(c.settings, w.field("presets").field(it.key()));
    }
    return e;
}

std::vector<Experiment> load_experiments(const std::string& dir) {
    std::vector<Experiment> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".json") out.push_back(load_experiment(it->path().string()));
    if (ec) throw std::invalid_argument(dir + ": cannot list the experiments: " + ec.message());
    std::sort(out.begin(), out.end(), [](const Experiment& a, const Experiment& b) {
        return a.order != b.order ? a.order < b.order : a.name < b.name;
    });
    return out;
}

std::string experiments_dir() {
    if (const char* d = std::getenv("FONE_EXPERIMENTS_DIR"); d && *d) return d;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = exe.parent_path() / ".." / "share" / "fone-workbench" / "experiments";
        if (fs::is_directory(installed, ec)) return installed.lexically_normal().string();
    }
#ifdef FONE_EXPERIMENTS_SOURCE_DIR
    if (fs::is_directory(FONE_EXPERIMENTS_SOURCE_DIR, ec)) return FONE_EXPERIMENTS_SOURCE_DIR;
#endif
    return "";
}

Experiment find_recipe(const std::string& name) {
    const std::string dir = experiments_dir();
    if (dir.empty() || !is_plain_name(name))
        throw std::invalid_argument(
            "no recipe '" + name + "': no experiments folder (" + kRecipesFolder +
            "/ of share/fone-workbench/experiments, the source tree's experiments/ or "
            "$FONE_EXPERIMENTS_DIR)");
    return load_experiment((fs::path(dir) / kRecipesFolder / (name + ".json")).string());
}

Experiment find_experiment(const std::string& name_or_file) {
    const bool is_file = name_or_file.find('/') != std::string::npos ||
                         (name_or_file.size() > 5 && name_or_file.ends_with(".json"));
    if (is_file) return load_experiment(name_or_file);
    const std::string dir = experiments_dir();
    if (dir.empty())
        throw std::invalid_argument(
            "no experiments folder (share/fone-workbench/experiments beside fone, the source tree's "
            "experiments/, or $FONE_EXPERIMENTS_DIR)");
    const fs::path file = fs::path(dir) / (name_or_file + ".json");
    std::error_code ec;
    if (is_plain_name(name_or_file) && fs::is_regular_file(file, ec)) return load_experiment(file.string());
    std::string list;
    for (const std::string& n : names_in(dir))
        list += (list.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown experiment '" + name_or_file + "' (experiments: " + list + ")");
}

}  // namespace fone
