// The trainer's side of the representation snapshots (fone/analysis/snapshot_file.h): which numbers are
// probed, and the file of one evaluation. Private to core/src/ (probes, train).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "checkpoints/run_model.h"
#include "fone/numbers/decimal.h"

namespace fone {

// The probe set of a run: 0..p-1 for mod-add, else 0..kProbeNumbers-1, less the numbers the run cannot
// represent (a token method's numbers that are not one token, numbers that do not fit the digit slots).
// Empty for text runs.
std::vector<Decimal> probe_numbers(const RunModel& run);

// What an evaluation knows about itself, for the snapshot's metadata.
struct SnapshotPoint {
    int64_t step = 0;
    double epoch = 0.0;
    double exact_match = -1.0;
};

// Writes <run_dir>/snapshots/step-<step>.safetensors for run.config.snapshots "representations" (nothing
// for "none", text runs or an empty probe set), then thins the folder to kMaxSnapshots.
// Throws safetensors::Error when the file cannot be written.
void write_snapshot(RunModel& run, const torch::Device& device, const std::string& run_dir,
                    const SnapshotPoint& point);

}  // namespace fone
