// FoNE adapter (workbench view "adapter", issue 31): a fone-adapter run (the paper's simplified FoNE on a
// pretrained model; docs/pretrained.md, "FoNE inside a pretrained model") and the model folder it started
// from. Type a question and see the pretrained model's greedy answer and, when the run has been exported
// (`fone export --format hf`), the adapted model's; the number pieces of the question and answer (the
// model's own tokens of one to three digits); and for each piece its three clocks (periods 10, 100, 1000):
// where FoNE puts the piece, and where the piece's input row sits on the adapter's clock before and after
// the adapter (fone/analysis/adapter_clocks.h, read from the run's checkpoint in the window: no LibTorch).
// Generation and tokenization are `fone model generate|tokenize` child processes.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "analysis_view.h"
#include "fone/analysis/adapter_clocks.h"
#include "fone_call.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace fone::gui {

class PlotPanel;
class RunCatalog;
class RunPicker;

// A token's text as a number piece: its value when it is one to three ASCII digits (less one leading
// space), else -1.
int number_piece_value(const QString& token);

class AdapterView : public AnalysisView {
    Q_OBJECT
    Q_PROPERTY(QString run READ run WRITE set_run)
    Q_PROPERTY(QString adapted READ adapted WRITE set_adapted)
    Q_PROPERTY(QString question READ question WRITE set_question)
  public:
    // The runs to pick from: the catalog's fone-adapter runs (nullptr: only those opened with set_run or …).
    explicit AdapterView(RunCatalog* catalog = nullptr, QWidget* parent = nullptr);
    ~AdapterView() override;

    // A fone-adapter run (its name in the store, or its directory): its pretrained folder (config.json's
    // init_from) is the model asked first, its checkpoint gives the clocks. False (and the reason in the
    // status line) for anything else.
    bool set_run(const QString& name_or_dir);
    RunPicker* run_picker() const { return runs_; }
    QString run() const { return run_; }
    // The run's export (`fone export --format hf`), asked second; "" for none.
    void set_adapted(const QString& dir);
    QString adapted() const { return adapted_; }
    void set_question(const QString& question);
    QString question() const;
    void set_program(const QString& fone);

    // Generates the answers, then tokenizes question + answer and draws the pieces' clocks.
    void ask();
    QString answer_before() const { return answer_before_; }
    QString answer_after() const { return answer_after_; }
    struct Piece {
        QString token;
        int value = 0;
        std::array<analysis::PieceClock, 3> clocks{};
    };
    const std::vector<Piece>& pieces() const { return pieces_; }

  Q_SIGNALS:
    void answered();

  protected:
    void refresh() override { ask(); }

  private:
    bool open_run(const QString& dir);
    void on_generated(const nlohmann::json& end, bool adapted);
    void tokenize();
    void on_tokens(const nlohmann::json& result);
    void show_answers();
    void draw_clocks();

    QString run_, adapted_, model_;
    std::optional<analysis::AdapterClocks> clocks_;
    RunPicker* runs_;
    QLineEdit* adapted_edit_;
    QLineEdit* question_;
    QPushButton* ask_button_;
    QLabel* answers_;
    QTableWidget* table_;
    PlotPanel* plot_;
    FoneCall* generate_;
    FoneCall* tokenize_;
    QString answer_before_, answer_after_;
    bool asking_adapted_ = false;  // the second generation (the export's) is running
    std::vector<Piece> pieces_;
};

}  // namespace fone::gui
