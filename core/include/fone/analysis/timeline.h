// Watching representations form (issue 17): the Fourier spectrum of a run's probe set at every snapshot
// (fone/analysis/snapshot_file.h), layer by layer, and the periods that stand out. Plain C++ and Eigen;
// `fone analyse timeline` writes it, the window's timeline and replay views draw it. Definitions in
// docs/analysis.md ("Watching it form"); tests in tests/test_timeline.cpp.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "fone/numbers/decimal.h"

namespace fone::analysis {

// One snapshot's representations: the probe set at every layer (rows in the order of the numbers).
struct StepRepresentations {
    std::int64_t step = 0;
    std::vector<Eigen::MatrixXd> layers;
};

// A key period of a layer: one of the strongest at the last step, and when it came.
struct KeyPeriod {
    int k = 0;
    double period = 0.0;
    double final_magnitude = 0.0;
    // The first step whose magnitude reached half the final one (after which the period "is there"); -1 when
    // none did (a period that shrank).
    std::int64_t emerged_at = -1;
};

struct Timeline {
    std::vector<std::int64_t> steps;
    std::vector<int> k;                      // 0 .. N/2
    std::vector<double> period;              // N/k in numbers (the probe set is 0, 1, 2, ...)
    std::vector<Eigen::MatrixXd> magnitude;  // [layer] steps x frequencies (fourier_spectrum's magnitude)
    std::vector<std::vector<KeyPeriod>> key_periods;  // [layer], strongest first
};

// The spectrum of every layer at every step (centred columns, fourier_spectrum of analysis.h), and per
// layer the key periods: the frequencies k > 0 at the last step within `relative` of the largest, at most
// `max_keys`, strongest first. Throws std::invalid_argument for no steps, fewer than 2 numbers, or steps
// whose layer count or number count differ.
Timeline spectrum_timeline(const std::vector<StepRepresentations>& steps, int max_keys = 5,
                           double relative = 0.25);

// The magnitude of one period over the steps (-1 entries where the probe set has no whole frequency for it).
std::vector<double> period_over_time(const Timeline& t, std::size_t layer, double period);

// step,layer,k,period,magnitude (k > 0), one row per step, layer and frequency.
std::string timeline_csv(const Timeline& t, const std::vector<std::string>& layer_names);
// A timeline.csv read back, without key periods (the CSV has none); the layer names in `names`. Throws
// std::invalid_argument for a file that is not one.
Timeline timeline_from_csv(const std::string& csv, std::vector<std::string>* names);

}  // namespace fone::analysis
