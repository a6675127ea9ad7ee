// WorkbenchWindow's Runs view: the run table (filter, columns, status cells with Resume and Stop, copy as
// CSV or Markdown, remove and delete), the selected run's message and notes under it, and the selection
// that the curves and the comparisons follow. The rest of the window is workbench_window.cpp.
#include <signal.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <map>

#include "comparison_view.h"
#include "confirm.h"
#include "curve_view.h"
#include "fone/store/run_store.h"
#include "job_runner.h"
#include "launch_panel.h"
#include "run_actions.h"
#include "run_catalog.h"
#include "run_notes_pane.h"
#include "run_table_model.h"
#include "settings_compare_view.h"
#include "workbench_window.h"

namespace fone::gui {

QWidget* WorkbenchWindow::make_runs_view() {
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QHBoxLayout;
    filter_ = new QLineEdit;
    filter_->setPlaceholderText("Filter runs: words, or status:running, task:dec-add, method:fone (Ctrl+F)");
    filter_->setClearButtonEnabled(true);
    auto* rerun = new QPushButton("Re-run config");
    rerun->setToolTip("Put the selected run's settings into the Launch panel");
    auto* stop = new QPushButton("Stop");
    stop->setToolTip("Ask the selected runs to checkpoint and stop (Ctrl+.)");
    auto* resume = new QPushButton("Resume");
    resume->setToolTip(
        "Continue the selected stopped or interrupted runs from their last checkpoint (Ctrl+R)");
    bar->addWidget(filter_, 1);
    bar->addWidget(rerun);
    bar->addWidget(stop);
    bar->addWidget(resume);
    layout->addLayout(bar);

    table_ = new QTableView;
    table_->setObjectName("run-table");
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(RunTableModel::kName, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(24);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->horizontalHeader()->setSectionsMovable(true);
    table_->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    table_->horizontalHeader()->setToolTip("Right-click to choose columns");
    const int widths[RunTableModel::kColumnCount] = {200, 150, 165, 65, 60,  75,  85, 95,  45,
                                                     55,  55,  50,  90, 125, 105, 60, 200, 110};
    for (int c = 0; c < RunTableModel::kColumnCount; ++c)
        table_->setColumnWidth(c, widths[c]);
    for (int c : {RunTableModel::kLr, RunTableModel::kBatch, RunTableModel::kEpochs})
        table_->setColumnHidden(c, true);
    // What a run reached comes right after how far it is: at 1280 px the exact-match column is on screen
    // without scrolling sideways (a saved column order, restored later, wins).
    for (int c : {RunTableModel::kExactMatch, RunTableModel::kBestExactMatch})
        table_->horizontalHeader()->moveSection(
            table_->horizontalHeader()->visualIndex(c),
            table_->horizontalHeader()->visualIndex(RunTableModel::kProgress) +
                (c == RunTableModel::kExactMatch ? 1 : 2));
    table_->horizontalHeader()->moveSection(
        table_->horizontalHeader()->visualIndex(RunTableModel::kTags),
        table_->horizontalHeader()->visualIndex(RunTableModel::kName) + 1);
    auto* delegate = new RunStatusDelegate(table_);
    table_->setItemDelegate(delegate);
    connect(delegate, &RunStatusDelegate::resumeClicked, this, &WorkbenchWindow::resume_row);
    connect(delegate, &RunStatusDelegate::stopClicked, this, &WorkbenchWindow::stop_row);
    connect(table_->horizontalHeader(), &QHeaderView::customContextMenuRequested, this,
            &WorkbenchWindow::show_column_menu);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &WorkbenchWindow::on_selection_changed);
    connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
        proxy_->set_filter_text(text);
        scaling_timer_->start();
    });
    // Hovering a row emphasises its curve (the curves do the same for the table).
    table_->setMouseTracking(true);
    connect(table_, &QAbstractItemView::entered, this, [this](const QModelIndex& index) {
        curves_->highlight(catalog_->at(proxy_->mapToSource(index).row()).name);
    });
    auto* copy_csv = new QAction("Copy rows as CSV", table_);
    copy_csv->setShortcut(QKeySequence::Copy);
    copy_csv->setShortcutContext(Qt::WidgetShortcut);
    connect(copy_csv, &QAction::triggered, this,
            [this] { QApplication::clipboard()->setText(selected_rows_text(false)); });
    auto* copy_md = new QAction("Copy rows as Markdown", table_);
    copy_md->setShortcut(QKeySequence("Ctrl+Shift+C"));
    copy_md->setShortcutContext(Qt::WidgetShortcut);
    connect(copy_md, &QAction::triggered, this,
            [this] { QApplication::clipboard()->setText(selected_rows_text(true)); });
    // A row can leave the list (a failed launch, a run not wanted here) or go with its folder, after a yes.
    auto* remove = new QAction("Remove from list", table_);
    connect(remove, &QAction::triggered, this, &WorkbenchWindow::remove_selected);
    auto* erase = new QAction("Delete run folder…", table_);
    erase->setShortcut(QKeySequence::Delete);
    erase->setShortcutContext(Qt::WidgetShortcut);
    connect(erase, &QAction::triggered, this, &WorkbenchWindow::delete_selected);
    table_->addActions({copy_csv, copy_md, remove, erase});
    table_->addActions(actions_->table_actions());
    table_->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(rerun, &QPushButton::clicked, this, &WorkbenchWindow::rerun_selected);
    connect(stop, &QPushButton::clicked, this, &WorkbenchWindow::stop_selected);
    connect(resume, &QPushButton::clicked, this, &WorkbenchWindow::resume_selected);

    details_ = new QPlainTextEdit;
    details_->setReadOnly(true);
    details_->setPlaceholderText("The selected run's message (the end of its error output when it failed)");
    notes_ = new RunNotesPane(catalog_);
    auto* below = new QSplitter(Qt::Horizontal);  // the selected run: its message, and its notes and tags
    below->addWidget(details_);
    below->addWidget(notes_);
    below->setSizes({300, 500});
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(table_);
    split->addWidget(below);
    split->setStretchFactor(0, 1);
    split->setSizes({300, 130});
    layout->addWidget(split, 1);
    return box;
}

QList<int> WorkbenchWindow::selected_rows() const {
    QList<int> rows;
    if (!table_ || !table_->selectionModel()) return rows;
    for (const QModelIndex& index : table_->selectionModel()->selectedRows())
        rows << proxy_->mapToSource(index).row();
    std::sort(rows.begin(), rows.end());
    return rows;
}

void WorkbenchWindow::on_selection_changed() {
    const QList<int> rows = selected_rows();
    QStringList names;
    for (int row : rows)
        names << catalog_->at(row).name;
    catalog_->set_selected(names);  // before the views draw: they colour each run by its slot
    curves_->set_runs(rows);
    compare_->set_runs(rows);
    settings_compare_->set_runs(rows);
    notes_->set_run(rows.isEmpty() ? -1 : rows.first());
    update_details();
}

void WorkbenchWindow::update_details() {
    const QList<int> rows = selected_rows();
    if (rows.isEmpty()) {
        details_->clear();
        return;
    }
    const RunEntry& e = catalog_->at(rows.first());
    QString text = e.display_name() + " — " + e.status;
    if (!e.dir.isEmpty()) text += "  (" + e.dir + ")";
    if (!e.message.isEmpty()) text += "\n" + e.message;
    details_->setPlainText(text);
}

void WorkbenchWindow::stop_row(int row) {
    if (row < 0 || row >= catalog_->size()) return;
    const RunEntry& e = catalog_->at(row);
    if (e.job_id > 0) {
        jobs_->cancel(e.job_id);
    } else if (e.status == "running" && e.pid > 0 && e.host == QString::fromStdString(host_name())) {
        ::kill(e.pid, SIGTERM);  // a run started outside the window: it checkpoints and stops the same way
    }
}

void WorkbenchWindow::resume_row(int row) {
    if (row < 0 || row >= catalog_->size() || !catalog_->at(row).can_resume()) return;
    jobs_->enqueue_resume(catalog_->at(row).dir);
}

void WorkbenchWindow::remove_selected() {
    for (int row : selected_rows())
        catalog_->remove_row(row);
}

void WorkbenchWindow::delete_selected() {
    QStringList names, refused;
    QList<int> rows;
    for (int row : selected_rows()) {
        const RunEntry& e = catalog_->at(row);
        if (e.is_active()) {
            refused << e.display_name();
        } else {
            rows << row;
            names << e.display_name();
        }
    }
    if (!refused.isEmpty())
        statusBar()->showMessage("Not deleted, still training (stop first): " + refused.join(", "), 10000);
    if (rows.isEmpty()) return;
    const QString what = rows.size() == 1 ? names.first() : QString("%1 runs").arg(rows.size());
    if (!confirm(this, "Delete runs",
                 "Delete " + what +
                     " with every file of its folder (checkpoints, metrics)? This cannot be "
                     "undone.\n\n" +
                     names.mid(0, 12).join("\n"),
                 "Delete", "Keep"))
        return;
    QStringList problems;
    for (int row : rows)
        if (QString why = catalog_->delete_run(row); !why.isEmpty()) problems << why;
    if (!problems.isEmpty()) statusBar()->showMessage("Not deleted: " + problems.join("; "), 15000);
}

void WorkbenchWindow::stop_selected() {
    for (int row : selected_rows())
        stop_row(row);
}

void WorkbenchWindow::resume_selected() {
    for (int row : selected_rows())
        resume_row(row);
}

void WorkbenchWindow::rerun_selected() {
    const QList<int> rows = selected_rows();
    if (rows.isEmpty() || catalog_->at(rows.first()).config.empty()) return;
    nlohmann::json config = catalog_->at(rows.first()).config;
    config.erase("name");
    launch_->load_settings(config);
    docks_["launch"]->show();
    docks_["launch"]->raise();
}

void WorkbenchWindow::show_column_menu(const QPoint& pos) {
    QMenu menu;
    for (int c = 0; c < RunTableModel::kColumnCount; ++c) {
        QAction* a = menu.addAction(model_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
        a->setCheckable(true);
        a->setChecked(!table_->isColumnHidden(c));
        connect(a, &QAction::toggled, this, [this, c](bool on) { table_->setColumnHidden(c, !on); });
    }
    menu.exec(table_->horizontalHeader()->mapToGlobal(pos));
}

QString WorkbenchWindow::selected_rows_text(bool markdown) const {
    // The selected rows as shown (visible columns, in their order), as CSV or a Markdown table.
    QList<int> columns;
    QHeaderView* header = table_->horizontalHeader();
    for (int v = 0; v < header->count(); ++v)
        if (!header->isSectionHidden(header->logicalIndex(v))) columns << header->logicalIndex(v);
    auto line = [&](const QStringList& cells) {
        if (!markdown) {
            QStringList quoted;
            for (const QString& c : cells)
                quoted << csv_field(c);
            return quoted.join(',') + "\n";
        }
        QStringList escaped;
        for (const QString& c : cells)
            escaped << QString(c).replace('|', "\\|");
        return "| " + escaped.join(" | ") + " |\n";
    };
    QStringList titles;
    for (int c : columns)
        titles << model_
                      ->headerData(c, Qt::Horizontal,
                                   markdown ? int(Qt::DisplayRole) : int(RunTableModel::kCsvRole))
                      .toString();
    QString out = line(titles);
    if (markdown) out += "|" + QStringList(QList<QString>(columns.size(), "---")).join("|") + "|\n";
    QModelIndexList rows = table_->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    for (const QModelIndex& index : rows) {
        QStringList cells;
        for (int c : columns) {
            const QModelIndex cell = proxy_->index(index.row(), c);
            // CSV is for spreadsheets: numbers as numbers (493696, 40.5), Markdown as the table shows them.
            cells << (markdown ? cell.data().toString() : cell.data(RunTableModel::kCsvRole).toString());
        }
        out += line(cells);
    }
    return out;
}

void WorkbenchWindow::select_runs(const QStringList& names) {
    QItemSelection selection;
    for (int r = 0; r < proxy_->rowCount(); ++r) {
        const int row = proxy_->mapToSource(proxy_->index(r, 0)).row();
        if (names.contains(catalog_->at(row).name))
            selection.select(proxy_->index(r, 0), proxy_->index(r, RunTableModel::kColumnCount - 1));
    }
    table_->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
}

void WorkbenchWindow::select_example_runs(int n) {
    // Finished runs of the most common model shape and seed (of equally common ones, the one that got
    // furthest): one per training-set size, the best of each (its curves show something).
    std::map<std::pair<QString, double>, std::pair<int, double>> groups;  // (runs, best exact match)
    for (int r = 0; r < catalog_->size(); ++r)
        if (const RunEntry& e = catalog_->at(r); e.status == "finished") {
            auto& [runs, best] = groups[{e.shape, e.seed}];
            ++runs;
            best = std::max(best, e.best_exact_match);
        }
    if (groups.empty()) groups[{QString(), -1}] = {0, 0.0};
    const auto group = std::max_element(groups.begin(), groups.end(), [](auto& a, auto& b) {
                           return a.second < b.second;
                       })->first;
    std::map<double, std::pair<double, QString>> by_size;  // size -> (best exact match, run): the best one
    for (int r = 0; r < catalog_->size(); ++r) {
        const RunEntry& e = catalog_->at(r);
        if (e.status != "finished" || e.shape != group.first || e.seed != group.second) continue;
        auto [it, added] = by_size.try_emplace(e.train_size, e.best_exact_match, e.name);
        if (!added && e.best_exact_match > it->second.first) it->second = {e.best_exact_match, e.name};
    }
    // Runs training now come first: their curves are the live ones.
    QStringList names;
    for (int r = 0; r < catalog_->size() && names.size() < n / 2; ++r)
        if (catalog_->at(r).status == "running") names << catalog_->at(r).name;
    for (auto it = by_size.rbegin(); it != by_size.rend() && names.size() < n; ++it)
        names << it->second.second;
    select_runs(names);
    if (names.isEmpty() || catalog_->row_of(names.first()) < 0) return;
    const int row = catalog_->row_of(names.first());
    QTimer::singleShot(0, this, [this, row] {  // once the view has its geometry
        table_->scrollTo(proxy_->mapFromSource(model_->index(row, 0)), QAbstractItemView::PositionAtTop);
    });
}

}  // namespace fone::gui
