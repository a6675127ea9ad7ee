// What the `fone analyse` subcommands share (cmd_analyse.cpp, cmd_analyse_numbers.cpp): where a
// representation comes from (--source encoder | csv | run | model and their options), loading it as one
// N x D matrix per layer, and writing CSV, JSON and PNG files.
#pragma once

#include <Eigen/Core>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "fone/numbers/decimal.h"
#include "fone/numbers/fourier.h"
#include "fone/store/run_store.h"
#include "json_io.h"

// Plain C++ (QCustomPlot only forward-declared); the drawing functions are linked only with FONE_WITH_PLOTS.
#include "analyse_output.h"  // out_path, number_text, maybe_png

namespace fone::cli {

using nlohmann::json;

struct SourceOptions {
    std::string source = "encoder";
    int int_digits = -1;  // -1: just enough for the numbers
    int frac_digits = -1;
    int base = 10;
    std::string periods;
    bool no_sign = false;
    int count = 0;
    std::string start = "0", step = "1";
    std::vector<std::string> inputs;
    int layer = -1;             // -1: the last input
    std::string run, runs_dir;  // run source
    std::string model;          // model source: a Hugging Face model folder
};

// The numbers and one matrix per layer (one for the encoder, one per --input file).
struct Loaded {
    std::vector<Decimal> numbers;
    std::vector<Eigen::MatrixXd> layers;
    std::vector<std::string> layer_names;
    std::size_t chosen = 0;  // the layer analysed when one is needed
    double step = 1.0;       // spacing of the numbers, for periods in number units
    std::string description;
    const Eigen::MatrixXd& rows() const { return layers[chosen]; }
};

// -m, -n, --base, --periods, --no-sign: the FoNE encoder's spec.
void add_spec_options(CLI::App* cmd, SourceOptions& o);
// --source and everything a source takes, --numbers/--start/--step, --input, --layer.
void add_source_options(CLI::App* cmd, SourceOptions& o);
// The encoder's spec for the numbers: the options given, the smallest m (and n) that fit where not.
FoneSpec source_spec(const SourceOptions& o, const std::vector<Decimal>& numbers);
// The representations a source gives; with need_even_spacing, CSV numbers must be evenly spaced (spectra).
Loaded load(const SourceOptions& o, bool need_even_spacing);

// `fone analyse helix` and `fone analyse digits` (cmd_analyse_numbers.cpp).
void add_number_geometry_commands(CLI::App* analyse);

// With --out: j as OUT/STEM.json and, unless no_png, the drawing as OUT/STEM.png (size() gives its pixels),
// both listed in j["files"]. Without --out, j stays as it is.
template <class Size, class Draw>
void write_json_and_png(json& j, const std::string& out_dir, const std::string& stem, Size&& size,
                        Draw&& draw, bool no_png) {
    if (out_dir.empty()) return;
    json files;
    files["json"] = out_path(out_dir, stem + ".json");
    write_json_atomic(files["json"], j);
#ifdef FONE_WITH_PLOTS
    const auto [w, h] = size();
#else
    (void)size;
    const int w = 0, h = 0;
#endif
    files["png"] = maybe_png(out_path(out_dir, stem + ".png"), w, h, std::forward<Draw>(draw), !no_png);
    j["files"] = files;
}

}  // namespace fone::cli
