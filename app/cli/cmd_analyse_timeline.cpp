// fone analyse timeline: how a run's representations formed during training, from the snapshots its
// evaluations recorded (fone/analysis/snapshot_file.h).
//
//   fone analyse timeline --run RUN --out DIR    spectrum per layer over training, key periods
#include <filesystem>
#include <iostream>
#include <memory>

#include "analyse_output.h"
#include "command_support.h"
#include "fone/analysis/replay.h"
#include "fone/analysis/snapshot_file.h"
#include "fone/analysis/timeline.h"
#include "fone/store/run_store.h"
#include "json_io.h"
#include "timeline_plots.h"

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

// Every snapshot of a run, as matrices; a run without snapshots is a RunError that says why.
Snapshots load_snapshots(const std::string& dir) {
    Snapshots out;
    out.run = std::filesystem::path(dir).filename().string();
    const std::vector<SnapshotFile> files = list_snapshots(dir);
    if (files.empty())
        throw RunError(out.run +
                       " has no representation snapshots: runs record them at every evaluation since "
                       "issue 17 (train it again, or resume it, to record them)");
    for (const SnapshotFile& f : files) {
        const Snapshot s = read_snapshot(f.path);
        if (out.numbers.empty()) {
            out.numbers = s.numbers;
            out.layer_names = fa::snapshot_layer_names(s);
        } else if (s.numbers != out.numbers) {
            throw RunError(f.path + ": probes other numbers than the run's first snapshot");
        }
        fa::StepRepresentations step{s.step, {}};
        for (std::size_t l = 0; l < s.layers.size(); ++l)
            step.layers.push_back(fa::snapshot_layer(s, l));
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

void register_timeline(CLI::App* analyse) {
    auto run = std::make_shared<std::string>(), runs_dir = std::make_shared<std::string>();
    auto out_dir = std::make_shared<std::string>();
    auto no_png = std::make_shared<bool>(false);
    auto* cmd = analyse->add_subcommand(
        "timeline",
        "How a run's representations formed: the spectrum of its probe numbers at every snapshot, per layer: "
        "DIR/timeline.csv (step,layer,k,period,magnitude) and DIR/timeline-layer-L.png");
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
            json pngs = json::array();
            for (std::size_t l = 0; l < s.layer_names.size(); ++l)
                pngs.push_back(maybe_png(
                    out_path(*out_dir, "timeline-layer-" + std::to_string(l) + ".png"), 1000, 620,
                    [&](QCustomPlot& p) {
                        plots::draw_timeline(p, t, l,
                                             "Spectrum of " + s.run + " over training, " + s.layer_names[l]);
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

}  // namespace

void add_timeline_command(CLI::App* analyse) {
    register_timeline(analyse);
}

}  // namespace fone::cli
