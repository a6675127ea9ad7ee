#include "replay_view.h"

#include <QApplication>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

#include "fone/store/methods.h"
#include "replay_animation.h"
#include "replay_frames.h"
#include "run_picker.h"

namespace fone::gui {

namespace fa = fone::analysis;

ReplayView::ReplayView(RunCatalog* catalog, QWidget* parent)
    : AnalysisView(parent), cache_(std::make_unique<plots::ReplayCache>()) {
    first_ = new RunPicker(catalog);
    second_ = new RunPicker(catalog);
    pick_digit_second();
    first_->setToolTip("The run in the top row");
    second_->setToolTip("The run in the bottom row (the same run as the top: one row)");
    scrubber_ = new QSlider(Qt::Horizontal);
    scrubber_->setToolTip(
        "Training step: every snapshot step of either run. Each run shows its nearest snapshot at or before "
        "the step");
    step_label_ = new QLabel;
    step_label_->setMinimumWidth(step_label_->fontMetrics().horizontalAdvance("step 00000000 (12/64)"));
    export_frames_ = new QPushButton("Export frames…");
    export_frames_->setToolTip(
        "A PNG per step into a folder (frame-STEP.png), as `fone analyse replay` writes");
    export_gif_ = new QPushButton("Export GIF…");
    export_gif_->setEnabled(plots::gif_supported());
    export_gif_->setToolTip(plots::gif_supported()
                                ? "An animated GIF of every step (giflib), looping"
                                : "This build has no GIF encoder: apt-get install libgif-dev and rebuild");
    // The frame is drawn as wide as the view and shown at its natural size, never scaled down (scaling
    // an 1,800-pixel frame into a 900-pixel dock made its text 5 pixels high): a narrow view wraps each
    // run's panels onto more lines (plots::fitted_replay_style) and scrolls down.
    picture_ = new QLabel;
    picture_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    scroll_ = new QScrollArea;
    scroll_->setWidget(picture_);
    scroll_->setWidgetResizable(false);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setMinimumSize(240, 140);
    redraw_ = new QTimer(this);
    redraw_->setSingleShot(true);
    redraw_->setInterval(80);  // a resize redraws once it settles, not at every pixel of a drag
    connect(redraw_, &QTimer::timeout, this, [this] { draw(); });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* pickers = new QHBoxLayout;
    pickers->addWidget(new QLabel("Runs"));
    pickers->addWidget(first_, 1);
    pickers->addWidget(second_, 1);
    layout->addLayout(pickers);
    auto* scrub = new QHBoxLayout;
    scrub->addWidget(new QLabel("Step"));
    scrub->addWidget(scrubber_, 1);
    scrub->addWidget(step_label_);
    scrub->addWidget(export_frames_);
    scrub->addWidget(export_gif_);
    layout->addLayout(scrub);
    layout->addWidget(scroll_, 1);
    layout->addWidget(status_label());

    connect(first_, &RunPicker::runChanged, this, [this] { request_refresh(); });
    // The store's runs may arrive after the view is made (the catalog loads in the background): the second
    // picker's own choice then is the first's, and it moves to a digit-wise run until someone picks one.
    connect(second_->combo(), &QComboBox::activated, this, [this] { second_by_user_ = true; });
    connect(second_, &RunPicker::runChanged, this, [this] {
        pick_digit_second();
        request_refresh();
    });
    connect(scrubber_, &QSlider::valueChanged, this, [this] { draw(); });
    connect(export_frames_, &QPushButton::clicked, this, &ReplayView::export_frames);
    connect(export_gif_, &QPushButton::clicked, this, &ReplayView::export_gif);
    request_refresh();
}

ReplayView::~ReplayView() = default;

// The comparison the view is for: a FoNE run (the first picker's own choice) next to a digit-wise one,
// unless the second run was chosen (by hand, or with --set other=).
void ReplayView::pick_digit_second() {
    if (second_by_user_ || second_->method() == QLatin1String(kPaperBaseline)) return;
    const QSignalBlocker quiet(second_);
    const int was = second_->combo()->currentIndex();
    for (int i = 0; i < second_->count(); ++i) {
        second_->combo()->setCurrentIndex(i);
        if (second_->method() == QLatin1String(kPaperBaseline)) return;
    }
    second_->combo()->setCurrentIndex(was);
}

QString ReplayView::run() const {
    return first_->run_dir();
}
void ReplayView::set_run(const QString& name_or_dir) {
    first_->set_run(name_or_dir);
    open_runs();
}
QString ReplayView::other() const {
    return second_->run_dir();
}
void ReplayView::set_other(const QString& name_or_dir) {
    second_by_user_ = true;
    second_->set_run(name_or_dir);
    open_runs();
}

qlonglong ReplayView::step() const {
    return steps_.empty() ? 0 : steps_[static_cast<std::size_t>(scrubber_->value())];
}

void ReplayView::set_step(qlonglong step) {
    int index = 0;
    for (std::size_t i = 0; i < steps_.size(); ++i)
        if (steps_[i] <= step) index = static_cast<int>(i);
    scrubber_->setValue(index);
    draw();
}

void ReplayView::refresh() {
    open_runs();
}

// The chosen runs' snapshots (one row when both pickers name the same run); the scrubber over their steps,
// kept at the step it was on when it still exists.
void ReplayView::open_runs() {
    const qlonglong was = step();
    runs_.clear();
    QStringList problems;
    follow_runs({first_->run_dir(), second_->run_dir()});
    const QString first = first_->run_dir(), second = second_->run_dir();
    // The same run in both pickers is one row, and one message when it cannot be replayed.
    for (const QString& dir : {first, second == first ? QString() : second}) {
        if (dir.isEmpty()) continue;
        try {
            runs_.push_back(fa::open_replay_run(dir.toStdString()));
        } catch (const std::exception& e) {
            problems << QString::fromStdString(e.what());
        }
    }
    steps_ = fa::replay_steps(runs_);
    const QSignalBlocker quiet(scrubber_);
    scrubber_->setRange(0, std::max<int>(0, static_cast<int>(steps_.size()) - 1));
    export_frames_->setEnabled(!steps_.empty());
    export_gif_->setEnabled(!steps_.empty() && plots::gif_supported());
    if (steps_.empty()) {
        frame_ = QImage();
        picture_->clear();
        picture_->resize(0, 0);
        step_label_->clear();
        show_info(problems.isEmpty() ? QStringLiteral("Choose runs with snapshots (trained since issue 17)")
                                     : problems.join("; "));
        return;
    }
    if (problems.isEmpty())
        show_info(QString());
    else
        show_error(problems.join("; "));
    set_step(was);
}

// The frame's width: the scroll area's, less a vertical scroll bar (a wrapped frame is taller than the view).
int ReplayView::frame_width() const {
    const int bar = scroll_->verticalScrollBar()->sizeHint().width();
    return std::max(plots::kMinReplayPanelWidth, scroll_->width() - 2 * scroll_->frameWidth() - bar);
}

void ReplayView::draw() {
    if (steps_.empty()) return;
    set_busy(true);
    try {
        frame_ = plots::draw_replay_frame(runs_, step(), *cache_, plots::fitted_replay_style(frame_width()));
    } catch (const std::exception& e) {
        show_error(QString::fromStdString(e.what()));
    }
    step_label_->setText(
        QStringLiteral("step %1 (%2/%3)").arg(step()).arg(scrubber_->value() + 1).arg(steps_.size()));
    show_frame();
    set_busy(false);
}

void ReplayView::show_frame() {
    if (frame_.isNull()) return;
    picture_->setPixmap(QPixmap::fromImage(frame_));
    picture_->resize(frame_.size());
}

QSize ReplayView::shown_size() const {
    return picture_->pixmap().isNull() ? QSize() : picture_->pixmap().size();
}

void ReplayView::resizeEvent(QResizeEvent* event) {
    AnalysisView::resizeEvent(event);
    if (!frame_.isNull() && frame_.width() != frame_width()) redraw_->start();
}

void ReplayView::export_frames() {
    const QString dir = QFileDialog::getExistingDirectory(this, "Folder for the replay's frames");
    if (dir.isEmpty()) return;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        const auto paths = plots::write_replay_frames(runs_, dir.toStdString(), *cache_);
        show_info(QStringLiteral("%1 frames in %2").arg(paths.size()).arg(dir));
    } catch (const std::exception& e) {
        show_error(QString::fromStdString(e.what()));
    }
    QApplication::restoreOverrideCursor();
}

void ReplayView::export_gif() {
    const QString path =
        QFileDialog::getSaveFileName(this, "Replay as an animated GIF", "replay.gif", "GIF (*.gif)");
    if (path.isEmpty()) return;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        std::vector<QImage> frames;
        for (const std::int64_t s : steps_)
            frames.push_back(plots::draw_replay_frame(runs_, s, *cache_));
        plots::write_gif(frames, path.toStdString());
        show_info(QStringLiteral("%1 frames in %2").arg(frames.size()).arg(path));
    } catch (const std::exception& e) {
        show_error(QString::fromStdString(e.what()));
    }
    QApplication::restoreOverrideCursor();
}

}  // namespace fone::gui
