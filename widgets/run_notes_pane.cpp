#include "run_notes_pane.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include "fone/store/run_notes.h"
#include "fone/store/run_store.h"
#include "run_catalog.h"

namespace fone::gui {

namespace {
constexpr int kAutosaveMs = 1000;
}

RunNotesPane::RunNotesPane(RunCatalog* catalog, QWidget* parent) : QWidget(parent), catalog_(catalog) {
    setObjectName("run-notes");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    auto* top = new QHBoxLayout;
    title_ = new QLabel;
    title_->setTextFormat(Qt::PlainText);
    tags_ = new QLineEdit;
    tags_->setObjectName("run-tags");
    tags_->setPlaceholderText("Tags: baseline fig3 (spaces between; filter the table with tag:baseline)");
    tags_->setToolTip("The run's tags, separated by spaces or commas (1 to 40 characters each)");
    top->addWidget(title_);
    top->addWidget(tags_, 1);
    layout->addLayout(top);
    text_ = new QPlainTextEdit;
    text_->setObjectName("run-notes-text");
    text_->setPlaceholderText(
        "Notes on the selected run: why it was run, what it showed… (kept in its folder, "
        "notes.json; saved as you type)");
    layout->addWidget(text_, 1);
    auto* bottom = new QHBoxLayout;
    status_ = new QLabel;
    status_->setTextFormat(Qt::PlainText);
    save_ = new QPushButton("Save");
    save_->setToolTip(
        "Save the notes and tags now (Ctrl+S; they are also saved a second after typing stops)");
    bottom->addWidget(status_, 1);
    bottom->addWidget(save_);
    layout->addLayout(bottom);

    autosave_ = new QTimer(this);
    autosave_->setSingleShot(true);
    autosave_->setInterval(kAutosaveMs);
    connect(autosave_, &QTimer::timeout, this, [this] { save(); });
    connect(text_, &QPlainTextEdit::textChanged, this, &RunNotesPane::mark_dirty);
    connect(tags_, &QLineEdit::textEdited, this, &RunNotesPane::mark_dirty);
    connect(tags_, &QLineEdit::editingFinished, this, [this] {
        if (dirty_) save();
    });
    connect(save_, &QPushButton::clicked, this, [this] { save(); });
    auto* save_key = new QAction(this);
    save_key->setShortcut(QKeySequence::Save);
    save_key->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(save_key, &QAction::triggered, this, [this] { save(); });
    addAction(save_key);
    connect(catalog_, &RunCatalog::rowChanged, this, &RunNotesPane::on_row_changed);
    show_run();
}

void RunNotesPane::set_run(int row) {
    if (row == row_) return;
    if (dirty_) save();
    row_ = row;
    show_run();
}

void RunNotesPane::show_run() {
    const bool has_run = row_ >= 0 && row_ < catalog_->size() && !catalog_->at(row_).dir.isEmpty();
    loading_ = true;
    if (has_run) {
        const RunEntry& e = catalog_->at(row_);
        title_->setText("Notes — " + e.name);
        tags_->setText(e.tags.join(' '));
        text_->setPlainText(e.notes);
    } else {
        title_->setText("Notes");
        tags_->clear();
        text_->clear();
    }
    loading_ = false;
    dirty_ = false;
    autosave_->stop();
    tags_->setEnabled(has_run);
    text_->setEnabled(has_run);
    save_->setEnabled(false);
    status_->setText(has_run ? QString() : QStringLiteral("Select a run to read and write its notes"));
}

void RunNotesPane::mark_dirty() {
    if (loading_ || row_ < 0) return;
    dirty_ = true;
    save_->setEnabled(true);
    status_->setText("Editing…");
    autosave_->start();
}

bool RunNotesPane::save() {
    autosave_->stop();
    if (row_ < 0 || row_ >= catalog_->size() || catalog_->at(row_).dir.isEmpty()) return false;
    const std::string dir = catalog_->at(row_).dir.toStdString();
    try {
        RunNotes n;
        n.text = text_->toPlainText().toStdString();
        n.tags = split_tags(tags_->text().toStdString());
        for (const std::string& t : n.tags)
            if (const std::string why = tag_problem(t); !why.empty())
                throw std::invalid_argument(why + ": '" + t + "'");
        write_run_notes(dir, n);
    } catch (const std::exception& e) {
        status_->setText("Not saved: " + QString::fromUtf8(e.what()));
        return false;
    }
    dirty_ = false;
    save_->setEnabled(false);
    status_->setText("Saved in " + QString::fromStdString(kNotesFile));
    const int row = row_;
    catalog_->reload_notes(row);  // the tags column and the filter follow
    Q_EMIT saved(row);
    return true;
}

void RunNotesPane::on_row_changed(int row) {
    // Notes written elsewhere: shown unless this pane holds edits of its own.
    if (row != row_ || dirty_) return;
    const RunEntry& e = catalog_->at(row);
    if (e.notes != text_->toPlainText() || e.tags.join(' ') != tags_->text()) {
        const QString status = status_->text();
        show_run();
        status_->setText(status);
    }
}

QString RunNotesPane::status_text() const {
    return status_->text();
}

}  // namespace fone::gui
