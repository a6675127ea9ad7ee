#include "errors_view.h"

#include <qcustomplot.h>
#include <QApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTextDocument>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>

#include "analysis_plots.h"
#include "plot_panel.h"

namespace fone::gui {

using nlohmann::json;
namespace fa = fone::analysis;

namespace {
QString plots_percent(double fraction) {
    return QString::number(100.0 * fraction, 'g', 3) + "%";
}

// The smallest of 1%, 2%, 5%, 10%, 20%, 50%, 100% above the highest bar (with room for its label).
double nice_ceiling(double highest) {
    for (double top : {0.01, 0.02, 0.05, 0.1, 0.2, 0.5})
        if (highest * 1.1 <= top) return top;
    return 1.0;
}
}  // namespace

QString position_name(int position) {
    return QString::fromStdString(plots::place_name(position));
}

QString aligned_number_html(const Decimal& x, const std::vector<int>& marked, int int_width, int frac_width,
                            const QString& colour) {
    auto cell = [&](int position, QString text) {
        const bool mark = std::find(marked.begin(), marked.end(), position) != marked.end();
        if (text.isEmpty()) text = mark ? QStringLiteral("·") : QStringLiteral("&nbsp;");
        return mark ? QStringLiteral("<b style='color:%1'>%2</b>").arg(colour, text) : text;
    };
    const int int_digits = std::max(1, x.int_digit_count());
    QString out = "<span style='font-family:monospace'>";
    out += x.negative() ? "−" : "&nbsp;";
    for (int p = int_width - 1; p >= 0; --p)
        out += cell(p, p < int_digits ? QString::number(x.digit(p)) : QString());
    if (frac_width > 0) out += x.frac_digit_count() > 0 ? "." : "&nbsp;";
    for (int p = -1; p >= -frac_width; --p)
        out += cell(p, -p <= x.frac_digit_count() ? QString::number(x.digit(p)) : QString());
    return out + "</span>";
}

void HtmlDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                         const QModelIndex& index) const {
    const QString html = index.data(Qt::UserRole).toString();
    if (html.isEmpty()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
    QTextDocument doc;
    doc.setDefaultFont(option.font);
    doc.setDocumentMargin(2);
    doc.setHtml(html);
    painter->save();
    const QRect r = option.rect;
    painter->translate(r.left() + 2, r.top() + (r.height() - doc.size().height()) / 2);
    doc.drawContents(painter, QRectF(0, 0, r.width() - 4, r.height()));
    painter->restore();
}

QSize HtmlDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const QString html = index.data(Qt::UserRole).toString();
    if (html.isEmpty()) return QStyledItemDelegate::sizeHint(option, index);
    QTextDocument doc;
    doc.setDefaultFont(option.font);
    doc.setHtml(html);
    return QSize(static_cast<int>(doc.idealWidth()) + 8, static_cast<int>(doc.size().height()) + 2);
}

ErrorsView::ErrorsView(RunCatalog* catalog, QWidget* parent) : AnalysisView(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* row = new QHBoxLayout;
    runs_ = new RunPicker(catalog);
    count_ = new QSpinBox;
    count_->setRange(1, 100000);
    count_->setValue(200);
    count_->setToolTip(
        "How many wrong answers of the test split to list (the error rates count all of them)");
    evaluate_button_ = new QPushButton("Evaluate");
    evaluate_button_->setToolTip("Run `fone eval` on the run's test split (a child process)");
    cancel_button_ = new QPushButton("Cancel");
    cancel_button_->setEnabled(false);
    row->addWidget(new QLabel("Run"));
    row->addWidget(runs_, 1);
    row->addWidget(new QLabel("List"));
    row->addWidget(count_);
    row->addWidget(evaluate_button_);
    row->addWidget(cancel_button_);
    layout->addLayout(row);
    summary_ = new QLabel;
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setToolTip(
        "Off by exactly 5: a predicted digit 5 away from the true one (2 ↔ 7, 3 ↔ 8, …). A model that only "
        "learned x mod 5 (the paper's mod-5 ablation) cannot tell those apart, so its mistakes have this "
        "pattern; a FoNE model with periods 10, 100, … should not.");
    layout->addWidget(summary_);
    table_ = new QTableWidget;
    table_->setColumnCount(5);
    table_->setHorizontalHeaderLabels({"Prompt", "True answer", "Predicted", "Wrong digits", "Off by 5"});
    table_->horizontalHeaderItem(1)->setToolTip("The true answer; the digits the model got wrong in green");
    table_->horizontalHeaderItem(2)->setToolTip(
        "The model's answer, aligned at the decimal point; wrong digits "
        "in red (· where it wrote no digit)");
    table_->horizontalHeaderItem(4)->setToolTip("Every wrong digit is 5 away from the true one");
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(22);
    table_->setItemDelegate(new HtmlDelegate(table_));
    table_->horizontalHeader()->setStretchLastSection(true);
    rates_ = new PlotPanel;
    rates_->layout()->setContentsMargins(0, 0, 0, 0);
    rates_->controls()->addStretch(1);
    rates_->add_export_button();
    rates_->plot()->setMinimumSize(160, 110);
    make_figure(rates_, [this] {
        if (evaluation_.is_object()) draw_rates(evaluation_);
    });
    rates_->enable_inspection([this](const PlotHit& hit) {
        const int n = evaluation_.value("n", 0);
        return QStringLiteral("%1 (%2): %3 of the %4 test answers have this digit wrong")
            .arg(position_names_.value(static_cast<int>(hit.key)), hit.key_label.section('\n', 0, 0),
                 plots_percent(hit.value))
            .arg(n);
    });
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(table_);
    split->addWidget(rates_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    layout->addWidget(status_label());

    call_ = new FoneCall(default_fone_program(), this);
    connect(call_, &FoneCall::succeeded, this, &ErrorsView::on_result);
    connect(call_, &FoneCall::failed, this, [this](const QString& message) {
        evaluate_button_->setEnabled(true);
        cancel_button_->setEnabled(false);
        show_error("fone eval: " + message);
        set_busy(false);
        Q_EMIT failed(message);
    });
    connect(evaluate_button_, &QPushButton::clicked, this, &ErrorsView::evaluate);
    connect(cancel_button_, &QPushButton::clicked, this, [this] {
        call_->cancel();
        evaluate_button_->setEnabled(true);
        cancel_button_->setEnabled(false);
        set_busy(false);
        show_info("Cancelled.");
    });
    connect(runs_, &RunPicker::runChanged, this, [this] { request_refresh(); });
    if (!runs_->run_dir().isEmpty()) request_refresh();
}

bool ErrorsView::set_run(const QString& name_or_dir) {
    return runs_->set_run(name_or_dir);
}
QString ErrorsView::run() const {
    return runs_->run_dir();
}
void ErrorsView::set_count(int n) {
    count_->setValue(n);
}
int ErrorsView::count() const {
    return count_->value();
}
void ErrorsView::set_program(const QString& fone) {
    call_->set_program(fone);
}
QCustomPlot* ErrorsView::rates_plot() const {
    return rates_->plot();
}

QString ErrorsView::summary() const {
    return plain_text(summary_->text());
}

void ErrorsView::evaluate() {
    if (runs_->run_dir().isEmpty()) {
        show_error("Choose a trained run first.");
        return;
    }
    show_info("Evaluating the test split: " + call_->program().section('/', -1) + " eval …");
    set_busy(true);
    evaluate_button_->setEnabled(false);
    cancel_button_->setEnabled(true);
    // One thread: the window and other children keep the rest of the machine.
    follow_run(runs_->run_dir());
    call_->start({"eval", "--run", runs_->run_dir(), "--mispredictions", QString::number(count_->value()),
                  "--threads", "1"});
}

void ErrorsView::on_result(const json& result) {
    evaluate_button_->setEnabled(true);
    cancel_button_->setEnabled(false);
    evaluation_ = result;
    show_info(QString());
    const int listed = list_mispredictions(result);
    draw_rates(result);
    summarise(result, listed);
    set_busy(false);
    Q_EMIT evaluated();
}

// The listed mispredictions, analysed digit by digit, in the table; how many were listed.
int ErrorsView::list_mispredictions(const json& result) {
    struct Row {
        QString prompt, expected, predicted;
        bool number = false;
    };
    std::vector<Row> rows;
    std::vector<Decimal> predicted, actual;
    malformed_ = 0;
    if (result.contains("mispredictions") && result["mispredictions"].is_array())
        for (const json& m : result["mispredictions"]) {
            Row r{QString::fromStdString(m.value("prompt", std::string())),
                  QString::fromStdString(m.value("expected", std::string())),
                  QString::fromStdString(m.value("predicted", std::string()))};
            Decimal p, a;
            r.number = Decimal::try_parse(r.predicted.toStdString(), p) &&
                       Decimal::try_parse(r.expected.toStdString(), a);
            if (r.number) {
                predicted.push_back(p);
                actual.push_back(a);
            } else {
                ++malformed_;
            }
            rows.push_back(r);
        }
    errors_ = fa::analyse_errors(predicted, actual);
    int int_width = 1, frac_width = 0;
    for (const auto* list : {&predicted, &actual})
        for (const Decimal& x : *list) {
            int_width = std::max(int_width, x.int_digit_count());
            frac_width = std::max(frac_width, x.frac_digit_count());
        }
    table_->setRowCount(static_cast<int>(rows.size()));
    std::size_t k = 0;
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        const Row& r = rows[static_cast<std::size_t>(i)];
        auto set = [&](int column, const QString& text, const QString& html = {}) {
            auto* item = new QTableWidgetItem(text);
            if (!html.isEmpty()) item->setData(Qt::UserRole, html);
            table_->setItem(i, column, item);
        };
        set(0, r.prompt);
        if (!r.number) {
            set(1, r.expected);
            set(2, r.predicted.isEmpty() ? "(not a number)" : r.predicted,
                "<span style='color:#c62828'>" +
                    (r.predicted.isEmpty() ? QString("(not a number)") : r.predicted.toHtmlEscaped()) +
                    "</span>");
            set(3, "—");
            set(4, "");
            continue;
        }
        const fa::ErrorAnalysis one = fa::analyse_errors({predicted[k]}, {actual[k]});
        ++k;
        if (one.mispredictions.empty()) {  // the same number written differently
            set(1, r.expected);
            set(2, r.predicted);
            continue;
        }
        const fa::Misprediction& m = one.mispredictions.front();
        std::vector<int> positions;
        QStringList wrong;
        for (const fa::DigitDifference& d : m.differing) {
            positions.push_back(d.position);
            wrong
                << QStringLiteral("%1: %2→%3").arg(position_name(d.position)).arg(d.actual).arg(d.predicted);
        }
        if (m.sign_differs) wrong << "sign";
        set(1, r.expected, aligned_number_html(m.actual, positions, int_width, frac_width, "#2ca02c"));
        set(2, r.predicted, aligned_number_html(m.predicted, positions, int_width, frac_width, "#d62728"));
        set(3, wrong.join(", "));
        set(4, m.all_off_by_5() ? "yes" : "");
        if (m.all_off_by_5()) table_->item(i, 4)->setForeground(QColor(0xd6, 0x27, 0x28));
    }
    table_->resizeColumnsToContents();
    return static_cast<int>(rows.size());
}

// Error rate per position over the whole test split (fone eval's digit accuracy by position).
void ErrorsView::draw_rates(const json& result) {
    std::map<int, double> by_position;
    if (result.contains("digit_accuracy_by_position") && result["digit_accuracy_by_position"].is_object())
        for (const auto& [key, value] : result["digit_accuracy_by_position"].items())
            if (value.is_number()) by_position[std::stoi(key)] = 1.0 - value.get<double>();
    std::vector<std::string> labels;
    std::vector<double> rates;
    double highest = 0.0;
    position_names_.clear();
    // "10²" over "hundreds": the power, and the place as people say it, where each bar has room for its
    // name (else the power alone; the name is in the hover text).
    const QFontMetrics metrics(rates_->plot()->xAxis->tickLabelFont());
    int widest = 0;
    for (const auto& [position, rate] : by_position)
        widest = std::max(widest, metrics.horizontalAdvance(position_name(position)));
    const int axis_width = rates_->plot()->width() - 70;  // less the value axis and margins
    const bool named = !by_position.empty() && axis_width / int(by_position.size()) >= widest + 6;
    for (auto it = by_position.rbegin(); it != by_position.rend(); ++it) {
        labels.push_back(
            (power_of_ten(it->first) + (named ? "\n" + position_name(it->first) : QString())).toStdString());
        position_names_ << position_name(it->first);
        rates.push_back(it->second);
        highest = std::max(highest, it->second);
    }
    const int n = result.value("n", 0);
    plots::draw_bars(*rates_->plot(), labels, rates,
                     {.title = "Error rate per digit position (" + std::to_string(n) + " test answers)",
                      .x_label = "digit position",
                      .y_label = "answers with this digit wrong",
                      .y_max = nice_ceiling(highest)});
    rates_->plot()->replot(QCustomPlot::rpQueuedReplot);
}

// The summary line: exact match, digit accuracy and the off-by-5 counts.
void ErrorsView::summarise(const json& result, int listed) {
    const int n = result.value("n", 0);
    const double exact = result.value("exact_match", 0.0);
    const int wrong_total = static_cast<int>(std::lround(n * (1.0 - exact)));
    QString text = QStringLiteral("Exact match <b>%1%</b>, digit accuracy %2% on %3 test answers: %4 wrong")
                       .arg(100.0 * exact, 0, 'f', 2)
                       .arg(100.0 * result.value("digit_accuracy", 0.0), 0, 'f', 2)
                       .arg(n)
                       .arg(wrong_total);
    if (listed < wrong_total) text += QStringLiteral(" (the first %1 listed)").arg(listed);
    text += QStringLiteral(
                ". Off by exactly 5: <b>%1</b> of %2 wrong digits; %3 of %4 wrong answers have every "
                "wrong digit off by 5 (%5 of them with a single wrong digit).")
                .arg(errors_.off_by_5_digits)
                .arg(errors_.differing_digits)
                .arg(errors_.all_off_by_5)
                .arg(errors_.mispredictions.size())
                .arg(errors_.single_digit_off_by_5);
    if (malformed_)
        text += malformed_ == 1 ? QStringLiteral(" 1 answer is not a number.")
                                : QStringLiteral(" %1 answers are not numbers.").arg(malformed_);
    summary_->setText(text);
}

}  // namespace fone::gui
