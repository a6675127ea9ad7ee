// Fourier spectrum (workbench view "spectrum"): the representation of the numbers start, start+step, ...
// (the FoNE encoder itself, or a trained run's layers through `fone analyse dump`), Fourier-transformed
// along the number axis: the magnitude per frequency k with the spikes' periods T = N/k labelled, a
// layer x frequency heatmap for runs (where in the network the periodic structure lives), and the linear
// probe next to it: how well x mod 2, 5, 10, 100 can be read linearly from each layer. Everything long runs
// off the GUI thread (a child process for the run, QtConcurrent for the analyses) with progress and cancel.
#pragma once

#include <QFutureWatcher>
#include <memory>

#include "fone/analysis/analysis.h"
#include "representation_view.h"

class QCustomPlot;
class QLabel;
class QTableWidget;

namespace fone::gui {

class PlotPanel;

struct SpectrumResult {
    std::shared_ptr<const Representations> source;
    analysis::LayerSpectra layers;                           // every layer's spectrum
    std::vector<std::int64_t> probe_periods;                 // the T probed (those with N >= 2T)
    std::vector<std::vector<analysis::ProbeResult>> probes;  // [layer][period]
    QString error;                                           // "" when it worked
    bool cancelled = false;
};

// The analyses of one set of representations (what the view computes in its worker): spectra of every
// layer and probes of x mod T for each layer and T in {2, 5, 10, 100} with N >= 2T. Throws
// analysis::Cancelled on cancel.
SpectrumResult analyse_spectrum(std::shared_ptr<const Representations> source,
                                const analysis::Progress& progress = {});

// One layer's spectrum out of a layer x frequency heatmap.
analysis::Spectrum layer_spectrum(const analysis::LayerSpectra& layers, int layer, int count);

class SpectrumView : public RepresentationView {
    Q_OBJECT
  public:
    explicit SpectrumView(RunCatalog* catalog, QWidget* parent = nullptr);
    ~SpectrumView() override;

    const SpectrumResult* result() const { return result_.get(); }
    // The chosen layer's spectrum and its largest spikes (empty before a result).
    analysis::Spectrum spectrum() const;
    std::vector<analysis::Spike> spikes(int max_count = 6) const;
    QString spikes_text() const;

    QCustomPlot* spectrum_plot() const;
    QCustomPlot* heatmap_plot() const;
    QCustomPlot* probe_plot() const;

  protected:
    void on_loaded(std::shared_ptr<const Representations> source) override;
    void on_layer_chosen() override { draw(); }

  private:
    QWidget* build_plots();
    void on_analysed();
    void draw();
    void draw_probe_table(const Representations& src, int layer);

    PlotPanel *spectrum_panel_, *heatmap_panel_, *probe_panel_;
    QTableWidget* probe_table_;
    QWidget* probe_box_;  // the probe plot and table (hidden when too few numbers for a probe)
    QLabel* spikes_;
    QFutureWatcher<SpectrumResult> watcher_;
    std::shared_ptr<const SpectrumResult> result_;
};

}  // namespace fone::gui
