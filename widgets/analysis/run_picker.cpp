#include "run_picker.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QSet>
#include <QToolButton>
#include <algorithm>
#include <fstream>

#include "fone/store/methods.h"
#include "fone/store/run_store.h"
#include "run_catalog.h"
#include "view_tips.h"

namespace fone::gui {

using nlohmann::json;

bool run_has_model(const QString& dir) {
    // Checkpoints are not deleted while the window runs: a run once seen with one is remembered (the pickers
    // ask for every run of the store when it changes).
    static QSet<QString> known;
    if (dir.isEmpty()) return false;
    if (known.contains(dir)) return true;
    if (!QFile::exists(dir + "/" + fone::kBestCheckpoint) &&
        !QFile::exists(dir + "/" + fone::kLastCheckpoint))
        return false;
    known.insert(dir);
    return true;
}

QString demo_model_dir() {
    QStringList candidates;
    const QString env = qEnvironmentVariable("FONE_DEMO_MODEL");
    if (!env.isEmpty()) candidates << env;
    const QString bin = QCoreApplication::applicationDirPath();
    candidates << QDir(bin).absoluteFilePath("../share/fone-workbench/demo-model");
#ifdef FONE_SOURCE_DIR
    candidates << QStringLiteral(FONE_SOURCE_DIR "/resources/demo-model");
#endif
    for (const QString& dir : candidates)
        if (run_has_model(dir)) return QFileInfo(dir).canonicalFilePath();
    return {};
}

namespace {

json read_config(const QString& dir) {
    try {  // bounded and regular files only: a config.json that is a FIFO must not hang the window
        const json j = fone::read_json_file((dir + "/" + fone::kConfigFile).toStdString());
        return j.is_object() ? j : json::object();
    } catch (const std::exception&) {
        return json::object();
    }
}

QString percent(double f) {
    return f < 0 ? QString() : QString::number(100.0 * f, 'f', 1) + "%";
}

}  // namespace

RunPicker::RunPicker(RunCatalog* catalog, QWidget* parent) : QWidget(parent), catalog_(catalog) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    combo_ = new QComboBox;
    combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo_->setMinimumContentsLength(28);
    combo_->setToolTip(tips::kRun);
    browse_ = new QToolButton;
    browse_->setText("…");
    browse_->setToolTip("Open a run directory (any folder with config.json and a checkpoint)");
    layout->addWidget(combo_, 1);
    layout->addWidget(browse_);
    rebuild_timer_ = new QTimer(this);
    rebuild_timer_->setSingleShot(true);
    rebuild_timer_->setInterval(1500);
    connect(rebuild_timer_, &QTimer::timeout, this, &RunPicker::rebuild);
    connect(combo_, &QComboBox::currentIndexChanged, this, &RunPicker::on_index_changed);
    connect(browse_, &QToolButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, "Run directory", run_dir());
        if (!dir.isEmpty() && !set_run(dir))
            combo_->setToolTip(dir +
                               " has no model (checkpoint-best.safetensors or checkpoint-last.safetensors)");
    });
    if (catalog_) {
        connect(catalog_, &RunCatalog::loaded, this, &RunPicker::rebuild);
        connect(catalog_, &RunCatalog::rowsInserted, this, [this] { rebuild_timer_->start(); });
        connect(catalog_, &RunCatalog::rowChanged, this, [this](int row) {
            // A run that just finished (or saved its first checkpoint) joins the list.
            const RunEntry& e = catalog_->at(row);
            if (e.status != "running" && e.status != "queued" && e.status != "starting")
                rebuild_timer_->start();
        });
    }
    rebuild();
}

int RunPicker::count() const {
    int n = 0;
    for (int i = 0; i < combo_->count(); ++i)
        n += !combo_->itemData(i).toString().isEmpty();
    return n;
}

QString RunPicker::run_dir() const {
    return current_;
}

QString RunPicker::run_name() const {
    return current_.isEmpty() ? QString() : QFileInfo(current_).fileName();
}

QString RunPicker::method() const {
    return QString::fromStdString(config_.value("method", std::string()));
}

void RunPicker::set_accepts(std::function<bool(const json&)> accepts, const QString& what) {
    accepts_ = std::move(accepts);
    what_ = what;
    rebuild();
}

bool RunPicker::accepts(const QString& dir) const {
    return !accepts_ || accepts_(read_config(dir));
}

bool RunPicker::set_run(const QString& name_or_dir) {
    QString dir;
    if (catalog_) {
        const int row = catalog_->row_of(name_or_dir);
        if (row >= 0) dir = catalog_->at(row).dir;
    }
    if (dir.isEmpty() && QFileInfo(name_or_dir).isDir()) dir = QFileInfo(name_or_dir).absoluteFilePath();
    if (dir.isEmpty() || !run_has_model(dir) || !accepts(dir)) return false;
    dir = QDir::cleanPath(dir);
    if (!extra_dirs_.contains(dir)) extra_dirs_ << dir;
    current_ = dir;
    demo_by_itself_ = false;
    config_ = read_config(dir);
    rebuild();
    Q_EMIT runChanged(current_);
    return true;
}

namespace {

// One entry of the picker's list.
struct PickerItem {
    QString dir, text, method;
    double best = -1;
    bool finished = false;
    bool demo = false;  // chosen by itself only when the store has no run with a model
};

// The store's runs with a model that the view takes, each folder once (`seen` gets them).
void add_store_items(const RunCatalog& catalog, const std::function<bool(const json&)>& accepts,
                     std::vector<PickerItem>& items, QSet<QString>& seen) {
    for (int r = 0; r < catalog.size(); ++r) {
        const RunEntry& e = catalog.at(r);
        if (e.dir.isEmpty() || e.status == kRetired || !run_has_model(e.dir)) continue;
        if (accepts && !accepts(e.config)) continue;
        const QString dir = QDir::cleanPath(e.dir);
        if (seen.contains(dir)) continue;
        seen.insert(dir);
        QString text = e.name + " — " + e.method + " · " + e.task;
        // A text run's corpus, a pretrained run's folder: what tells two text runs apart.
        for (const char* key : {"data", "init_from"})
            if (const std::string path = json_string(e.config, key); !path.empty())
                text += " · " + QFileInfo(QString::fromStdString(path)).fileName();
        const double best = std::max(e.best_exact_match, e.exact_match);
        if (best >= 0) text += " · " + percent(best);
        if (e.status != "finished") text += " (" + e.status + ")";
        items.push_back({dir, text, e.method, best, e.status == "finished"});
    }
}

}  // namespace

void RunPicker::rebuild() {
    using Item = PickerItem;
    std::vector<Item> items;
    QSet<QString> seen;
    if (catalog_) add_store_items(*catalog_, accepts_, items, seen);
    // The demo model that comes with the workbench: always there to look inside.
    if (const QString demo = demo_model_dir(); !demo.isEmpty() && !seen.contains(demo) && accepts(demo)) {
        seen.insert(demo);
        const json c = read_config(demo);
        items.push_back({demo,
                         "demo model — " + QString::fromStdString(c.value("method", std::string("fone"))) +
                             " · " + QString::fromStdString(c.value("task", std::string("?"))) +
                             " (comes with the workbench)",
                         QString::fromStdString(c.value("method", std::string("fone"))), -1, true, true});
    }
    for (const QString& dir : extra_dirs_) {
        if (seen.contains(dir)) continue;
        seen.insert(dir);
        const json c = read_config(dir);
        const QString method = QString::fromStdString(c.value("method", std::string("?")));
        items.push_back({dir,
                         QFileInfo(dir).fileName() + " — " + method + " · " +
                             QString::fromStdString(c.value("task", std::string("?"))) + " (" + dir + ")",
                         method, -1, true});
    }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.text < b.text; });
    QString chosen = current_;
    // Chosen afresh: at first, and while the pick is the demo model picked by itself (a store run that
    // appears later, once the store is read, is the better one to look inside).
    if ((chosen.isEmpty() || demo_by_itself_) && !items.empty()) {
        // The best finished FoNE run, else the best finished run, else the first.
        const Item* best = &items.front();
        auto score = [](const Item& i) {
            if (i.demo) return -10.0;
            return (i.finished ? 4.0 : 0.0) + (i.method == QLatin1String(kPaperMethod) ? 2.0 : 0.0) + i.best;
        };
        for (const Item& i : items)
            if (score(i) > score(*best)) best = &i;
        chosen = best->dir;
        demo_by_itself_ = best->demo;
    }
    {
        const QSignalBlocker block(combo_);
        combo_->clear();
        for (const Item& i : items)
            combo_->addItem(i.text, i.dir);
        if (items.empty())
            combo_->addItem(catalog_ && !catalog_->is_loaded()
                                ? "(reading the run store…)"
                                : "(no " + what_ + " yet: train one, or open a run with …)",
                            QString());
        if (items.empty()) combo_->setItemData(0, combo_->itemText(0), Qt::ToolTipRole);  // whole, if elided
        const int index = combo_->findData(chosen);
        combo_->setCurrentIndex(std::max(0, index));
    }
    if (chosen != current_) {
        current_ = chosen;
        config_ = read_config(chosen);
        Q_EMIT runChanged(current_);
    }
}

void RunPicker::on_index_changed() {
    const QString dir = combo_->currentData().toString();
    if (dir == current_) return;
    current_ = dir;
    demo_by_itself_ = false;  // the user's pick stays
    config_ = dir.isEmpty() ? json::object() : read_config(dir);
    Q_EMIT runChanged(current_);
}

}  // namespace fone::gui
