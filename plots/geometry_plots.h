// Drawings of where numbers sit in a model (fone/analysis/helix.h, fone/analysis/digit_probe.h): the helix
// in 3-D, and the digit places' clocks. Like analysis_plots.h: each draw_* clears the plot, titles and
// labels it; `fone analyse helix|digits` renders them to PNG and the window's helix view shows them.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "fone/analysis/digit_probe.h"
#include "fone/analysis/helix.h"

class QCustomPlot;

namespace fone::plots {

// Three coordinates per row turned by `yaw` about the vertical axis and tilted by `pitch` towards the
// viewer, then seen from the front: (u, v) per row. The PCA view's 3-D mode draws with it too.
Eigen::MatrixX2d turn_3d(const Eigen::VectorXd& a, const Eigen::VectorXd& b, const Eigen::VectorXd& c,
                         double yaw, double pitch);

// A layer's helix of period `period`: each number at (cos, sin of its period-T coordinates, its linear
// coordinate) read back from the fit, turned, consecutive numbers joined by a faint line, coloured by
// x mod T (the classes given). Without a linear term the picture is flat.
struct HelixStyle {
    double period = 10;
    double yaw = 0.6, pitch = 1.15;  // the circle seen from above at a slant, the linear term upwards
    std::string title;
};
void draw_helix(QCustomPlot& plot, const analysis::HelixFit& fit, const std::vector<Decimal>& numbers,
                const HelixStyle& style);

// One clock per digit place: the ten digit markers and the held-out numbers where the place's circular
// probe puts them, coloured by their true digit; under each, the place's accuracy and chance.
void draw_clocks(QCustomPlot& plot, const analysis::DigitProbeTable& table, std::size_t layer,
                 const std::vector<Decimal>& numbers, const std::string& title = {});
std::pair<int, int> clocks_size(std::size_t places);

}  // namespace fone::plots
