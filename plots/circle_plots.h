// The hidden state on the circles with clocks whose hands can be turned (issue 17): the Hidden state view
// draws the answer's clocks, and for a patch inside the network the clocks of the site too, and finds the
// clock under the mouse. The plain drawings of circles are in analysis_plots.h.
#pragma once

#include <string>
#include <vector>

#include "fone/analysis/analysis.h"

class QCustomPlot;
class QCPItemLine;

namespace fone::plots {

// Where a clock was drawn: its centre in plot coordinates (one unit = its radius), the decimal place of its
// pair (0 units, 1 tens, -1 tenths), whether it is one of the site's clocks, and its hand.
struct ClockSpot {
    double cx = 0.0, cy = 0.0;
    int place = 0;
    bool site = false;
    QCPItemLine* hand = nullptr;
};

// The pairs at a patch's site (the input at an operand, or the residual stream after a block): a row of
// clocks without bars over the answer's, `label` naming the site ("input at 123.456").
struct SiteClocks {
    analysis::HiddenCircles circles;
    std::string label;
};

// draw_hidden_circles (analysis_plots.h) with the site's clocks above the answer's when `site` is given
// (both at the same radius); returns where every clock went.
std::vector<ClockSpot> draw_turnable_circles(QCustomPlot& plot, const analysis::HiddenCircles& answer,
                                             const SiteClocks* site, const std::string& title = {},
                                             const std::string& footer = {});

// The clock whose ring (out to its digit labels) holds the point (x, y) of the plot, or nullptr.
const ClockSpot* clock_at(const std::vector<ClockSpot>& spots, double x, double y);
// The angle of (x, y) around the clock's centre, in radians in [0, 2π) (0 = digit 0, counter-clockwise).
double angle_around(const ClockSpot& spot, double x, double y);

}  // namespace fone::plots
