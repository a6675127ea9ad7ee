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
    int row_height = 360;  // per run; the frame is a title band plus one row per run
};

// One frame: the runs at `step` (a run whose first snapshot comes later shows a note instead).
QImage draw_replay_frame(const std::vector<analysis::ReplayRun>& runs, std::int64_t step, ReplayCache& cache,
                         const ReplayFrameStyle& style = {});

// DIR/frame-<step, 8 digits>.png for every step of replay_steps(runs), each written atomically; the paths in
// step order. Throws std::runtime_error naming a file it cannot write.
std::vector<std::string> write_replay_frames(const std::vector<analysis::ReplayRun>& runs,
                                             const std::string& dir, ReplayCache& cache,
                                             const ReplayFrameStyle& style = {});

}  // namespace fone::plots
