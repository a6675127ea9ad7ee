// Drawings of interventions and of training dynamics (issue 17): the knockout damage map, the timeline of
// a run's spectrum over training, the grokking progress measures. Same contract as analysis_plots.h:
// each draw_* clears the plot first and reads on its own; QCustomPlot only forward-declared here.
#pragma once

#include <string>
#include <vector>

#include "fone/analysis/grokking.h"
#include "fone/analysis/interventions.h"
#include "fone/analysis/timeline.h"

class QCustomPlot;

namespace fone::plots {

// Layers (rows, the input at the bottom) x periods (columns, smallest first): the share of prompts whose
// answer changed when the period's pair was scaled at that layer, printed in each cell.
void draw_damage_map(QCustomPlot& plot, const analysis::DamageMap& map, const std::string& title = {});

// One layer of a timeline: training step (columns, one per snapshot) x period (rows, the frequencies of the
// probe set, longest period at the bottom), the spectrum's magnitude as colour; the key periods labelled at
// the right, each with a marker at the step it emerged. `current` >= 0 draws a cursor at that snapshot (the
// replay's step).
void draw_timeline(QCustomPlot& plot, const analysis::Timeline& timeline, std::size_t layer,
                   const std::string& title = {}, int current = -1);

// Train, test, restricted and excluded loss against the training step (log y), as Nanda et al.'s figure.
void draw_grokking_losses(QCustomPlot& plot, const analysis::GrokkingCurves& curves, const std::string& title = {});

// The embedding's norm per frequency k (rows) over training (columns), the key frequencies labelled.
void draw_frequency_norms(QCustomPlot& plot, const analysis::GrokkingCurves& curves, const std::string& title = {});

}  // namespace fone::plots
