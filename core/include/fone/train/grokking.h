// Grokking's progress measures on a mod-add run (Nanda et al. 2023; issue 17): at every snapshot with
// weights (train with "snapshots": "weights"), the model answers all p² pairs a + b mod p; the p-way logits
// of the residue tokens at the answer position give the train and test loss, and the last block's MLP
// activations, restricted to the key frequencies or with them removed, give the restricted and excluded
// loss. The Fourier side is plain C++ (fone/analysis/grokking.h). Definitions in docs/analysis.md.
#pragma once

#include <string>

#include "fone/analysis/grokking.h"

namespace fone {

// Key frequencies: those of the last snapshot's residue embedding (analysis::key_frequencies at key_share).
// Throws std::invalid_argument for a run that is not mod-add with one token per residue (subword for
// p <= 1000, digit-wise for p <= 10), RunError when the run has no snapshot with weights.
analysis::GrokkingCurves grokking_curves(const std::string& run_dir, double key_share = 0.05, int threads = 0);

}  // namespace fone
