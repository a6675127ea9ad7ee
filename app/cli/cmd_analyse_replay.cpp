// fone analyse replay: runs side by side at every snapshot step (fone/analysis/replay.h), as a folder of
// frames and an animated GIF (plots/replay_frames.h, replay_animation.h).
//
//   fone analyse replay --run A --run B --out DIR [--gif] [--delay CS]
#include <filesystem>
#include <iostream>
#include <memory>

#include "analyse_output.h"
#include "command_support.h"
#include "commands.h"
#include "fone/analysis/replay.h"
#include "fone/store/run_store.h"
#include "json_io.h"
#ifdef FONE_WITH_PLOTS
#include "replay_animation.h"
#include "replay_frames.h"
#endif

namespace fone::cli {
namespace {

using nlohmann::json;
namespace fa = fone::analysis;

struct ReplayOptions {
    std::vector<std::string> runs;
    std::string runs_dir, out_dir;
    bool gif = false;
    int delay = 50;
    int width = 1800;
};

json replay(const ReplayOptions& o) {
#ifdef FONE_WITH_PLOTS
    const RunStore store = open_store(o.runs_dir, false);
    std::vector<fa::ReplayRun> runs;
    for (const std::string& r : o.runs)
        runs.push_back(fa::open_replay_run(store.resolve(r)));
    // Checked before the frames are drawn, so that a missing encoder costs no time.
    if (o.gif && !plots::gif_supported())
        throw std::runtime_error(
            "--gif: this build has no GIF encoder (giflib); apt-get install libgif-dev and rebuild, or "
            "leave out --gif for the PNG frames");
    plots::ReplayCache cache;
    const plots::ReplayFrameStyle style{.width = o.width};
    const std::string frames_dir = out_path(o.out_dir, "frames");
    const std::vector<std::string> frames = plots::write_replay_frames(runs, frames_dir, cache, style);
    json files = {{"frames", frames_dir}, {"gif", nullptr}};
    if (o.gif) {
        std::vector<QImage> images;
        for (const std::string& f : frames)
            images.emplace_back(QString::fromStdString(f));
        files["gif"] = out_path(o.out_dir, "replay.gif");
        plots::write_gif(images, files["gif"], o.delay);
    }
    json names = json::array();
    for (const fa::ReplayRun& r : runs)
        names.push_back({{"run", r.name}, {"method", r.method}, {"snapshots", r.snapshots.size()}});
    return {{"analysis", "replay"},
            {"runs", names},
            {"steps", fa::replay_steps(runs)},
            {"frames", frames.size()},
            {"files", files}};
#else
    (void)o;
    throw std::runtime_error("this build has no plots (QCustomPlot): replay frames cannot be drawn");
#endif
}

}  // namespace

void add_replay_command(CLI::App* analyse) {
    auto o = std::make_shared<ReplayOptions>();
    auto* cmd = analyse->add_subcommand(
        "replay",
        "Runs side by side at every snapshot step (curves with the step marked; spectrum, PCA, digit clocks "
        "and "
        "probes from the nearest snapshot at or before it): DIR/frames/frame-STEP.png, and DIR/replay.gif "
        "with --gif");
    cmd->add_option("--run", o->runs, "Run name or directory (repeat for runs side by side)")->required();
    cmd->add_option("--runs-dir", o->runs_dir, "Run store");
    cmd->add_option("--out", o->out_dir, "Output folder")->required();
    cmd->add_flag("--gif", o->gif, "Also an animated GIF of the frames (giflib)");
    cmd->add_option("--delay", o->delay, "GIF frame time in hundredths of a second")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    cmd->add_option("--width", o->width,
                    "Frame width in pixels (one row of 5 plots per run, 360 pixels high)")
        ->check(CLI::Range(800, 4000))
        ->capture_default_str();
    cmd->callback([o] { run_command("analyse replay", [&] { print_json_line(std::cout, replay(*o)); }); });
}

}  // namespace fone::cli
