// Representation snapshots (issue 17): at every evaluation a run records how it represents a fixed probe
// set of numbers, so that the spectrum, the probes and PCA can be replayed step by step after training
// (`fone analyse timeline`, the window's replay). One safetensors file per evaluation:
//
//   <run>/snapshots/step-00001000.safetensors
//       layer.0 .. layer.L   F16 [N, D]  number-token methods (fone, xval, ...): the residual stream at the
//                                        number's position for "[BOS] x", after the embedding and after
//                                        every block (fone/probes/representations.h); token methods: one
//                                        layer, the embedding rows of the numbers that are one token
//       __metadata__         {"format": "fone-snapshot-1", "step", "epoch", "source", "numbers": "0,1,..",
//                             "exact_match"}
//
// The probe set: 0..p-1 for mod-add (the Fourier basis over the modulus), else 0..199 (periods 2 to 200
// fall on whole frequencies), less the numbers a token method has no single token for (digit-wise: 0..9).
// Size: N x D x (L + 1) x 2 bytes per snapshot (the 124k-parameter demo shape: 200 x 64 x 3 x 2 = 77 KB);
// at most kMaxSnapshots per run: past that, every other one is
// removed (the first and the newest stay), so older stretches of training thin out and a run's snapshots
// stay under kMaxSnapshots x one snapshot (the demo shape: 4.9 MB). Runs trained before snapshots existed
// have none: list_snapshots is then empty.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fone/numbers/decimal.h"

namespace fone {

inline constexpr const char* kSnapshotsDir = "snapshots";
inline constexpr const char* kSnapshotFormat = "fone-snapshot-1";
inline constexpr int kMaxSnapshots = 64;
inline constexpr int kProbeNumbers = 200;

struct SnapshotFile {
    std::int64_t step = 0;
    std::string path;
};

// "step-00001000.safetensors".
std::string snapshot_file_name(std::int64_t step);
// A run's snapshot files by step (files of other names ignored); empty when it has none.
std::vector<SnapshotFile> list_snapshots(const std::string& run_dir);
// Past kMaxSnapshots (or `keep`), removes every other snapshot but the first and the newest.
void thin_snapshots(const std::string& run_dir, int keep = kMaxSnapshots);

struct Snapshot {
    std::int64_t step = 0;
    double epoch = 0.0;
    double exact_match = -1.0;  // the test exact match of the evaluation (-1: not recorded)
    std::string source;         // "hidden_states" or "token_embeddings"
    std::vector<Decimal> numbers;
    std::int64_t dims = 0;
    std::vector<std::vector<float>> layers;  // [layer] numbers.size() x dims, row-major
    std::string path;
};
// Throws RunError naming the file for a file that is not a snapshot (safetensors errors included).
Snapshot read_snapshot(const std::string& path);

// IEEE 754 half precision (the snapshots' F16) to float, exactly.
float half_to_float(std::uint16_t h);

}  // namespace fone
