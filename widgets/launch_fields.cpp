#include "launch_fields.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QRegularExpression>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "launch_kinds.h"
#include "run_catalog.h"

namespace fone::gui {

namespace {

constexpr int kInspectMs = 60000;  // `fone model inspect` reads a tokenizer: a second, on a busy machine more

// A field with its "…" button on one line; the line of what was found is made here, placed by the panel.
void field_with_button(QWidget* owner, QLineEdit* edit, QToolButton* button, QLabel* info) {
    auto* row = new QHBoxLayout(owner);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(2);
    edit->setClearButtonEnabled(true);
    row->addWidget(edit, 1);
    button->setText("…");
    row->addWidget(button);
    info->setWordWrap(true);
    info->setStyleSheet("color: palette(placeholder-text);");
}

// How many lines a file has (up to a cap: the description, not a count of a large corpus).
qint64 lines_of(const QString& path, qint64 cap) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return -1;
    qint64 n = 0;
    while (!file.atEnd() && n < cap)
        n += !file.readLine(1 << 20).trimmed().isEmpty();
    return n;
}

}  // namespace

// ---- the corpus ----------------------------------------------------------------------------------------

CorpusPicker::CorpusPicker(QWidget* parent) : QWidget(parent) {
    edit_ = new QLineEdit;
    edit_->setObjectName("data");
    edit_->setPlaceholderText("a text or JSONL file, or a folder");
    choose_ = new QToolButton;
    choose_->setPopupMode(QToolButton::InstantPopup);
    choose_->setToolTip("Choose the corpus: the bundled Factbook sample, a file, or a folder");
    info_ = new QLabel;
    field_with_button(this, edit_, choose_, info_);
    auto* menu = new QMenu(choose_);
    QAction* sample = menu->addAction("The bundled Factbook sample (5 countries)", this,
                                      [this] { set_path(bundled_factbook_sample()); });
    sample->setEnabled(!bundled_factbook_sample().isEmpty());
    menu->addAction("A text or JSONL file…", this, [this] {
        const QString file =
            QFileDialog::getOpenFileName(this, "Corpus: one document a line, or JSONL", path());
        if (!file.isEmpty()) set_path(file);
    });
    menu->addAction("A folder (the Factbook's JSON files, or train/val/test.jsonl)…", this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, "Corpus folder", path());
        if (!dir.isEmpty()) set_path(dir);
    });
    choose_->setMenu(menu);
    connect(edit_, &QLineEdit::textChanged, this, [this] {
        describe();
        Q_EMIT changed();
    });
    describe();
}

QString CorpusPicker::path() const {
    return edit_->text().trimmed();
}

void CorpusPicker::set_path(const QString& path) {
    edit_->setText(path);
}

QString CorpusPicker::description() const {
    return info_->text();
}

void CorpusPicker::describe() {
    const QString p = path();
    problem_.clear();
    QString text;
    const QFileInfo info(p);
    if (p.isEmpty()) {
        text =
            "The text the model reads: one document a line, JSONL of {\"prompt\", \"answer\"}, or a folder.";
    } else if (!info.exists()) {
        problem_ = "no such file or folder";
    } else if (info.isDir()) {
        const QDir dir(p);
        if (QFileInfo::exists(dir.filePath("train.jsonl")))
            text =
                QStringLiteral("A folder with its splits: train.jsonl (%1 documents), val.jsonl, test.jsonl")
                    .arg(format_count(double(lines_of(dir.filePath("train.jsonl"), 1000000))));
        else {
            int files = 0;
            for (const QString& region : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
                files += QDir(dir.filePath(region)).entryList({"*.json"}, QDir::Files).size();
            files += dir.entryList({"*.json"}, QDir::Files).size();
            if (files == 0)
                problem_ = "a folder without train.jsonl or Factbook JSON files";
            else
                text = QStringLiteral(
                           "The Factbook's JSON files: %1 countries, one document each, split by country")
                           .arg(files);
        }
    } else if (!info.isReadable()) {
        problem_ = "cannot be read";
    } else {
        const qint64 lines = lines_of(p, 1000000);
        text = QStringLiteral("%1: %2 lines (%3 KB)")
                   .arg(p.endsWith(".jsonl") ? "JSONL, one {prompt, answer} a line"
                                             : "Text, one document a line")
                   .arg(format_count(double(lines)))
                   .arg(QString::number(double(info.size()) / 1024.0, 'f', 1));
    }
    info_->setText(problem_.isEmpty() ? text : QString());
}

// ---- the model folder ----------------------------------------------------------------------------------

ModelFolderBox::ModelFolderBox(QWidget* parent) : QWidget(parent) {
    edit_ = new QLineEdit;
    edit_->setObjectName("init_from");
    edit_->setPlaceholderText("a Hugging Face model folder (config.json, weights, tokenizer.json)");
    choose_ = new QToolButton;
    choose_->setToolTip("Choose a model folder as downloaded from Hugging Face (Llama or Qwen2)");
    info_ = new QLabel;
    field_with_button(this, edit_, choose_, info_);
    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(300);
    connect(debounce_, &QTimer::timeout, this, &ModelFolderBox::inspect);
    connect(choose_, &QToolButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, "Pretrained model folder", path());
        if (!dir.isEmpty()) set_path(dir);
    });
    connect(edit_, &QLineEdit::textChanged, this, [this] {
        found_ = {};
        problem_.clear();
        info_->setText(path().isEmpty() ? QString() : "Looking at the folder…");
        debounce_->start();
        Q_EMIT changed();
    });
    info_->setText("The model the run starts from: its shape, weights and tokenizer.");
}

ModelFolderBox::~ModelFolderBox() {
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(1000);
    }
}

QString ModelFolderBox::path() const {
    return edit_->text().trimmed();
}

void ModelFolderBox::set_path(const QString& path) {
    edit_->setText(path);
}

void ModelFolderBox::set_program(const QString& fone) {
    program_ = fone;
    if (!path().isEmpty()) debounce_->start();
}

bool ModelFolderBox::asking() const {
    return debounce_->isActive() || (process_ && process_->state() != QProcess::NotRunning);
}

QString ModelFolderBox::description() const {
    return info_->text();
}

void ModelFolderBox::inspect() {
    const QString dir = path();
    if (dir.isEmpty()) {
        info_->setText("The model the run starts from: its shape, weights and tokenizer.");
        return;
    }
    if (!QFileInfo(dir).isDir()) {
        problem_ = "no such folder";
        info_->clear();
        Q_EMIT changed();
        return;
    }
    if (program_.isEmpty()) return;  // the window gives it
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->deleteLater();
    }
    asked_ = dir;
    process_ = new QProcess(this);
    connect(process_, &QProcess::finished, this, &ModelFolderBox::on_inspected);
    connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) on_inspected(-1);
    });
    process_->start(program_, {"model", "inspect", dir});
    QTimer::singleShot(kInspectMs, process_, [p = process_] { p->kill(); });
}

void ModelFolderBox::on_inspected(int exit_code) {
    QProcess* p = process_;
    process_ = nullptr;
    p->deleteLater();
    if (asked_ != path()) return;  // the field moved on meanwhile
    const QByteArray out = p->readAllStandardOutput();
    const QJsonObject j = QJsonDocument::fromJson(out.trimmed().split('\n').last()).object();
    if (exit_code != 0 || j.isEmpty()) {
        const QString err = QString::fromUtf8(p->readAllStandardError()).trimmed();
        problem_ =
            err.isEmpty() ? QStringLiteral("not a model folder fone can open") : err.section('\n', 0, 0);
        problem_.remove(QRegularExpression("^(fone: )?(error: )?"));
        info_->clear();
        Q_EMIT changed();
        return;
    }
    found_ = j;
    QStringList parts;
    parts << QStringLiteral("%1, %2 layers, hidden %3")
                 .arg(j["family"].toString())
                 .arg(j["layers"].toInt())
                 .arg(j["hidden_size"].toInt());
    parts << format_count(j["parameters"].toDouble()) + " parameters (" + j["dtype"].toString() + ")";
    if (j["tokenizer"].isObject()) {
        parts << QStringLiteral("tokenizer.json, %1 tokens")
                     .arg(format_count(j["tokenizer"]["vocab_size"].toDouble()));
        if (j.contains("number_pieces"))
            parts
                << QStringLiteral("%1 number pieces (tokens of 1-3 digits)").arg(j["number_pieces"].toInt());
    } else {
        parts << "no tokenizer.json (fone-adapter needs one)";
    }
    info_->setText(parts.join(" · "));
    Q_EMIT changed();
}

}  // namespace fone::gui
