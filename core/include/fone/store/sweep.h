// Sweeps: a grid of training runs (training-set sizes x size levels x methods x seeds), its cells' run
// names and `fone train` options, and the sweep file. `fone sweep` (app/cli/cmd_sweep*.cpp) and the
// workbench's sweep designer (widgets/sweep_designer.cpp) both expand their grids here, so a cell has the
// same name whichever made it.
//
// Cell names: SWEEP-n<S>-l<L>-<M>-s<K>, the parts of the axes given, in that order; cells in grid order,
// seeds fastest. An axis not given is one "absent" value: no option and no part of the name.
//
// The sweep file <runs-dir>/<sweep>.sweep.json is written by `fone sweep` alone (also with --slurm), once,
// atomically, when the sweep is created; `fone sweep --resume` reads it. The sweep designer queues its
// cells in the window and writes no sweep file. Its format is a stable contract:
//   {"format": 1, "sweep": NAME, "created": "2026-11-22T04:15:02Z",
//    "grid": {"train_sizes": [..], "size_levels": [..], "methods": [..], "seeds": [..]}   (the axes given),
//    "shared_args": [..], "parallel": N (0: one per core), "logs": ".NAME.logs",
//    "cells": [{"run": RUN, "args": [..]}, ...]}
// Cell i is the process `fone train <args> --runs-dir <the sweep file's directory>`; its args are the
// shared args, then --train-size S --size-level L --method M --seed K (the axes given), then --name RUN.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fone {

inline constexpr int kSweepFormat = 1;
inline constexpr std::uint64_t kMaxSweepCells = 10000;

// The axes; an empty vector is an axis not given (a given one is never empty). A size level without a
// value (std::nullopt) is the default model with no --size-level and no part of the name: the sweep
// designer's "default" box; `fone sweep --size-levels 0` is level 0, named "-l0".
struct SweepGrid {
    std::vector<std::uint64_t> train_sizes;
    std::vector<std::optional<std::uint64_t>> size_levels;
    std::vector<std::string> methods;
    std::vector<std::uint64_t> seeds;

    bool empty() const;
    // Axes not given count as one value.
    std::uint64_t cell_count() const;
    // {"train_sizes": [..], ...}: the axes given (a valueless size level as null).
    nlohmann::json to_json() const;
};

// Axis values from text. Errors are std::invalid_argument "LABEL: why" (LABEL: "--seeds", "Seeds", ...).
// Train sizes: "800,1600,3200" or "A:B" (doubling from A while at most B); size levels 0..6; methods of
// method_names(); seeds whole numbers. No empty items, no duplicates.
std::vector<std::uint64_t> parse_train_sizes(const std::string& label, const std::string& text);
std::vector<std::uint64_t> parse_size_levels(const std::string& label, const std::string& text);
std::vector<std::string> parse_methods(const std::string& label, const std::string& text);
std::vector<std::uint64_t> parse_seeds(const std::string& label, const std::string& text);
// from, 2 from, 4 from, ... while at most to; empty when from < 1 or from > to.
std::vector<std::uint64_t> doubling_sizes(std::uint64_t from, std::uint64_t to);
// At most kMaxSweepCells cells (std::invalid_argument).
void check_grid_size(const SweepGrid& grid);

// "" when name can name a sweep (letters, digits, '.', '_', '-'; at most 80; not starting with '.' or '-').
std::string sweep_name_problem(const std::string& name);

// One cell of a grid: its run's name and its axis values (nullopt: not set for this cell).
struct SweepPoint {
    std::string run;
    std::optional<std::uint64_t> train_size, size_level, seed;
    std::optional<std::string> method;
    // --train-size S --size-level L --method M --seed K, the values set.
    std::vector<std::string> train_args() const;
};
// The grid's cells in grid order (seeds fastest). std::invalid_argument when a run name would be longer
// than a run name may be.
std::vector<SweepPoint> expand_sweep(const std::string& sweep, const SweepGrid& grid);

// True when args name the option (as "--opt" or "--opt=...").
bool names_option(const std::vector<std::string>& args, const std::string& opt);
// The options every cell shares may not be "train", nor name --name, --runs-dir, --resume or the option of
// an axis that is given (std::invalid_argument).
void check_shared_args(const std::vector<std::string>& shared, const SweepGrid& grid);

// A cell of the sweep file.
struct SweepCell {
    std::string run;
    std::vector<std::string> args;
};
// The cells of a sweep file: the shared args, the cell's axis options, --name RUN.
std::vector<SweepCell> sweep_cells(const std::string& sweep, const SweepGrid& grid,
                                   const std::vector<std::string>& shared);
nlohmann::json cells_json(const std::vector<SweepCell>& cells);

struct SweepFile {
    std::string sweep, created, logs;
    nlohmann::json grid = nlohmann::json::object();  // as written (SweepGrid::to_json); not read back
    std::vector<std::string> shared_args;
    int parallel = 1;  // 0: one per core
    std::vector<SweepCell> cells;

    nlohmann::json to_json() const;
};
// <root>/<sweep>.sweep.json and <root>/.<sweep>.logs (a dot folder: `fone runs list` skips it).
std::string sweep_file_path(const std::string& root, const std::string& sweep);
std::string sweep_logs_dir(const std::string& root, const std::string& sweep);
// RunError naming the file when it is missing, corrupt, not a sweep file, or of a newer format.
SweepFile read_sweep_file(const std::string& path);
// Written atomically (a temporary file renamed).
void write_sweep_file(const std::string& path, const SweepFile& file);

}  // namespace fone
