// The text question as a curve (issue 41; fone/text/text_scaling.h): FoNE's text-token perplexity over
// digit-wise numbers' against parameters, what `fone reproduce text-scaling` writes as text-scaling.png and
// the window's Text scaling view shows. Same contract as analysis_plots.h: draw_* clears the plot first;
// QCustomPlot only forward-declared here.
#pragma once

#include <string>
#include <vector>

#include "fone/text/text_scaling.h"

class QCustomPlot;

namespace fone::plots {

// One line per corpus (the mean over seeds, the lowest and highest seed as error bars) against parameters
// without the embedding on a log axis, a dashed line at 1 (below it FoNE's text perplexity is the lower),
// and the published ratios (published_ratios()) as labelled markers. `footer`: the protocol in a line.
void draw_text_scaling(QCustomPlot& plot, const std::vector<RatioLine>& lines, const std::string& title = {},
                       const std::string& footer = {});

}  // namespace fone::plots
