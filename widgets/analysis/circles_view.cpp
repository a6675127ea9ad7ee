#include "circles_view.h"

#include <qcustomplot.h>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

#include "analysis_plots.h"
#include "plot_panel.h"
#include "view_tips.h"

namespace fone::gui {

namespace {
constexpr int kMaxSliderSteps = 10000000;  // QSlider is an int; 10^7 positions is plenty for a drag
}

CirclesView::CirclesView(QWidget* parent) : AnalysisView(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    panel_ = new PlotPanel;
    panel_->layout()->setContentsMargins(0, 0, 0, 0);
    QHBoxLayout* controls = panel_->controls();
    number_edit_ = new QLineEdit;
    number_edit_->setPlaceholderText("a number, e.g. 1234.567 or -0.05 or 123456789012345678901234567890");
    number_edit_->setToolTip(
        "Any number, exactly: decimals and numbers of any length. FoNE gives it ONE token whose embedding is "
        "one (cos, sin) pair per period, drawn here as one circle each.");
    base_ = new QSpinBox;
    base_->setRange(2, 36);
    base_->setValue(10);
    base_->setToolTip(tips::kBase);
    int_digits_ = new QSpinBox;
    frac_digits_ = new QSpinBox;
    for (auto [spin, max] : {std::pair{int_digits_, 200}, std::pair{frac_digits_, 60}}) {
        spin->setRange(-1, max);
        spin->setSpecialValueText("auto");
        spin->setValue(-1);
        spin->setToolTip(tips::kSlots);
    }
    controls->addWidget(new QLabel("Number"));
    controls->addWidget(number_edit_, 1);
    controls->addWidget(new QLabel("base"));
    controls->addWidget(base_);
    controls->addWidget(new QLabel("slots m"));
    controls->addWidget(int_digits_);
    controls->addWidget(new QLabel("n"));
    controls->addWidget(frac_digits_);
    panel_->add_export_button()->setToolTip("Save the picture (PNG, SVG, PDF)");
    panel_->plot()->setToolTip(
        "Each circle is one period T. The grey dots are the digit markers φ(j); the red hand points at the "
        "number's angle 2π·(x mod T)/T. The digit a circle carries is the marker the hand has last passed "
        "(⌊base · turns⌋): lower digits push the hand part of the way to the next marker. A negative number "
        "is FoNE's mirror image of its size (every sine negated): its hands and marks turn clockwise.");
    panel_->plot()->setMinimumSize(160, 120);
    make_figure(panel_, [this] { draw(false); });
    layout->addWidget(panel_, 1);

    auto* slider_row = new QHBoxLayout;
    slider_ = new QSlider(Qt::Horizontal);
    slider_->setToolTip(
        "Drag to move the number and watch every hand turn: the smallest period turns fastest");
    slider_label_ = new QLabel;
    slider_row->addWidget(slider_, 1);
    slider_row->addWidget(slider_label_);
    layout->addLayout(slider_row);
    layout->addWidget(status_label());

    connect(number_edit_, &QLineEdit::textEdited, this,
            [this](const QString& text) { update_circles(text, false); });
    connect(slider_, &QSlider::valueChanged, this, [this](int v) {
        const QString text = QString::fromStdString(Decimal::from_scaled(v, slider_decimals_).to_string());
        number_edit_->setText(text);
        update_circles(text, true);
    });
    // While the slider is dragged, draw without antialiasing (about half the cost of a frame), then once
    // more with it when the slider is let go.
    connect(slider_, &QSlider::sliderPressed, this,
            [this] { panel_->plot()->setNotAntialiasedElements(QCP::aeAll); });
    connect(slider_, &QSlider::sliderReleased, this, [this] {
        panel_->plot()->setNotAntialiasedElements(QCP::aeNone);
        draw(false);
    });
    for (QSpinBox* spin : {base_, int_digits_, frac_digits_})
        connect(spin, &QSpinBox::valueChanged, this, [this] { update_circles(number_edit_->text(), false); });
    // The circles keep equal scales on both axes, which depend on the plot's size.
    on_resize(panel_->plot(), [this] { draw(false); });
    set_number("1234.567");
}

QCustomPlot* CirclesView::plot() const {
    return panel_->plot();
}

QString CirclesView::number() const {
    return number_edit_->text().trimmed();
}

bool CirclesView::set_number(const QString& text) {
    if (number_edit_->text() != text) number_edit_->setText(text);
    return update_circles(text, false);
}

void CirclesView::set_base(int base) {
    base_->setValue(base);
}

void CirclesView::set_slots(int int_digits, int frac_digits) {
    const QSignalBlocker a(int_digits_), b(frac_digits_);
    int_digits_->setValue(int_digits);
    frac_digits_->setValue(frac_digits);
    update_circles(number_edit_->text(), false);
}

void CirclesView::update_slider_range(const Decimal& x) {
    // The slider covers 0 .. 10^(digits) in steps of the number's last decimal place (at most 4 places).
    slider_decimals_ = std::min(4, x.frac_digit_count());
    slider_digits_ = std::max(3, x.int_digit_count());
    const int exponent = std::min(slider_digits_ + slider_decimals_, 7);
    const int steps = static_cast<int>(std::min<double>(std::pow(10.0, exponent) - 1, kMaxSliderSteps - 1));
    const QSignalBlocker block(slider_);
    slider_->setRange(0, steps);
    slider_->setPageStep(std::max(1, steps / 20));
    // Where the typed number is on the slider (it may lie beyond it: then the slider rests at an end).
    const double position = std::round(x.to_double() * std::pow(10.0, slider_decimals_));
    slider_->setValue(static_cast<int>(std::clamp(position, 0.0, static_cast<double>(steps))));
    slider_label_->setText(QStringLiteral("0 … %1").arg(
        QString::fromStdString(Decimal::from_scaled(steps, slider_decimals_).to_string())));
}

bool CirclesView::update_circles(const QString& text, bool from_slider) {
    Decimal x;
    std::string why;
    const std::string typed = text.trimmed().toStdString();
    if (typed.empty()) {
        error_ = "Type a number.";
        show_error(error_);
        return false;
    }
    if (!Decimal::try_parse(typed, x, &why)) {
        error_ = "Not a number: " + QString::fromStdString(why);
        show_error(error_);
        return false;
    }
    if (!from_slider) update_slider_range(x);
    try {
        FoneSpec spec = encoder_spec({x}, int_digits_->value(), frac_digits_->value(), base_->value());
        if (int_digits_->value() < 0) {
            const int slider_m = encoder_spec({Decimal::from_scaled(slider_->maximum(), slider_decimals_)},
                                              -1, -1, base_->value())
                                     .int_digits;
            spec.int_digits =
                std::max({spec.int_digits, base_->value() == 10 ? slider_digits_ : 0, slider_m});
        }
        if (frac_digits_->value() < 0 && base_->value() == 10)
            spec.frac_digits = std::max(spec.frac_digits, slider_decimals_);
        if (spec.int_digits + spec.frac_digits > 200)
            throw NumberError("more than 200 circles: choose fewer slots (m, n)");
        circles_ = analysis::unit_circles(x, spec);
    } catch (const std::exception& e) {
        error_ = QString::fromStdString(e.what());
        show_error(error_);
        return false;
    }
    error_.clear();
    show_info(x.negative()
                  ? QStringLiteral("A negative number: FoNE writes −x as the mirror image of x (every sine "
                                   "negated), so its hands and the digit marks turn clockwise, and one more "
                                   "entry, the sign, is 1. The digits are those of |x|.")
                  : QString());
    move_hands();
    Q_EMIT numberChanged(number());
    return true;
}

QString CirclesView::footer() const {
    if (!circles_) return {};
    QString digits;
    bool fraction_started = false;
    for (auto it = circles_->circles.rbegin(); it != circles_->circles.rend(); ++it) {
        if (it->period.exponent <= 0 && !fraction_started) {
            digits += ". ";
            fraction_started = true;
        }
        digits += (it->digit >= 0 ? QString::number(it->digit, 36) : QStringLiteral("?")) + " ";
    }
    const QString sign = circles_->number.negative() ? QStringLiteral("−") : QString();
    QString text =
        QStringLiteral("Read off the circles, highest first: %1%2→ %3%4").arg(sign, digits, sign, read_off());
    if (circles_->base == 10)
        text += QStringLiteral(" (the number: %1)").arg(QString::fromStdString(circles_->number.to_string()));
    else
        text += QStringLiteral(" in base %1").arg(circles_->base);
    return text;
}

QString CirclesView::read_off() const {
    if (!circles_) return {};
    QString out;
    bool fraction_started = false;
    for (auto it = circles_->circles.rbegin(); it != circles_->circles.rend(); ++it) {
        if (it->period.exponent <= 0 && !fraction_started) {
            out += '.';
            fraction_started = true;
        }
        out += it->digit >= 0 ? QString::number(it->digit, 36) : QStringLiteral("?");
    }
    return out;
}

void CirclesView::draw(bool immediate) {
    if (!circles_) return;
    std::string title =
        "FoNE unit circles: one per period T" +
        (circles_->base == 10 ? std::string() : " (base " + std::to_string(circles_->base) + ")");
    if (circles_->number.negative()) title += ", mirrored for a negative number: read clockwise";
    plots::draw_circles(*panel_->plot(), *circles_, title, &handles_, footer().toStdString());
    panel_->plot()->replot(immediate ? QCustomPlot::rpImmediateRefresh : QCustomPlot::rpQueuedReplot);
}

void CirclesView::move_hands() {
    // Same periods as drawn: move what follows the number and repaint only its layer.
    if (circles_ && handles_.layer && plots::update_circles(handles_, *circles_, footer().toStdString())) {
        handles_.layer->replot();
        return;
    }
    draw(false);
}

void CirclesView::redraw_now() {
    draw(true);
}

}  // namespace fone::gui
