// fone analyse spectrum | pca | probe | circles | hidden | tokens | errors: the analyses of fone/analysis.h
// on the command line, writing CSV (and PNG when built with QCustomPlot) and one JSON line on stdout.
//
//   fone analyse spectrum --numbers 1000 --out out/     FoNE of 0..999: spikes at T = 10, 100, 1000
//   fone analyse spectrum --source csv --input h.csv --out out/      any dumped representation
//   fone analyse pca --numbers 1000 --color-digit 0 --out out/
//   fone analyse probe --numbers 1000 --out out/        can x mod T (2, 5, 10, 100) be read linearly?
//   fone analyse circles 4.17 --out out/                one unit circle per period
//   fone analyse hidden --hidden-file h.json --truth 4.17 -m 1 -n 2 --out out/   a hidden state
//   fone analyse tokens --csv table.csv                 tokens per table: FoNE, digit-wise, subword
//   fone analyse errors --input preds.csv               differing digits, per position, off-by-5
//   fone analyse dump --source run --run RUN --numbers 1000 --out out/   the representations themselves,
//                                                       one CSV per layer (what --source csv reads)
//   fone analyse spectrum --source model --model DIR --layer 0 --out out/   a downloaded model's
//                                                       number-token embeddings (Zhou et al.'s spikes)
//   fone analyse helix | digits ...                     cmd_analyse_numbers.cpp
//
// A source is a function from numbers to their N x D matrix (analysis::RepresentationSource): the encoder
// and CSV files, a trained run's hidden states (`--source run`) and a pretrained model folder's
// (`--source model`); analyse_support.h loads them.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "analyse_support.h"
#include "command_support.h"
#include "fone/analysis/analysis.h"
#include "fone/io/file_read.h"
#include "fone/io/json_bounded.h"
#include "json_io.h"

namespace fone::cli {
namespace {

namespace fa = fone::analysis;

std::string read_file(const std::string& path) {
    FileRead file = read_regular_file(path, kMaxDataFileBytes);
    if (!file.ok()) throw std::runtime_error(file.error);
    return std::move(file.text);
}

// The whole of a file, or of standard input for "-".
std::string read_input(const std::string& path) {
    if (path != "-") return read_file(path);
    std::stringstream text;
    text << std::cin.rdbuf();
    return text.str();
}

std::string spectrum_csv(const fa::Spectrum& s, double unit) {
    std::string text = "k,period,magnitude\n";
    for (std::size_t i = 0; i < s.k.size(); ++i)
        text += std::to_string(s.k[i]) + "," + number_text(s.period[i] * unit) + "," +
                number_text(s.magnitude[i]) + "\n";
    return text;
}

// ---- spectrum ---------------------------------------------------------------------------------------------

void register_spectrum(CLI::App* analyse) {
    auto o = std::make_shared<SourceOptions>();
    auto out_dir = std::make_shared<std::string>();
    auto no_png = std::make_shared<bool>(false);
    auto no_centre = std::make_shared<bool>(false);
    auto top = std::make_shared<int>(5);
    auto* cmd = analyse->add_subcommand(
        "spectrum",
        "Fourier spectrum along the number axis: DIR/spectrum.csv (k,period,magnitude), DIR/spectrum.png");
    add_source_options(cmd, *o);
    cmd->add_option("--out", *out_dir, "Output folder")->required();
    cmd->add_option("--top", *top, "Spikes listed in the summary")->capture_default_str();
    cmd->add_flag("--no-centre", *no_centre, "Keep each column's mean (k = 0 then shows it)");
    cmd->add_flag("--no-png", *no_png, "CSV only");
    cmd->callback([o, out_dir, no_png, no_centre, top] {
        const Loaded in = load(*o, true);
        const fa::SpectrumOptions options{.centre = !*no_centre};
        const fa::Spectrum s = fa::fourier_spectrum(in.rows(), options);
        json files;
        files["csv"] = out_path(*out_dir, "spectrum.csv");
        write_file_atomic(files["csv"], spectrum_csv(s, in.step));
        files["png"] = maybe_png(
            out_path(*out_dir, "spectrum.png"), 1000, 520,
            [&](QCustomPlot& p) {
                plots::draw_spectrum(
                    p, s,
                    {.title = "Spectrum of " + in.description + ", numbers " +
                              in.numbers.front().to_string() + ".." + in.numbers.back().to_string(),
                     .period_unit = in.step});
            },
            !*no_png);
        if (in.layers.size() > 1) {
            const fa::LayerSpectra h = fa::layer_spectra(in.layers, options);
            std::string text = "layer,k,period,magnitude\n";
            for (Eigen::Index l = 0; l < h.magnitude.rows(); ++l)
                for (std::size_t i = 0; i < h.k.size(); ++i)
                    text += in.layer_names[static_cast<std::size_t>(l)] + "," + std::to_string(h.k[i]) + "," +
                            number_text(h.period[i] * in.step) + "," +
                            number_text(h.magnitude(l, static_cast<Eigen::Index>(i))) + "\n";
            files["layers_csv"] = out_path(*out_dir, "spectrum_layers.csv");
            write_file_atomic(files["layers_csv"], text);
            files["heatmap_png"] = maybe_png(
                out_path(*out_dir, "spectrum_heatmap.png"), 1000,
                160 + 40 * static_cast<int>(in.layers.size()),
                [&](QCustomPlot& p) { plots::draw_layer_heatmap(p, h, in.layer_names, {}, in.step); },
                !*no_png);
        }
        json spikes = json::array();
        for (const auto& sp : fa::top_spikes(s, *top, 1e-6))
            spikes.push_back({{"k", sp.k}, {"period", sp.period * in.step}, {"magnitude", sp.magnitude}});
        print_json_line(std::cout, {{"analysis", "spectrum"},
                                    {"source", in.description},
                                    {"numbers", s.count},
                                    {"dims", in.rows().cols()},
                                    {"top_spikes", spikes},
                                    {"files", files}});
    });
}

// ---- pca --------------------------------------------------------------------------------------------------

void register_pca(CLI::App* analyse) {
    auto o = std::make_shared<SourceOptions>();
    auto out_dir = std::make_shared<std::string>();
    auto no_png = std::make_shared<bool>(false);
    auto color_digit = std::make_shared<int>(0);
    auto color_mod = std::make_shared<std::int64_t>(0);
    auto* cmd = analyse->add_subcommand(
        "pca",
        "PCA of the representations: DIR/pca.csv (number,pc1,pc2,pc3), DIR/pca_variance.csv, DIR/pca.png");
    add_source_options(cmd, *o);
    cmd->add_option("--out", *out_dir, "Output folder")->required();
    auto* digit_opt = cmd->add_option("--color-digit", *color_digit,
                                      "Colour by the digit at this position (0 units, 1 tens, -1 tenths)");
    cmd->add_option("--color-mod", *color_mod, "Colour by x mod T (floor(x) mod T) instead")
        ->excludes(digit_opt);
    cmd->add_flag("--no-png", *no_png, "CSV only");
    cmd->callback([o, out_dir, no_png, color_digit, color_mod] {
        const Loaded in = load(*o, false);
        const int components = static_cast<int>(std::min<Eigen::Index>(3, in.rows().cols()));
        const fa::Pca p = fa::pca(in.rows(), components);
        std::vector<int> classes;
        int class_count = 10;
        std::string class_name;
        if (*color_mod > 0) {
            if (*color_mod > 1000) throw std::runtime_error("--color-mod is limited to 1000");
            classes = fa::residue_classes(in.numbers, *color_mod);
            class_count = static_cast<int>(*color_mod);
            class_name = "x mod " + std::to_string(*color_mod);
        } else {
            for (const Decimal& x : in.numbers)
                classes.push_back(x.digit(*color_digit));
            class_name = *color_digit == 0 ? "units digit" : "digit at 10^" + std::to_string(*color_digit);
        }
        std::string text = "number";
        for (int c = 0; c < components; ++c)
            text += ",pc" + std::to_string(c + 1);
        text += "\n";
        for (std::size_t i = 0; i < in.numbers.size(); ++i) {
            text += in.numbers[i].to_string();
            for (int c = 0; c < components; ++c) {
                text += ',';
                text += number_text(p.projection(static_cast<Eigen::Index>(i), c));
            }
            text += "\n";
        }
        std::string variance = "component,variance,explained_ratio\n";
        json explained = json::array();
        for (int c = 0; c < components; ++c) {
            variance += "pc" + std::to_string(c + 1) + "," +
                        number_text(p.variance[static_cast<std::size_t>(c)]) + "," +
                        number_text(p.explained_ratio[static_cast<std::size_t>(c)]) + "\n";
            explained.push_back(p.explained_ratio[static_cast<std::size_t>(c)]);
        }
        json files;
        files["csv"] = out_path(*out_dir, "pca.csv");
        write_file_atomic(files["csv"], text);
        files["variance_csv"] = out_path(*out_dir, "pca_variance.csv");
        write_file_atomic(files["variance_csv"], variance);
        files["png"] = maybe_png(
            out_path(*out_dir, "pca.png"), 820, 680,
            [&](QCustomPlot& plot) {
                plots::draw_pca(plot, p, classes, class_count, class_name,
                                "PCA of " + in.description + ", coloured by " + class_name);
            },
            !*no_png);
        print_json_line(std::cout, {{"analysis", "pca"},
                                    {"source", in.description},
                                    {"numbers", in.numbers.size()},
                                    {"dims", in.rows().cols()},
                                    {"explained_variance_ratio", explained},
                                    {"files", files}});
    });
}

// ---- probe ------------------------------------------------------------------------------------------------

void register_probe(CLI::App* analyse) {
    auto o = std::make_shared<SourceOptions>();
    auto out_dir = std::make_shared<std::string>();
    auto no_png = std::make_shared<bool>(false);
    auto mods = std::make_shared<std::string>("2,5,10,100");
    auto code = std::make_shared<std::string>("circular");
    auto options = std::make_shared<fa::ProbeOptions>();
    auto* cmd = analyse->add_subcommand(
        "probe", "Linear probe of x mod T for each T: DIR/probe.csv (T,accuracy,...), DIR/probe.png");
    add_source_options(cmd, *o);
    cmd->add_option("--out", *out_dir, "Output folder")->required();
    cmd->add_option("--mod", *mods, "The periods T probed, comma-separated")->capture_default_str();
    cmd->add_option(
           "--code", *code,
           "circular: regress onto (cos, sin) of 2πc/T, nearest residue; one-hot: T indicator columns")
        ->check(CLI::IsMember({"circular", "one-hot"}))
        ->capture_default_str();
    cmd->add_option("--test-fraction", options->test_fraction, "Held-out share of the numbers")
        ->check(CLI::Range(0.01, 0.99))
        ->capture_default_str();
    cmd->add_option("--seed", options->seed, "Seed of the train/test split")->capture_default_str();
    cmd->add_flag("--no-png", *no_png, "CSV only");
    cmd->callback([o, out_dir, no_png, mods, code, options] {
        const Loaded in = load(*o, false);
        options->code = *code == "one-hot" ? fa::ProbeCode::one_hot : fa::ProbeCode::circular;
        std::vector<fa::ProbeResult> results;
        std::string text = "T,accuracy,chance,train,test\n";
        json summary = json::array();
        for (int t : parse_int_list(*mods, "--mod")) {
            if (t < 2) throw std::runtime_error("--mod periods must be at least 2, got " + std::to_string(t));
            const fa::ProbeResult r = fa::probe_residue(in.rows(), in.numbers, t, *options);
            results.push_back(r);
            text += std::to_string(t) + "," + number_text(r.accuracy) + "," + number_text(r.chance) + "," +
                    std::to_string(r.train_count) + "," + std::to_string(r.test_count) + "\n";
            summary.push_back({{"T", t}, {"accuracy", r.accuracy}, {"chance", r.chance}});
        }
        json files;
        files["csv"] = out_path(*out_dir, "probe.csv");
        write_file_atomic(files["csv"], text);
        files["png"] = maybe_png(
            out_path(*out_dir, "probe.png"), 760, 460,
            [&](QCustomPlot& plot) {
                plots::draw_probe(plot, results, "Linear probe (" + *code + ") of " + in.description);
            },
            !*no_png);
        print_json_line(std::cout, {{"analysis", "probe"},
                                    {"source", in.description},
                                    {"code", *code},
                                    {"numbers", in.numbers.size()},
                                    {"results", summary},
                                    {"files", files}});
    });
}

// ---- circles ----------------------------------------------------------------------------------------------

json circles_json(const fa::UnitCircles& c) {
    json markers = json::array(), circles = json::array();
    for (const auto& m : c.markers)
        markers.push_back({{"digit", m.digit}, {"angle", m.angle}, {"x", m.x}, {"y", m.y}});
    for (const auto& r : c.circles)
        circles.push_back({{"period", fa::period_text(r.period)},
                           {"period_value", r.period_value},
                           {"residue", r.residue},
                           {"residue_exact", r.residue_exact},
                           {"turns", r.turns},
                           {"angle", r.angle},
                           {"x", r.x},
                           {"y", r.y},
                           {"digit", r.digit >= 0 ? json(r.digit) : json(nullptr)},
                           {"nearest_marker", r.nearest_marker}});
    return {{"number", c.number.to_string()}, {"base", c.base}, {"markers", markers}, {"circles", circles}};
}

// On a terminal: a line per circle, the smallest period first, then where the files went.
void print_circles_summary(const fa::UnitCircles& c, const json& j) {
    std::printf("Unit circles of %s (base %d): the point of period T at angle 2π·(x mod T)/T\n",
                c.number.to_string().c_str(), c.base);
    std::printf("%-12s %-16s %9s  %s\n", "period T", "x mod T", "angle", "digit");
    for (const auto& r : c.circles) {
        const std::string residue = r.residue.size() > 16 ? r.residue.substr(0, 15) + "…" : r.residue;
        std::printf("%-12s %-16s %8.1f°  %s\n", fa::period_text(r.period).c_str(), residue.c_str(),
                    r.angle * 180.0 / M_PI, r.digit >= 0 ? std::to_string(r.digit).c_str() : "-");
    }
    if (j.contains("files"))
        for (const auto& [kind, path] : j["files"].items())
            if (path.is_string()) std::printf("%s: %s\n", kind.c_str(), path.get<std::string>().c_str());
    std::printf("--json (or a pipe) gives every field: markers, turns, (cos, sin), the nearest marker.\n");
    std::fflush(stdout);
}

void register_circles(CLI::App* analyse) {
    auto o = std::make_shared<SourceOptions>();
    auto number = std::make_shared<std::string>();
    auto out_dir = std::make_shared<std::string>();
    auto no_png = std::make_shared<bool>(false);
    auto as_json = std::make_shared<bool>(false);
    auto* cmd = analyse->add_subcommand(
        "circles",
        "Unit circles of NUMBER, one per period: a table on a terminal, JSON with --json or when stdout is "
        "not a terminal; with --out, circles.json and circles.png");
    add_spec_options(cmd, *o);
    cmd->add_option("number", *number, "The number (exact, any length); put -- before a negative one")
        ->required();
    cmd->add_option("--out", *out_dir, "Output folder for circles.json and circles.png");
    cmd->add_flag("--no-png", *no_png, "No PNG");
    cmd->add_flag("--json", *as_json, "JSON on stdout, as when it is not a terminal");
    cmd->callback([o, number, out_dir, no_png, as_json] {
        const Decimal x = Decimal::parse(*number);
        const fa::UnitCircles c = fa::unit_circles(x, source_spec(*o, {x}));
        json j = circles_json(c);
        write_json_and_png(
            j, *out_dir, "circles", [&] { return plots::circles_size(c); },
            [&](QCustomPlot& plot) { plots::draw_circles(plot, c); }, *no_png);
        if (json_output(*as_json))
            print_json_line(std::cout, j);
        else
            print_circles_summary(c, j);
    });
}

// ---- hidden -----------------------------------------------------------------------------------------------

// A hidden state as a JSON array (or an object with "hidden") or comma-separated values.
std::vector<float> hidden_from_text(const std::string& text, const std::string& where) {
    const auto start = text.find_first_not_of(" \t\r\n");
    std::vector<float> values;
    if (start != std::string::npos && (text[start] == '[' || text[start] == '{')) {
        json j;
        const bool parsed = parse_json_bounded(text, where, j, nullptr);
        const json& array = parsed && j.is_object() ? j.value("hidden", json()) : j;
        if (!parsed || !array.is_array()) throw std::runtime_error(where + ": not a JSON array of numbers");
        for (const auto& v : array) {
            if (!v.is_number()) throw std::runtime_error(where + ": not a JSON array of numbers");
            values.push_back(v.get<float>());
        }
        return values;
    }
    for (const auto& row : fa::split_csv(text))
        for (const std::string& cell : row) {
            const auto b = cell.find_first_not_of(" \t\r\n");
            if (b == std::string::npos) continue;
            std::size_t used = 0;
            float v = 0.0f;
            try {
                v = std::stof(cell.substr(b), &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || cell.find_first_not_of(" \t\r\n", b + used) != std::string::npos ||
                !std::isfinite(v))
                throw std::runtime_error(where + ": '" + cell + "' is not a number");
            values.push_back(v);
        }
    return values;
}

json hidden_json(const fa::HiddenCircles& h) {
    json pairs = json::array();
    for (const auto& p : h.pairs)
        pairs.push_back({{"period", fa::period_text(p.period)},
                         {"length", p.length},
                         {"x", p.x},
                         {"y", p.y},
                         {"angle", p.angle},
                         {"predicted", p.predicted},
                         {"probabilities", p.probabilities},
                         {"truth", p.truth >= 0 ? json(p.truth) : json(nullptr)},
                         {"wrong", p.wrong()}});
    return {{"predicted", h.predicted.to_string()},
            {"truth", h.has_truth ? json(h.truth.to_string()) : json(nullptr)},
            {"base", h.base},
            {"pairs", pairs}};
}

void register_hidden(CLI::App* analyse) {
    auto o = std::make_shared<SourceOptions>();
    auto values = std::make_shared<std::string>();
    auto file = std::make_shared<std::string>();
    auto truth = std::make_shared<std::string>();
    auto scale = std::make_shared<double>(1.0);
    auto out_dir = std::make_shared<std::string>();
    auto no_png = std::make_shared<bool>(false);
    auto* cmd = analyse->add_subcommand("hidden",
                                        "A hidden state (the digit head's input) on the unit circles: JSON; "
                                        "with --out, hidden.json and hidden.png");
    add_spec_options(cmd, *o);
    auto* given =
        cmd->add_option("--hidden", *values, "The hidden state: comma-separated values or a JSON array");
    cmd->add_option("--hidden-file", *file, "... or a file holding it ('-' reads stdin)")->excludes(given);
    cmd->add_option("--truth", *truth, "The true number, to mark the digits that are wrong");
    cmd->add_option("--scale", *scale, "The head's logit scale (temperature)")->capture_default_str();
    cmd->add_option("--out", *out_dir, "Output folder for hidden.json and hidden.png");
    cmd->add_flag("--no-png", *no_png, "No PNG");
    cmd->footer("-m and -n default to 7 and 3, as `fone encode`.");
    cmd->callback([o, values, file, truth, scale, out_dir, no_png] {
        const std::string text = file->empty() ? *values : read_input(*file);
        const std::string where = file->empty() ? "--hidden" : *file;
        if (text.empty()) throw std::runtime_error("give the hidden state with --hidden or --hidden-file");
        const std::vector<float> hidden = hidden_from_text(text, where);
        SourceOptions spec_options = *o;
        if (spec_options.int_digits < 0) spec_options.int_digits = 7;
        if (spec_options.frac_digits < 0) spec_options.frac_digits = 3;
        const FoneSpec spec = source_spec(spec_options, {});
        const Decimal true_number = truth->empty() ? Decimal() : Decimal::parse(*truth);
        const fa::HiddenCircles h =
            fa::hidden_circles(hidden, spec, truth->empty() ? nullptr : &true_number, *scale);
        json j = hidden_json(h);
        write_json_and_png(
            j, *out_dir, "hidden", [&] { return plots::hidden_circles_size(h); },
            [&](QCustomPlot& plot) { plots::draw_hidden_circles(plot, h); }, *no_png);
        print_json_line(std::cout, j);
    });
}

// ---- tokens -----------------------------------------------------------------------------------------------

json token_json(const fa::TokenCounts& t) {
    return {{"rows", t.rows},
            {"cells", t.cells},
            {"numbers", t.numbers},
            {"text_tokens", t.text_tokens},
            {"number_tokens",
             {{"fone", t.fone_number_tokens},
              {"digit", t.digit_number_tokens},
              {"subword", t.subword_number_tokens}}},
            {"total_tokens",
             {{"fone", t.fone_total()}, {"digit", t.digit_total()}, {"subword", t.subword_total()}}}};
}

void register_tokens(CLI::App* analyse) {
    auto files = std::make_shared<std::vector<std::string>>();
    auto* cmd = analyse->add_subcommand(
        "tokens", "Tokens per table: FoNE (one per number) vs digit-wise vs subword, for pasted CSV tables");
    cmd->add_option("--csv", *files, "CSV table(s); '-' reads standard input")->required();
    cmd->callback([files] {
        json tables = json::array();
        double sums[6] = {0, 0, 0, 0, 0, 0};
        for (const std::string& path : *files) {
            const fa::TokenCounts t = fa::count_table_tokens(read_input(path));
            json one = token_json(t);
            one["file"] = path;
            tables.push_back(one);
            const int values[6] = {t.fone_number_tokens, t.digit_number_tokens, t.subword_number_tokens,
                                   t.fone_total(),       t.digit_total(),       t.subword_total()};
            for (int i = 0; i < 6; ++i)
                sums[i] += values[i];
        }
        const double n = static_cast<double>(files->size());
        json average = {
            {"number_tokens", {{"fone", sums[0] / n}, {"digit", sums[1] / n}, {"subword", sums[2] / n}}},
            {"total_tokens", {{"fone", sums[3] / n}, {"digit", sums[4] / n}, {"subword", sums[5] / n}}}};
        print_json_line(std::cout,
                        {{"analysis", "tokens"}, {"tables", tables}, {"average_per_table", average}});
    });
}

// ---- errors -----------------------------------------------------------------------------------------------

void register_errors(CLI::App* analyse) {
    auto input = std::make_shared<std::string>();
    auto examples = std::make_shared<int>(20);
    auto* cmd = analyse->add_subcommand(
        "errors", "Mispredictions: digits that differ, error rate per digit position, the off-by-5 pattern");
    cmd->add_option("--input", *input, "CSV of predicted,actual pairs (a header line is skipped)")
        ->required();
    cmd->add_option("--examples", *examples, "Mispredictions listed in the output")
        ->check(CLI::Range(0, 1000000))
        ->capture_default_str();
    cmd->callback([input, examples] {
        std::vector<Decimal> predicted, actual;
        const auto rows = fa::split_csv(read_file(*input));
        for (std::size_t i = 0; i < rows.size(); ++i) {
            Decimal p, a;
            const bool ok =
                rows[i].size() == 2 && Decimal::try_parse(rows[i][0], p) && Decimal::try_parse(rows[i][1], a);
            if (!ok && i == 0) continue;  // a header
            if (!ok)
                throw std::runtime_error(*input + " line " + std::to_string(i + 1) +
                                         ": expected predicted,actual");
            predicted.push_back(p);
            actual.push_back(a);
        }
        const fa::ErrorAnalysis e = fa::analyse_errors(predicted, actual);
        json positions = json::array(), listed = json::array();
        for (const auto& p : e.per_position)
            positions.push_back({{"position", p.position}, {"errors", p.errors}, {"rate", p.rate()}});
        for (std::size_t i = 0; i < e.mispredictions.size() && static_cast<int>(i) < *examples; ++i) {
            const auto& m = e.mispredictions[i];
            json diffs = json::array();
            for (const auto& d : m.differing)
                diffs.push_back({{"position", d.position}, {"predicted", d.predicted}, {"actual", d.actual}});
            listed.push_back({{"predicted", m.predicted.to_string()},
                              {"actual", m.actual.to_string()},
                              {"sign_differs", m.sign_differs},
                              {"all_off_by_5", m.all_off_by_5()},
                              {"differing", diffs}});
        }
        print_json_line(std::cout, {{"analysis", "errors"},
                                    {"total", e.total},
                                    {"wrong", e.mispredictions.size()},
                                    {"differing_digits", e.differing_digits},
                                    {"off_by_5_digits", e.off_by_5_digits},
                                    {"all_off_by_5", e.all_off_by_5},
                                    {"single_digit_off_by_5", e.single_digit_off_by_5},
                                    {"per_position", positions},
                                    {"mispredictions", listed}});
    });
}

// ---- dump -------------------------------------------------------------------------------------------------

// One value as the shortest text that reads back to the same float (run sources are float32) or double.
void append_value(std::string& text, double v, bool as_float) {
    char buffer[32];
    const auto r = as_float ? std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(v))
                            : std::to_chars(buffer, buffer + sizeof buffer, v);
    text.append(buffer, r.ptr);
}

void register_dump(CLI::App* analyse) {
    auto o = std::make_shared<SourceOptions>();
    auto out_dir = std::make_shared<std::string>();
    auto* cmd = analyse->add_subcommand(
        "dump",
        "The representations themselves: DIR/layer-K.csv (number, then the values; what --source csv reads), "
        "one file per layer, and the list on stdout");
    add_source_options(cmd, *o);
    cmd->add_option("--out", *out_dir, "Output folder")->required();
    cmd->callback([o, out_dir] {
        if (o->source == "csv") throw std::runtime_error("dump takes --source encoder or run");
        const Loaded in = load(*o, false);
        const bool as_float = o->source == "run";
        json layers = json::array();
        for (std::size_t l = 0; l < in.layers.size(); ++l) {
            const Eigen::MatrixXd& m = in.layers[l];
            std::string text = "number";
            text.reserve(static_cast<std::size_t>(m.size()) * 12 + 64);
            for (Eigen::Index c = 0; c < m.cols(); ++c)
                text += ",d" + std::to_string(c);
            text += "\n";
            for (Eigen::Index r = 0; r < m.rows(); ++r) {
                text += in.numbers[static_cast<std::size_t>(r)].to_string();
                for (Eigen::Index c = 0; c < m.cols(); ++c) {
                    text += ',';
                    append_value(text, m(r, c), as_float);
                }
                text += "\n";
            }
            const std::string path = out_path(*out_dir, "layer-" + std::to_string(l) + ".csv");
            write_file_atomic(path, text);
            layers.push_back({{"index", l}, {"name", in.layer_names[l]}, {"csv", path}, {"dims", m.cols()}});
        }
        print_json_line(std::cout, {{"analysis", "dump"},
                                    {"source", in.description},
                                    {"numbers", in.numbers.size()},
                                    {"first", in.numbers.front().to_string()},
                                    {"last", in.numbers.back().to_string()},
                                    {"step", in.step},
                                    {"chosen_layer", in.chosen},
                                    {"layers", layers}});
    });
}

}  // namespace

void add_analyse_commands(CLI::App& app) {
    auto* analyse = app.add_subcommand("analyse",
                                       "Spectra, PCA, probes, unit circles, token counts, error patterns, "
                                       "helix fits and digit probes");
    analyse->require_subcommand(1);
    register_spectrum(analyse);
    register_pca(analyse);
    register_probe(analyse);
    register_circles(analyse);
    register_hidden(analyse);
    register_tokens(analyse);
    register_errors(analyse);
    register_dump(analyse);
    add_number_geometry_commands(analyse);
    add_timeline_command(analyse);
    add_replay_command(analyse);
}

}  // namespace fone::cli
