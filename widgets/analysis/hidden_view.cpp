#include "hidden_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>
#include <cmath>
#include <map>
#include <numbers>

#include "analysis_plots.h"
#include "fone/analysis/interventions.h"
#include "fone/tasks/expression.h"
#include "patch_session.h"
#include "plot_panel.h"

namespace fone::gui {

using nlohmann::json;

analysis::HiddenCircles hidden_circles_from_prediction(const json& prediction, const Decimal* truth) {
    if (!prediction.contains("digits") || !prediction["digits"].is_array() || prediction["digits"].empty())
        throw std::invalid_argument("the answer has no digit slots (not a FoNE run)");
    std::map<int, const json*> by_position;
    int base = 0;
    for (const json& d : prediction["digits"]) {
        if (!d.contains("pair") || !d["pair"].is_array() || d["pair"].size() != 2 ||
            !d.contains("position") || !d.contains("probabilities") || !d["probabilities"].is_array())
            throw std::invalid_argument(
                "the answer's digits have no (cos, sin) pairs (not a FoNE digit head)");
        by_position[d["position"].get<int>()] = &d;
        const int b = static_cast<int>(d["probabilities"].size());
        if (base && b != base) throw std::invalid_argument("digit slots with different bases");
        base = b;
    }
    const int lowest = by_position.begin()->first, highest = by_position.rbegin()->first;
    if (highest - lowest + 1 != static_cast<int>(by_position.size()))
        throw std::invalid_argument("the answer's digit positions are not contiguous");
    FoneSpec spec;
    spec.base = base;
    spec.int_digits = std::max(0, highest + 1);
    spec.frac_digits = std::max(0, -lowest);
    if (lowest > 0 || highest < -1)
        throw std::invalid_argument("the digit positions do not include the units");
    spec.sign_feature = true;
    std::vector<float> hidden;
    for (const auto& [position, d] : by_position) {
        hidden.push_back((*d)["pair"][0].get<float>());
        hidden.push_back((*d)["pair"][1].get<float>());
    }
    const double p = std::clamp(prediction.value("negative_probability", 0.0), 1e-9, 1.0 - 1e-9);
    hidden.push_back(static_cast<float>(std::log(p / (1.0 - p))));
    analysis::HiddenCircles circles = analysis::hidden_circles(hidden, spec, truth);
    // The model's own probabilities and digits (its head may have a learned temperature).
    std::size_t k = 0;
    for (const auto& [position, d] : by_position) {
        analysis::HiddenSlot& slot = circles.pairs[k++];
        slot.probabilities = (*d)["probabilities"].get<std::vector<double>>();
        slot.predicted = d->value("digit", slot.predicted);
    }
    Decimal value;
    if (Decimal::try_parse(prediction.value("value", std::string()), value)) circles.predicted = value;
    return circles;
}

std::optional<Decimal> expected_answer(const QString& prompt) {
    return exact_answer(prompt.trimmed().toStdString());
}

QString example_prompt(const json& config) {
    const std::string task = config.value("task", std::string());
    if (task == "dec-add") return "527.38+94.605=";
    if (task == "int-add") return "52738+94605=";
    if (task == "sub") return "52738-9460=";
    if (task == "mul3") return "527*94=";
    if (task == "mul4") return "5273*946=";
    if (task == "mod-add") return QStringLiteral("52+94 mod %1=").arg(config.value("modulus", 97));
    if (task == "classify") return "120,450,900=";
    if (task == "long-add") return "123456789012+987654321098=";
    if (task == "div") return "1234.56/48=";
    if (task == "compare") return "527.381 max 527.093=";
    return {};
}

HiddenView::HiddenView(RunCatalog* catalog, QWidget* parent) : AnalysisView(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    run_row_ = new QWidget;
    auto* row1 = new QHBoxLayout(run_row_);
    row1->setContentsMargins(0, 0, 0, 0);
    runs_ = new RunPicker(catalog);
    row1->addWidget(new QLabel("Run"));
    row1->addWidget(runs_, 1);
    layout->addWidget(run_row_);
    prompt_row_ = prompt_row();
    layout->addWidget(prompt_row_);
    patch_row_ = patch_row();
    layout->addWidget(patch_row_);
    panel_ = new PlotPanel;
    panel_->layout()->setContentsMargins(0, 0, 0, 0);
    // Export… at the end of the prompt row: no row of its own (height is scarce on a small screen).
    prompt_row_->layout()->addWidget(panel_->add_export_button());
    panel_->controls()->setContentsMargins(0, 0, 0, 0);
    panel_->plot()->setToolTip(
        "One circle per digit slot of the answer, highest digit first. The blue hand is the model's hidden "
        "pair [h2k, h2k+1] normalised to length 1 ('length' under a circle is its length before); the head "
        "scores digit j by the "
        "hand's dot product with the marker φ(j), so the marker it points to is the predicted digit (green "
        "when "
        "right, red when wrong; the true digit ringed). The bars are the ten digits' probabilities.");
    panel_->plot()->setMinimumSize(160, 120);
    make_figure(panel_, [this] { redraw(); });
    layout->addWidget(panel_, 1);
    summary_ = new QLabel;
    summary_->setTextFormat(Qt::RichText);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    layout->addWidget(status_label());
    connect_signals();
    connect_patching();
    if (!runs_->run_dir().isEmpty()) {
        default_prompt_ = example_prompt(runs_->config());
        set_prompt(default_prompt_);
        request_refresh();
    }
}

// The prompt, the true answer, Predict and Cancel.
QWidget* HiddenView::prompt_row() {
    auto* box = new QWidget;
    auto* row2 = new QHBoxLayout(box);
    row2->setContentsMargins(0, 0, 0, 0);
    prompt_ = new QLineEdit;
    prompt_->setPlaceholderText("a prompt of the run's task, e.g. 527.38+94.605=");
    prompt_->setToolTip("What the model is asked. Numbers in it become FoNE tokens (one per number).");
    truth_ = new QLineEdit;
    truth_->setPlaceholderText("worked out from the prompt");
    truth_->setToolTip(
        "The true answer, to mark the digits the model gets wrong. Empty: worked out exactly from "
        "an arithmetic prompt (+, -, *, mod).");
    // Room for a whole sum ("123.456+654.321="); the true answer needs less.
    prompt_->setMinimumWidth(prompt_->fontMetrics().horizontalAdvance("123.456+654.321=") + 28);
    truth_->setMaximumWidth(prompt_->fontMetrics().horizontalAdvance("0000.0000") + 28);
    predict_button_ = new QPushButton("Predict");
    predict_button_->setToolTip("Ask the model (it answers in the background; the window stays free)");
    cancel_button_ = new QPushButton("Cancel");
    cancel_button_->setEnabled(false);
    row2->addWidget(new QLabel("Prompt"));
    row2->addWidget(prompt_, 1);
    row2->addWidget(new QLabel("True"));
    row2->addWidget(truth_);
    row2->addWidget(predict_button_);
    row2->addWidget(cancel_button_);
    return box;
}

void HiddenView::set_run_row_visible(bool visible) {
    run_row_->setVisible(visible);
}

void HiddenView::set_plain(bool plain) {
    plain_ = plain;
    patch_row_->setVisible(!plain);
    set_plain_provenance(plain);
}

void HiddenView::set_controls_visible(bool visible) {
    run_row_->setVisible(visible);
    prompt_row_->setVisible(visible);
    patch_row_->setVisible(visible);
}

// Predict on demand, on Return and once typing pauses; the true answer and the run's example prompt follow
// what is typed and chosen.
void HiddenView::connect_signals() {
    call_ = new FoneCall(default_fone_program(), this);
    call_->set_timeout_ms(120000);
    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(500);
    connect(debounce_, &QTimer::timeout, this, [this] { request_refresh(); });
    connect(call_, &FoneCall::succeeded, this, &HiddenView::on_result);
    connect(call_, &FoneCall::failed, this, &HiddenView::on_failure);
    connect(predict_button_, &QPushButton::clicked, this, &HiddenView::predict);
    connect(prompt_, &QLineEdit::returnPressed, this, &HiddenView::predict);
    connect(cancel_button_, &QPushButton::clicked, this, [this] {
        call_->cancel();
        cancel_button_->setEnabled(false);
        set_busy(false);
        show_info("Cancelled.");
    });
    connect(prompt_, &QLineEdit::textEdited, this, [this] {
        const std::optional<Decimal> answer =
            expected_answer(prompt_->text());  // once (bounded: expression.h)
        truth_->setPlaceholderText(answer ? "auto: " + QString::fromStdString(answer->to_string())
                                          : "not worked out: type it");
        debounce_->start();
    });
    connect(truth_, &QLineEdit::textEdited, this, [this] { redraw(); });
    connect(runs_, &RunPicker::runChanged, this, [this] {
        const QString example = example_prompt(runs_->config());
        if (prompt_->text().isEmpty() || prompt_->text() == default_prompt_) {
            prompt_->setText(example);
            Q_EMIT prompt_->textEdited(example);
        }
        default_prompt_ = example;
        prediction_ = json();
        circles_.reset();
        debounce_->stop();
        request_refresh();
    });
    on_resize(panel_->plot(), [this] {
        if (circles_) redraw();
    });
}

QCustomPlot* HiddenView::plot() const {
    return panel_->plot();
}

bool HiddenView::set_run(const QString& name_or_dir) {
    return runs_->set_run(name_or_dir);
}

QString HiddenView::run() const {
    return runs_->run_dir();
}

void HiddenView::set_prompt(const QString& prompt) {
    prompt_->setText(prompt);
    Q_EMIT prompt_->textEdited(prompt);
}

QString HiddenView::prompt() const {
    return prompt_->text();
}

void HiddenView::set_truth(const QString& truth) {
    truth_->setText(truth);
    redraw();
}

QString HiddenView::truth() const {
    return truth_->text();
}

void HiddenView::set_program(const QString& fone) {
    call_->set_program(fone);
    session_->set_program(fone);
}

void HiddenView::predict() {
    debounce_->stop();
    // A new question replaces the one still being answered, refused or not: the old answer must not land
    // under the new question (a refusal, then the previous sum's answer a second later).
    if (call_->running()) {
        call_->cancel();
        cancel_button_->setEnabled(false);
        set_busy(false);
    }
    if (runs_->run_dir().isEmpty()) {
        show_error(
            "Choose a trained run first (train one in the Launch panel, or open a run directory with …).");
        return;
    }
    const QString prompt = prompt_->text().trimmed();
    if (prompt.isEmpty()) {
        clear_answer("Type a question, e.g. " +
                     (default_prompt_.isEmpty() ? QString("12.5+3.25=") : default_prompt_));
        return;
    }
    // A sum outside what the model learned gets a sentence instead of a confident wrong answer (first: a
    // question it cannot read must not be offered back with an '=' added).
    if (const QString refused = check_ ? check_(prompt) : QString(); !refused.isEmpty()) {
        clear_answer(refused);
        show_info(refused);
        Q_EMIT predictionFailed(refused);
        return;
    }
    // An arithmetic model writes what follows '=': without it, it would answer something else.
    if (!example_prompt(runs_->config()).isEmpty() && !prompt.endsWith('=')) {
        clear_answer("End the question with '=', e.g. " + prompt +
                     "=  (the model writes the answer after it)");
        return;
    }
    show_info("Asking the model…");
    set_busy(true);
    cancel_button_->setEnabled(true);
    follow_run(runs_->run_dir());
    call_->start({"predict", "--run", runs_->run_dir(), prompt_->text().trimmed()});
}

void HiddenView::on_result(const json& result) {
    cancel_button_->setEnabled(false);
    prediction_ = base_prediction_ = result;
    last_patch_ = json();
    site_.reset();
    show_info(QString());
    redraw();
    set_busy(false);
    fill_positions();
    if (patch_layer() >= 0) look_at_site();
    if (!pending_turn_.isEmpty() && circles_) {
        const QStringList parts = pending_turn_.split(':');
        turn_hand(parts.value(0).toInt(), analysis::digit_angle(parts.value(1).toInt()), true);
    }
    Q_EMIT predicted();
}

void HiddenView::on_failure(const QString& message) {
    cancel_button_->setEnabled(false);
    clear_answer("No answer: " + message.section('\n', 0, 0));
    set_busy(false);
    Q_EMIT predictionFailed(message);
}

// The last answer goes (its picture would read as the answer to the new question), and why is said.
void HiddenView::clear_answer(const QString& why) {
    prediction_ = base_prediction_ = last_patch_ = json();
    site_.reset();
    spots_.clear();
    circles_.reset();
    answer_line_.clear();
    summary_->clear();
    show_error(why);
    plots::draw_message(*panel_->plot(), why.toStdString());
    panel_->plot()->replot(QCustomPlot::rpQueuedReplot);
}

std::optional<Decimal> HiddenView::true_answer(QString* note) const {
    const QString typed = truth_->text().trimmed();
    if (typed.isEmpty())
        return expected_answer(
            patched_prompt(prediction_.value("prompt", prompt_->text().toStdString()).c_str()));
    Decimal x;
    std::string why;
    if (Decimal::try_parse(typed.toStdString(), x, &why)) return x;
    *note = "The true answer is not a number (" + QString::fromStdString(why) + ").";
    return std::nullopt;
}

QString HiddenView::summary() const {
    const QString notes = plain_text(summary_->text());
    return notes.isEmpty() ? answer_line_ : answer_line_ + " · " + notes;
}

void HiddenView::redraw() {
    draw(false);
}

void HiddenView::draw(bool immediately) {
    if (!prediction_.is_object()) return;
    QString note;
    const std::optional<Decimal> truth = true_answer(&note);
    QCustomPlot& plot = *panel_->plot();
    const QString value = QString::fromStdString(prediction_.value("value", std::string()));
    QStringList tokens;
    if (prediction_.contains("tokens") && prediction_["tokens"].is_array())
        for (const json& t : prediction_["tokens"])
            tokens << QString::fromStdString(t.get<std::string>()).toHtmlEscaped();
    circles_.reset();
    if (prediction_.contains("digits")) {
        try {
            circles_ = hidden_circles_from_prediction(prediction_, truth ? &*truth : nullptr);
        } catch (const NumberError& e) {
            note =
                "The true answer does not fit the model's digit slots: " + QString::fromStdString(e.what());
            circles_ = hidden_circles_from_prediction(prediction_, nullptr);
        } catch (const std::exception& e) {
            note = QString::fromStdString(e.what());
        }
    }
    const QString answer =
        QStringLiteral("The model answers %1").arg(value.isEmpty() ? "(no number)" : value);
    answer_line_ =
        circles_ ? draw_circles(plot, answer) : draw_answer_without_circles(plot, answer, value, truth);
    patch_row_->setEnabled(circles_.has_value());  // only a FoNE digit head's hands turn
    QStringList notes;
    if (!tokens.isEmpty() && !plain_) notes << "prompt tokens: " + tokens.join(" ");
    if (!note.isEmpty()) notes << "<span style='color:#c62828'>" + note.toHtmlEscaped() + "</span>";
    summary_->setText(notes.join(" · "));
    summary_->setVisible(!notes.isEmpty());  // no empty line under the figure
    plot.replot(immediately ? QCustomPlot::rpImmediateRefresh : QCustomPlot::rpQueuedReplot);
}

// The hidden state on the digit circles, the answer under them; returns the answer line.
QString HiddenView::draw_circles(QCustomPlot& plot, const QString& answer) {
    QString text = answer;
    int right = 0;
    for (const auto& slot : circles_->pairs)
        right += slot.truth >= 0 && !slot.wrong();
    if (circles_->has_truth) {
        const bool exact = circles_->truth == circles_->predicted;
        text += QStringLiteral(" · true %1 %2 · %3 of %4 digits right")
                    .arg(QString::fromStdString(circles_->truth.to_string()), exact ? "✓" : "✗")
                    .arg(right)
                    .arg(circles_->pairs.size());
    }
    if (!runs_->config().value("period_multipliers", json::array()).empty())
        text += " · mixed periods: each circle shows its slot's first pair";
    if (!turn_text().isEmpty()) text += " · " + turn_text();
    spots_ = plots::draw_turnable_circles(plot, *circles_, site_ ? &*site_ : nullptr,
                                          "Hidden state of " + runs_->run_name().toStdString() + " for " +
                                              prediction_.value("prompt", std::string()),
                                          text.toStdString());
    return text;
}

// Runs without (cos, sin) digit pairs: a token method's tokens, xVal's number or fone-direct's raw slots.
QString HiddenView::draw_answer_without_circles(QCustomPlot& plot, const QString& answer,
                                                const QString& value, const std::optional<Decimal>& truth) {
    QString text = answer;
    if (prediction_.contains("generated")) {
        // A token method: the tokens it wrote, each with its probability.
        std::vector<std::string> labels;
        std::vector<double> probabilities;
        for (const json& step : prediction_["generated"]) {
            labels.push_back(step.value("token", std::string("?")));
            probabilities.push_back(step.value("probability", 0.0));
        }
        plots::draw_bars(plot, labels, probabilities,
                         {.title = "No digit head: " + runs_->method().toStdString() +
                                   " writes the answer token by token (probability of each token it chose)",
                          .x_label = "generated tokens, in order",
                          .y_label = "probability"});
        if (truth)
            text += " · true " + QString::fromStdString(truth->to_string()) +
                    (value == QString::fromStdString(truth->to_string()) ? " ✓" : " ✗");
        text += " · " + runs_->method() + " runs have no (cos, sin) digit pairs to draw";
        plots::add_footer(plot, text.toStdString());
    } else if (prediction_.contains("regression")) {
        text += QStringLiteral(" · regression output %1 (xVal: one number, no digit pairs)")
                    .arg(prediction_.value("regression", 0.0));
        plots::draw_message(plot, text.toStdString());
    } else if (prediction_.contains("digits")) {
        // fone-direct: a raw value per slot.
        std::vector<std::string> labels;
        std::vector<double> raw;
        for (const json& d : prediction_["digits"]) {
            labels.push_back("10^" + std::to_string(d.value("position", 0)));
            raw.push_back(d.value("raw", 0.0));
        }
        plots::draw_bars(plot, labels, raw,
                         {.title = "Direct digit outputs (no circles: each slot regresses its digit)",
                          .x_label = "digit slot",
                          .y_label = "raw output",
                          .y_max = 9.0,
                          .percent = false});
        plots::add_footer(plot, text.toStdString());
    }
    return text;
}

// ---- Turning a hand ---------------------------------------------------------------------------------

namespace {

constexpr qint64 kLookTag = -1;  // a request that only reads the site (nothing is drawn as turned)

// The site's pairs ([{"position", "pair"}]) as circles: no probabilities, no digit read.
analysis::HiddenCircles site_circles(const json& site, int base) {
    json fake = {{"digits", json::array()}};
    for (const json& p : site)
        fake["digits"].push_back({{"position", p.at("position")},
                                  {"pair", p.at("pair")},
                                  {"probabilities", std::vector<double>(static_cast<std::size_t>(base), 0.0)},
                                  {"digit", -1}});
    return hidden_circles_from_prediction(fake);
}

// A number of a prompt, as the [NUM] tokens read them.
const QRegularExpression& number_pattern() {
    static const QRegularExpression number(R"(\d+(\.\d+)?)");
    return number;
}

// The numbers of a prompt in order ("123.456+654.321=" -> 123.456, 654.321): the [NUM] tokens' names.
QStringList prompt_numbers(const QString& prompt) {
    QStringList numbers;
    for (auto it = number_pattern().globalMatch(prompt); it.hasNext();)
        numbers << it.next().captured(0);
    return numbers;
}

QString place_word(int place) {
    return QString::fromStdString(plots::place_name(place, 10));
}

}  // namespace

// Turn at [the digit head | input | block k] at [token] · Reset · the last answer and its time.
QWidget* HiddenView::patch_row() {
    auto* box = new QWidget;
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    layer_box_ = new QComboBox;
    layer_box_->setToolTip(
        "Where a dragged hand acts. The digit head: the answer's own clocks (its place becomes the digit you "
        "point at, no other place changes). Input / after block k: the pairs at one token (drawn above the "
        "answer); at the input at a number, its own FoNE features: on release the number gets the digit "
        "whose sector the hand is in, as if the operand had been typed so.");
    position_box_ = new QComboBox;
    position_box_->setToolTip("The token whose pairs turn (0 is [BOS])");
    position_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    reset_button_ = new QPushButton("Reset");
    reset_button_->setToolTip("The model's own answer again (double-clicking the plot does the same)");
    patch_info_ = new QLabel;
    patch_info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row->addWidget(new QLabel("Drag a hand · turn at"));
    row->addWidget(layer_box_);
    row->addWidget(position_box_);
    row->addWidget(reset_button_);
    row->addWidget(patch_info_, 1);
    position_box_->setVisible(false);
    return box;
}

void HiddenView::connect_patching() {
    session_ = new PatchSession(this);
    connect(session_, &PatchSession::answered, this, &HiddenView::on_patch_answer);
    connect(session_, &PatchSession::failed, this, [this](const QString& why) {
        if (!session_->busy()) set_busy(false);
        show_error("Turning the hand: " + why.section('\n', 0, 0));
    });
    connect(layer_box_, &QComboBox::currentIndexChanged, this, [this] {
        position_box_->setVisible(patch_layer() >= 0);
        fill_positions();
        look_at_site();
    });
    // A site chosen by hand starts at its default token.
    connect(layer_box_, &QComboBox::activated, this, [this] {
        wanted_position_ = -1;
        fill_positions();
        look_at_site();
    });
    connect(position_box_, &QComboBox::activated, this, [this] {
        wanted_position_ = position_box_->currentData().toInt();
        look_at_site();
    });
    connect(reset_button_, &QPushButton::clicked, this, &HiddenView::reset_patch);
    for (auto signal : {&QCustomPlot::mousePress, &QCustomPlot::mouseMove, &QCustomPlot::mouseRelease,
                        &QCustomPlot::mouseDoubleClick})
        connect(panel_->plot(), signal, this, [this](QMouseEvent* e) { on_plot_mouse(e); });
    connect(runs_, &RunPicker::runChanged, this, [this] {
        session_->close();
        fill_sites();
    });
    fill_sites();
    clock_.start();
}

// The sites of the run: the digit head, the input, after each block; the tokens of the last prompt.
void HiddenView::fill_sites() {
    const QSignalBlocker block(layer_box_);
    layer_box_->clear();
    layer_box_->addItem("the digit head", -1);
    layer_box_->addItem("the input", 0);
    const int layers = runs_->config().value("model", json::object()).value("layers", 0);
    for (int k = 1; k <= layers; ++k)
        layer_box_->addItem(QStringLiteral("after block %1").arg(k), k);
    position_box_->setVisible(false);
}

int HiddenView::patch_layer() const {
    return layer_box_->currentData().isValid() ? layer_box_->currentData().toInt() : -1;
}

int HiddenView::patch_position() const {
    return patch_layer() >= 0 && position_box_->currentIndex() >= 0 ? position_box_->currentData().toInt()
                                                                    : -1;
}

void HiddenView::set_patch_site(int layer, int position) {
    const int index = layer_box_->findData(layer);
    if (index < 0) return;
    wanted_position_ = position;
    if (index == layer_box_->currentIndex()) {
        fill_positions();
        look_at_site();
    }
    layer_box_->setCurrentIndex(index);  // fills the tokens and looks at the site
}

// The model's own answer again, and the site's clocks as they are (a request that turns nothing it shows).
void HiddenView::look_at_site() {
    session_->forget();
    prediction_ = base_prediction_;
    last_patch_ = json();
    site_.reset();
    patch_info_->clear();
    set_busy(false);
    draw(false);
    if (patch_layer() < 0 || !circles_ || base_prediction_.value("prompt", std::string()).empty()) return;
    session_->open(runs_->run_dir());
    set_busy(true);
    session_->request({{"prompt", base_prediction_["prompt"]},
                       {"place", 0},
                       {"angle", 0.0},
                       {"layer", patch_layer()},
                       {"position", patch_position()}},
                      kLookTag);
}

// The prompt's tokens to turn at (not [BOS]), numbers named; the default one for the site.
void HiddenView::fill_positions() {
    const QSignalBlocker block(position_box_);
    position_box_->clear();
    if (!base_prediction_.is_object()) return;  // no answer yet: its tokens come with it
    const QStringList numbers = prompt_numbers(base_prediction_.value("prompt", std::string()).c_str());
    int n = 0, position = 0;
    for (const json& t : base_prediction_.value("tokens", json::array())) {
        QString token = QString::fromStdString(t.get<std::string>());
        const bool number = token == "[NUM]" && n < numbers.size();
        if (number) token = numbers[n++];
        if (position > 0) {
            position_box_->addItem(QStringLiteral("%1 (token %2)").arg(token).arg(position), position);
            if (number) position_box_->setItemData(position_box_->count() - 1, "number", Qt::UserRole + 1);
        }
        ++position;
    }
    // The one asked for; else at the input the first number, inside the network the last token (where the
    // answer is written).
    const int first_number = position_box_->findData(QStringLiteral("number"), Qt::UserRole + 1);
    const int wanted = position_box_->findData(wanted_position_);
    position_box_->setCurrentIndex(wanted >= 0                               ? wanted
                                   : patch_layer() == 0 && first_number >= 0 ? first_number
                                                                             : position_box_->count() - 1);
}

void HiddenView::reset_patch() {
    look_at_site();
}

QString HiddenView::site() const {
    return patch_layer() < 0 ? QStringLiteral("head")
                             : QStringLiteral("%1:%2").arg(patch_layer()).arg(patch_position());
}

void HiddenView::set_site(const QString& site) {
    const QStringList parts = site.split(':');
    set_patch_site(parts[0] == "head" ? -1 : parts[0].toInt(), parts.value(1, "-1").toInt());
}

void HiddenView::set_turn(const QString& place_digit) {
    pending_turn_ = place_digit;
    if (circles_ && !place_digit.isEmpty()) {
        const QStringList parts = place_digit.split(':');
        turn_hand(parts.value(0).toInt(), analysis::digit_angle(parts.value(1).toInt()), true);
    }
}

void HiddenView::turn_hand(int place, double angle, bool release) {
    send_turn(place, angle, release, clock_.nsecsElapsed() / 1000);
}

void HiddenView::send_turn(int place, double angle, bool release, qint64 event_us) {
    if (!circles_ || !base_prediction_.is_object()) return;
    session_->open(runs_->run_dir());
    const int layer = patch_layer();
    json r = {{"prompt", base_prediction_.value("prompt", std::string())}, {"place", place}};
    r["layer"] = layer < 0 ? json("head") : json(layer);
    if (layer >= 0) r["position"] = patch_position();
    const bool at_number = layer == 0 && position_box_->currentData(Qt::UserRole + 1).toString() == "number";
    if (release && at_number)
        r["digit"] = static_cast<int>(std::floor(angle * 10 / (2 * std::numbers::pi))) % 10;
    else
        r["angle"] = angle * 180 / std::numbers::pi;
    session_->request(r, event_us);
    set_busy(true);
    // The hand follows the mouse at once; the answer redraws everything when it comes.
    for (const plots::ClockSpot& spot : spots_)
        if (spot.place == place && spot.site == (layer >= 0) && spot.hand) {
            spot.hand->end->setCoords(spot.cx + std::cos(angle), spot.cy + std::sin(angle));
            panel_->plot()->replot(QCustomPlot::rpQueuedReplot);
        }
}

void HiddenView::on_patch_answer(const json& answer, const json&, qint64 event_us) {
    if (!session_->busy()) set_busy(false);
    const bool look = event_us == kLookTag;
    const std::string when = look ? "before" : "after";
    prediction_ = base_prediction_;
    prediction_["value"] = answer.at(when);
    prediction_["digits"] = answer.at("digits_" + when);
    prediction_["negative_probability"] = answer.value("negative_probability_" + when, 0.0);
    last_patch_ = look ? json() : answer;
    const qint64 read_us = clock_.nsecsElapsed() / 1000;
    site_.reset();
    if (answer.value("layer_name", std::string("head")) != "head" && circles_) {
        site_ = plots::SiteClocks{
            site_circles(answer.at("site_" + when), circles_->base),
            ("Turn a hand here: " + layer_box_->currentText() + ", at " + position_box_->currentText())
                .toStdString()};
    }
    draw(true);
    if (look) return;
    const qint64 drawn_us = clock_.nsecsElapsed() / 1000;
    const double ms = (drawn_us - event_us) / 1000.0;
    latencies_ms_.push_back(ms);
    draw_ms_.push_back((drawn_us - read_us) / 1000.0);
    patch_info_->setText(QStringLiteral("%1 · answered and drawn in %2 ms")
                             .arg(QString::fromStdString(answer.value("after", std::string())))
                             .arg(ms, 0, 'f', 1));
    Q_EMIT patched();
}

// The prompt as the model read it: an operand turned at the input reads as its new number.
QString HiddenView::patched_prompt(const QString& prompt) const {
    if (!last_patch_.is_object() || !last_patch_.contains("number_after")) return prompt;
    int operand = 0;  // the [NUM] tokens before the patched one
    const json& tokens = last_patch_.value("tokens", json::array());
    for (int i = 0; i < last_patch_.value("position", 0) && i < static_cast<int>(tokens.size()); ++i)
        operand += tokens[static_cast<std::size_t>(i)] == "[NUM]";
    QString out = prompt;
    auto it = number_pattern().globalMatch(prompt);
    for (int n = 0; it.hasNext(); ++n) {
        const auto match = it.next();
        if (n != operand) continue;
        return out.replace(match.capturedStart(), match.capturedLength(),
                           QString::fromStdString(last_patch_["number_after"].get<std::string>()));
    }
    return prompt;
}

// What the last patch turned ("units → 108.0° at the digit head"), "" when nothing is turned.
QString HiddenView::turn_text() const {
    if (!last_patch_.is_object() || last_patch_.empty()) return {};
    const QString to = last_patch_.contains("digit")
                           ? QStringLiteral("digit %1").arg(last_patch_["digit"].get<int>())
                           : QStringLiteral("%1°").arg(last_patch_.value("angle", 0.0), 0, 'f', 1);
    QString text = QStringLiteral("turned: %1 → %2 at %3")
                       .arg(place_word(last_patch_.value("place", 0)), to,
                            QString::fromStdString(last_patch_.value("layer_name", std::string("head"))));
    if (last_patch_.contains("number_after"))
        text += QStringLiteral(" (the operand reads %1)")
                    .arg(QString::fromStdString(last_patch_["number_after"].get<std::string>()));
    return text;
}

// Press on a hand's clock, drag, release: the model answers while the hand moves and once more on release.
// A double click resets.
bool HiddenView::on_plot_mouse(QMouseEvent* e) {
    const qint64 now = clock_.nsecsElapsed() / 1000;
    QCustomPlot* plot = panel_->plot();
    const double x = plot->xAxis->pixelToCoord(e->position().x()),
                 y = plot->yAxis->pixelToCoord(e->position().y());
    switch (e->type()) {
        case QEvent::MouseButtonPress: {
            if (e->button() != Qt::LeftButton || !circles_) return false;
            std::vector<plots::ClockSpot> turnable;
            for (const plots::ClockSpot& s : spots_)
                if (s.site == (patch_layer() >= 0)) turnable.push_back(s);
            const plots::ClockSpot* spot = plots::clock_at(turnable, x, y);
            if (!spot) return false;
            dragged_ = *spot;
            send_turn(spot->place, plots::angle_around(*spot, x, y), false, now);
            return true;
        }
        case QEvent::MouseMove:
            if (!dragged_ || !(e->buttons() & Qt::LeftButton)) return false;
            send_turn(dragged_->place, plots::angle_around(*dragged_, x, y), false, now);
            return true;
        case QEvent::MouseButtonRelease: {
            if (!dragged_) return false;
            const plots::ClockSpot spot = *dragged_;
            dragged_.reset();
            send_turn(spot.place, plots::angle_around(spot, x, y), true, now);
            return true;
        }
        case QEvent::MouseButtonDblClick:
            reset_patch();
            return true;
        default:
            return false;
    }
}

}  // namespace fone::gui
