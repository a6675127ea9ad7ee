// Welcome (workbench view "welcome"): what the window opens on, written for someone who has never heard of
// embeddings. Three sentences on what FoNE does; the small FoNE model bundled with the program
// (resources/demo-model, made by scripts/make-demo-model.sh) answering an addition at once, with the clocks
// it reads each digit from (the Hidden state view on the demo model: no training needed); and "Train it
// live": a FoNE run and a digit-wise run on the same data, side by side, their accuracy climbing on screen.
//
// Train it live queues two `fone train` children in a queue of its own (both train at once, one thread
// each, whatever the window's "runs at once" is), in the store the window has open (--runs-dir), so they
// are ordinary runs in its Runs table. FoNE stops at 99% exact match; the digit-wise run is then given as
// long again as FoNE took (twice FoNE's time in all) and stopped (resumable), and the view says where each
// one got.
#pragma once

#include <QStringList>
#include <QVector>

#include <nlohmann/json.hpp>

#include "analysis_view.h"

class QLabel;
class QPushButton;

namespace fone::gui {

class HiddenView;
class RunCatalog;
class JobRunner;
class PlotPanel;

// The arguments of the two live runs (without --runs-dir), named NAME_PREFIX-fone and NAME_PREFIX-digit.
QStringList live_run_args(const QString& method, const QString& name);
// text with {train_size} and {test_size} filled from the race's recipe ("51,200"), for the sentences that
// describe the race (Welcome's and Presenter's).
QString race_sentence(const char* text);
// The demo's one set of rules, for Welcome and Presenter alike: a sum outside what the view's model learned
// (its task's typed range) is refused with the same sentence, before any `fone` child. Returns "What it
// knows" in words ("" when the model's task has no such range).
QString use_demo_rules(HiddenView* view);

class WelcomeView : public AnalysisView {
    Q_OBJECT
    // `fone-workbench --screenshot F --view welcome --set live=true` races the two runs before the picture.
    Q_PROPERTY(bool live READ live_running WRITE set_live)
    // The demo model's prompt (--set prompt=500+500=; a sum outside its range shows the refusal).
    Q_PROPERTY(QString prompt READ prompt WRITE set_prompt)
  public:
    WelcomeView(RunCatalog* catalog, const QString& program, QWidget* parent = nullptr);
    ~WelcomeView() override;

    HiddenView* demo() const { return demo_; }
    QString prompt() const;
    void set_prompt(const QString& prompt);
    // Exact match on the unseen problems against seconds of training, one line per live run.
    PlotPanel* live_plot() const { return plot_; }
    // Starts the two live runs (nothing when they are already training). Their names: welcome-<time>-fone
    // and welcome-<time>-digit.
    void train_live();
    void stop_live();
    void set_live(bool on) { on ? train_live() : stop_live(); }
    bool live_running() const;
    // Why the race cannot start in the open store (a read-only one), as a sentence; "" when it can.
    QString race_refusal() const;
    QStringList live_runs() const { return {fone_.name, digit_.name}; }
    // The store the live runs went to ("" before the first).
    QString live_store() const;
    QString live_summary() const;  // the line under the curves, as plain text
    // The live curves (seconds, exact match in %), FoNE first, for presenter mode.
    struct LiveCurve {
        QString label;
        QVector<double> seconds, percent;
    };
    QVector<LiveCurve> live_curves() const;
    // Where the race stands in one or two sentences for people ("" before it started).
    QString verdict() const;
    // Room for the clocks and the live plot: the window gives the welcome dock most of its height.
    QSize sizeHint() const override { return {1000, 640}; }

  Q_SIGNALS:
    void liveFinished();  // both live runs have ended
    void liveChanged();   // a live run started, moved or ended

  private:
    struct Live {
        QString method, name, label;
        int job = 0;
        bool ended = false;
        QString status;
        double exact_match = -1, best = -1, seconds = 0;
        QVector<double> t, acc;  // the curve: seconds, exact match in %
    };
    Live* live_of_job(int job);
    void on_event(int job, const nlohmann::json& event);
    void on_finished(int job, const QString& status, const QString& message);
    void redraw();
    void update_summary();
    void update_train_button();  // enabled only where the race can start, with the reason when not
    QLabel* range_label();

    RunCatalog* catalog_;
    HiddenView* demo_;
    PlotPanel* plot_;
    QString program_;
    JobRunner* runner_ = nullptr;  // made at the first Train it live, for the store open then
    QPushButton *train_button_, *stop_button_;
    QLabel* live_label_;
    Live fone_, digit_;
    QString note_;
};

}  // namespace fone::gui
