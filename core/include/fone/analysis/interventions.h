// The geometry and the bookkeeping of interventions (issue 17): turning a digit's clock to another digit,
// and what a knockout breaks over a set of prompts. Plain C++ and Eigen: the model side (the forward pass
// with its edit) is fone/probes/intervention.h; `fone analyse patch|knockout` and the window draw these.
// Definitions in docs/analysis.md ("Interventions"); tests in tests/test_interventions.cpp.
#pragma once

#include <Eigen/Core>
#include <span>
#include <string>
#include <vector>

#include "fone/numbers/decimal.h"

namespace fone::analysis {

// A (cos, sin) pair of hidden entries.
struct Pair {
    double x = 0.0, y = 0.0;
    double length() const;
    double angle() const;  // radians in [0, 2π)
};

// The pair turned to `angle` (radians), its length kept. A zero pair has no direction to keep a length
// of: it becomes the unit point at the angle.
Pair turned(const Pair& p, double angle);

// Where the digit head's prototype of digit d sits: 2π·d/base.
double digit_angle(int digit, int base = 10);

// x with its digit at `place` (0 units, 1 tens, -1 tenths) replaced by `digit`, the sign kept:
// with_digit(123.456, 0, 5) = 125.456, with_digit(-7, 1, 2) = -27. Throws NumberError for a digit outside
// 0..9.
Decimal with_digit(const Decimal& x, int place, int digit);

// How answers changed under an intervention, over a set of prompts.
struct AnswerChanges {
    int prompts = 0;
    double exact_before = 0.0;          // share of prompts answered exactly before
    double exact_after = 0.0;           // ... and after
    double answers_changed = 0.0;       // share of prompts whose answer changed
    std::vector<int> places;            // highest first
    std::vector<double> place_changed;  // per place: share of prompts whose digit there changed
};
// Digits are compared place by place (missing digits are 0), and a sign that differs changes the answer.
// `truth` may be empty (exact_* are then 0). Throws std::invalid_argument for lists of different lengths.
AnswerChanges compare_answers(const std::vector<Decimal>& before, const std::vector<Decimal>& after,
                              const std::vector<Decimal>& truth, std::span<const int> places);

// A knockout over layers x periods: for each cell, what scaling one period's pair at one layer did to the
// answers of the same prompts.
struct DamageMap {
    std::vector<std::string> layers;   // row names: "input", "block 1", ..., "head"
    std::vector<std::string> periods;  // column names: "0.01", "0.1", "1", "10", ...
    std::vector<int> places;           // the digit place each period's pair carries
    double scale = 0.0;                // what the pair was multiplied by
    int prompts = 0;
    double exact_before = 0.0;
    Eigen::MatrixXd answers_changed;                // layers x periods, share of prompts whose answer changed
    Eigen::MatrixXd exact_after;                    // layers x periods
    std::vector<std::vector<AnswerChanges>> cells;  // [layer][period], the details
};
// layer,period,place,scale,prompts,exact_before,exact_after,answers_changed,changed_at_<place>...
std::string damage_csv(const DamageMap& map);
// A knockout.csv read back: every field of the map and of its cells. Throws std::invalid_argument for a file
// that is not one (the Knockout view reads the CLI's file with it).
DamageMap damage_map_from_csv(const std::string& csv);

}  // namespace fone::analysis
