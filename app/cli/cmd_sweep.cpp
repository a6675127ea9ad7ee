// fone sweep: a grid of training runs (training-set sizes x model sizes x methods x seeds), N at a time,
// each cell a normal `fone train` run in the store. An interrupted sweep resumes where it stopped.
//
//   fone sweep --name s1 --train-sizes 800:51200 --seeds 1,2,3 --parallel 4 -- --task dec-add --epochs 5
//   fone sweep --resume s1                 (or the same command again): finished cells are skipped
//   fone sweep --name s1 ... --dry-run     the cells, one JSON line each, and their count; starts nothing
//   fone sweep --name s1 ... --slurm s1.sh [--slurm-cpus 4 --slurm-time 2:00:00 --slurm-partition p
//              --slurm-gpus 1 --slurm-option=--account=abc]   a Slurm job-array script; starts nothing
//
// --slurm FILE records the sweep file as usual and writes FILE: `sbatch FILE` runs cell i as array task i,
// `fone train <args> --threads $SLURM_CPUS_PER_TASK` (unless the shared options name --threads or
// --config), or `fone train --resume` when its run already exists (requeue, preemption: `fone train`
// checkpoints on SIGTERM), or nothing when it has finished. --parallel N becomes the array's %N. The store
// (--runs-dir) must be on a filesystem every node sees; the script calls this `fone` by its absolute path
// (FONE=... overrides it) and logs to <store>/.<sweep>.logs/slurm-<job>_<task>.out. docs/cluster.md.
//
// Axes: --train-sizes 800,1600,3200 or 800:51200 (doubling from 800 while <= 51200), --size-levels 1,2
// (0..6, 0: the custom shape of the shared options), --methods fone, --seeds 1,2,3. At least one axis; no
// empty items, no duplicates, at most 10,000 cells. Everything after `--` is passed to every cell's
// `fone train` (without the word "train"); it may not name --name, --runs-dir, --resume, nor the option of
// an axis that is given.
//
// The sweep file <runs-dir>/<sweep>.sweep.json (its format: fone/store/sweep.h) is written by `fone sweep`
// alone (with --slurm too), atomically, when the sweep is created, never after; `fone sweep --resume`
// reads it. The workbench's sweep designer names its cells the same way but writes no sweep file.
// Cell i is the process `fone train <args> --runs-dir <the sweep file's directory>`. Its args are the shared
// args, then --train-size S --size-level L --method M --seed K (the axes given), then --name RUN, where RUN
// is NAME-n<S>-l<L>-<M>-s<K> (the parts of the axes given). Cells are in grid order, seeds fastest. When
// N > 1 and the shared args have neither --threads nor --config, each new cell also gets --threads
// max(1, cores / N), so that N children do not each take every core.
//
// A cell's action is the store's rule for its run (fone/store/run_policy.h), read when the sweep (re)starts
// (--dry-run shows the action each cell would get):
//   finished                 skip
//   absent                   start (also a cell whose process failed before making its run: a bad option)
//   stopped / interrupted    resume: `fone train --resume RUN`; without checkpoint-last.safetensors (killed
//   before
//                            its first checkpoint), restart: the directory is deleted and the cell started
//   broken                   restart without checkpoint-last.safetensors, else as failed
//   failed                   leave: reported, not run; with --retry-failed, retry: the run directory is
//                            renamed RUN.failed-<k> (kept, not deleted) and the cell started again
//   running, alive, here     wait: it holds a slot until it ends, then is handled by the state it ends in
//   running on another host  elsewhere: left alone, counted as pending
// One process per sweep: it holds a lock on the sweep's log folder while it runs.
//
// Output: JSON lines on stdout, one human line per cell on stderr.
//   {"event":"sweep_start", "sweep", "file", "runs_dir", "cells", "todo", "parallel", "resumed"}
//   {"event":"cell_skip",   "run", "index", "status", "exact_match", "message"}     skip, leave, elsewhere
//   {"event":"cell_start",  "run", "index", "action" (start|resume|restart|retry), "pid"}
//   {"event":"cell_wait",   "run", "index", "pid"}     its run is already training in another process
//   each child's "eval" and "end" events, with "run" and "index" added (with --verbose also its "progress"
//   and "start" events, and other output lines as {"event":"output", "line"})
//   {"event":"cell_end",    "run", "index", "status", "exact_match", "exit_code", "elapsed_seconds",
//                           "message"}
//   {"event":"sweep_end",   "sweep", "cells", "finished", "failed", "stopped", "pending", "started",
//                           "interrupted", "elapsed_seconds"}
// index is the cell's position in "cells", from 0; the counts of sweep_end are over every cell of the sweep.
// Each child's stderr is appended to <runs-dir>/.<sweep>.logs/<run>.stderr (a dot folder, which `fone runs
// list` skips); when a cell fails, the tail of this attempt's part is shown.
//
// SIGINT/SIGTERM: SIGTERM to every child (each checkpoints and stops), wait for them, start nothing more,
// exit 130; `fone sweep --resume NAME` continues. A second signal kills the children (then "interrupted",
// resumable from their last checkpoint). The children get SIGTERM too when the sweep itself dies
// (PR_SET_PDEATHSIG), so a kill -9 of the sweep leaves no orphans training on.
//
// Exit status: 0 every cell finished, 1 some cell is not (failed, stopped, pending), 2 bad input, 130 signal.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cmd_sweep.h"
#include "command_support.h"
#include "fone/platform/cpu.h"
#include "json_io.h"

namespace fone::cli {

namespace fs = std::filesystem;
using nlohmann::json;

std::string trim_blanks(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

void emit(const json& j) {
    print_json_line(std::cout, j);
}

std::string sweep_action(RunAction action) {
    return action == RunAction::reuse ? "skip" : run_action_name(action);
}

bool is_todo(RunAction action) {
    return action != RunAction::reuse && action != RunAction::leave && action != RunAction::elsewhere;
}

// summary.json's final (test) exact match, as `fone runs list` shows it; null when there is none.
json summary_exact_match(const json& summary) {
    if (!summary.is_object()) return nullptr;
    if (const auto it = summary.find("exact_match"); it != summary.end() && it->is_number()) return *it;
    if (const auto f = summary.find("final"); f != summary.end() && f->is_object())
        if (const auto it = f->find("exact_match"); it != f->end() && it->is_number()) return *it;
    return nullptr;
}

CellPlan plan_cell(const RunStore& store, const std::string& run, bool retry_failed) {
    RunWish wish;
    wish.retry_failed = retry_failed;
    const RunDecision d = decide_run((fs::path(store.root()) / run).string(), wish);
    CellPlan p;
    p.action = d.action;
    p.status = d.status;
    p.message = d.reason;
    p.exact_match = summary_exact_match(d.info.summary);
    p.pid = d.pid;
    return p;
}

namespace {

// Holds an exclusive lock on the sweep's log folder while the sweep runs: one process per sweep.
class SweepLock {
  public:
    explicit SweepLock(const std::string& dir) {
        fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd_ < 0) throw RunError(dir + ": " + std::strerror(errno));
        if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            ::close(fd_);
            fd_ = -1;
            throw RunError("the sweep is already running in another process (" + dir + " is locked)");
        }
    }
    ~SweepLock() {
        if (fd_ >= 0) ::close(fd_);
    }
    SweepLock(const SweepLock&) = delete;
    SweepLock& operator=(const SweepLock&) = delete;

  private:
    int fd_ = -1;
};

int parse_parallel(const std::string& text) {
    const std::string t = trim_blanks(text);
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size())
        throw std::invalid_argument("--parallel takes a whole number (0: one per core), not '" + text + "'");
    if (v > 4096) throw std::invalid_argument("--parallel: at most 4096 children at once, not " + t);
    return static_cast<int>(v);
}

// The axes given on the command line (at least one).
SweepGrid parse_grid(const SweepOptions& o) {
    SweepGrid g;
    if (o.train_sizes_opt->count()) g.train_sizes = parse_train_sizes("--train-sizes", o.train_sizes);
    if (o.size_levels_opt->count())
        for (const std::uint64_t level : parse_size_levels("--size-levels", o.size_levels))
            g.size_levels.push_back(level);
    if (o.methods_opt->count()) g.methods = parse_methods("--methods", o.methods);
    if (o.seeds_opt->count()) g.seeds = parse_seeds("--seeds", o.seeds);
    if (g.empty())
        throw std::invalid_argument(
            "a sweep needs at least one axis: --train-sizes, --size-levels, --methods or --seeds");
    check_grid_size(g);
    return g;
}

// Each cell's train options as `fone train` would take them, before anything is written: a bad shared
// option is one error now, not a failed run per cell later.
void check_cell_args(const std::vector<SweepCell>& cells) {
    for (const SweepCell& c : cells) {
        try {
            check_train_args(c.args);
        } catch (const std::invalid_argument& e) {
            std::string why = e.what();
            std::replace(why.begin(), why.end(), '\n', ';');
            throw std::invalid_argument("cell " + c.run + ": " + why);
        }
    }
}

// What the command line asks for, checked before anything is made.
struct Request {
    std::string name;
    bool resume_only = false;  // --resume NAME
    bool has_grid = false;     // axes or train options given: the cells they make
    SweepGrid grid;
    std::vector<SweepCell> wanted;
    int parallel_given = -1;  // -1: not given
};

Request read_request(const SweepOptions& o, const std::string& root) {
    Request q;
    q.resume_only = !o.resume.empty();
    if (q.resume_only && (o.any_axis() || !o.shared.empty()))
        throw std::invalid_argument(
            "--resume continues a recorded sweep: give no axes and no train options after -- (they are in "
            "its sweep file)");
    std::error_code ec;
    if (q.resume_only && sweep_name_problem(o.resume).empty() &&
        !fs::exists(sweep_file_path(root, o.resume), ec))
        throw RunError("no sweep '" + o.resume + "' in " + root + " (no " + sweep_file_path(root, o.resume) +
                       ")");
    if (o.parallel_opt->count()) q.parallel_given = parse_parallel(o.parallel);
    if (!o.slurm.empty()) check_slurm_options(o);

    q.has_grid = !q.resume_only && (o.any_axis() || !o.shared.empty() || !o.name_opt->count());
    if (q.has_grid) {
        q.grid = parse_grid(o);
        check_shared_args(o.shared, q.grid);
    }
    q.name = q.resume_only ? o.resume : o.name;
    if (q.name.empty()) q.name = "sweep-" + local_stamp();
    if (const std::string why = sweep_name_problem(q.name); !why.empty())
        throw std::invalid_argument(why + ": '" + q.name + "'");
    if (q.has_grid) {
        q.wanted = sweep_cells(q.name, q.grid, o.shared);
        check_cell_args(q.wanted);
    }
    // Only --name: a resume of that sweep if it exists, else a grid without axes (the axis error).
    if (!q.has_grid && !q.resume_only && !fs::exists(sweep_file_path(root, q.name), ec)) parse_grid(o);
    return q;
}

// The recorded sweep; the same name with other axes or train options is an error, not a second sweep
// under one name.
SweepFile recorded_sweep(const Request& q, const RunStore& store, const std::string& file) {
    SweepFile f = read_sweep_file(file);
    if (q.has_grid && cells_json(q.wanted) != cells_json(f.cells))
        throw std::invalid_argument("sweep '" + q.name + "' already exists in " + store.root() +
                                    " with other axes or train options; continue it with --resume " + q.name +
                                    " (and nothing else), or choose another --name");
    if (q.parallel_given >= 0) f.parallel = q.parallel_given;  // for this run; the file keeps its own
    return f;
}

// A new sweep: its cells' names must be free (a run of that name is not from this sweep).
SweepFile new_sweep(const SweepOptions& o, const Request& q, const RunStore& store, const std::string& file) {
    if (q.resume_only) throw RunError("no sweep '" + q.name + "' in " + store.root() + " (no " + file + ")");
    std::error_code ec;
    for (const SweepCell& c : q.wanted)
        if (fs::exists(fs::path(store.root()) / c.run, ec))
            throw std::invalid_argument("run '" + c.run + "' already exists in " + store.root() +
                                        " and is not from a sweep '" + q.name + "': choose another --name");
    SweepFile f;
    f.sweep = q.name;
    f.created = utc_now_iso();
    f.grid = q.grid.to_json();
    f.shared_args = o.shared;
    f.parallel = q.parallel_given >= 0 ? q.parallel_given : 1;
    f.logs = "." + q.name + ".logs";
    f.cells = q.wanted;
    return f;
}

// The sweep as recorded (its file read) or as new (its file not written yet), with its log folder made
// and, when cells will run here, locked.
struct OpenSweep {
    std::string file, logs;
    bool exists = false;
    SweepFile sweep;
    std::unique_ptr<SweepLock> lock;
};

OpenSweep open_sweep(const SweepOptions& o, Request& q, const RunStore& store) {
    std::error_code ec;
    if (!o.name_opt->count() && !q.resume_only) {
        // A default name taken (two sweeps in one second): NAME-2, NAME-3, ...
        const std::string base = q.name;
        for (int k = 2; fs::exists(sweep_file_path(store.root(), q.name), ec); ++k)
            q.name = base + "-" + std::to_string(k);
        if (q.name != base) q.wanted = sweep_cells(q.name, q.grid, o.shared);
    }
    OpenSweep s;
    s.file = sweep_file_path(store.root(), q.name);
    s.logs = sweep_logs_dir(store.root(), q.name);
    bool made_logs = false;
    if (!o.dry_run) {
        made_logs = fs::create_directory(s.logs, ec);
        if (ec) throw RunError(s.logs + ": cannot create the sweep's log folder: " + ec.message());
    }
    try {
        if (!o.dry_run && o.slurm.empty())
            s.lock = std::make_unique<SweepLock>(s.logs);  // a script runs none
        s.exists = fs::exists(s.file, ec);
        if (s.exists)
            s.sweep = recorded_sweep(q, store, s.file);
        else
            s.sweep = new_sweep(o, q, store, s.file);
    } catch (...) {
        s.lock.reset();
        if (made_logs) fs::remove(s.logs, ec);  // only when empty: never someone's logs
        throw;
    }
    return s;
}

// --dry-run: each cell with the action it would get, then the count; nothing is made.
int print_plan(const std::string& name, const OpenSweep& s, const std::vector<CellPlan>& plans, int slots) {
    const std::vector<SweepCell>& cells = s.sweep.cells;
    std::size_t todo = 0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        todo += is_todo(plans[i].action);
        emit({{"event", "cell"},
              {"index", i},
              {"run", cells[i].run},
              {"args", cells[i].args},
              {"action", sweep_action(plans[i].action)},
              {"status", plans[i].status}});
    }
    emit({{"event", "dry_run"},
          {"sweep", name},
          {"file", s.file},
          {"exists", s.exists},
          {"cells", cells.size()},
          {"todo", todo},
          {"parallel", slots}});
    std::cerr << "fone sweep: " << name << ": " << cells.size() << " cell(s), " << todo
              << " to run; nothing started (--dry-run)" << std::endl;
    return 0;
}

// --slurm FILE: the sweep file (when new) and the job-array script; nothing runs here.
int write_slurm(const SweepOptions& o, const Request& q, const OpenSweep& s, const RunStore& store,
                const std::vector<CellPlan>& plans) {
    // With --parallel N, at most N array tasks at once (%N); without, Slurm decides.
    const int array_limit = q.parallel_given > 0 ? q.parallel_given : 0;
    const std::string script = slurm_script(q.name, s.file, store.root(), s.logs, s.sweep.cells,
                                            s.sweep.shared_args, array_limit, o);
    if (!s.exists) write_sweep_file(s.file, s.sweep);
    write_file_atomic(o.slurm, script);
    std::error_code ec;
    fs::permissions(o.slurm, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
    std::size_t todo = 0;
    for (const CellPlan& p : plans)
        todo += p.action != RunAction::reuse;  // every unfinished cell is an array task's to do
    emit({{"event", "slurm_script"},
          {"sweep", q.name},
          {"file", s.file},
          {"script", fs::absolute(o.slurm, ec).string()},
          {"runs_dir", store.root()},
          {"cells", s.sweep.cells.size()},
          {"todo", todo},
          {"submit", "sbatch " + shell_quote(o.slurm)}});
    std::cerr << "fone sweep: " << q.name << ": " << s.sweep.cells.size()
              << " cell(s) as a Slurm job array in " << o.slurm << "; submit it with: sbatch "
              << shell_quote(o.slurm) << std::endl;
    return 0;
}

// The command: what is asked, the sweep it names (recorded or new), each cell's plan, then a dry run, a
// Slurm script, or the cells run here.
int run_sweep(const SweepOptions& o) {
    const std::string root = runs_root(o.runs_dir);
    Request q = read_request(o, root);  // bad input is reported before anything is made
    RunStore store(root, !o.dry_run);
    OpenSweep s = open_sweep(o, q, store);
    std::vector<CellPlan> plans;
    for (const SweepCell& c : s.sweep.cells)
        plans.push_back(plan_cell(store, c.run, o.retry_failed));
    const int slots = s.sweep.parallel == 0 ? available_cores() : s.sweep.parallel;
    if (o.dry_run) return print_plan(q.name, s, plans, slots);
    if (!o.slurm.empty()) return write_slurm(o, q, s, store, plans);

    if (!s.exists) write_sweep_file(s.file, s.sweep);
    SweepRun how;
    how.name = q.name;
    how.file = s.file;
    how.logs_dir = s.logs;
    how.resumed = s.exists;
    how.verbose = o.verbose;
    how.retry_failed = o.retry_failed;
    how.slots = slots;
    // N children that each take every core only fight: share the cores unless the cells say otherwise.
    const std::vector<std::string>& shared = s.sweep.shared_args;
    if (slots > 1 && !names_option(shared, "--threads") && !names_option(shared, "--config"))
        how.child_threads = threads_per_run(slots);
    return run_cells(how, store, std::move(s.sweep.cells), std::move(plans));
}

}  // namespace

void add_sweep_commands(CLI::App& app) {
    auto o = std::make_shared<SweepOptions>();
    auto* cmd = app.add_subcommand("sweep", torch_command_description("sweep"));
    o->name_opt =
        cmd->add_option("--name", o->name,
                        "Sweep name (default: sweep-YYYYMMDD-HHMMSS); the same command again resumes it")
            ->type_name("NAME");
    cmd->add_option("--resume", o->resume, "Continue the recorded sweep NAME")
        ->type_name("NAME")
        ->excludes(o->name_opt);
    cmd->add_option("--runs-dir", o->runs_dir, "Run store (default: $FONE_RUNS_DIR or ~/.local/share/...)")
        ->type_name("DIR");
    o->parallel_opt = cmd->add_option("--parallel", o->parallel, "Runs at once (default 1; 0: one per core)")
                          ->type_name("N");
    o->train_sizes_opt =
        cmd->add_option("--train-sizes", o->train_sizes,
                        "Training-set sizes: 800,1600,3200 or 800:51200 (doubling from A to at most B)")
            ->type_name("LIST|A:B");
    o->size_levels_opt =
        cmd->add_option("--size-levels", o->size_levels, "Model size levels, e.g. 1,2 (0..6)")
            ->type_name("LIST");
    o->methods_opt = cmd->add_option("--methods", o->methods, "Number methods, e.g. fone")->type_name("LIST");
    o->seeds_opt = cmd->add_option("--seeds", o->seeds, "Seeds, e.g. 1,2,3")->type_name("LIST");
    cmd->add_flag("--dry-run", o->dry_run,
                  "Print the cells (one JSON line each) and their count; start nothing");
    cmd->add_flag("--retry-failed", o->retry_failed,
                  "Run failed cells again (the failed run is kept as RUN.failed-<k>)");
    cmd->add_flag("--verbose", o->verbose, "Also pass on the runs' progress and start events");
    CLI::Option* slurm_opt =
        cmd->add_option("--slurm", o->slurm,
                        "Write a Slurm job-array script to FILE (one cell per array task; resume on requeue) "
                        "and start nothing; the store must be on a shared filesystem")
            ->type_name("FILE");
    cmd->add_option("--slurm-cpus", o->slurm_cpus, "With --slurm: CPUs per array task (the run's threads)")
        ->needs(slurm_opt)
        ->type_name("N")
        ->capture_default_str();
    cmd->add_option("--slurm-gpus", o->slurm_gpus, "With --slurm: GPUs per array task (--gres=gpu:N)")
        ->needs(slurm_opt)
        ->type_name("N")
        ->capture_default_str();
    cmd->add_option("--slurm-ntasks", o->slurm_ntasks,
                    "With --slurm: processes per cell (#SBATCH --ntasks; each cell one data-parallel run "
                    "started with srun, each task --slurm-cpus threads)")
        ->needs(slurm_opt)
        ->type_name("N")
        ->capture_default_str();
    cmd->add_option("--slurm-gpus-per-task", o->slurm_gpus_per_task,
                    "With --slurm: GPUs per task (#SBATCH --gpus-per-task; give -- --device cuda)")
        ->needs(slurm_opt)
        ->type_name("N")
        ->capture_default_str();
    cmd->add_option("--slurm-time", o->slurm_time, "With --slurm: time limit per task, e.g. 2:00:00")
        ->needs(slurm_opt)
        ->type_name("TIME");
    cmd->add_option("--slurm-partition", o->slurm_partition, "With --slurm: the partition")
        ->needs(slurm_opt)
        ->type_name("NAME");
    cmd->add_option("--slurm-option", o->slurm_options,
                    "With --slurm: another #SBATCH line, e.g. --slurm-option=--account=abc (repeatable)")
        ->needs(slurm_opt)
        ->type_name("OPT")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cmd->add_option("train-options", o->shared, "After --: fone train options shared by every cell")
        ->type_name("ARGS")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cmd->callback([o] {
        int code = 0;
        run_command(
            "sweep", [&] { code = run_sweep(*o); }, 2);
        if (code) throw CliFailure("sweep not complete", code);
    });
}

}  // namespace fone::cli
