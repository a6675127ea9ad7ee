// `fone reproduce`'s report (cmd_reproduce.h): results.md (the tables of the experiment's report kind),
// results.csv and the PNG plots, from one row per run. The report kind is the experiment file's "report";
// its labels are checked when the file is read (fone/store/experiments.h).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "cmd_reproduce.h"
#include "fone/store/methods.h"

#ifdef FONE_WITH_PLOTS
#include "analysis_plots.h"
#endif

namespace fone::cli {

namespace fs = std::filesystem;
using nlohmann::json;

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

namespace {

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
    if (!smallest.contains(kPaperMethod) || smallest[kPaperMethod].is_null()) return out;
    const double f = smallest[kPaperMethod].get<double>();
    for (auto it = smallest.begin(); it != smallest.end(); ++it) {
        if (it.key() == kPaperMethod) continue;
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

double em(const json& r) {
    return r.value("exact_match", json(0.0)).is_number() ? r["exact_match"].get<double>() : 0.0;
}

// The columns of a method pivot: the paper's methods first (in this order, present or not, as the tables
// always had them), then any other method of the rows.
std::vector<std::string> method_columns(const std::vector<json>& rows, std::vector<std::string> cols) {
    for (const auto& r : rows)
        if (const std::string m = r["method"].get<std::string>();
            std::find(cols.begin(), cols.end(), m) == cols.end())
            cols.push_back(m);
    return cols;
}

const std::vector<std::string> kBaselines = {"fone", "digit", "subword", "xval"};

// efficiency: one row per task and method, then each method's times relative to FoNE's on the same task.
void efficiency_tables(std::ostringstream& md, const std::vector<json>& rows, json& extra) {
    md << "| task | method | train time / epoch | test time | train CPU / epoch | test CPU | tokens / "
          "number | exact match | params |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : rows)
        md << "| " << r["task"].get<std::string>() << " | " << r["method"].get<std::string>() << " | "
           << secs(r["epoch_seconds"]) << " | " << secs(r["eval_seconds"]) << " | "
           << secs(r.value("epoch_cpu_seconds", json())) << " | " << secs(r.value("eval_cpu_seconds", json()))
           << " | " << num(r["tokens_per_number"]) << " | " << pct(r["exact_match"]) << " | "
           << num(r["params"]) << " |\n";
    // Ratios against FoNE, task by task: what the "3x / 10x" figures are about. Wall time on a
    // shared machine also counts waiting for a core; CPU time is the work done.
    auto ratio = [](const json& a, const json& b, const char* key) -> json {
        const json x = a.value(key, json()), y = b.value(key, json());
        if (!x.is_number() || !y.is_number() || y.get<double>() <= 0) return nullptr;
        return x.get<double>() / y.get<double>();
    };
    json ratios = json::object();
    for (const auto& r : rows) {
        if (r["method"] == kPaperMethod) continue;
        for (const auto& f : rows)
            if (f["method"] == kPaperMethod && f["task"] == r["task"] && f["epoch_seconds"].is_number() &&
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
            md << "| " << t.key() << " | " << m.key() << " | " << times((*m)["train_epoch_ratio"]) << " | "
               << times((*m)["test_time_ratio"]) << " | " << times((*m)["train_epoch_cpu_ratio"]) << " | "
               << times((*m)["test_cpu_ratio"]) << " |\n";
}

// data-size: exact match by training-set size and method, the smallest size reaching 99% and the data
// each method needs relative to FoNE.
void data_size_tables(std::ostringstream& md, const std::vector<json>& rows, json& extra) {
    Pivot p;
    for (const auto& r : rows)
        p[r["train_size"].get<double>()][r["method"].get<std::string>()].push_back(em(r));
    const std::vector<std::string> methods = method_columns(rows, kBaselines);
    md << pivot_table(p, "training examples", methods);
    const json smallest = smallest_size_to(p, methods, 0.99);
    extra["smallest_train_size_to_99"] = smallest;
    md << "\nSmallest training set reaching 99% (mean over seeds): ";
    for (const auto& m : methods)
        md << m << " " << (smallest[m].is_null() ? std::string("not reached") : num(smallest[m])) << "; ";
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
}

// model-size: exact match by size level and method, and each level's parameters per method.
void model_size_tables(std::ostringstream& md, const std::vector<json>& rows) {
    Pivot p;
    std::map<double, json> params_of;
    for (const auto& r : rows) {
        const double level = r["size_level"].get<double>();
        p[level][r["method"].get<std::string>()].push_back(em(r));
        params_of[level][r["method"].get<std::string>()] = r["params"];
    }
    md << pivot_table(p, "size level", method_columns(rows, kBaselines));
    md << "\nParameters per level and method: ";
    for (const auto& [level, by_m] : params_of)
        md << "level " << num(level) << " " << by_m.dump() << "; ";
    md << "\n";
}

void ntl_table(std::ostringstream& md, const std::vector<json>& rows) {
    md << "| task | method | λ | exact match | digit accuracy | R² |\n|---|---|---|---|---|---|\n";
    for (const auto& r : rows)
        md << "| " << r.value("task", std::string()) << " | " << r["method"].get<std::string>() << " | "
           << num(r["ntl_lambda"]) << " | " << pct(r["exact_match"]) << " | " << pct(r["digit_accuracy"])
           << " | " << num(r["r2"]) << " |\n";
}

void modular_table(std::ostringstream& md, const std::vector<json>& rows) {
    Pivot p;
    for (const auto& r : rows)
        p[r["modulus"].get<double>()][r["method"].get<std::string>()].push_back(em(r));
    md << pivot_table(p, "modulus", method_columns(rows, {"fone", "digit", "subword"}));
}

// ablations: one row per variant, and the periods-5 variant's mispredictions off by exactly 5.
void ablation_tables(std::ostringstream& md, const std::vector<json>& rows, const json& extra) {
    md << "| variant | exact match | digit accuracy |\n|---|---|---|\n";
    for (const auto& r : rows)
        md << "| " << r["variant"].get<std::string>() << " | " << pct(r["exact_match"]) << " | "
           << pct(r["digit_accuracy"]) << " |\n";
    if (!extra.contains("mod5")) return;
    const json& m5 = extra["mod5"];
    md << "\nPeriods 5 only: " << m5["off_by_exactly_5"].get<std::size_t>() << " of "
       << m5["mispredictions"].get<std::size_t>()
       << " mispredictions have every wrong digit off by exactly 5. Examples:\n\n"
          "| prompt | expected | predicted |\n|---|---|---|\n";
    for (const auto& w : m5["examples"])
        md << "| " << w["prompt"].get<std::string>() << " | " << w["expected"].get<std::string>() << " | "
           << w["predicted"].get<std::string>() << " |\n";
}

// peers: one table per figure, tasks down and methods across, each cell the mean (min..max) over the seeds
// of the same task and method: exact match, BitTokens' log-sMAPE, and the training CPU that the equal-time
// comparison is about (CPU seconds of an epoch times the epochs).
void peer_tables(std::ostringstream& md, const std::vector<json>& rows, json& extra) {
    std::vector<std::string> tasks;
    std::map<std::string, std::map<std::string, std::vector<const json*>>> cells;
    for (const auto& r : rows) {
        const std::string task = r["task"].get<std::string>();
        if (std::find(tasks.begin(), tasks.end(), task) == tasks.end()) tasks.push_back(task);
        cells[task][r["method"].get<std::string>()].push_back(&r);
    }
    const std::vector<std::string> methods =
        method_columns(rows, {"fone", "bittokens", "xval", "digit", "subword"});
    const auto table = [&](const char* title, const std::function<json(const json&)>& value_of,
                           bool percent) {
        md << "\n" << title << ":\n\n| task";
        for (const auto& m : methods)
            md << " | " << m;
        md << " |\n|---";
        for (std::size_t i = 0; i < methods.size(); ++i)
            md << "|---";
        md << "|\n";
        json means = json::object();
        for (const auto& t : tasks) {
            md << "| " << t;
            for (const auto& m : methods) {
                std::vector<double> v;
                for (const json* r : cells[t][m])
                    if (const json x = value_of(*r); x.is_number()) v.push_back(x.get<double>());
                if (v.empty()) {
                    md << " | –";
                    continue;
                }
                double sum = 0;
                for (double x : v)
                    sum += x;
                means[t][m] = sum / v.size();
                if (percent) {
                    md << " | " << mean_spread(v);
                } else {
                    char b[64];
                    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
                    std::snprintf(b, sizeof b, "%.1f (%.1f–%.1f)", sum / v.size(), *lo, *hi);
                    md << " | " << b;
                }
            }
            md << " |\n";
        }
        return means;
    };
    extra["exact_match"] = table(
        "Exact match (mean over seeds, min–max)", [](const json& r) { return r["exact_match"]; }, true);
    extra["log_smape"] = table(
        "log-sMAPE, BitTokens' metric (mean over seeds, min–max)",
        [](const json& r) { return r.value("log_smape", json()); }, true);
    extra["train_cpu_seconds"] = table(
        "Training CPU seconds (epoch CPU seconds × epochs; mean, min–max)",
        [](const json& r) -> json {
            const json e = r.value("epoch_cpu_seconds", json());
            if (!e.is_number() || !r["epochs"].is_number()) return nullptr;
            return e.get<double>() * r["epochs"].get<double>();
        },
        false);
}

// text: one row per method (in the runs' order), each figure the mean (min–max) over its seeds: the
// text-token perplexities (all rows, rows with numbers: the FoNE paper's Table 5 measure) and the
// teacher-forced number measures (docs/text.md, "What a text evaluation measures").
// A run's training CPU: the CPU seconds of an epoch times its epochs (null when not recorded).
json train_cpu_seconds(const json& r) {
    const json e = r.value("epoch_cpu_seconds", json());
    if (!e.is_number() || !r["epochs"].is_number()) return nullptr;
    return e.get<double>() * r["epochs"].get<double>();
}

void text_table(std::ostringstream& md, const std::vector<json>& rows, json& extra) {
    std::vector<std::string> methods;
    for (const auto& r : rows)
        if (std::find(methods.begin(), methods.end(), r["method"].get<std::string>()) == methods.end())
            methods.push_back(r["method"].get<std::string>());
    const std::vector<std::pair<const char*, bool>> figures = {{"text_perplexity", false},
                                                               {"text_perplexity_numbers", false},
                                                               {"next_number_exact_match", true},
                                                               {"next_number_digit_accuracy", true},
                                                               {"next_number_within_1_percent", true},
                                                               {"next_number_log_smape", true},
                                                               {"tokens_per_example", false},
                                                               {"train_cpu_seconds", false}};
    md << "| method | runs | text perplexity | text perplexity, rows with numbers | number exact match "
          "(teacher-forced) | digit accuracy | within 1% | log-sMAPE | tokens per document | training CPU s "
          "|\n"
          "|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& m : methods) {
        std::size_t runs = 0;
        for (const auto& r : rows)
            runs += r["method"] == m;
        md << "| " << m << " | " << runs;
        for (const auto& [key, percent] : figures) {
            std::vector<double> v;
            for (const auto& r : rows) {
                if (r["method"] != m) continue;
                const json x =
                    std::string(key) == "train_cpu_seconds" ? train_cpu_seconds(r) : r.value(key, json());
                if (x.is_number()) v.push_back(x.get<double>());
            }
            if (v.empty() || percent) {
                md << " | " << mean_spread(v);
            } else {
                double sum = 0;
                for (double x : v)
                    sum += x;
                const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
                char b[80];
                std::snprintf(b, sizeof b, v.size() > 1 ? "%.3f (%.3f–%.3f)" : "%.3f", sum / v.size(), *lo,
                              *hi);
                md << " | " << b;
                extra["text"][m][key] = sum / v.size();
            }
        }
        md << " |\n";
    }
}

// Any other experiment ("table"): one row per run, its labels, then the figures.
void plain_table(std::ostringstream& md, const Experiment& e, const std::vector<json>& rows) {
    std::set<std::string> labels;
    for (const ExperimentPreset& p : e.presets)
        for (const ExperimentCell& c : p.cells)
            for (auto it = c.labels.begin(); it != c.labels.end(); ++it)
                labels.insert(it.key());
    md << "| run";
    for (const auto& l : labels)
        md << " | " << l;
    md << " | exact match | digit accuracy | R² | params |\n|---";
    for (std::size_t i = 0; i < labels.size() + 4; ++i)
        md << "|---";
    md << "|\n";
    for (const auto& r : rows) {
        md << "| " << r["run"].get<std::string>();
        for (const auto& l : labels)
            md << " | " << (!r.contains(l) ? "–" : r[l].is_string() ? r[l].get<std::string>() : r[l].dump());
        md << " | " << pct(r["exact_match"]) << " | " << pct(r["digit_accuracy"]) << " | " << num(r["r2"])
           << " | " << num(r["params"]) << " |\n";
    }
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

#ifdef FONE_WITH_PLOTS
// A bar's label under the bars: what the report's rows are told apart by.
std::string bar_label(const Experiment& e, const json& r) {
    if (e.report == "efficiency") return r["task"].get<std::string>() + "\n" + r["method"].get<std::string>();
    if (e.report == "ablations") return r["variant"].get<std::string>();
    if (e.report == "ntl") return r["method"].get<std::string>() + "\nλ " + num(r["ntl_lambda"]);
    if (e.report == "peers")
        return r["task"].get<std::string>() + "\n" + r["method"].get<std::string>() + "\ns" +
               num(r.value("seed", json()));
    return r["run"].get<std::string>();
}

// Training time per epoch beside the accuracy: what the efficiency table is about. CPU seconds when every
// run recorded them (on a shared machine wall time also counts waiting for a core).
std::string write_time_bars(const std::vector<json>& rows, const std::vector<std::string>& labels,
                            const plots::LinesStyle& style, const fs::path& out) {
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
    const std::string path = (out / "efficiency-time.png").string();
    plots::write_png(path, std::max(960, 80 * static_cast<int>(labels.size())), 480,
                     [&](QCustomPlot& p) { plots::draw_bars(p, labels, seconds, t); });
    return path;
}
#endif

}  // namespace

std::string results_markdown(const Experiment& e, const std::vector<json>& rows, json& extra) {
    std::ostringstream md;
    md << "### " << e.title << "\n\n";
    if (e.report == "efficiency")
        efficiency_tables(md, rows, extra);
    else if (e.report == "data-size")
        data_size_tables(md, rows, extra);
    else if (e.report == "model-size")
        model_size_tables(md, rows);
    else if (e.report == "ntl")
        ntl_table(md, rows);
    else if (e.report == "modular")
        modular_table(md, rows);
    else if (e.report == "ablations")
        ablation_tables(md, rows, extra);
    else if (e.report == "peers")
        peer_tables(md, rows, extra);
    else if (e.report == "text")
        text_table(md, rows, extra);
    else if (e.report == "text-scaling")
        text_scaling_tables(md, rows, extra);
    else if (e.report == "grokking")
        grokking_tables(md, extra.value("grokking", json::array()));
    else
        plain_table(md, e, rows);
    return md.str();
}

json write_plots(const Experiment& e, const std::vector<json>& rows, const fs::path& out) {
    json files = json::array();
    if (e.report == "grokking") return files;  // its pictures are curves per run: grokking_report
    if (e.report == "text-scaling") {
        if (const std::string path = write_text_scaling_plot(e, rows, out); !path.empty())
            files.push_back(path);
        return files;
    }
#ifdef FONE_WITH_PLOTS
    const std::string path = (out / (e.name + ".png")).string();
    plots::LinesStyle style;
    style.title = e.title;
    style.y_label = "test exact match";
    // Lines of exact match against a number (mean over seeds, min..max), one per method.
    const auto draw_lines = [&](const char* x_label, int log_base,
                                const std::function<double(const json&)>& x_of) {
        style.x_label = x_label;
        style.log_base = log_base;
        const auto lines = lines_of(rows, "method", x_of);
        plots::write_png(path, 900, 520, [&](QCustomPlot& p) { plots::draw_lines(p, lines, style); });
    };
    if (e.report == "data-size") {
        draw_lines("training examples (log scale)", 2,
                   [](const json& r) { return r["train_size"].get<double>(); });
    } else if (e.report == "model-size") {
        draw_lines("parameters (log scale)", 10, [](const json& r) { return r["params"].get<double>(); });
    } else if (e.report == "modular") {
        draw_lines("modulus p", style.log_base, [](const json& r) { return r["modulus"].get<double>(); });
    } else {
        std::vector<std::string> labels;
        std::vector<double> values;
        for (const auto& r : rows) {
            labels.push_back(bar_label(e, r));
            values.push_back(em(r));
        }
        plots::write_png(path, std::max(960, 80 * static_cast<int>(labels.size())), 480,
                         [&](QCustomPlot& p) { plots::draw_bars(p, labels, values, style); });
        if (e.report == "efficiency") files.push_back(write_time_bars(rows, labels, style, out));
    }
    files.push_back(path);
#else
    (void)e, (void)rows, (void)out;
#endif
    return files;
}

std::string results_csv(const std::vector<json>& rows) {
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

}  // namespace fone::cli
