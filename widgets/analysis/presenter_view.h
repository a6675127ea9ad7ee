// Presenter mode (`fone-workbench --presenter`, View > Presenter mode): the Welcome story told to an
// audience, one step per screen, in type sized for the back of the room:
//   1 Type a sum          a large prompt box; Return asks the bundled demo model
//   2 Watch the clocks    its answer on one clock per digit (the Hidden state drawing, as large as the screen
//                         allows), the answer under them
//   3 Train it live       the Welcome view's race, FoNE against digit-wise, drawn large
//   4 The verdict         where each one got, in words
// → Space Page Down: next; ← Page Up: back; Home: first; Esc: back to the workbench. The workbench window
// shows it full screen, docks and menus out of sight; Train it live is the Welcome view's (one race, its runs
// in the open store).
#pragma once

#include "analysis_view.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;

namespace fone::gui {

class HiddenView;
class PlotPanel;
class RunCatalog;
class WelcomeView;

class PresenterView : public AnalysisView {
    Q_OBJECT
    // `--presenter --screenshot F --set step=2` pictures a step; --set live=true starts the race first.
    Q_PROPERTY(int step READ step WRITE set_step)
    Q_PROPERTY(QString prompt READ prompt WRITE set_prompt)
    Q_PROPERTY(bool live READ live WRITE set_live)
  public:
    static constexpr int kSteps = 4;

    // welcome: whose race step 3 shows (none: step 3 says it is not there).
    PresenterView(WelcomeView* welcome, RunCatalog* catalog, const QString& program,
                  QWidget* parent = nullptr);

    int step() const { return step_; }  // 1..kSteps
    void set_step(int step);
    void next() { set_step(step_ + 1); }
    void back() { set_step(step_ - 1); }
    QString prompt() const;
    void set_prompt(const QString& prompt);
    // Asks the demo model (step 2 shows the answer).
    void ask();
    bool live() const;
    void set_live(bool on);

    HiddenView* clocks() const { return clocks_; }
    PlotPanel* race() const { return race_; }
    QString heading() const;  // the current step's heading, as shown
    QString verdict_text() const;

  Q_SIGNALS:
    void closeRequested();  // Esc

  protected:
    void keyPressEvent(QKeyEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

  private:
    QWidget* make_sum_page();
    QWidget* make_clocks_page(RunCatalog* catalog, const QString& program);
    QWidget* make_race_page();
    QWidget* make_verdict_page();
    void update_steps();
    void redraw_race();
    void update_busy();
    void apply_sizes();

    WelcomeView* welcome_;
    int step_ = 1;
    QStackedWidget* pages_;
    QLabel *steps_, *hint_;
    QList<QLabel*> headings_, texts_;
    QLineEdit* prompt_;
    QPushButton *ask_, *start_;
    HiddenView* clocks_;
    PlotPanel* race_;
    QLabel *race_summary_, *verdict_;
};

}  // namespace fone::gui
