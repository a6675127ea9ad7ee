// Probes beside the linear residue probe of analysis.h (issue 17), per layer of a model:
//
//   circular digit probe (Levy & Geva 2024, "Language models encode numbers using digit representations in
//       base 10"): the digit of x at one decimal place, read by a ridge map onto (cos, sin)(2π·d/10) and
//       the nearest digit's angle. That is probe() with the digit as the class and the circular code.
//   sinusoidal probe (Kadlčík et al. 2025, "Pre-trained language models learn remarkably accurate
//       representations of numbers"): one ridge map onto (cos, sin)(2π·x/T) for every period T of a list;
//       the number read back is the candidate (any number of the set) whose sinusoids are nearest in
//       squared distance summed over the periods. Accuracy: the held-out numbers read back exactly.
//
// Same split as probe(): a shuffle by options.seed, options.test_fraction held out, ridge options.ridge
// relative to the mean diagonal of XᵀX. Definitions in docs/analysis.md; tests in tests/test_probes.cpp.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "fone/analysis/analysis.h"

namespace fone::analysis {

// The digit at `place` (0 units, 1 tens, -1 tenths) of every number, as the probe's class (10 classes).
ProbeResult circular_digit_probe(const Eigen::MatrixXd& rows, const std::vector<Decimal>& numbers, int place,
                                 const ProbeOptions& options = {});

struct SinusoidalProbeResult {
    std::vector<std::int64_t> periods;
    double accuracy = 0.0;  // held-out numbers read back exactly
    double chance = 0.0;    // 1 / the number of distinct candidates
    std::vector<double> period_accuracy;  // per period: x mod T read back (nearest of T residues)
    int train_count = 0, test_count = 0;
};
// Throws std::invalid_argument for sizes that disagree, an empty split, no periods or a period < 2.
SinusoidalProbeResult sinusoidal_probe(const Eigen::MatrixXd& rows, const std::vector<Decimal>& numbers,
                                       const std::vector<std::int64_t>& periods, const ProbeOptions& options = {});

// Both probes at every layer: digit accuracy per layer x place, the sinusoidal accuracy per layer.
struct LayerProbes {
    std::vector<int> places;
    Eigen::MatrixXd digit_accuracy;  // layers x places
    Eigen::MatrixXd digit_chance;    // layers x places
    std::vector<double> sinusoidal_accuracy;
    std::vector<std::int64_t> periods;
};
LayerProbes probe_layers(const std::vector<Eigen::MatrixXd>& layers, const std::vector<Decimal>& numbers,
                         const std::vector<int>& places, const std::vector<std::int64_t>& periods,
                         const ProbeOptions& options = {});

}  // namespace fone::analysis
