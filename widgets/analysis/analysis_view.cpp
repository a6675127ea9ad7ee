#include "analysis_view.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QShowEvent>
#include <QTextDocument>
#include <QTimer>
#include <cstdlib>

#include <QFileInfo>

#include "analysis_plots.h"
#include "fone/io/json_files.h"
#include "fone/io/safetensors.h"
#include "fone/store/run_lock.h"
#include "fone/store/run_store.h"
#include "plot_panel.h"

namespace fone::gui {

QString power_of_ten(int exponent) {
    static const QString kSuperscripts[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    if (exponent == 0) return QStringLiteral("1");
    QString out = exponent < 0 ? QStringLiteral("10⁻") : QStringLiteral("10");
    for (const QChar c : QString::number(std::abs(exponent)))
        out += kSuperscripts[c.digitValue()];
    return out;
}

namespace {
class ResizeWatcher : public QObject {
  public:
    ResizeWatcher(QWidget* widget, std::function<void()> f) : QObject(widget), f_(std::move(f)) {
        widget->installEventFilter(this);
    }
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Resize) f_();
        return QObject::eventFilter(watched, event);
    }

  private:
    std::function<void()> f_;
};
}  // namespace

void on_resize(QWidget* widget, std::function<void()> f) {
    new ResizeWatcher(widget, std::move(f));
}

FoneSpec encoder_spec(const std::vector<Decimal>& numbers, int int_digits, int frac_digits, int base) {
    FoneSpec spec;
    spec.int_digits = int_digits;
    spec.frac_digits = frac_digits;
    spec.base = base;
    return fitted_spec(spec, numbers);
}

QString plain_text(const QString& html) {
    QTextDocument doc;
    doc.setHtml(html);
    return doc.toPlainText();
}

void make_figure(PlotPanel* panel, std::function<void()> draw) {
    panel->set_figure([panel, draw = std::move(draw)](bool dark_page) {
        plots::Paper paper = plots::paper_of(*panel->plot());
        paper.dark = dark_page;
        plots::set_paper(*panel->plot(), paper);
        draw();
        panel->plot()->replot();
    });
}

void set_text_scale(PlotPanel* panel, double text_scale) {
    plots::Paper paper = plots::paper_of(*panel->plot());
    paper.text_scale = text_scale;
    plots::set_paper(*panel->plot(), paper);
}

namespace {

constexpr int kFollowMs = 2000;  // a stat of two files per followed run

// Whether a trainer holds the run now (status.json says running and its process lives), as the store says.
bool run_is_training(const QString& dir) {
    nlohmann::json status;
    std::string error;
    if (fone::load_json((dir + "/" + fone::kStatusFile).toStdString(), status, error) != fone::JsonLoad::ok ||
        !status.is_object())
        return false;
    const auto pid = status.find("pid");
    return status.value("status", nlohmann::json()) == fone::kStatusRunning &&
           fone::run_process_alive(dir.toStdString(),
                                   pid != status.end() && pid->is_number_integer() ? pid->get<int>() : 0);
}

}  // namespace

AnalysisView::AnalysisView(QWidget* parent) : QWidget(parent) {}

void AnalysisView::set_busy(bool busy) {
    if (busy == busy_) return;
    busy_ = busy;
    Q_EMIT busyChanged(busy);
}

void AnalysisView::request_refresh() {
    if (isVisible()) {
        stale_ = false;
        refresh();
    } else {
        stale_ = true;
    }
}

void AnalysisView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_) {
        stale_ = false;
        QTimer::singleShot(0, this, [this] { refresh(); });
    }
}

QLabel* AnalysisView::status_label() {
    if (!status_) {
        status_ = new QLabel;
        status_->setWordWrap(true);
        status_->setTextFormat(Qt::RichText);
        status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
        status_->setObjectName("status");
    }
    return status_;
}

QString AnalysisView::status_text() const {
    return message_;
}

void AnalysisView::show_error(const QString& message) {
    message_ = message;
    message_is_error_ = true;
    update_status_label();
}

void AnalysisView::show_info(const QString& message) {
    message_ = message;
    message_is_error_ = false;
    update_status_label();
}

void AnalysisView::update_status_label() {
    QStringList lines;
    if (!provenance_.isEmpty())
        lines << QString("<span style='color:%1'>%2</span>")
                     .arg(out_of_date_ ? "#b35900" : "gray", provenance_.toHtmlEscaped());
    if (!message_.isEmpty())
        lines << (message_is_error_ ? "<span style='color:#c62828'>" + message_.toHtmlEscaped() + "</span>"
                                    : message_.toHtmlEscaped());
    status_label()->setText(lines.join("<br>").replace('\n', "<br>"));
}

CheckpointStamp checkpoint_stamp(const QString& run_dir) {
    CheckpointStamp stamp;
    for (const char* name : {fone::kBestCheckpoint, fone::kLastCheckpoint}) {
        const QFileInfo info(run_dir + "/" + name);
        if (!info.exists()) continue;
        if (!stamp.changed.isValid() || info.lastModified() > stamp.changed)
            stamp.changed = info.lastModified();
        if (!stamp.file.isEmpty()) continue;
        stamp.file = name;  // the one `fone` opens: best, else last
        try {
            const auto file = safetensors::File::open(info.filePath().toStdString());
            const auto position = nlohmann::json::parse(file.meta("position"), nullptr, false);
            if (position.is_object() && position.value("step", nlohmann::json()).is_number_integer())
                stamp.step = position["step"].get<qint64>();
        } catch (const std::exception&) {
            // An unreadable checkpoint has no step to name; `fone` says what is wrong with it.
        }
    }
    return stamp;
}

QString checkpoint_words(const CheckpointStamp& stamp, bool plain) {
    const bool best = stamp.file == fone::kBestCheckpoint;
    if (plain) {
        if (stamp.file.isEmpty()) return QStringLiteral("no saved model");
        const QString when = best ? "where it scored best" : "its latest save";
        return stamp.step < 0 ? when : QStringLiteral("step %1, %2").arg(stamp.step).arg(when);
    }
    if (stamp.file.isEmpty()) return QStringLiteral("no checkpoint");
    const QString which = best ? "best" : "last";
    if (stamp.step < 0) return which + " checkpoint";
    return QStringLiteral("step %1 (%2 checkpoint)").arg(stamp.step).arg(which);
}

void AnalysisView::follow_runs(const QStringList& run_dirs) {
    followed_.clear();
    stamps_.clear();
    QStringList words;
    for (const QString& dir : run_dirs) {
        if (dir.isEmpty()) continue;
        followed_ << dir;
        stamps_ << checkpoint_stamp(dir);
        words << QFileInfo(dir).fileName() + " at " + checkpoint_words(stamps_.back(), plain_provenance_);
    }
    out_of_date_ = false;
    provenance_ = words.isEmpty() ? QString() : "From " + words.join("; ");
    update_status_label();
    if (!follow_timer_) {
        follow_timer_ = new QTimer(this);
        follow_timer_->setInterval(kFollowMs);
        connect(follow_timer_, &QTimer::timeout, this, &AnalysisView::check_followed_runs);
    }
    if (followed_.isEmpty())
        follow_timer_->stop();
    else
        follow_timer_->start();
}

void AnalysisView::check_followed_runs() {
    if (busy_) return;  // the work under way stamps again when it starts
    QStringList moved;
    bool training = false;
    for (int i = 0; i < followed_.size(); ++i) {
        const CheckpointStamp now = checkpoint_stamp(followed_[i]);
        if (now == stamps_[i]) continue;
        moved << QFileInfo(followed_[i]).fileName() + " is now at " +
                     checkpoint_words(now, plain_provenance_);
        training = training || run_is_training(followed_[i]);
    }
    if (moved.isEmpty()) return;
    if (!training) {
        request_refresh();  // the run has stopped: show its final checkpoint
        return;
    }
    if (out_of_date_) return;
    out_of_date_ = true;
    provenance_ += ". Out of date: " + moved.join("; ") +
                   ". This view refreshes when the run stops training (or when you run it again).";
    update_status_label();
}

}  // namespace fone::gui
