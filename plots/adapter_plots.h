// The clocks of a fone-adapter run's number pieces (the workbench's "FoNE adapter" view): one row per piece,
// one clock per period (10, 100, 1000), each with FoNE's own point for the piece (where the adapter's input
// puts it) and two hands, where the piece's input row sits on the adapter's clock before the adapter (the
// model's own row) and after it (fone/analysis/adapter_clocks.h). Hands are drawn at full length; their
// lengths are written under the clock.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "fone/analysis/adapter_clocks.h"

class QCustomPlot;

namespace fone::plots {

struct AdapterPieceRow {
    std::string label;  // the piece as the model writes it, e.g. "143"
    std::array<analysis::PieceClock, 3> clocks;
};

void draw_adapter_clocks(QCustomPlot& plot, const std::vector<AdapterPieceRow>& rows,
                         const std::string& title);

}  // namespace fone::plots
