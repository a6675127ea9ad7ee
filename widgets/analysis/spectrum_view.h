// Fourier spectrum (workbench view "spectrum"): the representation of the numbers start, start+step, ...
// (the FoNE encoder itself, or a trained run's layers through `fone analyse dump`), Fourier-transformed
// along the number axis: the magnitude per frequency k with the spikes' periods T = N/k labelled, a
// layer x frequency heatmap for runs (where in the network the periodic structure lives), and the linear
// probe next to it: how well x mod 2, 5, 10, 100 can be read linearly from each layer. Everything long runs
// off the GUI thread (a child process for the run, QtConcurrent for the analyses) with progress and cancel.
#pragma once

#include <QFutureWatcher>
#include <atomic>
#include <memory>

#include "fone/analysis/analysis.h"
#include "view_support.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
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

class SpectrumView : public AnalysisView {
    Q_OBJECT
    Q_PROPERTY(QString source READ source_name WRITE set_source_name)
    Q_PROPERTY(QString run READ run WRITE set_run)
    Q_PROPERTY(int numbers READ numbers WRITE set_numbers)
    Q_PROPERTY(int layer READ layer WRITE set_layer)
  public:
    explicit SpectrumView(RunCatalog* catalog, QWidget* parent = nullptr);
    ~SpectrumView() override;

    void set_encoder();
    bool set_run(const QString& name_or_dir);  // also switches the source to the run
    QString run() const;
    QString source_name() const;  // "encoder" or "run"
    void set_source_name(const QString& name);
    void set_numbers(int count);
    int numbers() const;
    void set_layer(int layer);  // -1: the source's default (the last)
    int layer() const;
    void set_program(const QString& fone);

    // Starts loading and analysing now (the view also does it by itself when a setting changes and it is
    // visible). finished() or failed() follows.
    void compute();
    void cancel();
    const SpectrumResult* result() const { return result_.get(); }
    // The chosen layer's spectrum and its largest spikes (empty before a result).
    analysis::Spectrum spectrum() const;
    std::vector<analysis::Spike> spikes(int max_count = 6) const;
    QString spikes_text() const;

    QCustomPlot* spectrum_plot() const;
    QCustomPlot* heatmap_plot() const;
    QCustomPlot* probe_plot() const;

  Q_SIGNALS:
    void finished();
    void failed(const QString& why);

  protected:
    void refresh() override { compute(); }

  private:
    void on_loaded(std::shared_ptr<const Representations> source);
    void on_failed(const QString& message);
    void on_progress(double fraction, const QString& what);
    void draw();
    void set_running(bool running);

    SourceBox* source_;
    QComboBox* layer_;
    QPushButton *compute_button_, *cancel_button_;
    QProgressBar* progress_;
    PlotPanel *spectrum_panel_, *heatmap_panel_, *probe_panel_;
    QTableWidget* probe_table_;
    QWidget* probe_box_;  // the probe plot and table (hidden when too few numbers for a probe)
    QLabel* spikes_;
    RepresentationLoader* loader_;
    QFutureWatcher<SpectrumResult> watcher_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    std::shared_ptr<const SpectrumResult> result_;
    QTimer* debounce_;
    int wanted_layer_ = -1;
};

}  // namespace fone::gui
