// The base of the views that analyse the representations of a range of numbers (spectrum_view.h,
// pca_view.h, helix_view.h): the source box, the layer to analyse, Compute and Cancel with a progress
// bar, and the loader that brings the representations (the FoNE encoder's, or a trained run's or a model
// folder's through `fone analyse dump`). A subclass lays these widgets out with its own, analyses what
// on_loaded() hands it off the GUI thread (run_in_background), and shows the result.
#pragma once

#include <QFutureWatcher>
#include <QString>
#include <QtConcurrentRun>
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "analysis_view.h"
#include "fone/analysis/analysis.h"
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
    Q_PROPERTY(QString model READ model WRITE set_model)
    Q_PROPERTY(int numbers READ numbers WRITE set_numbers)
    Q_PROPERTY(int layer READ layer WRITE set_layer)
  public:
    void set_encoder();
    bool set_run(const QString& name_or_dir);  // also switches the source to the run
    QString run() const;
    void set_model(const QString& dir);  // a Hugging Face model folder; also switches the source to it
    QString model() const;
    QString source_name() const;  // "encoder", "run" or "model"
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

    // Runs `work(progress)` (an analysis returning a Result with `error` and `cancelled`) on a worker
    // thread, its Result to `watcher`. The analysis still running from before is told to stop, and this
    // one gets a fresh cancel flag for cancel() and the next start; its progress reaches `show` on the
    // GUI thread. analysis::Cancelled and other exceptions become the Result's `cancelled` and `error`, so
    // the watcher always finishes with a Result and no exception crosses the thread.
    template <class Result, class Work>
    void run_in_background(QFutureWatcher<Result>& watcher, std::function<void(double)> show, Work work);
    // The same with the progress bar showing `label` and the fraction done (0 from now).
    template <class Result, class Work>
    void run_in_background(QFutureWatcher<Result>& watcher, const QString& label, Work work) {
        on_progress(0, label);
        run_in_background(
            watcher, [this, label](double f) { on_progress(f, label); }, std::move(work));
    }
    // For the subclass's destructor: the worker reports to `this`, so it must end before the view does.
    template <class Result>
    void stop_background(QFutureWatcher<Result>& watcher) {
        if (cancel_) cancel_->store(true);
        watcher.waitForFinished();
    }

    SourceBox* source_;
    QComboBox* layer_;
    QPushButton *compute_button_, *cancel_button_;
    QProgressBar* progress_;
    RepresentationLoader* loader_;
    int wanted_layer_ = -1;

  private:
    QTimer* debounce_;
    std::shared_ptr<std::atomic<bool>> cancel_;  // of the analysis running in a worker
};

template <class Result, class Work>
void RepresentationView::run_in_background(QFutureWatcher<Result>& watcher, std::function<void(double)> show,
                                           Work work) {
    if (cancel_) cancel_->store(true);
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    analysis::Progress progress;
    progress.cancel = cancel_.get();
    // Queued to `this`: the widgets are the GUI thread's, and a report still queued when the view goes is
    // dropped.
    progress.report = [this, show = std::move(show)](double f) {
        QMetaObject::invokeMethod(
            this, [show, f] { show(f); }, Qt::QueuedConnection);
    };
    // `keep` holds the flag that progress.cancel points to for as long as the worker runs.
    watcher.setFuture(QtConcurrent::run([work = std::move(work), progress, keep = cancel_]() -> Result {
        try {
            return work(progress);
        } catch (const analysis::Cancelled&) {
            Result r;
            r.cancelled = true;
            return r;
        } catch (const std::exception& e) {
            Result r;
            r.error = QString::fromStdString(e.what());
            return r;
        }
    }));
}

}  // namespace fone::gui
