// fone analyse helix | digits: where numbers sit in a model, layer by layer (docs/analysis.md).
//
//   fone analyse helix --source model --model DIR --numbers 100 --out out/
//       per layer, the share of the variance a helix (x, cos and sin of 2πx/T for T = 2, 5, 10, 100)
//       explains against the top principal components of as many dimensions; the helix in 3-D
//   fone analyse digits --source model --model DIR --numbers 1000 --out out/
//       per layer and digit place, a circular probe's held-out accuracy; the chosen layer's clocks
#include <iostream>
#include <memory>

#include "analyse_support.h"
#include "command_support.h"
#include "fone/analysis/digit_probe.h"
#include "fone/analysis/helix.h"
#include "geometry_plots.h"

namespace fone::cli {

namespace fa = fone::analysis;

namespace {

std::vector<double> parse_periods(const std::string& text) {
    std::vector<double> out;
    for (const int t : parse_int_list(text, "--helix-periods")) {
        if (t < 1) throw std::runtime_error("--helix-periods must be positive, got " + std::to_string(t));
        out.push_back(t);
    }
    return out;
}

// Every layer's fit as a CSV and JSON rows.
std::pair<std::string, json> helix_table(const Loaded& in, const std::vector<fa::HelixFit>& fits) {
    std::string csv = "layer,name,rank,r2,pca_r2\n";
    json rows = json::array();
    for (std::size_t l = 0; l < fits.size(); ++l) {
        csv += std::to_string(l) + "," + in.layer_names[l] + "," + std::to_string(fits[l].rank) + "," +
               number_text(fits[l].r2) + "," + number_text(fits[l].pca_r2) + "\n";
        rows.push_back({{"index", l},
                        {"name", in.layer_names[l]},
                        {"rank", fits[l].rank},
                        {"r2", fits[l].r2},
                        {"pca_r2", fits[l].pca_r2}});
    }
    return {csv, rows};
}

// The chosen layer's numbers in the helix's coordinates.
std::string coordinates_csv(const Loaded& in, const fa::HelixFit& fit) {
    std::string csv = "number";
    for (const std::string& b : fit.basis)
        csv += "," + b;
    csv += "\n";
    for (Eigen::Index i = 0; i < fit.coordinates.rows(); ++i) {
        csv += in.numbers[static_cast<std::size_t>(i)].to_string();
        for (Eigen::Index c = 0; c < fit.coordinates.cols(); ++c)
            csv += "," + number_text(fit.coordinates(i, c));
        csv += "\n";
    }
    return csv;
}

void register_helix(CLI::App* analyse) {
    auto o = std::make_shared<SourceOptions>();
    auto out_dir = std::make_shared<std::string>();
    auto periods = std::make_shared<std::string>("2,5,10,100");
    auto no_linear = std::make_shared<bool>(false);
    auto shown = std::make_shared<int>(10);
    auto no_png = std::make_shared<bool>(false);
    auto* cmd = analyse->add_subcommand(
        "helix",
        "Helix fit per layer (x, cos and sin of 2πx/T) against PCA of as many dimensions: "
        "DIR/helix.csv, DIR/helix_coordinates.csv, DIR/helix_r2.png, DIR/helix.png");
    add_source_options(cmd, *o);
    cmd->add_option("--out", *out_dir, "Output folder")->required();
    cmd->add_option("--helix-periods", *periods, "The periods T of the helix, comma-separated")
        ->capture_default_str();
    cmd->add_flag("--no-linear", *no_linear, "No linear term: circles only");
    cmd->add_option("--circle", *shown, "The period drawn as the helix's circle in helix.png")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    cmd->add_flag("--no-png", *no_png, "CSV only");
    cmd->callback([o, out_dir, periods, no_linear, shown, no_png] {
        const Loaded in = load(*o, false);
        const fa::HelixOptions options{parse_periods(*periods), !*no_linear};
        const std::vector<fa::HelixFit> fits = fa::layer_helix_fits(in.layers, in.numbers, options);
        const fa::HelixFit& chosen = fits[in.chosen];
        const auto [csv, rows] = helix_table(in, fits);
        json files;
        files["csv"] = out_path(*out_dir, "helix.csv");
        write_file_atomic(files["csv"], csv);
        files["coordinates_csv"] = out_path(*out_dir, "helix_coordinates.csv");
        write_file_atomic(files["coordinates_csv"], coordinates_csv(in, chosen));
        std::vector<double> r2, pca_r2;
        for (const auto& f : fits) {
            r2.push_back(f.r2);
            pca_r2.push_back(f.pca_r2);
        }
        files["r2_png"] = maybe_png(
            out_path(*out_dir, "helix_r2.png"), 820, 480,
            [&](QCustomPlot& p) {
                plots::draw_lines(p,
                                  {plots::per_layer_series("helix (" + *periods + ")", r2),
                                   plots::per_layer_series("PCA, as many dims", pca_r2)},
                                  {.title = "Share of the variance per layer: " +
                                            in.description.substr(0, in.description.rfind(',')),
                                   .x_label = "layer (0: embeddings)",
                                   .y_label = "R²"});
            },
            !*no_png);
        files["png"] = maybe_png(
            out_path(*out_dir, "helix.png"), 760, 720,
            [&](QCustomPlot& p) {
                plots::draw_helix(
                    p, chosen, in.numbers,
                    {.period = static_cast<double>(*shown), .title = "Helix of " + in.description});
            },
            !*no_png);
        print_json_line(std::cout, {{"analysis", "helix"},
                                    {"source", in.description},
                                    {"numbers", in.numbers.size()},
                                    {"periods", options.periods},
                                    {"linear", options.linear},
                                    {"basis", chosen.basis},
                                    {"layers", rows},
                                    {"chosen_layer", in.chosen},
                                    {"files", files}});
    });
}

// Per layer and place, the accuracy and chance of the chosen probe: the circular probe of each place, or the
// place scores of one sinusoidal probe per layer (with its exact-value accuracy).
struct DigitAccuracies {
    std::vector<std::vector<double>> accuracy, chance;  // [layer][place]
    std::vector<double> exact;                          // sinusoidal only: [layer]
    fa::DigitProbeTable circular;                       // circular only (for the clocks)
};

DigitAccuracies digit_accuracies(const std::string& probe, const std::vector<Eigen::MatrixXd>& layers,
                                 const std::vector<Decimal>& numbers, const std::vector<int>& places,
                                 const fa::ProbeOptions& options) {
    DigitAccuracies a;
    if (probe == "sinusoidal") {
        for (const fa::SinusoidalProbe& p : fa::sinusoidal_probes(layers, numbers, places, options)) {
            a.accuracy.push_back(p.place_accuracy);
            a.chance.push_back(p.place_chance);
            a.exact.push_back(p.accuracy);
        }
        return a;
    }
    a.circular = fa::digit_probes(layers, numbers, places, options);
    for (const auto& row : a.circular.results) {
        a.accuracy.emplace_back();
        a.chance.emplace_back();
        for (const fa::ProbeResult& r : row) {
            a.accuracy.back().push_back(r.accuracy);
            a.chance.back().push_back(r.chance);
        }
    }
    return a;
}

// Every layer's accuracy per place as a CSV, JSON rows and a plotted line per place (the sinusoidal probe
// adds its exact-value accuracy to the rows and as a last line).
struct DigitTable {
    std::string csv = "layer,name,place,accuracy,chance\n";
    json layers = json::array();
    std::vector<plots::LineSeries> lines;
};

DigitTable digit_table(const Loaded& in, const std::vector<int>& places, const DigitAccuracies& a,
                       bool circular) {
    DigitTable t;
    for (const int place : places)
        t.lines.push_back({fa::place_name(place), {}, {}, {}, {}});
    if (!circular) t.lines.push_back({"exact value", {}, {}, {}, {}});
    for (std::size_t l = 0; l < a.accuracy.size(); ++l) {
        json accuracy = json::object();
        for (std::size_t p = 0; p < places.size(); ++p) {
            t.csv += std::to_string(l) + "," + in.layer_names[l] + "," + std::to_string(places[p]) + "," +
                     number_text(a.accuracy[l][p]) + "," + number_text(a.chance[l][p]) + "\n";
            accuracy[fa::place_name(places[p])] = a.accuracy[l][p];
            t.lines[p].x.push_back(static_cast<double>(l));
            t.lines[p].y.push_back(a.accuracy[l][p]);
        }
        json layer = {{"index", l}, {"name", in.layer_names[l]}, {"accuracy", accuracy}};
        if (!circular) {
            layer["exact_accuracy"] = a.exact[l];
            t.lines.back().x.push_back(static_cast<double>(l));
            t.lines.back().y.push_back(a.exact[l]);
        }
        t.layers.push_back(layer);
    }
    return t;
}

// Writes DIR/digits.csv, DIR/digits.png and (circular) DIR/clocks.png; the files' entry of the JSON line.
json write_digit_files(const std::string& out_dir, const Loaded& in, const std::vector<int>& places,
                       const DigitAccuracies& a, const DigitTable& t, bool circular, bool png) {
    json files;
    files["csv"] = out_path(out_dir, "digits.csv");
    write_file_atomic(files["csv"], t.csv);
    const std::string source = in.description.substr(0, in.description.rfind(','));
    files["png"] = maybe_png(
        out_path(out_dir, "digits.png"), 820, 480,
        [&](QCustomPlot& p) {
            plots::draw_lines(
                p, t.lines,
                {.title = (circular ? "Circular probe per digit place: " : "Sinusoidal probe per layer: ") +
                          source,
                 .x_label = "layer (0: embeddings)",
                 .y_label = "held-out accuracy"});
        },
        png);
#ifdef FONE_WITH_PLOTS
    const auto [w, h] = plots::clocks_size(places.size());
#else
    const int w = 0, h = 0;
#endif
    files["clocks_png"] = circular ? maybe_png(
                                         out_path(out_dir, "clocks.png"), w, h,
                                         [&](QCustomPlot& p) {
                                             plots::draw_clocks(p, a.circular, in.chosen, in.numbers,
                                                                "Clocks of " + in.description);
                                         },
                                         png)
                                   : json(nullptr);
    return files;
}

void register_digits(CLI::App* analyse) {
    auto o = std::make_shared<SourceOptions>();
    auto out_dir = std::make_shared<std::string>();
    auto places_text = std::make_shared<std::string>();
    auto probe = std::make_shared<std::string>("circular");
    auto options = std::make_shared<fa::ProbeOptions>();
    auto no_png = std::make_shared<bool>(false);
    auto* cmd = analyse->add_subcommand(
        "digits",
        "Circular probes per digit place per layer (is the digit at 10^p a point on a base-10 "
        "circle?), or sinusoidal probes (x decoded from cos/sin of x at periods 10^(p+1)): DIR/digits.csv, "
        "DIR/digits.png, the chosen layer's DIR/clocks.png (circular)");
    add_source_options(cmd, *o);
    cmd->add_option("--out", *out_dir, "Output folder")->required();
    cmd->add_option("--places", *places_text,
                    "Digit places probed, comma-separated (0 units, 1 tens, -1 tenths); default: all the "
                    "numbers have");
    cmd->add_option("--probe", *probe,
                    "circular: one probe per place (Levy & Geva 2024); sinusoidal: one probe per layer "
                    "decoding x, scored exactly and per place (Kadlcik et al. 2025)")
        ->check(CLI::IsMember({"circular", "sinusoidal"}))
        ->capture_default_str();
    cmd->add_option("--test-fraction", options->test_fraction, "Held-out share of the numbers")
        ->check(CLI::Range(0.01, 0.99))
        ->capture_default_str();
    cmd->add_option("--seed", options->seed, "Seed of the train/test split")->capture_default_str();
    cmd->add_flag("--no-png", *no_png, "CSV only");
    cmd->callback([o, out_dir, places_text, probe, options, no_png] {
        const Loaded in = load(*o, false);
        const std::vector<int> places =
            places_text->empty() ? fa::digit_places(in.numbers) : parse_int_list(*places_text, "--places");
        const DigitAccuracies a = digit_accuracies(*probe, in.layers, in.numbers, places, *options);
        const bool circular = *probe == "circular";
        const DigitTable t = digit_table(in, places, a, circular);
        const json files = write_digit_files(*out_dir, in, places, a, t, circular, !*no_png);
        json chance = json::object();
        for (std::size_t p = 0; p < places.size(); ++p)
            chance[fa::place_name(places[p])] = a.chance[in.chosen][p];
        print_json_line(std::cout, {{"analysis", "digits"},
                                    {"probe", *probe},
                                    {"source", in.description},
                                    {"numbers", in.numbers.size()},
                                    {"places", places},
                                    {"layers", t.layers},
                                    {"chosen_layer", in.chosen},
                                    {"chance", chance},
                                    {"files", files}});
    });
}

}  // namespace

void add_number_geometry_commands(CLI::App* analyse) {
    register_helix(analyse);
    register_digits(analyse);
}

}  // namespace fone::cli
