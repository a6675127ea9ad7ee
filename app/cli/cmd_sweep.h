// `fone sweep`, in three files of one concern each (what the command does and prints: cmd_sweep.cpp):
//   cmd_sweep.cpp         the command: options, the grid and the sweep file, each cell's plan, --dry-run
//   cmd_sweep_runner.cpp  the cells as child processes, N at a time: their output, signals, waits
//   cmd_sweep_slurm.cpp   --slurm: the job-array script
// The grid, the cell names and the sweep file are core's (fone/store/sweep.h); what to do with a cell's
// existing run is the store's rule (fone/store/run_policy.h).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "fone/store/run_policy.h"
#include "fone/store/run_store.h"
#include "fone/store/sweep.h"

namespace fone::cli {

struct SweepOptions {
    std::string name, resume, runs_dir, parallel, train_sizes, size_levels, methods, seeds;
    bool dry_run = false, retry_failed = false, verbose = false;
    std::vector<std::string> shared;
    // --slurm FILE: write a Slurm job-array script instead of running the cells here.
    std::string slurm, slurm_time, slurm_partition;
    int slurm_cpus = 1, slurm_gpus = 0;
    // Each cell one run on several processes (srun; docs/cluster.md): tasks per cell, GPUs per task.
    int slurm_ntasks = 1, slurm_gpus_per_task = 0;
    std::vector<std::string> slurm_options;
    CLI::Option *name_opt = nullptr, *parallel_opt = nullptr, *train_sizes_opt = nullptr,
                *size_levels_opt = nullptr, *methods_opt = nullptr, *seeds_opt = nullptr;

    bool any_axis() const {
        return train_sizes_opt->count() || size_levels_opt->count() || methods_opt->count() ||
               seeds_opt->count();
    }
};

// What to do with a cell: the store's decision for its run, as the sweep reports it.
struct CellPlan {
    RunAction action = RunAction::start;
    std::string status;  // the run's state now: a kStatus* value, or "absent"
    std::string message;
    nlohmann::json exact_match;  // summary.json's final exact match (null: none)
    int pid = 0;                 // wait: the process training it
};
CellPlan plan_cell(const RunStore& store, const std::string& run, bool retry_failed);
// The action's word in the sweep's events: skip (a finished run is reused), start, resume, restart, retry,
// leave, wait, elsewhere.
std::string sweep_action(RunAction action);
// Counted in "todo": every action but skip, leave and elsewhere.
bool is_todo(RunAction action);

// Runs the cells (plans[i] is cells[i]'s), `slots` at a time, and prints the sweep's events; the exit
// status (0 every cell finished, 1 not, 130 a signal). child_threads > 0 adds --threads to each child.
struct SweepRun {
    std::string name, file, logs_dir;
    bool resumed = false, verbose = false, retry_failed = false;
    int slots = 1, child_threads = 0;
};
int run_cells(const SweepRun& how, RunStore& store, std::vector<SweepCell> cells,
              std::vector<CellPlan> plans);

// --slurm: the options checked (std::invalid_argument), and the job-array script (task i is cell i).
void check_slurm_options(const SweepOptions& o);
std::string slurm_script(const std::string& sweep, const std::string& sweep_file, const std::string& root,
                         const std::string& logs, const std::vector<SweepCell>& cells,
                         const std::vector<std::string>& shared, int parallel, const SweepOptions& o);
// A word for bash, single-quoted unless it is plainly safe.
std::string shell_quote(const std::string& s);

// Small helpers the three files share.
std::string trim_blanks(const std::string& s);
void emit(const nlohmann::json& event);  // one JSON line on stdout
// summary.json's final (test) exact match, as `fone runs list` shows it; null when there is none.
nlohmann::json summary_exact_match(const nlohmann::json& summary);

}  // namespace fone::cli
