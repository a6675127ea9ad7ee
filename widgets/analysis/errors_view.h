// Errors (workbench view "errors"): a run's test mispredictions. The view runs
// `fone eval --run DIR --mispredictions N` as a child process and shows each wrong answer next to the
// true one, aligned at the decimal point with the digits that differ in red; the error rate of every digit
// position over the whole test split; and the "off by exactly 5" pattern of the paper's mod-5 ablation
// (a model that only knows x mod 5 confuses 2 with 7, 3 with 8, ...), counted.
#pragma once

#include <QStyledItemDelegate>

#include "analysis_view.h"
#include "fone/analysis/analysis.h"
#include "fone_call.h"
#include "run_picker.h"

class QCustomPlot;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace fone::gui {

class PlotPanel;

// The digits of x laid out in columns: int_width integer places (right-aligned) and frac_width fractional
// places, as HTML in a fixed-width font; the positions in `marked` (0 units, -1 tenths) in `colour`, bold.
QString aligned_number_html(const Decimal& x, const std::vector<int>& marked, int int_width, int frac_width,
                            const QString& colour);

// A position as people say it: "units", "tens", "tenths", "hundred-thousands" (plots::place_name).
QString position_name(int position);

// Paints a cell's Qt::UserRole text as HTML (the highlighted digits).
class HtmlDelegate : public QStyledItemDelegate {
  public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

class ErrorsView : public AnalysisView {
    Q_OBJECT
    Q_PROPERTY(QString run READ run WRITE set_run)
    Q_PROPERTY(int count READ count WRITE set_count)
  public:
    explicit ErrorsView(RunCatalog* catalog, QWidget* parent = nullptr);

    bool set_run(const QString& name_or_dir);
    QString run() const;
    void set_count(int n);  // mispredictions listed (default 200)
    int count() const;
    void set_program(const QString& fone);

    // Runs `fone eval` now (the view also does it when the run changes and it is visible).
    void evaluate();
    const nlohmann::json& evaluation() const { return evaluation_; }
    // The listed mispredictions whose answers are numbers, analysed digit by digit.
    const analysis::ErrorAnalysis& errors() const { return errors_; }
    int malformed() const { return malformed_; }  // listed answers that are not numbers
    QString summary() const;
    QTableWidget* table() const { return table_; }
    QCustomPlot* rates_plot() const;

  Q_SIGNALS:
    void evaluated();
    void failed(const QString& why);

  protected:
    void refresh() override { evaluate(); }

  private:
    void on_result(const nlohmann::json& result);
    int list_mispredictions(const nlohmann::json& result);
    void draw_rates(const nlohmann::json& result);
    void summarise(const nlohmann::json& result, int listed);

    RunPicker* runs_;
    QSpinBox* count_;
    QPushButton *evaluate_button_, *cancel_button_;
    QLabel* summary_;
    QTableWidget* table_;
    PlotPanel* rates_;
    FoneCall* call_;
    nlohmann::json evaluation_;
    analysis::ErrorAnalysis errors_;
    QStringList position_names_;  // of the bars, left to right
    int malformed_ = 0;
};

}  // namespace fone::gui
