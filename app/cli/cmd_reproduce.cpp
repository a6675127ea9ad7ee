// fone reproduce EXPERIMENT [--preset quick|cpu|full]: the paper's experiments, scaled to a machine.
// Every cell is an ordinary run in the store (named repro-EXPERIMENT-PRESET-CELL, so the workbench shows
// them and an interrupted reproduction picks up where it stopped: finished runs are reused, interrupted
// ones resumed, by the store's rule for existing runs: fone/store/run_policy.h). The results go to --out
// (default results/EXPERIMENT-PRESET): results.csv, results.md and the plots; the markdown table is
// printed on stdout.
//
// The experiments are files, experiments/*.json (fone/store/experiments.h; docs/reproduction.md has the
// format): a new file is a new experiment; `fone reproduce --list` shows them, and EXPERIMENT may also be
// the path of a file. The shipped ones:
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
//   bittokens   FoNE, BitTokens, xVal, digit-wise and subword on addition, multiplication, division and
//               comparison at equal model and data, equal epochs (cpu) or equal training CPU (cpu-time),
//               three seeds (docs/peers.md)
//   grokking    (a + b) mod 113 on a one-layer model: key frequencies of the embedding, restricted and
//               excluded loss over training (Nanda et al. 2023; docs/analysis.md)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "cmd_reproduce.h"
#include "command_support.h"
#include "fone/numbers/decimal.h"
#include "fone/store/experiments.h"
#include "fone/store/run_policy.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "fone/train/inference.h"
#include "fone/train/training.h"
#include "json_io.h"

namespace fone::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Options {
    std::string experiment, preset = "quick", out, runs_dir, methods;
    int threads = 0;
    bool dry_run = false, list = false, json = false;
};

std::string run_name(const Experiment& e, const std::string& preset, const ExperimentCell& cell) {
    return "repro-" + e.name + "-" + preset + "-" + cell.id;
}

// What one finished cell contributes to the tables.
json result_of(const std::string& run_dir, const ExperimentCell& cell) {
    const json summary = read_json_file((fs::path(run_dir) / kSummaryFile).string());
    const json final_eval = summary.value("final", json::object());
    json r = cell.labels;
    r["run"] = fs::path(run_dir).filename().string();
    r["status"] = summary.value("status", "");
    r["params"] = summary.value("params", 0);
    r["train_seconds"] = summary.value("train_seconds", 0.0);
    r["epochs"] = summary.value("epoch", 0);
    for (const char* k :
         {"exact_match", "digit_accuracy", "r2", "rmse", "epoch_seconds", "eval_seconds", "tokens_per_number",
          "malformed", "epoch_cpu_seconds", "eval_cpu_seconds", "log_smape"})
        r[k] = final_eval.value(k, json());
    // Text runs (the "text" report): the text-token perplexities and the teacher-forced number measures.
    for (const char* k : {"text_perplexity", "text_perplexity_numbers", "next_number_exact_match",
                          "next_number_digit_accuracy", "next_number_within_1_percent",
                          "next_number_log_smape", "tokens_per_example"})
        if (final_eval.contains(k)) r[k] = final_eval[k];
    r["best_exact_match"] = summary.value("best_exact_match", 0.0);
    // Text runs: the size, steps and windows their tokens per parameter are counted from (text-scaling).
    if (final_eval.contains("text_perplexity")) {
        const json config = read_json_file((fs::path(run_dir) / kConfigFile).string());
        r["params_without_embedding"] = summary.value("params_without_embedding", json());
        r["steps"] = summary.value("step", json());
        r["train_cpu_seconds"] = summary.value("train_cpu_seconds", json());
        r["batch"] = config.value("batch", json());
        r["text_context"] = config.value("text_context", json());
    }
    return r;
}

// The run's whole config: the cell's settings over the defaults for its size.
TrainConfig cell_config(const std::string& run_name, const ExperimentCell& cell, int threads) {
    json st = cell.settings;
    st["name"] = run_name;
    st["threads"] = threads;
    return resolve_train_config({st});
}

// A cell's run trained to the end, by the store's rule (run_policy.h): a finished run is reused, one with
// a checkpoint resumed, one without restarted, a failed one trained again (kept as RUN.failed-<k>). A
// stored run made with other settings (an older preset) is refused, never reported under the new one.
json run_cell(RunStore& store, const std::string& name, const ExperimentCell& cell, int threads) {
    const std::string dir = (fs::path(store.root()) / name).string();
    RunWish wish;
    wish.retry_failed = true;
    wish.settings = cell_config(name, cell, threads);
    const RunDecision d = decide_run(dir, wish);
    const EventSink quiet;  // the run's own files hold its events
    switch (d.action) {
        case RunAction::reuse:
            return result_of(dir, cell);
        case RunAction::resume:
            train_resume(dir, quiet, threads);
            return result_of(dir, cell);
        case RunAction::restart:
        case RunAction::retry:
            if (const std::string aside = clear_run_dir(dir, d.action); !aside.empty())
                std::fprintf(stderr, "%s failed earlier (%s): kept as %s, trained again\n", name.c_str(),
                             d.reason.c_str(), fs::path(aside).filename().c_str());
            [[fallthrough]];
        case RunAction::start:
            return result_of(train_new(*wish.settings, store, quiet).run_dir, cell);
        case RunAction::refuse:
            throw std::invalid_argument(d.reason + "; remove that run or use another --runs-dir");
        case RunAction::wait:
        case RunAction::elsewhere:
            throw RunError(dir + " is training in another process (pid " + std::to_string(d.pid) +
                           (d.host.empty() ? "" : " on " + d.host) + "); run this again once it has ended");
        case RunAction::leave:
            break;
    }
    throw RunError(d.reason + "; remove it or use another --runs-dir");  // not a run directory
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

// --list on a terminal: a name and title a line, the presets with their run counts under it.
void print_experiment_summary(const std::vector<Experiment>& experiments) {
    std::size_t width = 0;
    for (const Experiment& e : experiments)
        width = std::max(width, e.name.size());
    for (const Experiment& e : experiments) {
        std::string presets;
        for (const ExperimentPreset& p : e.presets)
            presets += (presets.empty() ? "" : ", ") + p.name + " " + std::to_string(p.cells.size()) +
                       (p.cells.size() == 1 ? " run" : " runs");
        std::cout << e.name << std::string(width + 2 - e.name.size(), ' ') << e.title << '\n'
                  << std::string(width + 2, ' ') << "presets: " << presets << '\n';
    }
    std::cout << experiments.size() << " experiments. fone reproduce NAME --preset quick runs one; "
              << "--json lists them with their descriptions and files.\n"
              << std::flush;
}

// --list: a short summary on a terminal, one JSON line per experiment with --json or when piped.
void list_experiments(bool as_json) {
    const std::string dir = experiments_dir();
    if (dir.empty()) throw std::invalid_argument("no experiments folder (see fone reproduce --help)");
    const std::vector<Experiment> experiments = load_experiments(dir);
    if (!json_output(as_json)) return print_experiment_summary(experiments);
    for (const Experiment& e : experiments) {
        json presets = json::array();
        for (const ExperimentPreset& p : e.presets)
            presets.push_back({{"preset", p.name}, {"description", p.description}, {"runs", p.cells.size()}});
        print_json_line(std::cout, {{"experiment", e.name},
                                    {"title", e.title},
                                    {"description", e.description},
                                    {"presets", presets},
                                    {"file", e.file}});
    }
}

// --methods digit,subword: only the cells of those methods (e.g. to run two methods in two processes on
// one store).
std::vector<ExperimentCell> cells_of_methods(const Experiment& e, std::vector<ExperimentCell> cells,
                                             const std::string& methods) {
    std::set<std::string> keep;
    std::stringstream ss(methods);
    for (std::string m; std::getline(ss, m, ',');)
        keep.insert(m);
    std::erase_if(cells, [&](const ExperimentCell& c) {
        return !keep.count(c.settings.value("method", std::string("fone")));
    });
    if (cells.empty())
        throw std::invalid_argument("--methods " + methods + ": no run of " + e.name + " uses them");
    return cells;
}

// The cells' runs, one after the other, then the report.
void run_reproduce(const Options& o) {
    const Experiment e = find_experiment(o.experiment);
    std::vector<ExperimentCell> cells = e.preset(o.preset).cells;
    if (!o.methods.empty()) cells = cells_of_methods(e, std::move(cells), o.methods);
    if (o.dry_run) {
        for (const auto& c : cells) {
            const std::string name = run_name(e, o.preset, c);
            print_json_line(std::cout, {{"run", name},
                                        {"settings", c.settings},
                                        {"config", cell_config(name, c, o.threads).to_json()}});
        }
        return;
    }
    RunStore store = open_store(o.runs_dir, true);
    const fs::path out = o.out.empty() ? fs::path("results") / (e.name + "-" + o.preset) : fs::path(o.out);
    fs::create_directories(out);
    std::vector<json> rows;
    json extra = json::object();
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const ExperimentCell& c = cells[i];
        json r = run_cell(store, run_name(e, o.preset, c), c, o.threads);
        std::fprintf(stderr, "[%zu/%zu] %s: %s exact match, %s per epoch\n", i + 1, cells.size(),
                     c.id.c_str(), pct(r["exact_match"]).c_str(), secs(r["epoch_seconds"]).c_str());
        if (e.report == "ablations" && c.labels.value("variant", "") == "periods 5")
            extra["mod5"] = off_by_five((fs::path(store.root()) / r["run"].get<std::string>()).string());
        rows.push_back(std::move(r));
    }
    if (e.report == "grokking") extra["grokking"] = grokking_report(store.root(), rows, out);
    const std::string md = results_markdown(e, rows, extra);
    write_file_atomic((out / "results.csv").string(), results_csv(rows));
    write_file_atomic((out / "results.md").string(), md);
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
    auto* cmd = app.add_subcommand("reproduce", torch_command_description("reproduce"));
    cmd->add_option(
        "experiment", o->experiment,
        "An experiment of experiments/ (efficiency, data-size, model-size, ablations, ntl, modular, "
        "bittokens, grokking; --list shows them all) or the path of an experiment file (.json)");
    cmd->add_option(
        "--preset", o->preset,
        "A preset of the experiment: quick (minutes; checks the pipeline), cpu (this machine), full "
        "(GPU)");
    cmd->add_option("--out", o->out, "Results folder (default: results/EXPERIMENT-PRESET)");
    cmd->add_option("--runs-dir", o->runs_dir, "Run store");
    cmd->add_option("--threads", o->threads, "CPU threads per run (0: auto, from the CPUs free)")
        ->check(CLI::Range(0, 1024));
    cmd->add_flag("--dry-run", o->dry_run,
                  "List the runs as JSON lines (name, the cell's settings, the whole config), train nothing");
    cmd->add_option("--methods", o->methods, "Only the runs of these methods (e.g. digit,subword)");
    cmd->add_flag("--list", o->list,
                  "List the experiments and exit: names, titles and presets' run counts on a terminal; JSON "
                  "lines (name, title, description, presets with their run counts, file) with --json or when "
                  "stdout is not a terminal");
    cmd->add_flag("--json", o->json, "--list: JSON lines, as when stdout is not a terminal");
    cmd->callback([o] {
        if (!o->list && o->experiment.empty())
            fail("reproduce", "experiment is required (fone reproduce --list shows them)", 2);
        run_command("reproduce", [&] {
            if (o->json && !o->list) throw std::invalid_argument("--json goes with --list");
            if (o->list)
                list_experiments(o->json);
            else
                run_reproduce(*o);
        });
    });
}

}  // namespace fone::cli
