// The base of the workbench's analysis views (widgets/analysis/*_view.h), and small helpers they share.
//
// No LibTorch here: anything that needs a trained model runs `fone` as a child process (fone_call.h) and
// reads its JSON; long computations run in QtConcurrent workers with the analyses' Progress (fraction done
// and a cancel flag).
#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <functional>
#include <vector>

#include "fone/numbers/fourier.h"

class QLabel;
class QTimer;

namespace fone::gui {

class PlotPanel;

// The model a run's analyses read (checkpoint-best, else checkpoint-last, as `fone` opens it) and the step it
// was saved at; `changed` is the newest modification time of the two files, which moves whenever the run
// saves a checkpoint. step -1: no readable checkpoint.
struct CheckpointStamp {
    QString file;  // the file's name ("checkpoint-best.safetensors"); "" when none
    qint64 step = -1;
    QDateTime changed;
    bool operator==(const CheckpointStamp& o) const {
        return file == o.file && step == o.step && changed == o.changed;
    }
};
CheckpointStamp checkpoint_stamp(const QString& run_dir);
// "step 400 (best checkpoint)" / "step 400 (last checkpoint)" / "no checkpoint"; plain, for visitors (the
// Welcome, Presenter): "step 400, where it scored best" / "step 400, its latest save" / "no saved model".
QString checkpoint_words(const CheckpointStamp& stamp, bool plain = false);

// 10 to a power as people write it: "10³", "10⁻²", "1" for 10⁰.
QString power_of_ten(int exponent);

// Calls `f` after every resize of `widget` (drawings that keep equal scales redraw at the new size).
void on_resize(QWidget* widget, std::function<void()> f);

// The encoder's spec for the numbers from the views' slot boxes: m and n (-1, "auto": just enough for the
// numbers, as `fone analyse` does) and the base. NumberError when they make no valid spec.
FoneSpec encoder_spec(const std::vector<Decimal>& numbers, int int_digits, int frac_digits, int base);

// The plain text of a label's rich text (what tests and screen readers see).
QString plain_text(const QString& html);

// Makes the panel's plot an analysis figure that `draw` (a fone::plots draw_*) draws: on screen it follows
// the window's theme, exports are on white (PlotPanel::set_figure), and its texts are `text_scale` times
// their size (presenter mode).
void make_figure(PlotPanel* panel, std::function<void()> draw);
void set_text_scale(PlotPanel* panel, double text_scale);

// Base of the analysis views: a `busy` property (the screenshot waits for it to clear), and work that is
// asked for while the view is hidden (a tab behind another) waits until it is shown, so opening the
// window never starts a LibTorch child per view.
class AnalysisView : public QWidget {
    Q_OBJECT
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
  public:
    explicit AnalysisView(QWidget* parent = nullptr);
    bool busy() const { return busy_; }
    // The message shown in the view's status line (errors in red); "" when none.
    QString status_text() const;
    // Which checkpoint the result shown came from ("From RUN at step 400 (best checkpoint)"), and when
    // the run has trained on since, that the result is out of date; "" when no run's result is shown.
    QString provenance_text() const { return provenance_; }
    bool out_of_date() const { return out_of_date_; }
    // Names the checkpoint in plain words (checkpoint_words), for a demo in front of people.
    void set_plain_provenance(bool plain) { plain_provenance_ = plain; }

  Q_SIGNALS:
    void busyChanged(bool busy);

  protected:
    void set_busy(bool busy);
    // Runs refresh() now if the view is visible, else the next time it is shown.
    void request_refresh();
    virtual void refresh() {}
    void showEvent(QShowEvent* event) override;
    // A status line that views put in their layout.
    QLabel* status_label();
    void show_error(const QString& message);
    void show_info(const QString& message);
    // The runs whose checkpoints the result being computed reads: call it when the work starts. The result
    // names their checkpoint; when a run saves a newer one, the view refreshes itself if the run has stopped
    // training, and says it is out of date while it trains (a refresh per evaluation would keep a LibTorch
    // child busy all the time).
    void follow_runs(const QStringList& run_dirs);
    void follow_run(const QString& run_dir) { follow_runs({run_dir}); }

  private:
    void check_followed_runs();
    void update_status_label();

    bool busy_ = false;
    bool stale_ = false;
    QLabel* status_ = nullptr;
    QString message_;
    bool message_is_error_ = false;
    QStringList followed_;
    QVector<CheckpointStamp> stamps_;
    QString provenance_;
    bool plain_provenance_ = false;
    bool out_of_date_ = false;
    QTimer* follow_timer_ = nullptr;
};

}  // namespace fone::gui
