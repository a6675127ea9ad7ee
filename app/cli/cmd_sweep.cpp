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
// The sweep file <runs-dir>/<sweep>.sweep.json is a stable contract (the workbench's sweep designer and
// `fone sweep --slurm` read and write it), written atomically when the sweep is created, never after:
//   {"format": 1, "sweep": NAME, "created": "2026-11-22T04:15:02Z",
//    "grid": {"train_sizes": [..], "size_levels": [..], "methods": [..], "seeds": [..]}   (the axes given),
//    "shared_args": [..], "parallel": N (0: one per core), "logs": ".NAME.logs",
//    "cells": [{"run": RUN, "args": [..]}, ...]}
// Cell i is the process `fone train <args> --runs-dir <the sweep file's directory>`. Its args are the shared
// args, then --train-size S --size-level L --method M --seed K (the axes given), then --name RUN, where RUN
// is NAME-n<S>-l<L>-<M>-s<K> (the parts of the axes given). Cells are in grid order, seeds fastest. When
// N > 1 and the shared args have neither --threads nor --config, each new cell also gets --threads
// max(1, cores / N), so that N children do not each take every core.
//
// A cell's state is its run's state in the store, read when the sweep (re)starts (--dry-run shows the
// action each cell would get):
//   finished                 skip
//   absent                   start (also a cell whose process failed before making its run: a bad option)
//   stopped / interrupted    resume: `fone train --resume RUN`; without checkpoint-last.pt (killed before
//                            its first checkpoint), restart: the directory is deleted and the cell started
//   broken                   restart without checkpoint-last.pt, else as failed
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
#include <poll.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "commands.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "json_io.h"

namespace fone::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kSweepFormat = 1;
constexpr std::uint64_t kMaxCells = 10000;
constexpr std::size_t kMaxSweepName = 80;
constexpr std::size_t kMaxRunName = 120;  // the run store's limit
constexpr std::size_t kTailLines = 12;

struct SweepOptions {
    std::string name, resume, runs_dir, parallel, train_sizes, size_levels, methods, seeds;
    bool dry_run = false, retry_failed = false, verbose = false;
    std::vector<std::string> shared;
    // --slurm FILE: write a Slurm job-array script instead of running the cells here.
    std::string slurm, slurm_time, slurm_partition;
    int slurm_cpus = 1, slurm_gpus = 0;
    std::vector<std::string> slurm_options;
    CLI::Option *name_opt = nullptr, *parallel_opt = nullptr, *train_sizes_opt = nullptr,
                *size_levels_opt = nullptr, *methods_opt = nullptr, *seeds_opt = nullptr;

    bool any_axis() const {
        return train_sizes_opt->count() || size_levels_opt->count() || methods_opt->count() ||
               seeds_opt->count();
    }
};

// The axes given; an empty vector is an axis not given (a given one is never empty).
struct Grid {
    std::vector<std::uint64_t> train_sizes, size_levels, seeds;
    std::vector<std::string> methods;

    json to_json() const {
        json g = json::object();
        if (!train_sizes.empty()) g["train_sizes"] = train_sizes;
        if (!size_levels.empty()) g["size_levels"] = size_levels;
        if (!methods.empty()) g["methods"] = methods;
        if (!seeds.empty()) g["seeds"] = seeds;
        return g;
    }
};

struct Cell {
    std::string run;
    std::vector<std::string> args;
};

// ---- small helpers ----------------------------------------------------------------------------------

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

int core_count() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<int>(n) : 1;
}

std::string str_field(const json& j, const char* key) {
    if (!j.is_object()) return "";
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// summary.json's final (test) exact match, as `fone runs list` shows it; null when there is none.
json summary_exact_match(const json& summary) {
    if (!summary.is_object()) return nullptr;
    if (const auto it = summary.find("exact_match"); it != summary.end() && it->is_number()) return *it;
    if (const auto f = summary.find("final"); f != summary.end() && f->is_object())
        if (const auto it = f->find("exact_match"); it != f->end() && it->is_number()) return *it;
    return nullptr;
}

void emit(const json& j) {
    print_json_line(std::cout, j);
}

std::string seconds_text(double s) {
    char buf[32];
    if (s < 120)
        std::snprintf(buf, sizeof buf, "%.1f s", s);
    else
        std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    return buf;
}

// ---- the grid -----------------------------------------------------------------------------------------

std::vector<std::string> split_list(const std::string& flag, const std::string& text) {
    if (trim(text).empty()) throw std::invalid_argument(flag + ": the list is empty");
    std::vector<std::string> items;
    std::size_t pos = 0;
    while (true) {
        const std::size_t comma = text.find(',', pos);
        const std::string item =
            trim(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        if (item.empty()) throw std::invalid_argument(flag + ": empty item in '" + text + "'");
        items.push_back(item);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return items;
}

std::uint64_t parse_whole(const std::string& flag, const std::string& item) {
    std::uint64_t v = 0;
    const char* end = item.data() + item.size();
    const auto [p, ec] = std::from_chars(item.data(), end, v);
    if (ec == std::errc::result_out_of_range)
        throw std::invalid_argument(flag + ": '" + item + "' is too large");
    if (ec != std::errc() || p != end || item.empty() || item[0] == '-')
        throw std::invalid_argument(flag + ": '" + item + "' is not a whole number");
    return v;
}

template <typename T>
void check_unique(const std::string& flag, const std::vector<T>& values) {
    std::set<T> seen;
    for (const T& v : values)
        if (!seen.insert(v).second) {
            std::ostringstream s;
            s << flag << ": " << v << " is given twice";
            throw std::invalid_argument(s.str());
        }
}

std::vector<std::uint64_t> parse_train_sizes(const std::string& text) {
    const std::string flag = "--train-sizes";
    std::vector<std::uint64_t> values;
    if (text.find(':') != std::string::npos) {
        const std::string t = trim(text);
        const auto colon = t.find(':');
        if (t.find(':', colon + 1) != std::string::npos || t.find(',') != std::string::npos)
            throw std::invalid_argument(flag + ": a range is A:B (doubling from A to at most B), not '" +
                                        text + "'");
        const std::string a_text = trim(t.substr(0, colon)), b_text = trim(t.substr(colon + 1));
        if (a_text.empty() || b_text.empty())
            throw std::invalid_argument(flag + ": a range is A:B (doubling from A to at most B), not '" +
                                        text + "'");
        const std::uint64_t a = parse_whole(flag, a_text), b = parse_whole(flag, b_text);
        if (a < 1) throw std::invalid_argument(flag + ": the range " + t + " must start at 1 or more");
        if (a > b)
            throw std::invalid_argument(flag + ": the range " + t + " goes down (A must be at most B)");
        for (std::uint64_t v = a;; v *= 2) {
            values.push_back(v);
            if (v > b / 2) break;
        }
        return values;
    }
    for (const std::string& item : split_list(flag, text)) {
        const std::uint64_t v = parse_whole(flag, item);
        if (v < 1)
            throw std::invalid_argument(flag + ": a training-set size must be at least 1, not " + item);
        values.push_back(v);
    }
    check_unique(flag, values);
    return values;
}

Grid parse_grid(const SweepOptions& o) {
    Grid g;
    if (o.train_sizes_opt->count()) g.train_sizes = parse_train_sizes(o.train_sizes);
    if (o.size_levels_opt->count()) {
        for (const std::string& item : split_list("--size-levels", o.size_levels)) {
            const std::uint64_t v = parse_whole("--size-levels", item);
            if (v > 6)
                throw std::invalid_argument(
                    "--size-levels: a size level is 1..6 (0: the custom shape), not " + item);
            g.size_levels.push_back(v);
        }
        check_unique("--size-levels", g.size_levels);
    }
    if (o.methods_opt->count()) {
        const std::vector<std::string> known = method_names();
        for (const std::string& item : split_list("--methods", o.methods)) {
            if (std::find(known.begin(), known.end(), item) == known.end()) {
                std::string list;
                for (const auto& k : known)
                    list += (list.empty() ? "" : ", ") + k;
                throw std::invalid_argument("--methods: unknown method '" + item + "' (this build: " + list +
                                            ")");
            }
            g.methods.push_back(item);
        }
        check_unique("--methods", g.methods);
    }
    if (o.seeds_opt->count()) {
        for (const std::string& item : split_list("--seeds", o.seeds))
            g.seeds.push_back(parse_whole("--seeds", item));
        check_unique("--seeds", g.seeds);
    }
    if (g.train_sizes.empty() && g.size_levels.empty() && g.methods.empty() && g.seeds.empty())
        throw std::invalid_argument(
            "a sweep needs at least one axis: --train-sizes, --size-levels, --methods or --seeds");
    std::uint64_t n = 1;
    for (const std::size_t k :
         {g.train_sizes.size(), g.size_levels.size(), g.methods.size(), g.seeds.size()}) {
        n *= std::max<std::size_t>(k, 1);
        if (n > kMaxCells)
            throw std::invalid_argument("the grid has more than " + std::to_string(kMaxCells) +
                                        " cells; split it into several sweeps");
    }
    return g;
}

// True when args name the option (as "--opt" or "--opt=...").
bool names_option(const std::vector<std::string>& args, const std::string& opt) {
    return std::any_of(args.begin(), args.end(),
                       [&](const std::string& a) { return a == opt || a.rfind(opt + "=", 0) == 0; });
}

void check_shared(const std::vector<std::string>& shared, const Grid& g) {
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

std::vector<Cell> make_cells(const std::string& sweep, const Grid& g,
                             const std::vector<std::string>& shared) {
    // An axis not given is one "absent" value: no option and no part of the name.
    const auto or_absent = [](std::size_t n) { return std::max<std::size_t>(n, 1); };
    std::vector<Cell> cells;
    for (std::size_t a = 0; a < or_absent(g.train_sizes.size()); ++a)
        for (std::size_t b = 0; b < or_absent(g.size_levels.size()); ++b)
            for (std::size_t c = 0; c < or_absent(g.methods.size()); ++c)
                for (std::size_t d = 0; d < or_absent(g.seeds.size()); ++d) {
                    Cell cell;
                    cell.run = sweep;
                    cell.args = shared;
                    if (!g.train_sizes.empty()) {
                        const std::string v = std::to_string(g.train_sizes[a]);
                        cell.args.insert(cell.args.end(), {"--train-size", v});
                        cell.run += "-n" + v;
                    }
                    if (!g.size_levels.empty()) {
                        const std::string v = std::to_string(g.size_levels[b]);
                        cell.args.insert(cell.args.end(), {"--size-level", v});
                        cell.run += "-l" + v;
                    }
                    if (!g.methods.empty()) {
                        cell.args.insert(cell.args.end(), {"--method", g.methods[c]});
                        cell.run += "-" + g.methods[c];
                    }
                    if (!g.seeds.empty()) {
                        const std::string v = std::to_string(g.seeds[d]);
                        cell.args.insert(cell.args.end(), {"--seed", v});
                        cell.run += "-s" + v;
                    }
                    if (cell.run.size() > kMaxRunName)
                        throw std::invalid_argument("run name '" + cell.run + "' is longer than " +
                                                    std::to_string(kMaxRunName) +
                                                    " characters: shorten --name");
                    cell.args.insert(cell.args.end(), {"--name", cell.run});
                    cells.push_back(std::move(cell));
                }
    return cells;
}

json cells_json(const std::vector<Cell>& cells) {
    json list = json::array();
    for (const Cell& c : cells)
        list.push_back({{"run", c.run}, {"args", c.args}});
    return list;
}

// ---- the sweep file -----------------------------------------------------------------------------------

struct SweepFile {
    json doc;
    std::vector<Cell> cells;
    std::vector<std::string> shared;
    int parallel = 1;
};

SweepFile read_sweep_file(const std::string& path) {
    SweepFile f;
    f.doc = read_json_file(path);  // RunError naming the file when missing or corrupt
    const auto bad = [&](const std::string& why) {
        return RunError(path + ": not a sweep file (" + why + ")");
    };
    if (!f.doc.is_object()) throw bad("not a JSON object");
    if (const auto it = f.doc.find("format"); it != f.doc.end()) {
        if (!it->is_number_integer()) throw bad("\"format\" is not an integer");
        if (it->get<int>() > kSweepFormat)
            throw RunError(path + ": sweep file format " + std::to_string(it->get<int>()) +
                           " is newer than this fone reads (" + std::to_string(kSweepFormat) + ")");
    }
    const auto cells = f.doc.find("cells");
    if (cells == f.doc.end() || !cells->is_array() || cells->empty()) throw bad("no \"cells\" list");
    std::set<std::string> names;
    for (const json& c : *cells) {
        Cell cell;
        cell.run = str_field(c, "run");
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
    if (const auto it = f.doc.find("shared_args"); it != f.doc.end() && it->is_array())
        for (const json& a : *it)
            if (a.is_string()) f.shared.push_back(a.get<std::string>());
    if (const auto it = f.doc.find("parallel");
        it != f.doc.end() && it->is_number_integer() && it->get<int>() >= 0)
        f.parallel = it->get<int>();
    return f;
}

// ---- cell states ----------------------------------------------------------------------------------------

// What to do with a cell, from its run's state in the store.
struct Plan {
    std::string action;  // skip, start, resume, restart, retry, leave, wait, elsewhere
    std::string status;  // the run's state now: a kStatus* value, or "absent"
    std::string message;
    json exact_match;
    int pid = 0;
};

Plan plan_cell(const RunStore& store, const std::string& run, bool retry_failed, const std::string& host) {
    Plan p;
    const fs::path dir = fs::path(store.root()) / run;
    std::error_code ec;
    if (!fs::exists(dir, ec)) {
        p.action = "start";
        p.status = "absent";
        return p;
    }
    if (!fs::is_directory(dir, ec)) {
        p.action = "leave";
        p.status = kStatusBroken;
        p.message = dir.string() + " is not a directory";
        return p;
    }
    RunInfo info;
    try {
        info = store.info(dir.string());
    } catch (const std::exception& e) {  // unreadable: treated like a broken run, never the sweep's end
        info.status = kStatusBroken;
        info.message = e.what();
    }
    p.status = info.status;
    p.message = info.message;
    p.exact_match = summary_exact_match(info.summary);
    const bool checkpoint = fs::exists(dir / kLastCheckpoint, ec);
    if (info.status == kStatusFinished) {
        p.action = "skip";
    } else if (info.status == kStatusRunning) {
        const std::string run_host = str_field(info.last_status, "host");
        const auto pid = info.last_status.find("pid");
        p.pid = pid != info.last_status.end() && pid->is_number_integer() ? pid->get<int>() : 0;
        p.action = run_host.empty() || run_host == host ? "wait" : "elsewhere";
        if (p.action == "elsewhere") p.message = "running on " + run_host;
    } else if (info.status == kStatusStopped || info.status == kStatusInterrupted) {
        p.action = checkpoint ? "resume" : "restart";
    } else if (info.status == kStatusBroken && !checkpoint) {
        p.action = "restart";
    } else {  // failed, or broken with a checkpoint: not ours to throw away
        p.action = retry_failed ? "retry" : "leave";
    }
    return p;
}

// ---- children -----------------------------------------------------------------------------------------

int g_signal_pipe[2] = {-1, -1};
volatile std::sig_atomic_t g_signals = 0;

extern "C" void on_sweep_signal(int) {
    g_signals = g_signals + 1;
    const int saved = errno;
    if (g_signal_pipe[1] >= 0) {
        const ssize_t n = ::write(g_signal_pipe[1], "s", 1);
        (void)n;
    }
    errno = saved;
}

struct Child {
    std::size_t index = 0;
    std::string action;
    pid_t pid = -1;
    int out_fd = -1;
    std::string buffer;
    json end;  // the child's "end" event, null until it comes
    Clock::time_point started;
    std::string log_path;
    std::uintmax_t log_offset = 0;
};

// A run of an earlier sweep's child that is still training: waited for, by polling the store.
struct Waiter {
    std::size_t index = 0;
    int pid = 0;
    Clock::time_point started;
};

// The last lines of a log written since offset.
std::vector<std::string> log_tail(const std::string& path, std::uintmax_t offset) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::uintmax_t>(in.tellg());
    std::uintmax_t from = std::max(offset, size > 65536 ? size - 65536 : 0);
    if (from > size) from = size;
    in.seekg(static_cast<std::streamoff>(from));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> lines;
    std::stringstream ss(text);
    for (std::string line; std::getline(ss, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        // A progress bar's carriage returns: keep what the terminal would show last.
        if (const auto cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
        if (!trim(line).empty()) lines.push_back(line);
    }
    if (lines.size() > kTailLines) lines.erase(lines.begin(), lines.end() - static_cast<long>(kTailLines));
    return lines;
}

class Sweep {
  public:
    Sweep(std::string name, std::string sweep_file, RunStore& store, std::vector<Cell> cells,
          std::vector<Plan> plans, int slots, int child_threads, bool verbose, bool retry_failed)
        : name_(std::move(name)),
          file_(std::move(sweep_file)),
          store_(store),
          cells_(std::move(cells)),
          plans_(std::move(plans)),
          slots_(std::max(1, slots)),
          child_threads_(child_threads),
          verbose_(verbose),
          retry_failed_(retry_failed),
          host_(host_name()) {
        state_.resize(cells_.size());
        for (std::size_t i = 0; i < cells_.size(); ++i)
            state_[i] = plans_[i].status;
    }

    int run(const std::string& logs_dir, bool resumed) {
        logs_dir_ = logs_dir;
        const auto t0 = Clock::now();
        std::deque<std::size_t> queue;
        std::size_t todo = 0;
        for (std::size_t i = 0; i < cells_.size(); ++i) {
            const std::string& a = plans_[i].action;
            if (a == "start" || a == "resume" || a == "restart" || a == "retry") queue.push_back(i);
            if (a != "skip" && a != "leave" && a != "elsewhere") ++todo;
        }
        emit({{"event", "sweep_start"},
              {"sweep", name_},
              {"file", file_},
              {"runs_dir", store_.root()},
              {"cells", cells_.size()},
              {"todo", todo},
              {"parallel", slots_},
              {"resumed", resumed}});
        std::cerr << "fone sweep: " << name_ << ": " << cells_.size() << " cell(s), " << todo << " to run, "
                  << slots_ << " at a time, in " << store_.root() << std::endl;
        for (std::size_t i = 0; i < cells_.size(); ++i)
            report_not_run(i);
        for (std::size_t i = 0; i < cells_.size(); ++i)
            if (plans_[i].action == "wait") {
                waiting_.push_back({i, plans_[i].pid, Clock::now()});
                emit({{"event", "cell_wait"}, {"run", cells_[i].run}, {"index", i}, {"pid", plans_[i].pid}});
                std::cerr << "fone sweep: " << label(i) << " is already running (pid " << plans_[i].pid
                          << "): waiting for it" << std::endl;
            }

        install_signals();
        int handled_signals = 0;
        while (true) {
            const bool stopping = g_signals > 0;
            while (!stopping && !queue.empty() &&
                   running_.size() + waiting_.size() < static_cast<std::size_t>(slots_)) {
                const std::size_t i = queue.front();
                queue.pop_front();
                launch(i);
            }
            if (running_.empty() && (waiting_.empty() || stopping)) break;

            std::vector<pollfd> fds;
            fds.push_back({g_signal_pipe[0], POLLIN, 0});
            for (const Child& c : running_)
                fds.push_back({c.out_fd, POLLIN, 0});
            const int r = ::poll(fds.data(), fds.size(), waiting_.empty() ? -1 : 500);
            if (r < 0 && errno != EINTR) throw RunError(std::string("poll: ") + std::strerror(errno));

            if (r > 0 && (fds[0].revents & POLLIN)) {
                char buf[64];
                while (::read(g_signal_pipe[0], buf, sizeof buf) > 0) {
                }
            }
            if (g_signals > handled_signals) {
                handled_signals = g_signals;
                forward_signal(handled_signals);
            }

            if (r > 0)
                for (std::size_t k = running_.size(); k-- > 0;) {
                    if (!(fds[k + 1].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                    if (read_child(running_[k])) {
                        finish_child(running_[k]);
                        running_.erase(running_.begin() + static_cast<long>(k));
                    }
                }
            poll_waiters(queue, g_signals > 0);
        }
        restore_signals();

        const bool interrupted = g_signals > 0;
        std::size_t finished = 0, failed = 0, stopped = 0;
        for (const std::string& s : state_) {
            if (s == kStatusFinished)
                ++finished;
            else if (s == kStatusFailed || s == kStatusBroken)
                ++failed;
            else if (s == kStatusStopped)
                ++stopped;
        }
        const std::size_t pending = cells_.size() - finished - failed - stopped;
        const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
        emit({{"event", "sweep_end"},
              {"sweep", name_},
              {"cells", cells_.size()},
              {"finished", finished},
              {"failed", failed},
              {"stopped", stopped},
              {"pending", pending},
              {"started", started_},
              {"interrupted", interrupted},
              {"elapsed_seconds", elapsed}});
        std::cerr << "fone sweep: " << name_ << ": " << finished << " finished, " << failed << " failed, "
                  << stopped << " stopped, " << pending << " pending, in " << seconds_text(elapsed);
        if (interrupted || stopped || pending) std::cerr << "; continue with: fone sweep --resume " << name_;
        std::cerr << std::endl;
        if (interrupted) return 130;
        return finished == cells_.size() ? 0 : 1;
    }

  private:
    std::string label(std::size_t i) const {
        return "[" + std::to_string(i + 1) + "/" + std::to_string(cells_.size()) + "] " + cells_[i].run;
    }

    void report_not_run(std::size_t i) {
        const Plan& p = plans_[i];
        if (p.action != "skip" && p.action != "leave" && p.action != "elsewhere") return;
        emit({{"event", "cell_skip"},
              {"run", cells_[i].run},
              {"index", i},
              {"status", p.status},
              {"exact_match", p.exact_match},
              {"message", p.message}});
        if (p.action == "leave")
            std::cerr << "fone sweep: " << label(i) << " " << p.status
                      << " earlier; left alone (--retry-failed runs it again): " << p.message << std::endl;
        else if (p.action == "elsewhere")
            std::cerr << "fone sweep: " << label(i) << " is " << p.message << "; left alone" << std::endl;
    }

    void install_signals() {
        if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
            throw RunError(std::string("pipe: ") + std::strerror(errno));
        struct sigaction sa {};
        sa.sa_handler = on_sweep_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;  // no SA_RESTART: poll() and waitpid() return so the loop sees the signal
        ::sigaction(SIGINT, &sa, &old_int_);
        ::sigaction(SIGTERM, &sa, &old_term_);
    }

    void restore_signals() {
        ::sigaction(SIGINT, &old_int_, nullptr);
        ::sigaction(SIGTERM, &old_term_, nullptr);
    }

    void forward_signal(int count) {
        const int sig = count >= 2 ? SIGKILL : SIGTERM;
        if (count == 1)
            std::cerr << "fone sweep: stopping: asking " << running_.size()
                      << " run(s) to checkpoint and stop (again to kill them)" << std::endl;
        else if (count == 2)
            std::cerr << "fone sweep: killing " << running_.size()
                      << " run(s); they resume from their last checkpoint" << std::endl;
        if (count > 2) return;
        for (const Child& c : running_)
            if (c.pid > 0) ::kill(c.pid, sig);
    }

    // The command line of cell i for its action.
    std::vector<std::string> child_args(std::size_t i, const std::string& action) const {
        std::vector<std::string> args = {"fone", "train"};
        if (action == "resume") {
            args.insert(args.end(), {"--resume", cells_[i].run, "--runs-dir", store_.root()});
            if (child_threads_ > 0) args.insert(args.end(), {"--threads", std::to_string(child_threads_)});
            return args;
        }
        args.insert(args.end(), cells_[i].args.begin(), cells_[i].args.end());
        args.insert(args.end(), {"--runs-dir", store_.root()});
        if (child_threads_ > 0) args.insert(args.end(), {"--threads", std::to_string(child_threads_)});
        return args;
    }

    // Makes the cell's name free again for a fresh start (restart: delete; retry: keep as RUN.failed-<k>).
    void clear_run_dir(std::size_t i, const std::string& action) {
        const fs::path dir = fs::path(store_.root()) / cells_[i].run;
        std::error_code ec;
        if (!fs::exists(dir, ec)) return;
        if (action == "restart") {
            fs::remove_all(dir, ec);
            if (ec) throw RunError(dir.string() + ": cannot delete the unfinished run: " + ec.message());
            return;
        }
        for (int k = 1; k < 100000; ++k) {
            const fs::path aside = fs::path(store_.root()) / (cells_[i].run + ".failed-" + std::to_string(k));
            if (fs::exists(aside, ec)) continue;
            fs::rename(dir, aside, ec);
            if (ec) throw RunError(dir.string() + ": cannot move the failed run aside: " + ec.message());
            std::cerr << "fone sweep: " << label(i) << ": the failed run is kept as "
                      << aside.filename().string() << std::endl;
            return;
        }
        throw RunError(dir.string() + ": no free name to move the failed run aside");
    }

    void launch(std::size_t i) {
        std::string action = plans_[i].action;
        Child c;
        c.index = i;
        c.started = Clock::now();
        c.log_path = (fs::path(logs_dir_) / (cells_[i].run + ".stderr")).string();
        try {
            if (action == "restart" || action == "retry") clear_run_dir(i, action);
            spawn(c, child_args(i, action));
        } catch (const std::exception& e) {
            end_cell(i, kStatusFailed, json(), -1, 0.0, std::string("cannot start: ") + e.what(), c);
            return;
        }
        c.action = action;
        ++started_;
        state_[i] = kStatusRunning;
        emit({{"event", "cell_start"},
              {"run", cells_[i].run},
              {"index", i},
              {"action", action},
              {"pid", c.pid}});
        running_.push_back(std::move(c));
    }

    void spawn(Child& c, const std::vector<std::string>& args) {
        // Everything the child needs is made before fork(): after it, only async-signal-safe calls.
        std::vector<char*> argv;
        for (const std::string& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        std::string header = "== fone sweep " + name_ + " " + utc_now_iso() + ":";
        for (std::size_t k = 1; k < args.size(); ++k)
            header += " " + args[k];
        header += "\n";

        const int log_fd = ::open(c.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (log_fd < 0) throw RunError(c.log_path + ": " + std::strerror(errno));
        const ssize_t written = ::write(log_fd, header.data(), header.size());
        (void)written;
        struct stat st {};
        c.log_offset = ::fstat(log_fd, &st) == 0 ? static_cast<std::uintmax_t>(st.st_size) : 0;
        const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        int out[2];
        if (::pipe2(out, O_CLOEXEC) != 0) {
            const int err = errno;
            ::close(log_fd);
            if (null_fd >= 0) ::close(null_fd);
            throw RunError(std::string("pipe: ") + std::strerror(err));
        }

        sigset_t block, old;
        sigemptyset(&block);
        sigaddset(&block, SIGINT);
        sigaddset(&block, SIGTERM);
        ::sigprocmask(SIG_BLOCK, &block, &old);
        const pid_t parent = ::getpid();
        const pid_t pid = ::fork();
        if (pid == 0) {
            struct sigaction dfl {};
            dfl.sa_handler = SIG_DFL;
            sigemptyset(&dfl.sa_mask);
            ::sigaction(SIGINT, &dfl, nullptr);
            ::sigaction(SIGTERM, &dfl, nullptr);
            // A dead sweep's pipe must not kill the child mid-step: it gets SIGTERM (below) and stops
            // cleanly.
            struct sigaction ign {};
            ign.sa_handler = SIG_IGN;
            sigemptyset(&ign.sa_mask);
            ::sigaction(SIGPIPE, &ign, nullptr);
            // The sweep dies (even by kill -9): its children checkpoint and stop instead of training on.
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (::getppid() != parent) ::_exit(127);
            if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
            ::dup2(out[1], STDOUT_FILENO);
            ::dup2(log_fd, STDERR_FILENO);
            ::sigprocmask(SIG_SETMASK, &old, nullptr);
            ::execv("/proc/self/exe", argv.data());
            static const char msg[] = "fone sweep: cannot run /proc/self/exe\n";
            const ssize_t n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
            (void)n;
            ::_exit(127);
        }
        const int fork_errno = errno;
        ::sigprocmask(SIG_SETMASK, &old, nullptr);
        ::close(out[1]);
        ::close(log_fd);
        if (null_fd >= 0) ::close(null_fd);
        if (pid < 0) {
            ::close(out[0]);
            throw RunError(std::string("fork: ") + std::strerror(fork_errno));
        }
        ::fcntl(out[0], F_SETFL, ::fcntl(out[0], F_GETFL) | O_NONBLOCK);
        c.pid = pid;
        c.out_fd = out[0];
    }

    // Reads what the child wrote; true at end of file.
    bool read_child(Child& c) {
        char buf[65536];
        while (true) {
            const ssize_t n = ::read(c.out_fd, buf, sizeof buf);
            if (n > 0) {
                c.buffer.append(buf, static_cast<std::size_t>(n));
                std::size_t nl;
                while ((nl = c.buffer.find('\n')) != std::string::npos) {
                    handle_line(c, c.buffer.substr(0, nl));
                    c.buffer.erase(0, nl + 1);
                }
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
            if (!c.buffer.empty()) handle_line(c, c.buffer);
            c.buffer.clear();
            return true;
        }
    }

    void handle_line(Child& c, const std::string& line) {
        if (trim(line).empty()) return;
        json e = json::parse(line, nullptr, false);
        const std::string& run = cells_[c.index].run;
        if (e.is_discarded() || !e.is_object()) {
            if (verbose_) emit({{"event", "output"}, {"run", run}, {"index", c.index}, {"line", line}});
            return;
        }
        const std::string kind = str_field(e, "event");
        if (kind == "end") c.end = e;
        if (kind == "eval" || kind == "end" || verbose_) {
            e["run"] = run;
            e["index"] = c.index;
            emit(e);
        }
    }

    void finish_child(Child& c) {
        ::close(c.out_fd);
        c.out_fd = -1;
        int wstatus = 0;
        while (::waitpid(c.pid, &wstatus, 0) < 0 && errno == EINTR) {
        }
        const int exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        const double elapsed = std::chrono::duration<double>(Clock::now() - c.started).count();
        const std::size_t i = c.index;

        std::string status = str_field(c.end, "status");
        std::string message = str_field(c.end, "message");
        if (status.empty()) {
            // No end event: it died (a signal, an error before training). A stop we asked for is a stop.
            status = g_signals > 0 && WIFSIGNALED(wstatus) ? kStatusStopped : kStatusFailed;
            message = WIFSIGNALED(wstatus) ? "killed by signal " + std::to_string(WTERMSIG(wstatus))
                                           : "exited with status " + std::to_string(exit_code);
            const auto tail = log_tail(c.log_path, c.log_offset);
            if (!tail.empty()) message += ": " + trim(tail.back());
        } else if (exit_code != 0 && status == kStatusFinished) {
            status = kStatusFailed;
            message = "exited with status " + std::to_string(exit_code) + " after finishing";
        }
        json exact_match;
        std::error_code ec;
        const fs::path dir = fs::path(store_.root()) / cells_[i].run;
        if (fs::is_directory(dir, ec)) {
            try {
                exact_match = summary_exact_match(store_.info(dir.string()).summary);
            } catch (const std::exception&) {  // the figure is missing from the event, nothing worse
            }
        }
        end_cell(i, status, exact_match, exit_code, elapsed, message, c);
    }

    void end_cell(std::size_t i, const std::string& status, const json& exact_match, int exit_code,
                  double elapsed, const std::string& message, const Child& c) {
        state_[i] = status;
        emit({{"event", "cell_end"},
              {"run", cells_[i].run},
              {"index", i},
              {"status", status},
              {"exact_match", exact_match},
              {"exit_code", exit_code >= 0 ? json(exit_code) : json()},
              {"elapsed_seconds", elapsed},
              {"message", message}});
        std::string line = "fone sweep: " + label(i) + " " + status;
        if (status == kStatusFinished) {
            if (exact_match.is_number()) {
                char buf[48];
                std::snprintf(buf, sizeof buf, ": exact match %.2f%%", 100.0 * exact_match.get<double>());
                line += buf;
            }
            line += " (" + seconds_text(elapsed) + ")";
            std::cerr << line << std::endl;
            return;
        }
        if (exit_code > 0) line += " (exit " + std::to_string(exit_code) + ")";
        std::cerr << line << ": " << message << std::endl;
        if (status == kStatusFailed && !c.log_path.empty()) {
            const auto tail = log_tail(c.log_path, c.log_offset);
            if (!tail.empty()) {
                std::cerr << "    stderr (" << c.log_path << "):" << std::endl;
                for (const std::string& t : tail)
                    std::cerr << "    | " << t << std::endl;
            }
        }
    }

    // Runs of an earlier sweep that are still training: handled once they stop.
    void poll_waiters(std::deque<std::size_t>& queue, bool stopping) {
        if (stopping) return;
        for (std::size_t k = waiting_.size(); k-- > 0;) {
            const std::size_t i = waiting_[k].index;
            Plan p = plan_cell(store_, cells_[i].run, retry_failed_, host_);
            if (p.action == "wait") continue;
            const double elapsed = std::chrono::duration<double>(Clock::now() - waiting_[k].started).count();
            waiting_.erase(waiting_.begin() + static_cast<long>(k));
            plans_[i] = p;
            if (p.action == "skip") {
                end_cell(i, kStatusFinished, p.exact_match, -1, elapsed, p.message, Child{});
            } else if (p.action == "leave" || p.action == "elsewhere") {
                end_cell(i, p.status, p.exact_match, -1, elapsed, p.message, Child{});
            } else {
                state_[i] = p.status;
                queue.push_front(i);  // resume / restart / retry it next
            }
        }
    }

    std::string name_, file_;
    RunStore& store_;
    std::vector<Cell> cells_;
    std::vector<Plan> plans_;
    int slots_;
    int child_threads_;
    bool verbose_, retry_failed_;
    std::string host_, logs_dir_;
    std::vector<std::string> state_;
    std::vector<Child> running_;
    std::vector<Waiter> waiting_;
    std::size_t started_ = 0;
    struct sigaction old_int_ {
    }, old_term_{};
};

// ---- the command ----------------------------------------------------------------------------------------

int parse_parallel(const std::string& text) {
    const std::string t = trim(text);
    std::uint64_t v = 0;
    try {
        v = parse_whole("--parallel", t);
    } catch (const std::invalid_argument&) {
        throw std::invalid_argument("--parallel takes a whole number (0: one per core), not '" + text + "'");
    }
    if (v > 4096) throw std::invalid_argument("--parallel: at most 4096 children at once, not " + t);
    return static_cast<int>(v);
}

// ---- Slurm ---------------------------------------------------------------------------------------------

// A word for bash, single-quoted unless it is plainly safe.
std::string shell_quote(const std::string& s) {
    const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("@%+=:,./_-", c) != nullptr;
    });
    if (plain) return s;
    std::string out = "'";
    for (const char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// The `fone` that is running (its absolute path), for the script to call on the compute nodes.
std::string self_executable() {
    std::error_code ec;
    const fs::path p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("fone") : p.string();
}

void check_slurm_options(const SweepOptions& o) {
    if (o.slurm_cpus < 1 || o.slurm_cpus > 4096)
        throw std::invalid_argument("--slurm-cpus: 1..4096 CPUs per array task, not " +
                                    std::to_string(o.slurm_cpus));
    if (o.slurm_gpus < 0 || o.slurm_gpus > 64)
        throw std::invalid_argument("--slurm-gpus: 0..64 GPUs per array task, not " +
                                    std::to_string(o.slurm_gpus));
    const auto one_line = [](const std::string& flag, const std::string& v) {
        if (v.find_first_of("\n\r") != std::string::npos)
            throw std::invalid_argument(flag + ": one line, without line breaks");
    };
    one_line("--slurm-time", o.slurm_time);
    one_line("--slurm-partition", o.slurm_partition);
    for (const std::string& opt : o.slurm_options) {
        one_line("--slurm-option", opt);
        if (opt.rfind("--", 0) != 0)
            throw std::invalid_argument("--slurm-option: an sbatch option such as --account=abc, not '" +
                                        opt + "'");
    }
    if (o.dry_run) throw std::invalid_argument("--slurm writes a script and starts nothing: drop --dry-run");
}

// The job-array script: task i is cell i. It runs `fone train <args>` for a cell whose run does not exist
// yet, `fone train --resume` for one that does (a requeued or resubmitted task continues from its last
// checkpoint), and nothing for a finished one. The store must be on a filesystem every node sees.
std::string slurm_script(const std::string& sweep, const std::string& sweep_file, const std::string& root,
                         const std::string& logs, const std::vector<Cell>& cells,
                         const std::vector<std::string>& shared, int parallel, const SweepOptions& o) {
    std::ostringstream s;
    const std::size_t n = cells.size();
    s << "#!/bin/bash\n";
    s << "# Slurm job array for the FoNE sweep '" << sweep << "' (" << n << " cell" << (n == 1 ? "" : "s")
      << "), written by `fone sweep --slurm`.\n";
    s << "# Submit: sbatch " << shell_quote(o.slurm) << "    Watch: fone runs list --runs-dir "
      << shell_quote(root) << " (or the workbench on that store)\n";
    s << "# Array task i trains cell i of " << sweep_file
      << ". A task whose run exists resumes it (fone train\n"
      << "# --resume: after a requeue, a preemption or a resubmission); a finished run is left alone.\n";
    s << "#SBATCH --job-name=" << shell_quote("fone-" + sweep) << "\n";
    s << "#SBATCH --array=0-" << (n - 1);
    if (parallel > 0) s << "%" << parallel;
    s << "\n";
    s << "#SBATCH --cpus-per-task=" << o.slurm_cpus << "\n";
    if (o.slurm_gpus > 0) s << "#SBATCH --gres=gpu:" << o.slurm_gpus << "\n";
    if (!o.slurm_time.empty()) s << "#SBATCH --time=" << o.slurm_time << "\n";
    if (!o.slurm_partition.empty()) s << "#SBATCH --partition=" << o.slurm_partition << "\n";
    s << "#SBATCH --requeue\n";
    s << "#SBATCH --open-mode=append\n";
    s << "#SBATCH --output=" << logs << "/slurm-%A_%a.out\n";
    for (const std::string& opt : o.slurm_options)
        s << "#SBATCH " << opt << "\n";
    s << "set -euo pipefail\n\n";
    s << "FONE=\"${FONE:-" << self_executable() << "}\"   # override: FONE=/path/to/fone sbatch ...\n";
    s << "RUNS_DIR=" << shell_quote(root) << "\n";
    s << "task=\"${SLURM_ARRAY_TASK_ID:?run this script with sbatch (a job array), or set "
         "SLURM_ARRAY_TASK_ID}\"\n";
    s << "case \"$task\" in\n";
    for (std::size_t i = 0; i < n; ++i) {
        s << "  " << i << ") run=" << shell_quote(cells[i].run) << "; args=(";
        for (std::size_t k = 0; k < cells[i].args.size(); ++k)
            s << (k ? " " : "") << shell_quote(cells[i].args[k]);
        s << ") ;;\n";
    }
    s << "  *) echo \"fone sweep " << sweep << ": no cell $task (cells 0.." << (n - 1)
      << ")\" >&2; exit 2 ;;\n";
    s << "esac\n\n";
    // Threads: the CPUs Slurm gave the task, unless the shared train options chose.
    const bool own_threads = names_option(shared, "--threads") || names_option(shared, "--config");
    s << "threads=()\n";
    if (!own_threads) s << "threads=(--threads \"${SLURM_CPUS_PER_TASK:-1}\")\n";
    s << "dir=\"$RUNS_DIR/$run\"\n";
    s << "if [[ -f \"$dir/status.json\" ]] && grep -Eq '\"status\": *\"finished\"' \"$dir/status.json\"; "
         "then\n";
    s << "  echo \"fone sweep " << sweep << ": $run has finished; nothing to do\"\n";
    s << "  exit 0\n";
    s << "fi\n";
    s << "echo \"fone sweep " << sweep
      << ": task $task, run $run on $(hostname), attempt ${SLURM_RESTART_COUNT:-0}\" >&2\n";
    s << "if [[ -d \"$dir\" ]]; then\n";
    s << "  exec \"$FONE\" train --resume \"$dir\" \"${threads[@]}\"\n";
    s << "else\n";
    s << "  exec \"$FONE\" train \"${args[@]}\" \"${threads[@]}\" --runs-dir \"$RUNS_DIR\"\n";
    s << "fi\n";
    return s.str();
}

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

int run_sweep(SweepOptions& o) {
    const std::string root_given = o.runs_dir.empty() ? RunStore::default_root() : o.runs_dir;
    const bool resume_only = !o.resume.empty();
    if (resume_only && (o.any_axis() || !o.shared.empty()))
        throw std::invalid_argument(
            "--resume continues a recorded sweep: give no axes and no train options after -- (they are in "
            "its "
            "sweep file)");
    if (resume_only) {
        std::error_code ec;
        if (const fs::path f = fs::path(root_given) / (o.resume + ".sweep.json");
            sweep_name_problem(o.resume).empty() && !fs::exists(f, ec))
            throw RunError("no sweep '" + o.resume + "' in " + root_given + " (no " + f.string() + ")");
    }
    const int parallel_given = o.parallel_opt->count() ? parse_parallel(o.parallel) : -1;
    const bool slurm = !o.slurm.empty();
    if (slurm) check_slurm_options(o);

    // Grid and shared options first: bad input is reported before anything is made.
    Grid grid;
    const bool has_grid = !resume_only && (o.any_axis() || !o.shared.empty() || !o.name_opt->count());
    if (has_grid) {
        grid = parse_grid(o);
        check_shared(o.shared, grid);
    }
    std::string name = resume_only ? o.resume : o.name;
    if (name.empty()) name = "sweep-" + local_stamp();
    if (const std::string why = sweep_name_problem(name); !why.empty())
        throw std::invalid_argument(why + ": '" + name + "'");
    std::vector<Cell> wanted;
    if (has_grid) {
        wanted = make_cells(name, grid, o.shared);
        // Each cell's train options as `fone train` would take them, before anything is written: a bad
        // shared option is one error now, not a failed run per cell later.
        for (const Cell& c : wanted) {
            try {
                check_train_args(c.args);
            } catch (const std::invalid_argument& e) {
                std::string why = e.what();
                std::replace(why.begin(), why.end(), '\n', ';');
                throw std::invalid_argument("cell " + c.run + ": " + why);
            }
        }
    }
    if (!has_grid && !resume_only) {
        // Only --name: a resume of that sweep if it exists, else a grid without axes (the axis error).
        std::error_code ec;
        const fs::path root(root_given);
        if (!fs::exists(root / (name + ".sweep.json"), ec)) parse_grid(o);
    }

    // The store: created (with the log folder, locked) unless this is a dry run.
    RunStore store(root_given, !o.dry_run);
    if (!o.name_opt->count() && !resume_only) {
        // A default name taken (two sweeps in one second): NAME-2, NAME-3, ...
        std::error_code ec;
        const std::string base = name;
        for (int k = 2; fs::exists(fs::path(store.root()) / (name + ".sweep.json"), ec); ++k)
            name = base + "-" + std::to_string(k);
        if (name != base) wanted = make_cells(name, grid, o.shared);
    }
    const std::string file = (fs::path(store.root()) / (name + ".sweep.json")).string();
    const std::string logs = (fs::path(store.root()) / ("." + name + ".logs")).string();
    std::unique_ptr<SweepLock> lock;
    bool made_logs = false;
    if (!o.dry_run) {
        std::error_code ec;
        made_logs = fs::create_directory(logs, ec);
        if (ec) throw RunError(logs + ": cannot create the sweep's log folder: " + ec.message());
        if (!slurm) lock = std::make_unique<SweepLock>(logs);  // a script runs nothing here
    }
    const auto drop_logs = [&] {
        std::error_code ec;
        lock.reset();
        if (made_logs) fs::remove(logs, ec);  // only when empty: never someone's logs
    };

    std::error_code ec;
    const bool exists = fs::exists(file, ec);
    std::vector<Cell> cells;
    std::vector<std::string> shared = o.shared;
    int parallel = parallel_given >= 0 ? parallel_given : 1;
    json doc;
    if (exists) {
        SweepFile f;
        try {
            f = read_sweep_file(file);
        } catch (...) {
            drop_logs();
            throw;
        }
        if (has_grid && cells_json(wanted) != cells_json(f.cells)) {
            drop_logs();
            throw std::invalid_argument("sweep '" + name + "' already exists in " + store.root() +
                                        " with other axes or train options; continue it with --resume " +
                                        name + " (and nothing else), or choose another --name");
        }
        cells = std::move(f.cells);
        shared = std::move(f.shared);
        if (parallel_given < 0) parallel = f.parallel;
    } else {
        if (resume_only) {
            drop_logs();
            throw RunError("no sweep '" + name + "' in " + store.root() + " (no " + file + ")");
        }
        cells = std::move(wanted);
        for (const Cell& c : cells)
            if (fs::exists(fs::path(store.root()) / c.run, ec)) {
                drop_logs();
                throw std::invalid_argument("run '" + c.run + "' already exists in " + store.root() +
                                            " and is not from a sweep '" + name + "': choose another --name");
            }
        doc = {{"format", kSweepFormat},       {"sweep", name},
               {"created", utc_now_iso()},     {"grid", grid.to_json()},
               {"shared_args", o.shared},      {"parallel", parallel},
               {"logs", "." + name + ".logs"}, {"cells", cells_json(cells)}};
    }
    const int slots = parallel == 0 ? core_count() : parallel;

    const std::string host = host_name();
    std::vector<Plan> plans;
    for (const Cell& c : cells)
        plans.push_back(plan_cell(store, c.run, o.retry_failed, host));

    if (o.dry_run) {
        std::size_t todo = 0;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const std::string& a = plans[i].action;
            if (a != "skip" && a != "leave" && a != "elsewhere") ++todo;
            emit({{"event", "cell"},
                  {"index", i},
                  {"run", cells[i].run},
                  {"args", cells[i].args},
                  {"action", a},
                  {"status", plans[i].status}});
        }
        emit({{"event", "dry_run"},
              {"sweep", name},
              {"file", file},
              {"exists", exists},
              {"cells", cells.size()},
              {"todo", todo},
              {"parallel", slots}});
        std::cerr << "fone sweep: " << name << ": " << cells.size() << " cell(s), " << todo
                  << " to run; nothing started (--dry-run)" << std::endl;
        return 0;
    }

    if (slurm) {
        // With --parallel N, at most N array tasks at once (%N); without, Slurm decides.
        const int array_limit = parallel_given > 0 ? parallel_given : 0;
        const std::string script =
            slurm_script(name, file, store.root(), logs, cells, shared, array_limit, o);
        if (!exists) write_json_atomic(file, doc);
        write_file_atomic(o.slurm, script);
        std::error_code ec;
        fs::permissions(o.slurm, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                        fs::perm_options::add, ec);
        std::size_t todo = 0;
        for (const Plan& p : plans)
            todo += p.action != "skip";
        emit({{"event", "slurm_script"},
              {"sweep", name},
              {"file", file},
              {"script", fs::absolute(o.slurm, ec).string()},
              {"runs_dir", store.root()},
              {"cells", cells.size()},
              {"todo", todo},
              {"submit", "sbatch " + shell_quote(o.slurm)}});
        std::cerr << "fone sweep: " << name << ": " << cells.size() << " cell(s) as a Slurm job array in "
                  << o.slurm << "; submit it with: sbatch " << shell_quote(o.slurm) << std::endl;
        return 0;
    }

    if (!exists) write_json_atomic(file, doc);

    // N children that each take every core only fight: share the cores unless the cells say otherwise.
    int child_threads = 0;
    if (slots > 1 && !names_option(shared, "--threads") && !names_option(shared, "--config"))
        child_threads = std::max(1, core_count() / slots);

    Sweep sweep(name, file, store, std::move(cells), std::move(plans), slots, child_threads, o.verbose,
                o.retry_failed);
    return sweep.run(logs, exists);
}

}  // namespace

void add_sweep_commands(CLI::App& app) {
    auto o = std::make_shared<SweepOptions>();
    auto* cmd = app.add_subcommand("sweep",
                                   "Train a grid of runs (train sizes x size levels x methods x seeds), N at "
                                   "a time; JSON events on stdout");
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
        try {
            code = run_sweep(*o);
        } catch (const std::invalid_argument& e) {
            print_error("sweep", e.what());
            throw CliFailure(e.what(), 2);
        } catch (const std::exception& e) {
            print_error("sweep", e.what());
            throw CliFailure(e.what(), 1);
        }
        if (code) throw CliFailure("sweep not complete", code);
    });
}

}  // namespace fone::cli
