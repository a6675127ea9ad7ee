// Helix and digits (workbench view "helix"): where numbers sit in a model, layer by layer, for any source
// (a downloaded model folder above all; a trained run; the FoNE encoder as the reference). Four pictures:
//   the helix fit's R² per layer (x, cos and sin of 2πx/T for T = 2, 5, 10, 100; Kantamneni & Tegmark
//     2025) next to PCA of as many dimensions, the most any such fit can explain;
//   the chosen layer's helix in 3-D for one period (drag to turn);
//   circular probes per digit place per layer (Levy & Geva 2024): can the units, tens, hundreds digit be
//     read as a point on a base-10 circle?
//   the chosen layer's clocks: the held-out numbers where each place's probe puts them.
// The analyses run off the GUI thread with progress and cancel (fone/analysis/helix.h, digit_probe.h).
#pragma once

#include <QFutureWatcher>
#include <memory>

#include "fone/analysis/digit_probe.h"
#include "fone/analysis/helix.h"
#include "representation_view.h"

class QCustomPlot;
class QLabel;

namespace fone::gui {

class PlotPanel;

struct HelixResult {
    std::shared_ptr<const Representations> source;
    std::vector<analysis::HelixFit> fits;  // per layer
    analysis::DigitProbeTable digits;      // empty places when too few numbers for a probe
    QString error;
    bool cancelled = false;
};

// Both analyses of every layer (the view's worker). Throws analysis::Cancelled on cancel.
HelixResult analyse_helix(std::shared_ptr<const Representations> source,
                          const analysis::Progress& progress = {});

class HelixView : public RepresentationView {
    Q_OBJECT
    Q_PROPERTY(int circle READ circle WRITE set_circle)
  public:
    explicit HelixView(RunCatalog* catalog, QWidget* parent = nullptr);
    ~HelixView() override;

    const HelixResult* result() const { return result_.get(); }
    // The period drawn as the helix's circle (2, 5, 10 or 100).
    int circle() const;
    void set_circle(int period);
    void set_rotation(double yaw, double pitch);
    QString summary() const;

    QCustomPlot* r2_plot() const;
    QCustomPlot* helix_plot() const;
    QCustomPlot* digits_plot() const;
    QCustomPlot* clocks_plot() const;

  protected:
    void on_loaded(std::shared_ptr<const Representations> source) override;
    void on_layer_chosen() override { draw(); }

  private:
    QWidget* build_plots();
    void on_analysed();
    void draw();
    void draw_helix();

    PlotPanel *r2_panel_, *helix_panel_, *digits_panel_, *clocks_panel_;
    QComboBox* circle_;
    QLabel* summary_;
    QFutureWatcher<HelixResult> watcher_;
    std::shared_ptr<const HelixResult> result_;
    double yaw_ = 0.6, pitch_ = 1.15;
    bool dragging_ = false;
    QPoint drag_from_;
};

}  // namespace fone::gui
