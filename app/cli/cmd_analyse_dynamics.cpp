// fone analyse timeline | grokking: how a run's representations formed during training, from the snapshots
// its evaluations recorded (fone/store/snapshots.h).
//
//   fone analyse timeline --run RUN --out DIR    spectrum per layer over training, key periods, probes
//   fone analyse grokking --run RUN --out DIR    mod-add: key frequencies, restricted and excluded loss
#include <filesystem>
#include <iostream>
#include <memory>

#include "analyse_output.h"
#include "command_support.h"
#include "dynamics_plots.h"
#include "fone/analysis/probes.h"
#include "fone/analysis/timeline.h"
#include "fone/store/run_store.h"
#include "fone/store/snapshots.h"
#include "json_io.h"
#ifdef FONE_WITH_TORCH
#include "fone/train/grokking.h"
#endif

namespace fone::cli {
namespace {

using nlohmann::json;
namespace fa = fone::analysis;

struct Snapshots {
    std::string run;
    std::vector<Decimal> numbers;
    std::vector<std::string> layer_names;
    std::vector<fa::StepRepresentations> steps;
};

Eigen::MatrixXd matrix_of(const std::vector<float>& values, std::size_t rows, std::int64_t dims) {
    Eigen::MatrixXd m(static_cast<Eigen::Index>(rows), dims);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < dims; ++j)
            m(static_cast<Eigen::Index>(i), j) = values[i * static_cast<std::size_t>(dims) + static_cast<std::size_t>(j)];
    return m;
}

// Every snapshot of a run, as matrices; a run without snapshots is a RunError that says why.
Snapshots load_snapshots(const std::string& dir) {
    Snapshots out;
    out.run = std::filesystem::path(dir).filename().string();
    const std::vector<SnapshotFile> files = list_snapshots(dir);
    if (files.empty())
        throw RunError(out.run + " has no representation snapshots: runs record them at every evaluation since "
                                 "issue 17 (train it again, or resume it, to record them)");
    for (const SnapshotFile& f : files) {
        const Snapshot s = read_snapshot(f.path);
        if (out.numbers.empty()) {
            out.numbers = s.numbers;
            for (std::size_t l = 0; l < s.layers.size(); ++l)
                out.layer_names.push_back(s.source == "token_embeddings" ? "token embeddings"
                                          : l == 0                     ? "input"
                                                                       : "block " + std::to_string(l));
        } else if (s.numbers != out.numbers) {
            throw RunError(f.path + ": probes other numbers than the run's first snapshot");
        }
        fa::StepRepresentations step{s.step, {}};
        for (const auto& layer : s.layers)
            step.layers.push_back(matrix_of(layer, s.numbers.size(), s.dims));
        out.steps.push_back(std::move(step));
    }
    return out;
}

json key_periods_json(const fa::Timeline& t, const std::vector<std::string>& names) {
    json layers = json::array();
    for (std::size_t l = 0; l < t.key_periods.size(); ++l) {
        json keys = json::array();
        for (const fa::KeyPeriod& k : t.key_periods[l])
            keys.push_back({{"period", k.period},
                            {"k", k.k},
                            {"final_magnitude", k.final_magnitude},
                            {"emerged_at", k.emerged_at >= 0 ? json(k.emerged_at) : json(nullptr)}});
        layers.push_back({{"layer", names[l]}, {"key_periods", keys}});
    }
    return layers;
}

// step,layer,probe,place_or_periods,accuracy: the circular digit probes and the sinusoidal probe at every
// snapshot and layer.
std::string probes_csv(const Snapshots& s) {
    std::vector<int> places = {0};
    if (s.numbers.size() >= 20) places.push_back(1);
    if (s.numbers.size() >= 200) places.push_back(2);
    const std::vector<std::int64_t> periods = {10, 100, 1000};
    std::string text = "step,layer,probe,target,accuracy,chance\n";
    for (const auto& step : s.steps) {
        const fa::LayerProbes p = fa::probe_layers(step.layers, s.numbers, places, periods);
        for (std::size_t l = 0; l < step.layers.size(); ++l) {
            for (std::size_t k = 0; k < places.size(); ++k)
                text += std::to_string(step.step) + "," + s.layer_names[l] + ",circular digit,place " +
                        std::to_string(places[k]) + "," +
                        number_text(p.digit_accuracy(static_cast<Eigen::Index>(l), static_cast<Eigen::Index>(k))) +
                        "," + number_text(p.digit_chance(static_cast<Eigen::Index>(l), static_cast<Eigen::Index>(k))) +
                        "\n";
            text += std::to_string(step.step) + "," + s.layer_names[l] + ",sinusoidal,T=10;100;1000," +
                    number_text(p.sinusoidal_accuracy[l]) + "," + number_text(1.0 / static_cast<double>(s.numbers.size())) +
                    "\n";
        }
    }
    return text;
}

void register_timeline(CLI::App* analyse) {
    auto run = std::make_shared<std::string>(), runs_dir = std::make_shared<std::string>();
    auto out_dir = std::make_shared<std::string>();
    auto no_png = std::make_shared<bool>(false);
    auto* cmd = analyse->add_subcommand(
        "timeline",
        "How a run's representations formed: the spectrum of its probe numbers at every snapshot, per layer: "
        "DIR/timeline.csv (step,layer,k,period,magnitude), DIR/timeline-layer-L.png, DIR/probes.csv");
    cmd->add_option("--run", *run, "Run name or directory")->required();
    cmd->add_option("--runs-dir", *runs_dir, "Run store");
    cmd->add_option("--out", *out_dir, "Output folder")->required();
    cmd->add_flag("--no-png", *no_png, "CSV only");
    cmd->callback([run, runs_dir, out_dir, no_png] {
        run_command("analyse timeline", [&] {
            const Snapshots s = load_snapshots(open_store(*runs_dir, false).resolve(*run));
            const fa::Timeline t = fa::spectrum_timeline(s.steps);
            json files;
            files["csv"] = out_path(*out_dir, "timeline.csv");
            write_file_atomic(files["csv"], fa::timeline_csv(t, s.layer_names));
            files["probes_csv"] = out_path(*out_dir, "probes.csv");
            write_file_atomic(files["probes_csv"], probes_csv(s));
            json pngs = json::array();
            for (std::size_t l = 0; l < s.layer_names.size(); ++l)
                pngs.push_back(maybe_png(
                    out_path(*out_dir, "timeline-layer-" + std::to_string(l) + ".png"), 1000, 620,
                    [&](QCustomPlot& p) {
                        plots::draw_timeline(p, t, l, "Spectrum of " + s.run + " over training, " + s.layer_names[l]);
                    },
                    !*no_png));
            files["png"] = pngs;
            print_json_line(std::cout, {{"analysis", "timeline"},
                                        {"run", s.run},
                                        {"snapshots", t.steps.size()},
                                        {"first_step", t.steps.front()},
                                        {"last_step", t.steps.back()},
                                        {"numbers", s.numbers.size()},
                                        {"layers", key_periods_json(t, s.layer_names)},
                                        {"files", files}});
        });
    });
}

#ifdef FONE_WITH_TORCH
void register_grokking(CLI::App* analyse) {
    auto run = std::make_shared<std::string>(), runs_dir = std::make_shared<std::string>();
    auto out_dir = std::make_shared<std::string>();
    auto share = std::make_shared<double>(0.05);
    auto threads = std::make_shared<int>(1);
    auto no_png = std::make_shared<bool>(false);
    auto* cmd = analyse->add_subcommand(
        "grokking",
        "Grokking's progress measures on a mod-add run trained with --snapshots weights (Nanda et al. 2023): "
        "key frequencies of the embedding over training, train/test/restricted/excluded loss: DIR/grokking.csv, "
        "DIR/frequencies.csv, DIR/grokking.png, DIR/frequencies.png");
    cmd->add_option("--run", *run, "Run name or directory")->required();
    cmd->add_option("--runs-dir", *runs_dir, "Run store");
    cmd->add_option("--out", *out_dir, "Output folder")->required();
    cmd->add_option("--key-share", *share, "A key frequency carries at least this share of the embedding's norm²")
        ->check(CLI::Range(0.001, 1.0))
        ->capture_default_str();
    cmd->add_option("--threads", *threads, "Torch threads (0: every core)")->capture_default_str();
    cmd->add_flag("--no-png", *no_png, "CSV only");
    cmd->callback([run, runs_dir, out_dir, share, threads, no_png] {
        run_command("analyse grokking", [&] {
            const std::string dir = open_store(*runs_dir, false).resolve(*run);
            const std::string name = std::filesystem::path(dir).filename().string();
            const fa::GrokkingCurves c = grokking_curves(dir, *share, *threads);
            json files;
            files["csv"] = out_path(*out_dir, "grokking.csv");
            write_file_atomic(files["csv"], fa::grokking_csv(c));
            files["frequencies_csv"] = out_path(*out_dir, "frequencies.csv");
            write_file_atomic(files["frequencies_csv"], fa::frequency_norms_csv(c));
            files["png"] = maybe_png(
                out_path(*out_dir, "grokking.png"), 1000, 560,
                [&](QCustomPlot& p) { plots::draw_grokking_losses(p, c, "Grokking of " + name); }, !*no_png);
            files["frequencies_png"] = maybe_png(
                out_path(*out_dir, "frequencies.png"), 1000, 560,
                [&](QCustomPlot& p) { plots::draw_frequency_norms(p, c, "Key frequencies of " + name + "'s embedding"); },
                !*no_png);
            const fa::GrokkingStep& last = c.steps.back();
            print_json_line(std::cout, {{"analysis", "grokking"},
                                        {"run", name},
                                        {"modulus", c.modulus},
                                        {"snapshots", c.steps.size()},
                                        {"key_frequencies", c.key_frequencies},
                                        {"final",
                                         {{"step", last.step},
                                          {"train_loss", last.train_loss},
                                          {"test_loss", last.test_loss},
                                          {"test_accuracy", last.test_accuracy},
                                          {"restricted_loss", last.restricted_loss},
                                          {"excluded_loss", last.excluded_loss}}},
                                        {"files", files}});
        });
    });
}
#endif

}  // namespace

void add_dynamics_commands(CLI::App* analyse) {
    register_timeline(analyse);
#ifdef FONE_WITH_TORCH
    register_grokking(analyse);
#endif
}

}  // namespace fone::cli
