// What the window does to runs beyond training them, each through the store's one owner of it
// (fone/store/run_manage.h, run_pack.h, run_export.h), as `fone runs` does: Rename…, Move to trash,
// Restore from trash…, Archive…, Share as .fonerun…, Open .fonerun… (also by dropping a file on the window,
// or as fone-workbench's argument) and Export all metrics…. The window puts the actions in its menus and
// the run table's context menu; each dialog-free method is what the action does after its dialog, for
// tests and for callers that already know the answer.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <functional>

class QAction;
class QMainWindow;
class QMenu;

namespace fone::gui {

class RunCatalog;

class RunActions : public QObject {
    Q_OBJECT
  public:
    // selected: the catalog rows selected in the run table; select: selects runs by name.
    RunActions(QMainWindow* window, RunCatalog* catalog, std::function<QList<int>()> selected,
               std::function<void(const QStringList&)> select);

    // File menu: Open .fonerun…, Share as .fonerun…, Export all metrics…; Run menu: Rename…, Move to trash,
    // Restore from trash…, Archive….
    void add_to_menus(QMenu* file, QMenu* run);
    // Rename…, Move to trash, Archive…, Share as .fonerun… (the run table's context menu).
    QList<QAction*> table_actions() const;

    // "" on success, else why not (each also shows its outcome in the status bar).
    QString rename_row(int row, const QString& new_name);
    QString trash_rows(const QList<int>& rows);
    QString restore(const QString& trash_id);
    QString archive_row(int row);  // asks first (confirm.h), saying what goes
    QString pack_row(int row, const QString& file, bool with_snapshots);
    QString export_all_metrics(const QString& file);  // CSV, or JSON lines for a .jsonl file
    // Unpacks in a worker thread; packOpened or packRefused follows.
    void open_pack(const QString& file);

    // The last message shown (tests read it; the status bar shows it for a while).
    const QString& last_message() const { return last_message_; }

  Q_SIGNALS:
    void packOpened(const QString& run_name);
    void packRefused(const QString& why);

  protected:
    // Drag and drop of .fonerun files onto the window.
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void say(const QString& text, int ms = 10000);
    void rename_dialog();
    void restore_dialog();
    void pack_dialog();
    void open_dialog();
    void export_dialog();

    QMainWindow* window_;
    RunCatalog* catalog_;
    std::function<QList<int>()> selected_;
    std::function<void(const QStringList&)> select_;
    QAction *open_, *pack_, *export_, *rename_, *trash_, *restore_, *archive_;
    QString last_message_;
};

}  // namespace fone::gui
