// The base of the views that analyse the representations of a range of numbers (spectrum_view.h,
// pca_view.h): the source box, the layer to analyse, Compute and Cancel with a progress bar, and the
// loader that brings the representations (the FoNE encoder's, or a trained run's through `fone analyse
// dump`). A subclass lays these widgets out with its own, analyses what on_loaded() hands it off the GUI
// thread, and shows the result.
#pragma once

#include <QString>
#include <atomic>
#include <memory>
#include <utility>
#include <vector>

#include "analysis_view.h"
#include "representation_loader.h"
#include "source_box.h"

class QComboBox;
class QHBoxLayout;
class QProgressBar;
class QPushButton;
class QTimer;

namespace fone::gui {

class RunCatalog;

class RepresentationView : public AnalysisView {
    Q_OBJECT
    Q_PROPERTY(QString source READ source_name WRITE set_source_name)
    Q_PROPERTY(QString run READ run WRITE set_run)
    Q_PROPERTY(int numbers READ numbers WRITE set_numbers)
    Q_PROPERTY(int layer READ layer WRITE set_layer)
  public:
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
    // The progress bar's text as shown ("spectra and probes 100%"): one line, within the bar.
    QString progress_text() const;

  Q_SIGNALS:
    void finished();
    void failed(const QString& why);

  protected:
    explicit RepresentationView(RunCatalog* catalog, QWidget* parent = nullptr);
    void refresh() override { compute(); }

    // The representations have come: analyse them.
    virtual void on_loaded(std::shared_ptr<const Representations> source) = 0;
    // The user chose another layer (wanted_layer_ holds it).
    virtual void on_layer_chosen() = 0;

    // The controls' row: "Layer" and its combo, the (label, widget) pairs of `extra`, Compute, Cancel and
    // the progress bar.
    QHBoxLayout* controls_row(const std::vector<std::pair<QString, QWidget*>>& extra = {});
    // The layer combo lists the source's layers, the one asked for (else the source's default) chosen.
    void list_layers(const Representations& source);
    void on_progress(double fraction, const QString& what);  // fraction < 0: not known
    void on_failed(const QString& message);
    void set_running(bool running);

    SourceBox* source_;
    QComboBox* layer_;
    QPushButton *compute_button_, *cancel_button_;
    QProgressBar* progress_;
    RepresentationLoader* loader_;
    std::shared_ptr<std::atomic<bool>> cancel_;  // of the analysis running in a worker
    int wanted_layer_ = -1;

  private:
    QTimer* debounce_;
};

}  // namespace fone::gui
