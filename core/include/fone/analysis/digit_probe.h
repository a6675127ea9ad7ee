// Circular probes per digit place (Levy & Geva 2024, "Language Models Encode Numbers Using Digit
// Representations in Base 10"): can the digit of x at 10^place be read from the representation as a point
// on a base-10 circle? The probe is fone/analysis.h's circular probe (ridge regression onto
// (cos 2πd/10, sin 2πd/10), the nearest of the ten angles), with the digit as the class. Written once here
// for every source: the analyses of pretrained models, trained runs and later the intervention views.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "fone/analysis/analysis.h"

namespace fone::analysis {

// The digit of |x| at 10^place (0 units, 1 tens, -1 tenths) for each number.
std::vector<int> digit_classes(const std::vector<Decimal>& numbers, int place);

// The places the numbers have a digit at, highest first: from the highest non-zero digit of the largest
// |x| down to the units (and to the smallest fractional place any number uses).
std::vector<int> digit_places(const std::vector<Decimal>& numbers);

// One place: the circular probe of the digit there (options.code is ignored: always circular; chance is
// the most frequent digit's share among the held-out numbers). ProbeResult::points are the numbers on
// that place's clock.
ProbeResult probe_digit(const Eigen::MatrixXd& rows, const std::vector<Decimal>& numbers, int place,
                        const ProbeOptions& options = {});

// Every layer and place: results[layer][i] for places[i].
struct DigitProbeTable {
    std::vector<int> places;
    std::vector<std::vector<ProbeResult>> results;
};
DigitProbeTable digit_probes(const std::vector<Eigen::MatrixXd>& layers, const std::vector<Decimal>& numbers,
                             const std::vector<int>& places, const ProbeOptions& options = {},
                             const Progress& progress = {});

// "units", "tens", "hundreds", "thousands", "tenths", "hundredths"; "10^k" beyond.
std::string place_name(int place);

}  // namespace fone::analysis
