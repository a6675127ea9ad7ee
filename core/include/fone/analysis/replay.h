// Replay (issue 17): runs seen side by side at one training step, from the representation snapshots their
// evaluations recorded (fone/analysis/snapshot_file.h). A step scrubber picks a step; each run shows its
// nearest snapshot at or before it: the spectrum per layer, PCA of the last layer, the probes (linear x mod
// 10, circular per digit place, sinusoidal) per layer, and its curves up to that step. Plain C++ and Eigen:
// the window's Replay view and `fone analyse replay` draw these (plots/replay_frames.h). Definitions in
// docs/analysis.md ("Replay"); tests in tests/test_replay.cpp.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "fone/analysis/analysis.h"
#include "fone/analysis/digit_probe.h"
#include "fone/analysis/snapshot_file.h"

namespace fone::analysis {

// A run's snapshots and its evaluation curve (exact match and digit accuracy per evaluated step).
struct ReplayRun {
    std::string name;  // the run folder's name
    std::string dir;
    std::string method;  // config.json's "method" ("fone", "digit", ...), "" when absent
    std::vector<SnapshotFile> snapshots;
    std::vector<std::int64_t> eval_steps;
    std::vector<double> exact_match, digit_accuracy;  // per eval step (-1 where not recorded)
};

// Throws RunError naming the run when it has no snapshots (runs trained before issue 17).
ReplayRun open_replay_run(const std::string& dir);

// The steps of the scrubber: every snapshot step of any of the runs, ascending, without repeats.
std::vector<std::int64_t> replay_steps(const std::vector<ReplayRun>& runs);

// The index of the run's snapshot at or before `step` (the nearest earlier one); -1 when step precedes
// its first snapshot.
int snapshot_at(const ReplayRun& run, std::int64_t step);

// One snapshot's layer as an N x D matrix (rows in the order of its numbers).
Eigen::MatrixXd snapshot_layer(const Snapshot& snapshot, std::size_t layer);

// What a replay frame shows of one run at one snapshot.
struct ReplayState {
    std::int64_t step = 0;      // the snapshot's step
    double exact_match = -1.0;  // recorded in the snapshot (-1: not recorded)
    std::vector<std::string> layer_names;
    std::vector<Decimal> numbers;
    LayerSpectra spectra;              // every layer
    Pca pca;                           // the last layer, 2 components (empty when fewer than 2 numbers)
    std::vector<double> linear_mod10;  // [layer] linear probe of x mod 10 (empty when too few numbers)
    DigitProbeTable digits;            // circular probe per layer and digit place (places empty: too few)
    std::vector<double> sinusoidal;    // [layer] sinusoidal probe, exact value
};

// The analyses of one snapshot (probes need at least kMinReplayProbeNumbers numbers: a quarter is held out).
inline constexpr int kMinReplayProbeNumbers = 40;
ReplayState analyse_snapshot(const Snapshot& snapshot);

// "input", "block 1", ...; "token embeddings" for a token method's one layer.
std::vector<std::string> snapshot_layer_names(const Snapshot& snapshot);

}  // namespace fone::analysis
