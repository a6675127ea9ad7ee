#include "run_actions.h"

#include <QAction>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QInputDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMimeData>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

#include "confirm.h"
#include "fone/io/file_read.h"
#include "fone/store/run_export.h"
#include "fone/store/run_manage.h"
#include "fone/store/run_pack.h"
#include "fone/store/run_store.h"
#include "run_catalog.h"

namespace fone::gui {

namespace {

QString text_of(const std::exception& e) {
    return QString::fromUtf8(e.what());
}

// The .fonerun files among dropped URLs.
QStringList pack_files(const QMimeData* mime) {
    QStringList files;
    if (!mime || !mime->hasUrls()) return files;
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile() && url.toLocalFile().endsWith(QString::fromLatin1(kPackExtension)))
            files << url.toLocalFile();
    return files;
}

}  // namespace

RunActions::RunActions(QMainWindow* window, RunCatalog* catalog, std::function<QList<int>()> selected,
                       std::function<void(const QStringList&)> select)
    : QObject(window),
      window_(window),
      catalog_(catalog),
      selected_(std::move(selected)),
      select_(std::move(select)) {
    open_ = new QAction("Open .fonerun…", this);
    open_->setShortcut(QKeySequence::Open);
    open_->setToolTip(
        "Add a run someone sent you (a .fonerun file) to the store; dropping the file on the "
        "window does the same");
    pack_ = new QAction("Share as .fonerun…", this);
    pack_->setToolTip(
        "The selected run as one file to send: config, metrics, summary, notes, tags and its "
        "best and last checkpoints, with a manifest of SHA-256 digests");
    export_ = new QAction("Export all metrics…", this);
    export_->setToolTip(
        "Every run's metrics in one long CSV (or JSON lines), with the settings that differ "
        "between runs as columns");
    rename_ = new QAction("Rename…", this);
    rename_->setShortcut(QKeySequence(Qt::Key_F2));
    trash_ = new QAction("Move to trash", this);
    trash_->setToolTip("Into the store's trash folder (Run → Restore from trash… brings it back)");
    restore_ = new QAction("Restore from trash…", this);
    archive_ = new QAction("Archive…", this);
    archive_->setToolTip(
        "Keep what the run showed (config, metrics, summary, notes, best checkpoint); drop its "
        "snapshots and last checkpoint");
    connect(open_, &QAction::triggered, this, &RunActions::open_dialog);
    connect(pack_, &QAction::triggered, this, &RunActions::pack_dialog);
    connect(export_, &QAction::triggered, this, &RunActions::export_dialog);
    connect(rename_, &QAction::triggered, this, &RunActions::rename_dialog);
    connect(trash_, &QAction::triggered, this, [this] { trash_rows(selected_()); });
    connect(restore_, &QAction::triggered, this, &RunActions::restore_dialog);
    connect(archive_, &QAction::triggered, this, [this] {
        if (!selected_().isEmpty()) archive_row(selected_().first());
    });
    window_->setAcceptDrops(true);
    window_->installEventFilter(this);
}

void RunActions::add_to_menus(QMenu* file, QMenu* run) {
    QAction* first = file->actions().isEmpty() ? nullptr : file->actions().first();
    file->insertActions(first, {open_, pack_, export_});
    file->insertSeparator(first);
    run->addSeparator();
    run->addActions({rename_, trash_, restore_, archive_});
}

QList<QAction*> RunActions::table_actions() const {
    return {rename_, trash_, archive_, pack_};
}

void RunActions::say(const QString& text, int ms) {
    last_message_ = text;
    window_->statusBar()->showMessage(text, ms);
}

QString RunActions::rename_row(int row, const QString& new_name) {
    if (row < 0 || row >= catalog_->size() || catalog_->at(row).dir.isEmpty()) return "no run selected";
    const QString old = catalog_->at(row).name;
    try {
        const RunStore store(catalog_->root().toStdString(), false);
        rename_run(store, catalog_->at(row).dir.toStdString(), new_name.toStdString());
    } catch (const std::exception& e) {
        say("Not renamed: " + text_of(e));
        return text_of(e);
    }
    catalog_->rescan();
    select_({new_name});
    say("Renamed " + old + " to " + new_name);
    return {};
}

QString RunActions::trash_rows(const QList<int>& rows) {
    QStringList moved, problems;
    const RunStore store(catalog_->root().toStdString(), false);
    for (int row : rows) {
        if (row < 0 || row >= catalog_->size() || catalog_->at(row).dir.isEmpty()) continue;
        if (catalog_->at(row).is_active()) {
            problems << catalog_->at(row).name + " is training: stop it first";
            continue;
        }
        try {
            moved << QString::fromStdString(trash_run(store, catalog_->at(row).dir.toStdString()).name);
        } catch (const std::exception& e) {
            problems << text_of(e);
        }
    }
    catalog_->rescan();
    QString text;
    if (!moved.isEmpty())
        text = "Moved to the trash (Run → Restore from trash… brings it back): " + moved.join(", ");
    if (!problems.isEmpty())
        text += (text.isEmpty() ? "" : " · ") + QString("Not moved: ") + problems.join("; ");
    say(text, 15000);
    return problems.join("; ");
}

QString RunActions::restore(const QString& trash_id) {
    try {
        const RunStore store(catalog_->root().toStdString(), false);
        const QString name =
            QFileInfo(QString::fromStdString(restore_run(store, trash_id.toStdString()))).fileName();
        catalog_->rescan();
        select_({name});
        say("Restored " + name + " from the trash");
    } catch (const std::exception& e) {
        say("Not restored: " + text_of(e));
        return text_of(e);
    }
    return {};
}

QString RunActions::archive_row(int row) {
    if (row < 0 || row >= catalog_->size() || catalog_->at(row).dir.isEmpty()) return "no run selected";
    const RunEntry& e = catalog_->at(row);
    if (!confirm(window_, "Archive " + e.name,
                 "Keep " + e.name +
                     "'s config, metrics, summary, notes and best checkpoint, and delete its "
                     "snapshots, last checkpoint and other files? It can still be evaluated and compared, no "
                     "longer resumed.",
                 "Archive", "Keep everything"))
        return "kept";
    try {
        const ArchiveResult r = archive_run(e.dir.toStdString());
        say("Archived " + e.name + ": freed " + QString::fromStdString(bytes_text(r.freed_bytes)) + " (" +
            QString::number(r.removed.size()) + " files and folders removed)");
    } catch (const std::exception& ex) {
        say("Not archived: " + text_of(ex));
        return text_of(ex);
    }
    return {};
}

QString RunActions::pack_row(int row, const QString& file, bool with_snapshots) {
    if (row < 0 || row >= catalog_->size() || catalog_->at(row).dir.isEmpty()) return "no run selected";
    try {
        PackOptions options;
        options.with_snapshots = with_snapshots;
        const PackResult r = pack_run(catalog_->at(row).dir.toStdString(), file.toStdString(), options);
        say("Wrote " + file + " (" + QString::fromStdString(bytes_text(r.file_bytes)) + ", " +
            QString::number(r.members) + " files)");
    } catch (const std::exception& e) {
        say("Not shared: " + text_of(e));
        return text_of(e);
    }
    return {};
}

QString RunActions::export_all_metrics(const QString& file) {
    try {
        const RunStore store(catalog_->root().toStdString(), false);
        const auto format = file.endsWith(".jsonl") || file.endsWith(".json") ? MetricsExportFormat::jsonl
                                                                              : MetricsExportFormat::csv;
        const MetricsExport r = export_all_metrics_to_file(store.list(), format, file.toStdString());
        say(QStringLiteral("Wrote %1: %2 rows of %3 runs, %4 differing settings as columns%5")
                .arg(file)
                .arg(r.rows)
                .arg(r.runs)
                .arg(r.settings.size())
                .arg(r.warnings.empty() ? QString()
                                        : " (" + QString::number(r.warnings.size()) + " warnings)"));
    } catch (const std::exception& e) {
        say("Not exported: " + text_of(e));
        return text_of(e);
    }
    return {};
}

void RunActions::open_pack(const QString& file) {
    say("Opening " + file + "…", 0);
    const std::string root = catalog_->root().toStdString(), path = file.toStdString();
    auto* watcher = new QFutureWatcher<QPair<QString, QString>>(this);
    connect(watcher, &QFutureWatcher<QPair<QString, QString>>::finished, this, [this, watcher, file] {
        const auto [name, error] = watcher->result();
        watcher->deleteLater();
        if (!error.isEmpty()) {
            say("Not opened: " + error, 20000);
            Q_EMIT packRefused(error);
            return;
        }
        catalog_->rescan();
        select_({name});
        say("Opened " + QFileInfo(file).fileName() + " as the run " + name, 15000);
        Q_EMIT packOpened(name);
    });
    // A big run takes seconds to check and write: off the GUI thread.
    watcher->setFuture(QtConcurrent::run([root, path]() -> QPair<QString, QString> {
        try {
            const UnpackResult r = unpack_run(RunStore(root), path);
            QString name = QString::fromStdString(r.name);
            return {name, QString()};
        } catch (const std::exception& e) {
            return {QString(), text_of(e)};
        }
    }));
}

bool RunActions::eventFilter(QObject* watched, QEvent* event) {
    if (watched == window_ && event->type() == QEvent::DragEnter) {
        auto* drag = static_cast<QDragEnterEvent*>(event);
        if (!pack_files(drag->mimeData()).isEmpty()) {
            drag->acceptProposedAction();
            return true;
        }
    } else if (watched == window_ && event->type() == QEvent::Drop) {
        auto* drop = static_cast<QDropEvent*>(event);
        const QStringList files = pack_files(drop->mimeData());
        for (const QString& f : files)
            open_pack(f);
        if (!files.isEmpty()) {
            drop->acceptProposedAction();
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

void RunActions::rename_dialog() {
    const QList<int> rows = selected_();
    if (rows.isEmpty() || catalog_->at(rows.first()).dir.isEmpty()) return;
    bool ok = false;
    const QString old = catalog_->at(rows.first()).name;
    const QString name = QInputDialog::getText(window_, "Rename run", "New name for " + old + ":",
                                               QLineEdit::Normal, old, &ok);
    if (ok && name != old) rename_row(rows.first(), name.trimmed());
}

void RunActions::restore_dialog() {
    QStringList items;
    for (const TrashedRun& t : list_trash(RunStore(catalog_->root().toStdString(), false)))
        items << QString::fromStdString(t.id);
    if (items.isEmpty()) {
        say("The trash is empty");
        return;
    }
    bool ok = false;
    const QString id =
        QInputDialog::getItem(window_, "Restore from trash", "Run (name.trashed-at, latest last):", items,
                              items.size() - 1, false, &ok);
    if (ok) restore(id);
}

void RunActions::pack_dialog() {
    const QList<int> rows = selected_();
    if (rows.isEmpty() || catalog_->at(rows.first()).dir.isEmpty()) return;
    const QString name = catalog_->at(rows.first()).name;
    const QString file = QFileDialog::getSaveFileName(window_, "Share " + name, name + kPackExtension,
                                                      "FoNE runs (*.fonerun)");
    if (file.isEmpty()) return;
    const bool snapshots = confirm(window_, "Snapshots",
                                   "Include the run's representation snapshots? They "
                                   "make the file larger; the Replay and Timeline views need them.",
                                   "Include", "Leave out");
    pack_row(rows.first(), file, snapshots);
}

void RunActions::open_dialog() {
    const QStringList files =
        QFileDialog::getOpenFileNames(window_, "Open a shared run", QString(), "FoNE runs (*.fonerun)");
    for (const QString& f : files)
        open_pack(f);
}

void RunActions::export_dialog() {
    const QString file = QFileDialog::getSaveFileName(window_, "Export all metrics", "all-metrics.csv",
                                                      "CSV (*.csv);;JSON lines (*.jsonl)");
    if (!file.isEmpty()) export_all_metrics(file);
}

}  // namespace fone::gui
