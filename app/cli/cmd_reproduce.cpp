// fone reproduce EXPERIMENT [--preset quick|cpu|full]: the paper's experiments, scaled to a machine.
// Every cell is an ordinary run in the store (named repro-EXPERIMENT-PRESET-CELL, so the workbench shows
// them and an interrupted reproduction picks up where it stopped: finished runs are reused, interrupted
// ones resumed). The results go to --out (default results/EXPERIMENT-PRESET): results.csv, results.md
// and the plots; the markdown table is printed on stdout.
//
//   efficiency  train time per epoch, test time, tokens per number, accuracy: fone/digit/subword/xval on
//               decimal addition, subtraction and multiplication (paper Table "Training and inference
//               efficiency")
//   data-size   exact match against training-set size (doubling), 6-digit decimal addition
//   model-size  exact match against the paper's size levels at one data size
//   ablations   FoNE periods 10 / {2,5,10} / 5 / 7 and zero-pad vs linear input; for mod-5 the share of
//               mispredictions whose wrong digits are off by exactly 5 (paper Table of mispredictions)
//   ntl         Number Token Loss (on digit and subword tokens, lambda 0.15/0.3/0.8) against FoNE on
//               4-digit addition (and 3-digit multiplication in the full preset; paper appendix K)
//   modular     (a + b) mod p for p = 97, 100, 113, 121, 256, 257
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "commands.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "fone/train/inference.h"
#include "fone/train/training.h"
#include "json_io.h"

#ifdef FONE_WITH_PLOTS
#include "analysis_plots.h"
#endif

namespace fone::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Cell {
    std::string id;  // unique within the experiment, part of the run name
    json labels;     // what the tables group by: task, method, variant, train_size, size_level, seed
    json settings;   // TrainConfig keys
};

struct Experiment {
    std::string name, title;
    std::vector<Cell> cells;
};

// One experiment's scale: its training-set size, epochs (0: the defaults for the size, docs/training.md)
// and model (null: the default for the size; else TrainConfig "model" keys given to every cell, so that
// every method trains the same model).
struct Part {
    std::size_t train_size = 0;
    int epochs = 0;
    json model;
};

struct Scale {
    std::size_t test_size;
    std::vector<std::uint64_t> seeds;
    // data-size: the grid per method; every cell trains the same model, for
    // max(min_epochs, examples_seen / examples per epoch) epochs (at most 100; examples_seen 0: the
    // defaults for the size), and stops at 99% test exact match.
    std::map<std::string, std::vector<std::size_t>> sizes;
    std::size_t examples_seen;
    int min_epochs;  // with examples_seen 0: the epochs of every data-size cell (0: the defaults)
    json data_size_model;
    Part efficiency, model_size, ablations, ntl, modular;
    std::map<std::string, std::vector<int>> levels;      // model-size: the paper's size levels per method
    std::vector<std::pair<std::string, int>> ntl_tasks;  // task, long_digits (0: the task's own)
    std::vector<std::string> modular_methods;
};

// The default model for 51,200 examples (docs/training.md): hidden 64, 2 layers, 2 heads of width 32
// sharing one key-value head. The cpu preset gives it to every method where one model must serve all.
json small_model() {
    return {{"hidden", 64},  {"layers", 2},         {"heads", 2},
            {"kv_heads", 1}, {"intermediate", 256}, {"head_dim", 32}};
}

// quick: the pipeline in a minute or two per experiment (the test suite runs it; its numbers mean
// little); cpu: this 2-core machine's scale, about three hours on one thread (docs/reproduction.md has
// the results and why each size was chosen); full: sized for a GPU, the paper's.
Scale scale_of(const std::string& preset) {
    const std::vector<std::string> all = {"fone", "digit", "subword", "xval"};
    auto every = [&](const std::vector<std::size_t>& v) {
        std::map<std::string, std::vector<std::size_t>> m;
        for (const auto& k : all)
            m[k] = v;
        return m;
    };
    auto levels_for = [&](const std::vector<int>& v) {
        std::map<std::string, std::vector<int>> m;
        for (const auto& k : all)
            m[k] = v;
        return m;
    };
    if (preset == "quick") {
        Scale s{100,
                {1},
                every({200, 400, 800}),
                0,
                1,
                nullptr,
                {},
                {},
                {},
                {},
                {},
                levels_for({1, 2}),
                {{"long-add", 4}},
                {"fone", "digit", "subword"}};
        s.efficiency = s.model_size = s.ablations = s.modular = {400, 1, nullptr};
        s.ntl = {400, 1, small_model()};
        s.data_size_model = nullptr;
        return s;
    }
    if (preset == "cpu") {
        // One thread on a shared 2-core machine: the token baselines cost 5-10x FoNE per example
        // (bench_schemes), so they get the sizes where the comparison is decided and one seed.
        Scale s{1000,
                {1},
                {{"fone", {3200, 6400, 12800, 25600, 51200}},
                 {"xval", {6400, 51200}},
                 {"digit", {25600, 51200, 102400}},
                 {"subword", {25600, 51200, 102400}}},
                512000,
                5,
                small_model(),
                {},
                {},
                {},
                {},
                {},
                {{"fone", {1, 2, 3}}, {"xval", {1, 2}}, {"digit", {1, 2}}, {"subword", {1, 2}}},
                {{"long-add", 4}},
                {"fone", "subword"}};
        s.efficiency = {25600, 5, small_model()};
        s.model_size = {25600, 3, nullptr};  // level 2 costs 5x the small model per example
        s.ablations = {51200, 5, small_model()};
        s.ntl = {25600, 5, small_model()};
        s.modular = {12800, 20, small_model()};
        return s;
    }
    if (preset == "full") {
        Scale s{2000,
                {1, 2, 3},
                every({400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 102400, 204800, 409600}),
                0,
                0,
                nullptr,
                {},
                {},
                {},
                {},
                {},
                levels_for({1, 2, 3, 4, 5, 6}),
                {{"long-add", 4}, {"mul3", 0}},
                {"fone", "digit", "subword"}};
        s.efficiency = s.model_size = s.ablations = s.ntl = s.modular = {51200, 0, nullptr};
        return s;
    }
    throw std::invalid_argument("unknown preset '" + preset + "' (presets: quick, cpu, full)");
}

const std::vector<std::string> kBaselines = {"fone", "digit", "subword", "xval"};

json base_settings(const Scale& s, const std::string& task, std::size_t train_size, std::uint64_t seed,
                   int epochs, const json& model = nullptr) {
    json j = {{"task", task}, {"train_size", train_size}, {"test_size", s.test_size}, {"val_size", 0},
              {"seed", seed}, {"eval_every", 0}};
    if (epochs > 0) j["epochs"] = epochs;
    if (model.is_object()) j["model"] = model;
    return j;
}

json base_settings(const Scale& s, const std::string& task, const Part& part, std::uint64_t seed) {
    return base_settings(s, task, part.train_size, seed, part.epochs, part.model);
}

// data-size: epochs for a training set of n under the scale's budget of examples seen (b+a swaps, on
// by default below 25,600 examples, double an epoch).
int data_size_epochs(const Scale& s, std::size_t n) {
    if (s.examples_seen == 0) return s.min_epochs;
    const std::size_t per_epoch = n < 25600 ? 2 * n : n;
    const auto e = static_cast<int>((s.examples_seen + per_epoch - 1) / per_epoch);
    return std::clamp(e, s.min_epochs, 100);
}

Experiment build(const std::string& name, const Scale& s) {
    Experiment e{name, "", {}};
    auto add = [&](const std::string& id, json labels, json settings) {
        e.cells.push_back({id, std::move(labels), std::move(settings)});
    };
    if (name == "efficiency") {
        e.title = "Training and inference efficiency (one training run per task and method)";
        for (const std::string task : {"dec-add", "sub", "mul3"})
            for (const auto& m : kBaselines) {
                json st = base_settings(s, task, s.efficiency, s.seeds.front());
                st["method"] = m;
                add(task + "-" + m, {{"task", task}, {"method", m}}, st);
            }
    } else if (name == "data-size") {
        e.title = "Exact match against training-set size, 6-digit decimal addition";
        for (const auto& m : kBaselines) {
            auto grid = s.sizes.find(m);
            if (grid == s.sizes.end()) continue;
            for (std::size_t n : grid->second)
                for (auto seed : s.seeds) {
                    json st = base_settings(s, "dec-add", n, seed, data_size_epochs(s, n), s.data_size_model);
                    st["target_acc"] =
                        0.99;  // the question is whether (and from how much data) it gets there
                    st["method"] = m;
                    add(m + "-n" + std::to_string(n) + "-s" + std::to_string(seed),
                        {{"method", m}, {"train_size", n}, {"seed", seed}}, st);
                }
        }
    } else if (name == "model-size") {
        e.title = "Exact match against model size (the paper's levels), 6-digit decimal addition";
        for (const auto& m : kBaselines) {
            auto levels = s.levels.find(m);
            if (levels == s.levels.end()) continue;
            for (int level : levels->second)
                for (auto seed : s.seeds) {
                    json st = base_settings(s, "dec-add", s.model_size.train_size, seed, s.model_size.epochs);
                    st["method"] = m;
                    st["size_level"] = level;
                    add(m + "-l" + std::to_string(level) + "-s" + std::to_string(seed),
                        {{"method", m}, {"size_level", level}, {"seed", seed}}, st);
                }
        }
    } else if (name == "ablations") {
        e.title = "FoNE ablations: periods and how FoNE enters the model, 6-digit decimal addition";
        const std::vector<std::pair<std::string, json>> variants = {
            {"periods 10", json::object()},
            {"periods 2,5,10", {{"period_multipliers", {2, 5, 10}}}},
            {"periods 5", {{"period_multipliers", {5}}}},
            {"periods 7", {{"period_multipliers", {7}}}},
            {"linear input", {{"model", {{"fone_input", "linear"}}}}},
            {"direct encoding", {{"method", "fone-direct"}}}};
        int k = 0;
        for (const auto& [variant, extra] : variants) {
            json st = base_settings(s, "dec-add", s.ablations, s.seeds.front());
            st["method"] = "fone";
            if (extra.contains("model") && st.contains("model")) {
                json model = st["model"];
                model.merge_patch(extra["model"]);
                json rest = extra;
                rest.erase("model");
                st.merge_patch(rest);
                st["model"] = model;
            } else {
                st.merge_patch(extra);
            }
            add("v" + std::to_string(k++), {{"variant", variant}}, st);
        }
    } else if (name == "ntl") {
        e.title = "Number Token Loss against FoNE";
        for (std::size_t t = 0; t < s.ntl_tasks.size(); ++t) {
            const auto& [task, long_digits] = s.ntl_tasks[t];
            // The first task's cells have plain ids (digit-l0.3), later tasks' are prefixed by the task.
            const std::string prefix = t == 0 ? "" : task + "-";
            const std::string label =
                long_digits > 0 ? std::to_string(long_digits) + "-digit addition" : task;
            auto settings = [&] {
                json st = base_settings(s, task, s.ntl, s.seeds.front());
                if (long_digits > 0) st["long_digits"] = long_digits;
                return st;
            };
            for (const std::string tokens : {"digit", "subword"})
                for (double lambda : {0.0, 0.15, 0.3, 0.8}) {
                    json st = settings();
                    st["method"] = lambda > 0 ? "ntl" : tokens;
                    st["ntl_tokens"] = tokens;
                    st["ntl_lambda"] = lambda;
                    char id[48];
                    std::snprintf(id, sizeof id, "%s-l%g", tokens.c_str(), lambda);
                    add(prefix + id,
                        {{"task", label},
                         {"method", lambda > 0 ? "ntl-" + tokens : tokens},
                         {"ntl_lambda", lambda}},
                        st);
                }
            json st = settings();
            st["method"] = "fone";
            add(prefix + "fone", {{"task", label}, {"method", "fone"}, {"ntl_lambda", 0.0}}, st);
        }
    } else if (name == "modular") {
        e.title = "Modular addition (a + b) mod p";
        for (int p : {97, 100, 113, 121, 256, 257})
            for (const std::string& m : s.modular_methods) {
                // Every pair a <= b < p is a distinct example: at most p(p+1)/2 - test - val of them.
                const std::size_t domain = static_cast<std::size_t>(p) * (p + 1) / 2;
                Part part = s.modular;
                part.train_size = std::min(part.train_size, domain - s.test_size - 1);
                json st = base_settings(s, "mod-add", part, s.seeds.front());
                st["modulus"] = p;
                st["method"] = m;
                add("p" + std::to_string(p) + "-" + m, {{"modulus", p}, {"method", m}}, st);
            }
    } else {
        throw std::invalid_argument(
            "unknown experiment '" + name +
            "' (experiments: efficiency, data-size, model-size, ablations, ntl, modular)");
    }
    return e;
}

// What one finished cell contributes to the tables.
json result_of(const std::string& run_dir, const Cell& cell) {
    const json summary = read_json_file((fs::path(run_dir) / kSummaryFile).string());
    const json final_eval = summary.value("final", json::object());
    json r = cell.labels;
    r["run"] = fs::path(run_dir).filename().string();
    r["status"] = summary.value("status", "");
    r["params"] = summary.value("params", 0);
    r["train_seconds"] = summary.value("train_seconds", 0.0);
    r["epochs"] = summary.value("epoch", 0);
    for (const char* k : {"exact_match", "digit_accuracy", "r2", "rmse", "epoch_seconds", "eval_seconds",
                          "tokens_per_number", "malformed", "epoch_cpu_seconds", "eval_cpu_seconds"})
        r[k] = final_eval.value(k, json());
    r["best_exact_match"] = summary.value("best_exact_match", 0.0);
    return r;
}

// The run's whole config: the cell's settings over the defaults for its size.
TrainConfig cell_config(const std::string& run_name, const Cell& cell, int threads) {
    json st = cell.settings;
    st["name"] = run_name;
    st["threads"] = threads;
    return resolve_train_config({st});
}

// A stored run of a cell must have been trained with the cell's settings: a preset changed since (other
// sizes, epochs or model) would otherwise be reported under the new one. Throws naming the first setting
// that differs.
void check_same_settings(const fs::path& dir, const TrainConfig& wanted) {
    const fs::path file = dir / kConfigFile;
    if (!fs::exists(file)) return;
    const json stored = read_json_file(file.string());
    const json want = wanted.to_json();
    // A setting added to the engine after the run was made is absent from its config: the run trained
    // with that setting's default, so only a preset that wants another value is a difference.
    const TrainConfig fresh;
    const json defaults = fresh.to_json();
    for (auto it = want.begin(); it != want.end(); ++it) {
        if (it.key() == "name" || it.key() == "threads") continue;  // threads change speed, not results
        if (!stored.contains(it.key()) && defaults.value(it.key(), json()) == it.value()) continue;
        if (!stored.contains(it.key()) || stored[it.key()] != it.value())
            throw std::invalid_argument(
                dir.string() + " was trained with other settings than this preset's (\"" + it.key() +
                "\": " + (stored.contains(it.key()) ? stored[it.key()].dump() : std::string("absent")) +
                ", the preset wants " + it.value().dump() + "); remove that run or use another --runs-dir");
    }
}

// A run to completion: reused when finished, resumed when interrupted, else started.
json run_cell(RunStore& store, const Experiment& e, const std::string& preset, const Cell& cell,
              int threads) {
    const std::string name = "repro-" + e.name + "-" + preset + "-" + cell.id;
    const fs::path dir = fs::path(store.root()) / name;
    const EventSink quiet;  // the run's own files hold its events
    const TrainConfig config = cell_config(name, cell, threads);
    check_same_settings(dir, config);
    if (fs::exists(dir / kSummaryFile)) {
        const json summary = read_json_file((dir / kSummaryFile).string());
        if (summary.value("status", "") == kStatusFinished) return result_of(dir.string(), cell);
    }
    if (fs::exists(dir / kLastCheckpoint)) {
        try {
            train_resume(dir.string(), quiet, threads);
            return result_of(dir.string(), cell);
        } catch (const RunError&) {
            // Finished without a summary, or unreadable: train it again under a fresh directory below.
            fs::remove_all(dir);
        }
    } else if (fs::exists(dir)) {
        fs::remove_all(dir);  // created but never checkpointed: nothing to keep
    }
    const TrainOutcome out = train_new(config, store, quiet);
    return result_of(out.run_dir, cell);
}

// Mispredictions whose wrong digits all differ from the true ones by exactly 5 (what periods 5 alone
// cannot tell apart: 2 and 7 share x mod 5).
json off_by_five(const std::string& run_dir) {
    const json m = evaluate_run(run_dir, "", 0, 1000000);
    std::size_t wrong = 0, by_five = 0;
    json examples = json::array();
    for (const auto& w : m["mispredictions"]) {
        ++wrong;
        Decimal a, b;
        if (!Decimal::try_parse(w.value("expected", ""), a) ||
            !Decimal::try_parse(w.value("predicted", ""), b))
            continue;
        bool all_five = true;
        for (int p = -12; p < 12; ++p)
            if (a.digit(p) != b.digit(p) && std::abs(a.digit(p) - b.digit(p)) != 5) all_five = false;
        if (all_five && a.negative() == b.negative()) {
            ++by_five;
            if (examples.size() < 8) examples.push_back(w);
        }
    }
    return {{"mispredictions", wrong}, {"off_by_exactly_5", by_five}, {"examples", examples}};
}

std::string pct(const json& v) {
    if (!v.is_number()) return "–";
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100.0 * v.get<double>());
    return b;
}

std::string secs(const json& v) {
    if (!v.is_number()) return "–";
    char b[32];
    std::snprintf(b, sizeof b, "%.2f s", v.get<double>());
    return b;
}

std::string num(const json& v) {
    if (!v.is_number()) return "–";
    std::ostringstream o;
    o << v.get<double>();
    return o.str();
}

// Mean and spread (min..max) of exact match over seeds, for one group of rows.
std::string mean_spread(const std::vector<double>& v) {
    if (v.empty()) return "–";
    double sum = 0;
    for (double x : v)
        sum += x;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    char b[64];
    if (v.size() == 1)
        std::snprintf(b, sizeof b, "%.1f%%", 100 * sum);
    else
        std::snprintf(b, sizeof b, "%.1f%% (%.1f–%.1f)", 100 * sum / v.size(), 100 * *lo, 100 * *hi);
    return b;
}

// Rows of a pivot: row key -> column key -> exact matches over seeds.
using Pivot = std::map<double, std::map<std::string, std::vector<double>>>;

std::string pivot_table(const Pivot& p, const std::string& row_title, const std::vector<std::string>& cols) {
    std::ostringstream md;
    md << "| " << row_title;
    for (const auto& c : cols)
        md << " | " << c;
    md << " |\n|---";
    for (std::size_t i = 0; i < cols.size(); ++i)
        md << "|---";
    md << "|\n";
    for (const auto& [row, by_col] : p) {
        md << "| " << num(row);
        for (const auto& c : cols) {
            auto it = by_col.find(c);
            md << " | " << (it == by_col.end() ? "–" : mean_spread(it->second));
        }
        md << " |\n";
    }
    return md.str();
}

// The smallest training set on which a method's mean exact match reaches 99%.
json smallest_size_to(const Pivot& p, const std::vector<std::string>& methods, double target) {
    json out = json::object();
    for (const auto& m : methods) {
        out[m] = nullptr;
        for (const auto& [size, by_col] : p) {
            auto it = by_col.find(m);
            if (it == by_col.end() || it->second.empty()) continue;
            double sum = 0;
            for (double x : it->second)
                sum += x;
            if (sum / it->second.size() >= target) {
                out[m] = size;
                break;
            }
        }
    }
    return out;
}

// How many times FoNE's smallest 99% training set each other method needs: exact when it got there,
// else a lower bound from the largest set it was trained on (it needs more than that). Empty when FoNE
// itself never reached 99%.
json data_ratios(const Pivot& p, const json& smallest) {
    json out = json::object();
    if (!smallest.contains("fone") || smallest["fone"].is_null()) return out;
    const double f = smallest["fone"].get<double>();
    for (auto it = smallest.begin(); it != smallest.end(); ++it) {
        if (it.key() == "fone") continue;
        if (!it->is_null()) {
            char why[96];
            std::snprintf(why, sizeof why, "reached 99%% at %g examples", it->get<double>());
            out[it.key()] = {{"ratio", it->get<double>() / f}, {"lower_bound", false}, {"why", why}};
            continue;
        }
        double largest = 0;
        for (const auto& [size, by_col] : p)
            if (by_col.count(it.key())) largest = std::max(largest, size);
        if (largest == 0) continue;
        char why[96];
        std::snprintf(why, sizeof why, "below 99%% at every size up to %g examples", largest);
        out[it.key()] = {{"ratio", largest / f}, {"lower_bound", true}, {"why", why}};
    }
    return out;
}

std::string markdown(const Experiment& e, const std::vector<json>& rows, json& extra) {
    std::ostringstream md;
    md << "### " << e.title << "\n\n";
    auto em = [](const json& r) {
        return r.value("exact_match", json(0.0)).is_number() ? r["exact_match"].get<double>() : 0.0;
    };
    if (e.name == "efficiency") {
        md << "| task | method | train time / epoch | test time | train CPU / epoch | test CPU | tokens / "
              "number | exact match | params |\n|---|---|---|---|---|---|---|---|---|\n";
        for (const auto& r : rows)
            md << "| " << r["task"].get<std::string>() << " | " << r["method"].get<std::string>() << " | "
               << secs(r["epoch_seconds"]) << " | " << secs(r["eval_seconds"]) << " | "
               << secs(r.value("epoch_cpu_seconds", json())) << " | "
               << secs(r.value("eval_cpu_seconds", json())) << " | " << num(r["tokens_per_number"]) << " | "
               << pct(r["exact_match"]) << " | " << num(r["params"]) << " |\n";
        // Ratios against FoNE, task by task: what the "3x / 10x" figures are about. Wall time on
        // a shared machine also counts waiting for a core; CPU time is the work done.
        auto ratio = [](const json& a, const json& b, const char* key) -> json {
            const json x = a.value(key, json()), y = b.value(key, json());
            if (!x.is_number() || !y.is_number() || y.get<double>() <= 0) return nullptr;
            return x.get<double>() / y.get<double>();
        };
        json ratios = json::object();
        for (const auto& r : rows) {
            if (r["method"] == "fone") continue;
            for (const auto& f : rows)
                if (f["method"] == "fone" && f["task"] == r["task"] && f["epoch_seconds"].is_number() &&
                    r["epoch_seconds"].is_number())
                    ratios[r["task"].get<std::string>()][r["method"].get<std::string>()] = {
                        {"train_epoch_ratio", ratio(r, f, "epoch_seconds")},
                        {"test_time_ratio", ratio(r, f, "eval_seconds")},
                        {"train_epoch_cpu_ratio", ratio(r, f, "epoch_cpu_seconds")},
                        {"test_cpu_ratio", ratio(r, f, "eval_cpu_seconds")}};
        }
        extra["slower_than_fone"] = ratios;
        auto times = [](const json& v) {
            if (!v.is_number()) return std::string("–");
            char b[32];
            std::snprintf(b, sizeof b, "%.1f×", v.get<double>());
            return std::string(b);
        };
        md << "\nTime relative to FoNE (× slower):\n\n| task | method | train epoch | test | train epoch "
              "(CPU) | "
              "test (CPU) |\n|---|---|---|---|---|---|\n";
        for (auto t = ratios.begin(); t != ratios.end(); ++t)
            for (auto m = t->begin(); m != t->end(); ++m)
                md << "| " << t.key() << " | " << m.key() << " | " << times((*m)["train_epoch_ratio"])
                   << " | " << times((*m)["test_time_ratio"]) << " | " << times((*m)["train_epoch_cpu_ratio"])
                   << " | " << times((*m)["test_cpu_ratio"]) << " |\n";
    } else if (e.name == "data-size" || e.name == "model-size") {
        const bool by_size = e.name == "data-size";
        Pivot p;
        std::map<double, json> params_of;
        for (const auto& r : rows) {
            const double key = by_size ? r["train_size"].get<double>() : r["size_level"].get<double>();
            p[key][r["method"].get<std::string>()].push_back(em(r));
            params_of[key][r["method"].get<std::string>()] = r["params"];
        }
        md << pivot_table(p, by_size ? "training examples" : "size level", kBaselines);
        if (by_size) {
            const json smallest = smallest_size_to(p, kBaselines, 0.99);
            extra["smallest_train_size_to_99"] = smallest;
            md << "\nSmallest training set reaching 99% (mean over seeds): ";
            for (const auto& m : kBaselines)
                md << m << " " << (smallest[m].is_null() ? std::string("not reached") : num(smallest[m]))
                   << "; ";
            md << "\n";
            const json ratios = data_ratios(p, smallest);
            extra["data_ratio_to_fone"] = ratios;
            if (!ratios.empty()) {
                md << "\nData needed for 99% relative to FoNE: ";
                for (auto it = ratios.begin(); it != ratios.end(); ++it)
                    md << it.key() << " " << ((*it)["lower_bound"].get<bool>() ? "more than " : "")
                       << num((*it)["ratio"]) << "× (" << (*it)["why"].get<std::string>() << "); ";
                md << "\n";
            }
        } else {
            md << "\nParameters per level and method: ";
            for (const auto& [level, by_m] : params_of)
                md << "level " << num(level) << " " << by_m.dump() << "; ";
            md << "\n";
        }
    } else if (e.name == "ntl") {
        md << "| task | method | λ | exact match | digit accuracy | R² |\n|---|---|---|---|---|---|\n";
        for (const auto& r : rows)
            md << "| " << r.value("task", std::string()) << " | " << r["method"].get<std::string>() << " | "
               << num(r["ntl_lambda"]) << " | " << pct(r["exact_match"]) << " | " << pct(r["digit_accuracy"])
               << " | " << num(r["r2"]) << " |\n";
    } else if (e.name == "modular") {
        Pivot p;
        for (const auto& r : rows)
            p[r["modulus"].get<double>()][r["method"].get<std::string>()].push_back(em(r));
        md << pivot_table(p, "modulus", {"fone", "digit", "subword"});
    } else {  // ablations
        md << "| variant | exact match | digit accuracy |\n|---|---|---|\n";
        for (const auto& r : rows)
            md << "| " << r["variant"].get<std::string>() << " | " << pct(r["exact_match"]) << " | "
               << pct(r["digit_accuracy"]) << " |\n";
        if (extra.contains("mod5")) {
            const json& m5 = extra["mod5"];
            md << "\nPeriods 5 only: " << m5["off_by_exactly_5"].get<std::size_t>() << " of "
               << m5["mispredictions"].get<std::size_t>()
               << " mispredictions have every wrong digit off by exactly 5. Examples:\n\n"
                  "| prompt | expected | predicted |\n|---|---|---|\n";
            for (const auto& w : m5["examples"])
                md << "| " << w["prompt"].get<std::string>() << " | " << w["expected"].get<std::string>()
                   << " | " << w["predicted"].get<std::string>() << " |\n";
        }
    }
    return md.str();
}

#ifdef FONE_WITH_PLOTS
// Mean and min/max of exact match per (series, x), as a line per series.
std::vector<plots::LineSeries> lines_of(const std::vector<json>& rows, const std::string& series_key,
                                        const std::function<double(const json&)>& x_of) {
    std::map<std::string, std::map<double, std::vector<double>>> groups;
    for (const auto& r : rows) {
        const double em = r["exact_match"].is_number() ? r["exact_match"].get<double>() : 0.0;
        const std::string name =
            r[series_key].is_string() ? r[series_key].get<std::string>() : r[series_key].dump();
        groups[name][x_of(r)].push_back(em);
    }
    std::vector<plots::LineSeries> out;
    for (const auto& [name, by_x] : groups) {
        plots::LineSeries l;
        l.name = name;
        for (const auto& [x, v] : by_x) {
            double sum = 0;
            for (double e : v)
                sum += e;
            l.x.push_back(x);
            l.y.push_back(sum / v.size());
            l.low.push_back(*std::min_element(v.begin(), v.end()));
            l.high.push_back(*std::max_element(v.begin(), v.end()));
        }
        out.push_back(std::move(l));
    }
    return out;
}
#endif

// The experiment's pictures (PNG) when this build has QCustomPlot; the paths written.
json write_plots(const Experiment& e, const std::vector<json>& rows, const fs::path& out) {
    json files = json::array();
#ifdef FONE_WITH_PLOTS
    auto em = [](const json& r) {
        return r["exact_match"].is_number() ? r["exact_match"].get<double>() : 0.0;
    };
    const std::string path = (out / (e.name + ".png")).string();
    plots::LinesStyle style;
    style.title = e.title;
    style.y_label = "test exact match";
    if (e.name == "data-size") {
        style.x_label = "training examples (log scale)";
        style.log_base = 2;
        const auto lines =
            lines_of(rows, "method", [](const json& r) { return r["train_size"].get<double>(); });
        plots::write_png(path, 900, 520, [&](QCustomPlot& p) { plots::draw_lines(p, lines, style); });
    } else if (e.name == "model-size") {
        style.x_label = "parameters (log scale)";
        style.log_base = 10;
        const auto lines = lines_of(rows, "method", [](const json& r) { return r["params"].get<double>(); });
        plots::write_png(path, 900, 520, [&](QCustomPlot& p) { plots::draw_lines(p, lines, style); });
    } else if (e.name == "modular") {
        style.x_label = "modulus p";
        const auto lines = lines_of(rows, "method", [](const json& r) { return r["modulus"].get<double>(); });
        plots::write_png(path, 900, 520, [&](QCustomPlot& p) { plots::draw_lines(p, lines, style); });
    } else {
        std::vector<std::string> labels;
        std::vector<double> values;
        for (const auto& r : rows) {
            if (e.name == "efficiency")
                labels.push_back(r["task"].get<std::string>() + "\n" + r["method"].get<std::string>());
            else if (e.name == "ablations")
                labels.push_back(r["variant"].get<std::string>());
            else
                labels.push_back(r["method"].get<std::string>() + "\nλ " + num(r["ntl_lambda"]));
            values.push_back(em(r));
        }
        plots::write_png(path, std::max(960, 80 * static_cast<int>(labels.size())), 480,
                         [&](QCustomPlot& p) { plots::draw_bars(p, labels, values, style); });
        if (e.name == "efficiency") {
            // Training time per epoch beside the accuracy: what the efficiency table is about. CPU seconds
            // when every run recorded them (on a shared machine wall time also counts waiting for a core).
            bool cpu = true;
            for (const auto& r : rows)
                cpu = cpu && r.value("epoch_cpu_seconds", json()).is_number();
            const char* key = cpu ? "epoch_cpu_seconds" : "epoch_seconds";
            std::vector<double> seconds;
            for (const auto& r : rows)
                seconds.push_back(r[key].is_number() ? r[key].get<double>() : 0.0);
            plots::LinesStyle t = style;
            t.title = cpu ? "Training CPU time per epoch (same model, data and epochs)"
                          : "Training time per epoch (same model, data and epochs)";
            t.y_label = cpu ? "CPU seconds per epoch" : "seconds per epoch";
            t.percent = false;
            t.y_max = *std::max_element(seconds.begin(), seconds.end());
            const std::string time_path = (out / "efficiency-time.png").string();
            plots::write_png(time_path, std::max(960, 80 * static_cast<int>(labels.size())), 480,
                             [&](QCustomPlot& p) { plots::draw_bars(p, labels, seconds, t); });
            files.push_back(time_path);
        }
    }
    files.push_back(path);
#else
    (void)e, (void)rows, (void)out;
#endif
    return files;
}

void write_text_atomic(const fs::path& path, const std::string& text) {
    const fs::path tmp = path.string() + ".tmp";
    {
        std::ofstream f(tmp);
        f << text;
        if (!f) throw std::runtime_error("cannot write " + tmp.string());
    }
    fs::rename(tmp, path);
}

std::string csv(const std::vector<json>& rows) {
    std::set<std::string> keys;
    for (const auto& r : rows)
        for (auto it = r.begin(); it != r.end(); ++it)
            keys.insert(it.key());
    std::ostringstream out;
    bool first = true;
    for (const auto& k : keys) {
        out << (first ? "" : ",") << k;
        first = false;
    }
    out << "\n";
    for (const auto& r : rows) {
        first = true;
        for (const auto& k : keys) {
            out << (first ? "" : ",");
            first = false;
            if (!r.contains(k) || r[k].is_null()) continue;
            out << (r[k].is_string() ? r[k].get<std::string>() : r[k].dump());
        }
        out << "\n";
    }
    return out.str();
}

struct Options {
    std::string experiment, preset = "quick", out, runs_dir, methods;
    int threads = 0;
    bool dry_run = false;
};

void run_reproduce(const Options& o) {
    const Scale scale = scale_of(o.preset);
    Experiment e = build(o.experiment, scale);
    if (!o.methods.empty()) {  // a subset, e.g. to run two methods in two processes on one store
        std::set<std::string> keep;
        std::stringstream ss(o.methods);
        for (std::string m; std::getline(ss, m, ',');)
            keep.insert(m);
        std::erase_if(e.cells, [&](const Cell& c) {
            return !keep.count(c.settings.value("method", std::string("fone")));
        });
        if (e.cells.empty())
            throw std::invalid_argument("--methods " + o.methods + ": no run of " + e.name + " uses them");
    }
    if (o.dry_run) {
        for (const auto& c : e.cells) {
            const std::string name = "repro-" + e.name + "-" + o.preset + "-" + c.id;
            print_json_line(std::cout, {{"run", name},
                                        {"settings", c.settings},
                                        {"config", cell_config(name, c, o.threads).to_json()}});
        }
        return;
    }
    RunStore store(o.runs_dir.empty() ? RunStore::default_root() : o.runs_dir);
    const fs::path out = o.out.empty() ? fs::path("results") / (e.name + "-" + o.preset) : fs::path(o.out);
    fs::create_directories(out);
    std::vector<json> rows;
    json extra = json::object();
    for (std::size_t i = 0; i < e.cells.size(); ++i) {
        const Cell& c = e.cells[i];
        json r = run_cell(store, e, o.preset, c, o.threads);
        std::fprintf(stderr, "[%zu/%zu] %s: %s exact match, %s per epoch\n", i + 1, e.cells.size(),
                     c.id.c_str(), pct(r["exact_match"]).c_str(), secs(r["epoch_seconds"]).c_str());
        if (e.name == "ablations" && c.labels["variant"] == "periods 5")
            extra["mod5"] = off_by_five((fs::path(store.root()) / r["run"].get<std::string>()).string());
        rows.push_back(std::move(r));
    }
    const std::string md = markdown(e, rows, extra);
    write_text_atomic(out / "results.csv", csv(rows));
    write_text_atomic(out / "results.md", md);
    const json pictures = write_plots(e, rows, out);
    write_json_atomic((out / "results.json").string(), {{"experiment", e.name},
                                                        {"preset", o.preset},
                                                        {"rows", rows},
                                                        {"summary", extra},
                                                        {"plots", pictures}});
    std::cout << md << std::flush;
}

}  // namespace

void add_reproduce_commands(CLI::App& app) {
    auto o = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("reproduce", "Run one of the paper's experiments at this machine's scale");
    cmd->add_option("experiment", o->experiment,
                    "efficiency, data-size, model-size, ablations, ntl or modular")
        ->required();
    cmd->add_option("--preset", o->preset,
                    "quick (minutes; checks the pipeline), cpu (this machine), full (GPU)");
    cmd->add_option("--out", o->out, "Results folder (default: results/EXPERIMENT-PRESET)");
    cmd->add_option("--runs-dir", o->runs_dir, "Run store");
    cmd->add_option("--threads", o->threads, "CPU threads per run (0: every core)")
        ->check(CLI::Range(0, 1024));
    cmd->add_flag("--dry-run", o->dry_run,
                  "List the runs as JSON lines (name, the cell's settings, the whole config), train nothing");
    cmd->add_option("--methods", o->methods, "Only the runs of these methods (e.g. digit,subword)");
    cmd->callback([o] {
        try {
            run_reproduce(*o);
        } catch (const std::exception& e) {
            print_error("reproduce", e.what());
            throw CliFailure(e.what(), 1);
        }
    });
}

}  // namespace fone::cli
