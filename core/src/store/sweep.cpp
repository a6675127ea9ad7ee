// Sweep grids, cell names and the sweep file (fone/store/sweep.h).
#include "fone/store/sweep.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include "fone/store/run_store.h"
#include "fone/store/train_config.h"

namespace fone {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxSweepName = 80;
constexpr std::size_t kMaxRunName = 120;  // the run store's limit

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string string_field(const json& j, const char* key) {
    if (!j.is_object()) return "";
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> split_list(const std::string& label, const std::string& text) {
    if (trim(text).empty()) throw std::invalid_argument(label + ": the list is empty");
    std::vector<std::string> items;
    std::size_t pos = 0;
    while (true) {
        const std::size_t comma = text.find(',', pos);
        const std::string item =
            trim(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        if (item.empty()) throw std::invalid_argument(label + ": empty item in '" + text + "'");
        items.push_back(item);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return items;
}

std::uint64_t parse_whole(const std::string& label, const std::string& item) {
    std::uint64_t v = 0;
    const char* end = item.data() + item.size();
    const auto [p, ec] = std::from_chars(item.data(), end, v);
    if (ec == std::errc::result_out_of_range)
        throw std::invalid_argument(label + ": '" + item + "' is too large");
    if (ec != std::errc() || p != end || item.empty() || item[0] == '-')
        throw std::invalid_argument(label + ": '" + item + "' is not a whole number");
    return v;
}

template <typename T>
void check_unique(const std::string& label, const std::vector<T>& values) {
    std::set<T> seen;
    for (const T& v : values)
        if (!seen.insert(v).second) {
            std::ostringstream s;
            s << label << ": " << v << " is given twice";
            throw std::invalid_argument(s.str());
        }
}

std::vector<std::uint64_t> parse_range(const std::string& label, const std::string& text) {
    const std::string t = trim(text);
    const auto colon = t.find(':');
    const std::string a_text = trim(t.substr(0, colon)), b_text = trim(t.substr(colon + 1));
    if (t.find(':', colon + 1) != std::string::npos || t.find(',') != std::string::npos || a_text.empty() ||
        b_text.empty())
        throw std::invalid_argument(label + ": a range is A:B (doubling from A to at most B), not '" + text +
                                    "'");
    const std::uint64_t a = parse_whole(label, a_text), b = parse_whole(label, b_text);
    if (a < 1) throw std::invalid_argument(label + ": the range " + t + " must start at 1 or more");
    if (a > b) throw std::invalid_argument(label + ": the range " + t + " goes down (A must be at most B)");
    return doubling_sizes(a, b);
}

}  // namespace

bool SweepGrid::empty() const {
    return train_sizes.empty() && size_levels.empty() && methods.empty() && seeds.empty();
}

std::uint64_t SweepGrid::cell_count() const {
    std::uint64_t n = 1;
    for (const std::size_t k : {train_sizes.size(), size_levels.size(), methods.size(), seeds.size()}) {
        n *= std::max<std::size_t>(k, 1);
        if (n > kMaxSweepCells) return n;  // enough to know it is too many, without overflowing
    }
    return n;
}

json SweepGrid::to_json() const {
    json g = json::object();
    if (!train_sizes.empty()) g["train_sizes"] = train_sizes;
    if (!size_levels.empty()) {
        json levels = json::array();
        for (const auto& l : size_levels)
            levels.push_back(l ? json(*l) : json());
        g["size_levels"] = levels;
    }
    if (!methods.empty()) g["methods"] = methods;
    if (!seeds.empty()) g["seeds"] = seeds;
    return g;
}

std::vector<std::uint64_t> doubling_sizes(std::uint64_t from, std::uint64_t to) {
    std::vector<std::uint64_t> out;
    if (from < 1 || from > to) return out;
    for (std::uint64_t v = from;; v *= 2) {
        out.push_back(v);
        if (v > to / 2) break;  // the next doubling would pass `to` (and never overflows)
    }
    return out;
}

std::vector<std::uint64_t> parse_train_sizes(const std::string& label, const std::string& text) {
    if (text.find(':') != std::string::npos) return parse_range(label, text);
    std::vector<std::uint64_t> values;
    for (const std::string& item : split_list(label, text)) {
        const std::uint64_t v = parse_whole(label, item);
        if (v < 1)
            throw std::invalid_argument(label + ": a training-set size must be at least 1, not " + item);
        values.push_back(v);
    }
    check_unique(label, values);
    return values;
}

std::vector<std::uint64_t> parse_size_levels(const std::string& label, const std::string& text) {
    std::vector<std::uint64_t> values;
    for (const std::string& item : split_list(label, text)) {
        const std::uint64_t v = parse_whole(label, item);
        if (v > 6)
            throw std::invalid_argument(label + ": a size level is 1..6 (0: the custom shape), not " + item);
        values.push_back(v);
    }
    check_unique(label, values);
    return values;
}

std::vector<std::string> parse_methods(const std::string& label, const std::string& text) {
    const std::vector<std::string> known = method_names();
    std::vector<std::string> values;
    for (const std::string& item : split_list(label, text)) {
        if (std::find(known.begin(), known.end(), item) == known.end()) {
            std::string list;
            for (const auto& k : known)
                list += (list.empty() ? "" : ", ") + k;
            throw std::invalid_argument(label + ": unknown method '" + item + "' (this build: " + list + ")");
        }
        values.push_back(item);
    }
    check_unique(label, values);
    return values;
}

std::vector<std::uint64_t> parse_seeds(const std::string& label, const std::string& text) {
    std::vector<std::uint64_t> values;
    for (const std::string& item : split_list(label, text))
        values.push_back(parse_whole(label, item));
    check_unique(label, values);
    return values;
}

void check_grid_size(const SweepGrid& grid) {
    if (grid.cell_count() > kMaxSweepCells)
        throw std::invalid_argument("the grid has more than " + std::to_string(kMaxSweepCells) +
                                    " cells; split it into several sweeps");
}

std::string sweep_name_problem(const std::string& name) {
    if (name.empty()) return "a sweep name may not be empty";
    if (name.size() > kMaxSweepName)
        return "a sweep name may have at most " + std::to_string(kMaxSweepName) + " characters";
    const auto ok = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '_' || c == '-';
    };
    if (!std::all_of(name.begin(), name.end(), ok) || name.front() == '.' || name.front() == '-' ||
        name.find(".tmp-") != std::string::npos)
        return "a sweep name is letters, digits, '.', '_' and '-', starting with a letter or digit";
    return "";
}

std::vector<std::string> SweepPoint::train_args() const {
    std::vector<std::string> args;
    if (train_size) args.insert(args.end(), {"--train-size", std::to_string(*train_size)});
    if (size_level) args.insert(args.end(), {"--size-level", std::to_string(*size_level)});
    if (method) args.insert(args.end(), {"--method", *method});
    if (seed) args.insert(args.end(), {"--seed", std::to_string(*seed)});
    return args;
}

std::vector<SweepPoint> expand_sweep(const std::string& sweep, const SweepGrid& g) {
    // An axis not given is one "absent" value: no option and no part of the name.
    const auto or_absent = [](std::size_t n) { return std::max<std::size_t>(n, 1); };
    std::vector<SweepPoint> points;
    for (std::size_t a = 0; a < or_absent(g.train_sizes.size()); ++a)
        for (std::size_t b = 0; b < or_absent(g.size_levels.size()); ++b)
            for (std::size_t c = 0; c < or_absent(g.methods.size()); ++c)
                for (std::size_t d = 0; d < or_absent(g.seeds.size()); ++d) {
                    SweepPoint p;
                    p.run = sweep;
                    if (!g.train_sizes.empty()) p.train_size = g.train_sizes[a];
                    if (!g.size_levels.empty()) p.size_level = g.size_levels[b];
                    if (!g.methods.empty()) p.method = g.methods[c];
                    if (!g.seeds.empty()) p.seed = g.seeds[d];
                    if (p.train_size) p.run += "-n" + std::to_string(*p.train_size);
                    if (p.size_level) p.run += "-l" + std::to_string(*p.size_level);
                    if (p.method) p.run += "-" + *p.method;
                    if (p.seed) p.run += "-s" + std::to_string(*p.seed);
                    if (p.run.size() > kMaxRunName)
                        throw std::invalid_argument("run name '" + p.run + "' is longer than " +
                                                    std::to_string(kMaxRunName) +
                                                    " characters: shorten --name");
                    points.push_back(std::move(p));
                }
    return points;
}

bool names_option(const std::vector<std::string>& args, const std::string& opt) {
    return std::any_of(args.begin(), args.end(),
                       [&](const std::string& a) { return a == opt || a.rfind(opt + "=", 0) == 0; });
}

void check_shared_args(const std::vector<std::string>& shared, const SweepGrid& g) {
    if (!shared.empty() && shared.front() == "train")
        throw std::invalid_argument(
            "the options after -- are fone train's options, without the word 'train'");
    for (const char* opt : {"--name", "--runs-dir", "--resume"})
        if (names_option(shared, opt))
            throw std::invalid_argument(std::string(opt) +
                                        " may not be among the shared train options: the sweep sets it");
    const std::pair<const char*, bool> axes[] = {{"--train-size", !g.train_sizes.empty()},
                                                 {"--size-level", !g.size_levels.empty()},
                                                 {"--method", !g.methods.empty()},
                                                 {"--seed", !g.seeds.empty()}};
    for (const auto& [opt, given] : axes)
        if (given && names_option(shared, opt))
            throw std::invalid_argument(
                std::string(opt) + " among the shared train options conflicts with the " + opt + "s axis");
}

std::vector<SweepCell> sweep_cells(const std::string& sweep, const SweepGrid& grid,
                                   const std::vector<std::string>& shared) {
    std::vector<SweepCell> cells;
    for (const SweepPoint& p : expand_sweep(sweep, grid)) {
        SweepCell c{p.run, shared};
        const std::vector<std::string> axes = p.train_args();
        c.args.insert(c.args.end(), axes.begin(), axes.end());
        c.args.insert(c.args.end(), {"--name", p.run});
        cells.push_back(std::move(c));
    }
    return cells;
}

json cells_json(const std::vector<SweepCell>& cells) {
    json list = json::array();
    for (const SweepCell& c : cells)
        list.push_back({{"run", c.run}, {"args", c.args}});
    return list;
}

json SweepFile::to_json() const {
    return {{"format", kSweepFormat},
            {"sweep", sweep},
            {"created", created},
            {"grid", grid},
            {"shared_args", shared_args},
            {"parallel", parallel},
            {"logs", logs},
            {"cells", cells_json(cells)}};
}

std::string sweep_file_path(const std::string& root, const std::string& sweep) {
    return (fs::path(root) / (sweep + ".sweep.json")).string();
}

std::string sweep_logs_dir(const std::string& root, const std::string& sweep) {
    return (fs::path(root) / ("." + sweep + ".logs")).string();
}

SweepFile read_sweep_file(const std::string& path) {
    const json doc = read_json_file(path);  // RunError naming the file when missing or corrupt
    const auto bad = [&](const std::string& why) {
        return RunError(path + ": not a sweep file (" + why + ")");
    };
    if (!doc.is_object()) throw bad("not a JSON object");
    if (const auto it = doc.find("format"); it != doc.end()) {
        if (!it->is_number_integer()) throw bad("\"format\" is not an integer");
        if (it->get<int>() > kSweepFormat)
            throw RunError(path + ": sweep file format " + std::to_string(it->get<int>()) +
                           " is newer than this fone reads (" + std::to_string(kSweepFormat) + ")");
    }
    const auto cells = doc.find("cells");
    if (cells == doc.end() || !cells->is_array() || cells->empty()) throw bad("no \"cells\" list");
    SweepFile f;
    std::set<std::string> names;
    for (const json& c : *cells) {
        SweepCell cell{string_field(c, "run"), {}};
        if (cell.run.empty() || cell.run.find('/') != std::string::npos || cell.run.front() == '.')
            throw bad("a cell without a valid \"run\"");
        if (!names.insert(cell.run).second) throw bad("run '" + cell.run + "' appears twice");
        const auto args = c.find("args");
        if (args == c.end() || !args->is_array()) throw bad("cell '" + cell.run + "' has no \"args\" list");
        for (const json& a : *args) {
            if (!a.is_string()) throw bad("cell '" + cell.run + "' has an argument that is not a string");
            cell.args.push_back(a.get<std::string>());
        }
        f.cells.push_back(std::move(cell));
    }
    f.sweep = string_field(doc, "sweep");
    f.created = string_field(doc, "created");
    f.logs = string_field(doc, "logs");
    if (const auto it = doc.find("grid"); it != doc.end() && it->is_object()) f.grid = *it;
    if (const auto it = doc.find("shared_args"); it != doc.end() && it->is_array())
        for (const json& a : *it)
            if (a.is_string()) f.shared_args.push_back(a.get<std::string>());
    if (const auto it = doc.find("parallel");
        it != doc.end() && it->is_number_integer() && it->get<int>() >= 0)
        f.parallel = it->get<int>();
    return f;
}

void write_sweep_file(const std::string& path, const SweepFile& file) {
    write_json_atomic(path, file.to_json());
}

}  // namespace fone
