// `fone reproduce`, in two files: the command (which experiment, its cells' runs: cmd_reproduce.cpp) and
// its report (the tables, plots and CSV of the rows: cmd_reproduce_report.cpp). The experiments are files
// (experiments/*.json, read by fone/store/experiments.h); the report kind an experiment names picks its
// tables and plots.
#pragma once

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/store/experiments.h"

namespace fone::cli {

// results.md: the experiment's title and tables for its rows (one per run: the cell's labels and the
// run's figures). Summary figures some reports derive (data ratios, time ratios, the periods-5 count
// already in it) are added to `extra`, which goes into results.json.
std::string results_markdown(const Experiment& e, const std::vector<nlohmann::json>& rows,
                             nlohmann::json& extra);
// The experiment's pictures (PNG) in out when this build has QCustomPlot; the paths written.
nlohmann::json write_plots(const Experiment& e, const std::vector<nlohmann::json>& rows,
                           const std::filesystem::path& out);
// results.csv: one row per run, every key of any row a column.
std::string results_csv(const std::vector<nlohmann::json>& rows);

// The grokking report (cmd_reproduce_grokking.cpp): per row's run in the store, the progress measures its
// evaluations recorded, as CSV and PNG in out; returns a summary per run (files, key frequencies, the steps
// train and test accuracy reached 99%) for results.json and grokking_tables.
nlohmann::json grokking_report(const std::string& store_root, const std::vector<nlohmann::json>& rows,
                               const std::filesystem::path& out);
void grokking_tables(std::ostringstream& md, const nlohmann::json& runs);

// The text-scaling report (cmd_reproduce_scaling.cpp): the FoNE/digit text-perplexity ratios per corpus
// and model size, each corpus's table of methods and sizes (the ratios also into `extra`), and the figure,
// text-scaling.png in out ("" without QCustomPlot).
void text_scaling_tables(std::ostringstream& md, const std::vector<nlohmann::json>& rows,
                         nlohmann::json& extra);
std::string write_text_scaling_plot(const Experiment& e, const std::vector<nlohmann::json>& rows,
                                    const std::filesystem::path& out);

// "97.0%", "1.25 s"; "–" for a missing figure.
std::string pct(const nlohmann::json& v);
std::string secs(const nlohmann::json& v);

}  // namespace fone::cli
