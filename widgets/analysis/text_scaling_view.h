// The text question as a curve (issue 41): FoNE's text perplexity over digit-wise numbers' against model
// size, one line per corpus, from the finished runs of `fone reproduce text-scaling` in the store (the
// figure that command writes as text-scaling.png, drawn by plots/text_scaling_plots.h), with the two
// published points. It redraws as runs finish.
#pragma once

#include <vector>

#include "analysis_view.h"
#include "fone/text/text_scaling.h"

class QComboBox;
class QLabel;

namespace fone::gui {

class PlotPanel;
class RunCatalog;

// The text-scaling runs of the catalog (finished, named repro-text-scaling-PRESET-CORPUS-SIZE-METHOD-sSEED)
// as ScalingRuns, their corpus named "CORPUS (PRESET)"; `numbers`: the perplexity of windows with numbers.
std::vector<ScalingRun> text_scaling_runs(const RunCatalog& catalog, bool numbers);

class TextScalingView : public AnalysisView {
    Q_OBJECT
  public:
    explicit TextScalingView(RunCatalog* catalog, QWidget* parent = nullptr);
    const std::vector<RatioLine>& lines() const { return lines_; }
    PlotPanel* panel() const { return panel_; }

  protected:
    void refresh() override;

  private:
    void draw();
    RunCatalog* catalog_;
    PlotPanel* panel_;
    QComboBox* measure_;
    QLabel* note_;
    std::vector<RatioLine> lines_;
    int runs_ = 0;
};

}  // namespace fone::gui
