// Replay (workbench view "replay", issue 17): two runs side by side at one training step — a FoNE run next
// to a digit-wise one, say. One step scrubber (a slider over every snapshot step of either run) drives every
// panel together: each run's curves with the step marked, and from its nearest snapshot at or before the
// step its spectrum, PCA, digit clocks and probes per layer (plots/replay_frames.h draws the
// frame; `fone analyse replay` writes the same frames). Export: a folder of PNG frames, or an animated GIF.
#pragma once

#include <QPixmap>
#include <memory>
#include <vector>

#include "analysis_view.h"
#include "fone/analysis/replay.h"

class QLabel;
class QPushButton;
class QScrollArea;
class QSlider;
class QTimer;

namespace fone::plots {
class ReplayCache;
}

namespace fone::gui {

class RunCatalog;
class RunPicker;

class ReplayView : public AnalysisView {
    Q_OBJECT
    // For screenshots: `--set run=A --set other=B --set step=150`.
    Q_PROPERTY(QString run READ run WRITE set_run)
    Q_PROPERTY(QString other READ other WRITE set_other)
    Q_PROPERTY(qlonglong step READ step WRITE set_step)
  public:
    explicit ReplayView(RunCatalog* catalog, QWidget* parent = nullptr);
    ~ReplayView() override;

    QString run() const;
    void set_run(const QString& name_or_dir);
    QString other() const;
    void set_other(const QString& name_or_dir);
    // The step the scrubber is on (0 before any run has snapshots); set_step goes to the nearest step at or
    // before the one asked.
    qlonglong step() const;
    void set_step(qlonglong step);
    const std::vector<std::int64_t>& steps() const { return steps_; }
    // The frame shown (null before one is drawn), at its natural size: as wide as the view.
    QImage frame() const { return frame_; }
    // The size the frame is shown at (the frame's own: nothing is scaled).
    QSize shown_size() const;

  protected:
    void refresh() override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    void open_runs();
    void pick_digit_second();
    int frame_width() const;
    void draw();
    void show_frame();
    void export_frames();
    void export_gif();

    RunPicker *first_, *second_;
    QSlider* scrubber_;
    QLabel *step_label_, *picture_;
    QScrollArea* scroll_;
    QTimer* redraw_;
    QPushButton *export_frames_, *export_gif_;
    std::vector<analysis::ReplayRun> runs_;
    std::vector<std::int64_t> steps_;
    std::unique_ptr<plots::ReplayCache> cache_;
    QImage frame_;
    bool second_by_user_ = false;
};

}  // namespace fone::gui
