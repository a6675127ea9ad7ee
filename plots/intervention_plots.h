// Drawings of interventions (issue 17): the knockout damage map. Same contract as analysis_plots.h: each
// draw_* clears the plot first and reads on its own; QCustomPlot only forward-declared here.
#pragma once

#include <string>

#include "fone/analysis/interventions.h"

class QCustomPlot;

namespace fone::plots {

// Layers (rows, the input at the bottom) x periods (columns, smallest first): the share of prompts whose
// answer changed when the period's pair was scaled at that layer, printed in each cell.
void draw_damage_map(QCustomPlot& plot, const analysis::DamageMap& map, const std::string& title = {});

}  // namespace fone::plots
