// Drawings of grokking's progress measures over training (issue 17; fone/analysis/grokking.h): the losses
// (train, test, restricted, excluded) on a log scale, and the embedding's norm at each frequency. Same
// contract as analysis_plots.h: each draw_* clears the plot first; QCustomPlot only forward-declared here.
#pragma once

#include <string>
#include <vector>

#include "fone/analysis/grokking.h"

class QCustomPlot;

namespace fone::plots {

// Train, test, restricted and excluded loss over the training steps, the loss axis logarithmic (Nanda et
// al.'s Figure 7 draws theirs so), and ln p, a uniform guess, as a dashed line.
void draw_grokking_losses(QCustomPlot& plot, const std::vector<analysis::GrokkingPoint>& points, int modulus,
                          const std::string& title = {});
// The embedding's norm at each of `keys` over the training steps (one line each, labelled "k = 14"), and
// the largest and the mean norm of all other frequencies in grey.
void draw_frequency_norms(QCustomPlot& plot, const std::vector<analysis::GrokkingPoint>& points,
                          const std::vector<int>& keys, const std::string& title = {});

}  // namespace fone::plots
