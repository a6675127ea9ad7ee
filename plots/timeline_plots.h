// Drawings of how a run's representations formed (issue 17): the spectrum of its probe numbers over
// training, one layer at a time. Same contract as analysis_plots.h: each draw_* clears the plot first and
// reads on its own; QCustomPlot only forward-declared here.
#pragma once

#include <cstddef>
#include <string>

#include "fone/analysis/timeline.h"

class QCustomPlot;

namespace fone::plots {

// One layer of a timeline: training step (columns, one per snapshot) x period (rows, the frequencies of the
// probe set, longest period at the bottom), the spectrum's magnitude as colour; the key periods labelled at
// the right, each with a marker at the step it emerged. `current` >= 0 draws a cursor at that snapshot.
void draw_timeline(QCustomPlot& plot, const analysis::Timeline& timeline, std::size_t layer,
                   const std::string& title = {}, int current = -1);

}  // namespace fone::plots
