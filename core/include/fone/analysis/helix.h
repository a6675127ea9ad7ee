// A helix fit of numbers' representations (Kantamneni & Tegmark 2025, "Language Models Use Trigonometry
// to Do Addition"): how much of the representations of x is a linear term plus cos and sin of 2πx/T for
// the periods T (2, 5, 10, 100), against the best any fit of as many dimensions can do (PCA). Plain C++
// and Eigen; docs/analysis.md has the definitions, tests/test_helix.cpp the known answers.
//
// For numbers x_1..x_N and their representations R (N x D, centred: Rc):
//   basis B (N x k)     the columns x (standardised), cos 2πx/T and sin 2πx/T for each T, centred; columns
//                       that vanish (sin πx on integers) or repeat are left out, so k is B's rank
//   fit                 C = argmin ||Rc - B C||²  (least squares, k x D)
//   r2                  1 - ||Rc - B C||² / ||Rc||²: the helix's share of the variance
//   pca_r2              the share of the top k principal components: the most any k-dimensional linear
//                       fit can explain, so r2 <= pca_r2, and r2 / pca_r2 says how much of that the helix
//                       takes
//   coordinates         each representation read back in the helix's coordinates, Rc · pinv(C) (N x k):
//                       for a perfect helix, B itself. The 3-D picture draws (cos, sin) of one period and
//                       the linear term.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "fone/analysis/analysis.h"

namespace fone::analysis {

struct HelixOptions {
    std::vector<double> periods = {2, 5, 10, 100};
    bool linear = true;  // the linear term x
};

struct HelixFit {
    std::vector<std::string> basis;    // the columns kept, e.g. "x", "cos 2πx/10", "sin 2πx/10"
    std::vector<double> basis_period;  // per column: its period, 0 for the linear term
    int rank = 0;                      // k = basis.size()
    double r2 = 0.0;
    double pca_r2 = 0.0;
    Eigen::MatrixXd basis_values;  // N x k: B
    Eigen::MatrixXd coordinates;   // N x k: Rc · pinv(C)
    // The columns of coordinates for cos and sin of period T and the linear term (-1 when absent).
    int column(const std::string& name) const;
};

// Throws std::invalid_argument for fewer rows than basis columns + 2, sizes that disagree, no periods and
// no linear term, or a period that is not positive.
HelixFit helix_fit(const Eigen::MatrixXd& rows, const std::vector<Decimal>& numbers,
                   const HelixOptions& options = {}, const Progress& progress = {});

// One fit per layer.
std::vector<HelixFit> layer_helix_fits(const std::vector<Eigen::MatrixXd>& layers,
                                       const std::vector<Decimal>& numbers, const HelixOptions& options = {},
                                       const Progress& progress = {});

// "cos 2πx/10"-style names of a period's pair, as HelixFit::basis spells them.
std::string helix_cos_name(double period);
std::string helix_sin_name(double period);

}  // namespace fone::analysis
