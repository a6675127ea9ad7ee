// Hidden state (workbench view "hidden"): pick a trained run, type a prompt, and see what the model's
// digit head reads. The view runs `fone predict --run DIR PROMPT` as a child process (the model never
// loads in the window) and draws, for a FoNE run, each digit slot's pair [h_2k, h_2k+1] of the last hidden
// state (after the head's norm) on the circle of its period: normalised, with its length, the marker it
// points to (the predicted digit), the model's ten probabilities as bars and, when the true answer is
// known (typed, or worked out from an arithmetic prompt), the true digit, wrong digits in red. A run of
// another method (digit-wise, subword, ...) has no digit head: the view shows the tokens it generated and
// their probabilities instead. Reusable: set_run(dir) takes any run directory (a bundled demo model).
//
// A FoNE run's hands can be turned (issue 17): dragging a hand patches that place's pair and the model
// answers again through one long-lived `fone analyse patch --serve` child (PatchSession), live while the
// hand moves and once more on release. "Turn at" picks the site: the digit head's input (the answer's own
// clocks), or the input / the residual stream after block k at a token, whose clocks are drawn above the
// answer's. Reset goes back to the model's own answer.
#pragma once

#include <QElapsedTimer>
#include <functional>
#include <optional>
#include <vector>

#include "analysis_view.h"
#include "circle_plots.h"
#include "fone/analysis/analysis.h"
#include "fone_call.h"
#include "run_picker.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QLineEdit;
class QPushButton;

namespace fone::gui {

class PatchSession;
class PlotPanel;
class RunCatalog;

// The circles of a `fone predict` answer of a FoNE run: slot k's "pair" on the circle of period
// base^(position+1), the model's own probabilities and digit, the predicted value, and (given) the true
// digits. Throws std::invalid_argument when the answer has no digits with pairs (not a FoNE run), and
// NumberError when the true number does not fit the model's slots.
analysis::HiddenCircles hidden_circles_from_prediction(const nlohmann::json& prediction,
                                                       const Decimal* truth = nullptr);

// fone::exact_answer of the prompt without its surrounding spaces: "a+b=", "a-b=", "a*b=", "a+b mod p="
// (nullopt for anything else, e.g. a classification prompt or free text).
std::optional<Decimal> expected_answer(const QString& prompt);

// A prompt of the run's task to start from ("527.38+94.605=" for dec-add, ...); "" for file tasks.
QString example_prompt(const nlohmann::json& config);

class HiddenView : public AnalysisView {
    Q_OBJECT
    Q_PROPERTY(QString run READ run WRITE set_run)
    Q_PROPERTY(QString prompt READ prompt WRITE set_prompt)
    Q_PROPERTY(QString truth READ truth WRITE set_truth)
    // For screenshots (--set site=0:1 --set turn=0:5): the site "head" | "LAYER" | "LAYER:POSITION", and a
    // hand turned once the model has answered, "PLACE:DIGIT" as a release there.
    Q_PROPERTY(QString site READ site WRITE set_site)
    Q_PROPERTY(QString turn READ turn WRITE set_turn)
  public:
    explicit HiddenView(RunCatalog* catalog, QWidget* parent = nullptr);

    // A run name of the store or any run directory; false when it has no model.
    bool set_run(const QString& name_or_dir);
    QString run() const;  // the run directory ("" when none)
    void set_prompt(const QString& prompt);
    QString prompt() const;
    // The true answer; "" works it out from an arithmetic prompt.
    void set_truth(const QString& truth);
    QString truth() const;
    void set_program(const QString& fone);  // the `fone` to run (default: next to the program, or $FONE_CLI)

    // A look at the prompt before the model is asked: a sentence saying why it is refused, "" to ask. The
    // welcome view refuses sums outside what its demo model has learned.
    void set_prompt_check(std::function<QString(const QString&)> check) { check_ = std::move(check); }
    // Runs `fone predict` now (the view also does it by itself when the run or the prompt changes and it
    // is visible).
    void predict();
    const nlohmann::json& prediction() const { return prediction_; }
    const std::optional<analysis::HiddenCircles>& circles() const { return circles_; }
    // The answer as the picture's last line says it ("The model answers 777.777 · true 777.777 ✓ · 6 of 6
    // digits right"), and with the notes under the picture (tokens, problems), as plain text.
    QString answer_line() const { return answer_line_; }
    QString summary() const;
    QCustomPlot* plot() const;
    PlotPanel* panel() const { return panel_; }
    RunPicker* runs() const { return runs_; }
    // Only the picture and its notes (presenter mode asks through set_prompt and predict).
    void set_controls_visible(bool visible);
    // Only the run's row (the welcome view shows its own model, and its height goes to the clocks).
    void set_run_row_visible(bool visible);
    // For newcomers (the welcome view): no "turn at" row (a hand turns at the digit head only: sites draw
    // a second row of clocks the welcome's short figure has no room for) and no "prompt tokens" line.
    void set_plain(bool plain);
    // Draws the last answer again (at the plot's size and paper).
    void redraw();

    // ---- Turning a hand (issue 17) ----
    // Where a turned hand acts: -1 the digit head's input; 0 the input, k the residual stream after block k,
    // at token `position` (0 = [BOS]; -1: the first number at the input, the last token after a block).
    void set_patch_site(int layer, int position = -1);
    int patch_layer() const;
    int patch_position() const;
    // Turns place's hand to `angle` (radians, 0 = digit 0, counter-clockwise), as a drag does: live, or as
    // the release (at the input at a number: the operand gets the digit whose sector the hand is in).
    void turn_hand(int place, double angle, bool release);
    void reset_patch();  // the model's own answer again
    QString site() const;
    void set_site(const QString& site);
    QString turn() const { return pending_turn_; }
    void set_turn(const QString& place_digit);
    // Where each clock was drawn (plot coordinates), for the mouse and for tests.
    const std::vector<plots::ClockSpot>& clock_spots() const { return spots_; }
    const nlohmann::json& last_patch() const { return last_patch_; }
    // Milliseconds from each mouse event (or turn_hand call) to its answer drawn, in order.
    const std::vector<double>& patch_latencies_ms() const { return latencies_ms_; }
    // ... of which the redraw: from the answer read to the plot drawn.
    const std::vector<double>& patch_draw_ms() const { return draw_ms_; }
    PatchSession* patch_session() const { return session_; }

  Q_SIGNALS:
    void predicted();                           // prediction() and circles() are new
    void predictionFailed(const QString& why);  // shown in the view too
    void patched();                             // a patch's answer is drawn

  protected:
    void refresh() override { predict(); }

  private:
    bool plain_ = false;  // set_plain
    QWidget* prompt_row();
    void clear_answer(const QString& why);
    void connect_signals();
    QString draw_circles(QCustomPlot& plot, const QString& answer);
    QString draw_answer_without_circles(QCustomPlot& plot, const QString& answer, const QString& value,
                                        const std::optional<Decimal>& truth);
    void on_result(const nlohmann::json& result);
    void on_failure(const QString& message);
    std::optional<Decimal> true_answer(QString* note) const;
    QWidget* patch_row();
    void connect_patching();
    void fill_sites();
    void look_at_site();
    void fill_positions();
    void send_turn(int place, double angle, bool release, qint64 event_ms);
    void on_patch_answer(const nlohmann::json& answer, const nlohmann::json& request, qint64 event_ms);
    bool on_plot_mouse(QMouseEvent* event);
    QString turn_text() const;
    QString patched_prompt(const QString& prompt) const;
    void draw(bool immediately);

    RunPicker* runs_;
    QWidget *run_row_, *prompt_row_;
    QLineEdit *prompt_, *truth_;
    QPushButton *predict_button_, *cancel_button_;
    PlotPanel* panel_;
    QLabel* summary_;
    FoneCall* call_;
    QTimer* debounce_;
    nlohmann::json prediction_;
    std::optional<analysis::HiddenCircles> circles_;
    QString default_prompt_;
    QString answer_line_;
    std::function<QString(const QString&)> check_;

    PatchSession* session_;
    QWidget* patch_row_;
    QComboBox *layer_box_, *position_box_;
    QPushButton* reset_button_;
    QLabel* patch_info_;
    nlohmann::json base_prediction_;         // fone predict's answer: what Reset goes back to
    nlohmann::json last_patch_;              // the last patch answer drawn
    std::optional<plots::SiteClocks> site_;  // the site's clocks (a patch inside the network)
    std::vector<plots::ClockSpot> spots_;
    std::optional<plots::ClockSpot> dragged_;
    int wanted_position_ = -1;  // the token chosen (kept while the prompt's tokens change)
    QString pending_turn_;      // set_turn's, until the model has answered
    QElapsedTimer clock_;
    std::vector<double> latencies_ms_, draw_ms_;
};

}  // namespace fone::gui
