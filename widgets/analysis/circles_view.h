// Unit circles (workbench view "circles"): type a number or drag the slider and see FoNE write it, one
// circle per period T = base^i with the digit markers φ(j) = (cos 2πj/base, sin 2πj/base), the number's
// point at angle 2π·(x mod T)/T, the residue x mod T, and the digit each circle carries (⌊base·turns⌋),
// read off into the number again. Exact for numbers of any length and for decimals (fone/analysis.h);
// no model needed. A reusable widget: the welcome view embeds it with set_number().
#pragma once

#include <optional>

#include "analysis_plots.h"
#include "analysis_view.h"
#include "fone/analysis/analysis.h"

class QCustomPlot;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;

namespace fone::gui {

class PlotPanel;

class CirclesView : public AnalysisView {
    Q_OBJECT
    Q_PROPERTY(QString number READ number WRITE set_number)
  public:
    explicit CirclesView(QWidget* parent = nullptr);

    // The number as typed (exact decimal text, any length; "-" for negatives). Returns false, and shows why
    // in the view, when it is not a number or does not fit the slots; the last good circles stay.
    bool set_number(const QString& text);
    QString number() const;
    void set_base(int base);                          // 2..36
    void set_slots(int int_digits, int frac_digits);  // m, n; -1: just enough for the number (auto)

    // The circles drawn now (none before the first good number).
    const std::optional<analysis::UnitCircles>& circles() const { return circles_; }
    // The digits read off the circles, highest first, with '.' between integer and fraction: "1234.567".
    QString read_off() const;
    // The line under the circles: the digits read off, and the number they make.
    QString footer() const;
    QString error() const { return error_; }

    QCustomPlot* plot() const;
    QSlider* slider() const { return slider_; }
    QLineEdit* number_field() const { return number_edit_; }
    // Draws the current circles and replots now.
    void redraw_now();

  Q_SIGNALS:
    void numberChanged(const QString& number);

  private:
    bool update_circles(const QString& text, bool from_slider);
    void update_slider_range(const Decimal& x);
    void draw(bool immediate);  // everything, then a whole replot
    void move_hands();          // only what follows the number, when the periods are the same

    PlotPanel* panel_;
    QLineEdit* number_edit_;
    QSpinBox *base_, *int_digits_, *frac_digits_;
    QSlider* slider_;
    QLabel* slider_label_;
    std::optional<analysis::UnitCircles> circles_;
    plots::CircleHandles handles_;
    QString error_;
    int slider_decimals_ = 3;  // the slider moves in steps of 10^-slider_decimals_
    int slider_digits_ = 4;    // integer slots kept while dragging (auto m never shrinks under the slider)
};

}  // namespace fone::gui
