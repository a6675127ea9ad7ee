// The notes pane under the run table: the selected run's notes and tags, editable, kept in its folder's
// notes.json (fone/store/run_notes.h, the one writer). Edits are saved a second after typing stops, when
// the tags field is left, when another run is selected, and by Save (Ctrl+S): nothing typed is lost.
// Notes changed elsewhere (`fone runs note` in a terminal) are shown when nothing is being edited here.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTimer;

namespace fone::gui {

class RunCatalog;

class RunNotesPane : public QWidget {
    Q_OBJECT
  public:
    explicit RunNotesPane(RunCatalog* catalog, QWidget* parent = nullptr);

    // The catalog row whose notes are shown (-1: none; a launch without a run folder shows none). Unsaved
    // edits of the previous run are saved first.
    void set_run(int row);
    int run() const { return row_; }
    // Writes the notes and tags now; false (and the reason on the pane) when they cannot be written.
    bool save();
    bool dirty() const { return dirty_; }

    QPlainTextEdit* text_edit() const { return text_; }
    QLineEdit* tags_edit() const { return tags_; }
    QString status_text() const;

  Q_SIGNALS:
    void saved(int row);

  private:
    void show_run();
    void mark_dirty();
    void on_row_changed(int row);

    RunCatalog* catalog_;
    int row_ = -1;
    bool dirty_ = false, loading_ = false;
    QLabel* title_;
    QLineEdit* tags_;
    QPlainTextEdit* text_;
    QLabel* status_;
    QPushButton* save_;
    QTimer* autosave_;
};

}  // namespace fone::gui
