// Token loss (workbench view "token-loss", issue 30): a test document of two text runs trained on the same
// corpus (FoNE against subword, say), each piece coloured by the loss each model pays for it — green where
// run a pays less than run b, red where it pays more (or one run's loss alone) — numbers framed, and on
// hover a piece's losses and, for a number, what each model writes there. The view runs
// `fone analyse token-loss --run A --against B --doc D --json` as a child (fone/train/token_loss.h) and
// draws with plots/token_loss_plots.h, as the command's PNG does.
#pragma once

#include <optional>

#include "analysis_view.h"
#include "fone/analysis/token_loss.h"
#include "fone_call.h"
#include "run_picker.h"
#include "token_loss_plots.h"

class QComboBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QScrollArea;

namespace fone::gui {

// The document as flowing text, each piece on its colour; reports the piece under the mouse.
class TokenText : public QWidget {
    Q_OBJECT
  public:
    explicit TokenText(QWidget* parent = nullptr);
    void show_comparison(const analysis::TokenLossComparison* c, plots::LossColouring colouring);
    const plots::PieceLayout& layout() const { return layout_; }

  Q_SIGNALS:
    void hovered(int piece);  // -1: none

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    void relayout();

    const analysis::TokenLossComparison* comparison_ = nullptr;
    plots::LossColouring colouring_ = plots::LossColouring::difference;
    plots::PieceLayout layout_;
    int hovered_ = -1;
};

class TokenLossView : public AnalysisView {
    Q_OBJECT
    Q_PROPERTY(QString run READ run WRITE set_run)
    Q_PROPERTY(QString against READ against WRITE set_against)
    Q_PROPERTY(QString doc READ document WRITE set_document)
    Q_PROPERTY(QString colour READ colouring_name WRITE set_colouring)
  public:
    explicit TokenLossView(RunCatalog* catalog, QWidget* parent = nullptr);

    bool set_run(const QString& name_or_dir);  // run a
    QString run() const;
    bool set_against(const QString& name_or_dir);  // run b
    QString against() const;
    void set_document(const QString& index_or_name);
    QString document() const;
    void set_colouring(const QString& name);  // "a-b", "a", "b"
    QString colouring_name() const;
    void set_program(const QString& fone);

    void compare();  // runs the child now (the view also does when a choice changes and it is visible)
    const std::optional<analysis::TokenLossComparison>& comparison() const { return comparison_; }
    QString headline() const;
    QString detail() const;  // what the hovered piece shows
    TokenText* text() const { return text_; }
    // Shows the piece's detail as a hover does.
    void hover(int piece);

  Q_SIGNALS:
    void compared();
    void failed(const QString& why);

  protected:
    void refresh() override { compare(); }

  private:
    QGridLayout* make_controls(RunCatalog* catalog);
    void connect_signals();
    void on_result(const nlohmann::json& result);
    void choose_other_run();
    plots::LossColouring colouring() const;

    RunPicker *run_a_, *run_b_;
    QLineEdit* document_;
    QComboBox* colouring_;
    QPushButton *compare_button_, *cancel_button_;
    QLabel *headline_, *key_, *detail_;
    QScrollArea* scroll_;
    TokenText* text_;
    FoneCall* call_;
    std::optional<analysis::TokenLossComparison> comparison_;
};

}  // namespace fone::gui
