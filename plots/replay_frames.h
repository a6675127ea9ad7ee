// Replay frames (issue 17; fone/analysis/replay.h): the selected runs at one training step, one row per run
// — its curves with the step marked, the spectrum, PCA and digit clocks of its last layer, and its probes
// per layer — drawn into one image from the nearest snapshot at or before the step. The window's Replay
// view shows these frames under its step scrubber; `fone analyse replay` writes one PNG per step and the
// animation (replay_animation.h). Widget-agnostic like analysis_plots.h.
#pragma once

#include <QImage>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fone/analysis/replay.h"

namespace fone::plots {

// Each run's snapshots analysed once, however often the scrubber passes them.
class ReplayCache {
  public:
    // The analyses of run.snapshots[index] (reads and analyses the file the first time).
    const analysis::ReplayState& state(const analysis::ReplayRun& run, int index);

  private:
    std::map<std::pair<std::string, int>, analysis::ReplayState> states_;
};

struct ReplayFrameStyle {
    int width = 1800;
    int row_height = 360;  // per line of panels; the frame is a title band plus each run's lines
    // How a run's five panels (curves, spectrum, PCA, clocks, probes) are laid out: 1 line of all five
    // (the exports), 2 lines (curves, spectrum, PCA; clocks, probes) or 5 lines of one.
    int lines = 1;
};

// The narrowest a panel may be drawn: its tick labels, legend and plot rectangle keep the window's
// legibility rule (docs/workbench.md) at the fonts the exports use.
constexpr int kMinReplayPanelWidth = 240;

// The style that draws a frame `width` pixels wide at its natural size (nothing scaled down): the fewest
// lines whose narrowest panel is at least kMinReplayPanelWidth.
ReplayFrameStyle fitted_replay_style(int width);

// The narrowest panel of a frame drawn with `style`, in pixels.
int narrowest_replay_panel(const ReplayFrameStyle& style);

// One frame: the runs at `step` (a run whose first snapshot comes later shows a note instead).
QImage draw_replay_frame(const std::vector<analysis::ReplayRun>& runs, std::int64_t step, ReplayCache& cache,
                         const ReplayFrameStyle& style = {});

// DIR/frame-<step, 8 digits>.png for every step of replay_steps(runs), each written atomically; the paths in
// step order. Throws std::runtime_error naming a file it cannot write.
std::vector<std::string> write_replay_frames(const std::vector<analysis::ReplayRun>& runs,
                                             const std::string& dir, ReplayCache& cache,
                                             const ReplayFrameStyle& style = {});

}  // namespace fone::plots
