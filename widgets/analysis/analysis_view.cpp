#include "analysis_view.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QShowEvent>
#include <QTextDocument>
#include <QTimer>
#include <cstdlib>

#include "analysis_plots.h"
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
        status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
        status_->setObjectName("status");
    }
    return status_;
}

QString AnalysisView::status_text() const {
    return status_ ? status_->text() : QString();
}

void AnalysisView::show_error(const QString& message) {
    status_label()->setStyleSheet("color: #c62828;");
    status_label()->setText(message);
}

void AnalysisView::show_info(const QString& message) {
    status_label()->setStyleSheet(QString());
    status_label()->setText(message);
}

}  // namespace fone::gui
