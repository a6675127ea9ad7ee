#include "sweep_designer.h"

#include <QCheckBox>
#include <QDateTime>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "fone/store/run_policy.h"
#include "fone/store/run_store.h"
#include "fone/store/sweep.h"
#include "fone/store/train_config.h"
#include "launch_panel.h"
#include "run_catalog.h"

namespace fone::gui {

using nlohmann::json;

std::vector<long long> doubling_sizes(long long from, long long to) {
    if (from < 1 || to < from) return {};
    const std::vector<std::uint64_t> sizes = fone::doubling_sizes(from, to);
    return {sizes.begin(), sizes.end()};
}

SweepDesigner::SweepDesigner(LaunchPanel* launch_panel, RunCatalog* catalog, QWidget* parent)
    : QWidget(parent), launch_panel_(launch_panel), catalog_(catalog) {
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    name_ = new QLineEdit("sweep-" + QDateTime::currentDateTime().toString("MMdd-HHmm"));
    name_->setToolTip("Prefix of the run names: NAME-n<size>-l<level>-<method>-s<seed>");
    from_ = new QLineEdit("800");
    to_ = new QLineEdit("12800");
    from_->setToolTip("Smallest training set; the sweep doubles it while it stays at or below the largest.");
    seeds_ = new QLineEdit("1,2,3");
    seeds_->setToolTip(
        "Seeds, separated by commas: each grid point trains once per seed; the figures average them.");
    form->addRow("Sweep name", name_);
    auto* sizes = new QHBoxLayout;
    sizes->addWidget(from_);
    sizes->addWidget(new QLabel("to"));
    sizes->addWidget(to_);
    form->addRow("Training sizes (doubling)", sizes);
    auto* level_grid = new QGridLayout;
    for (int level = 0; level <= 6; ++level) {
        auto* box = new QCheckBox(level == 0 ? QStringLiteral("default") : QStringLiteral("%1").arg(level));
        box->setToolTip(level == 0 ? "The default model for the task and size" : "The paper's size level");
        box->setChecked(level == 0);
        level_grid->addWidget(box, 0, level);
        levels_.push_back(box);
        connect(box, &QCheckBox::toggled, this, &SweepDesigner::update_summary);
    }
    form->addRow("Size levels", level_grid);
    // Every method the engine has, four to a row; FoNE alone is ticked (the baselines are one click away).
    auto* method_grid = new QGridLayout;
    const std::vector<std::string> methods = method_names();
    for (std::size_t i = 0; i < methods.size(); ++i) {
        auto* box = new QCheckBox(QString::fromStdString(methods[i]));
        box->setChecked(methods[i] == "fone");
        box->setToolTip(QString::fromStdString(method_description(methods[i])));
        method_grid->addWidget(box, static_cast<int>(i / 4), static_cast<int>(i % 4));
        methods_.push_back(box);
        connect(box, &QCheckBox::toggled, this, &SweepDesigner::update_summary);
    }
    form->addRow("Methods", method_grid);
    form->addRow("Seeds", seeds_);
    parallel_ = new QSpinBox;
    parallel_->setRange(1, 64);
    parallel_->setToolTip("The queue trains at most this many runs at once (single launches included)");
    threads_ = new QSpinBox;
    threads_->setRange(0, 256);
    threads_->setValue(1);
    threads_->setToolTip("CPU threads per run (0: every core). 1 suits several runs at once.");
    parallel_->setMaximumWidth(80);
    threads_->setMaximumWidth(80);
    form->addRow("Runs at once", parallel_);
    form->addRow("Threads per run", threads_);
    layout->addLayout(form);
    auto* shared = new QLabel("Other settings (task, epochs, learning rate, …) come from the Launch panel.");
    shared->setWordWrap(true);
    layout->addWidget(shared);
    summary_ = new QLabel;
    summary_->setWordWrap(true);
    layout->addWidget(summary_);
    queue_button_ = new QPushButton("Queue sweep");
    layout->addWidget(queue_button_);
    layout->addStretch(1);

    for (QLineEdit* e : {name_, from_, to_, seeds_})
        connect(e, &QLineEdit::textChanged, this, &SweepDesigner::update_summary);
    connect(launch_panel_, &LaunchPanel::settingsChanged, this, &SweepDesigner::update_summary);
    connect(catalog_, &RunCatalog::loaded, this, &SweepDesigner::update_summary);
    connect(parallel_, &QSpinBox::valueChanged, this, [this](int n) {
        update_summary();
        Q_EMIT maxParallelChanged(n);
    });
    connect(queue_button_, &QPushButton::clicked, this, &SweepDesigner::queue_sweep);
    update_summary();
}

QLineEdit* SweepDesigner::field(const QString& key) const {
    return key == "name"    ? name_
           : key == "from"  ? from_
           : key == "to"    ? to_
           : key == "seeds" ? seeds_
                            : nullptr;
}

int SweepDesigner::max_parallel() const {
    return parallel_->value();
}
void SweepDesigner::set_max_parallel(int n) {
    parallel_->setValue(n);
}
void SweepDesigner::set_level_checked(int level, bool on) {
    levels_.at(static_cast<std::size_t>(level))->setChecked(on);
}

bool SweepDesigner::set_method_checked(const QString& method, bool on) {
    for (QCheckBox* box : methods_)
        if (box->text() == method) {
            box->setChecked(on);
            return true;
        }
    return false;
}

std::vector<SweepCell> SweepDesigner::cells(QString* error) const {
    auto fail = [&](const QString& why) {
        *error = why;
        return std::vector<SweepCell>{};
    };
    bool ok_from = false, ok_to = false;
    const long long from = from_->text().trimmed().toLongLong(&ok_from),
                    to = to_->text().trimmed().toLongLong(&ok_to);
    if (!ok_from || !ok_to || from < 1 || to < from)
        return fail("Training sizes: two whole numbers, 1 ≤ from ≤ to");
    // The grid is core's (fone/store/sweep.h), so the cells are named as `fone sweep` names them; the
    // "default" size level has no value: no size_level setting and no part of the name.
    SweepGrid grid;
    grid.train_sizes = fone::doubling_sizes(from, to);
    for (std::size_t level = 0; level < levels_.size(); ++level)
        if (levels_[level]->isChecked())
            grid.size_levels.push_back(level > 0 ? std::optional<std::uint64_t>(level) : std::nullopt);
    for (QCheckBox* method : methods_)
        if (method->isChecked()) grid.methods.push_back(method->text().toStdString());
    const std::string name = name_->text().trimmed().toStdString();
    std::vector<SweepPoint> points;
    try {
        grid.seeds = parse_seeds("Seeds", seeds_->text().toStdString());
        if (const std::string why = sweep_name_problem(name); !why.empty())
            throw std::invalid_argument("Sweep name: " + why);
        if (grid.size_levels.empty() || grid.methods.empty())
            throw std::invalid_argument("Tick at least one size level and one method");
        check_grid_size(grid);
        points = expand_sweep(name, grid);
    } catch (const std::invalid_argument& e) {
        return fail(QString::fromStdString(e.what()));
    }
    if (!launch_panel_->is_valid()) return fail("The Launch panel's settings have a problem (see there)");
    const json base = launch_panel_->settings();
    std::vector<SweepCell> out;
    for (const SweepPoint& p : points) {
        SweepCell cell;
        cell.name = QString::fromStdString(p.run);
        cell.settings = base;
        cell.settings["train_size"] = *p.train_size;
        cell.settings["method"] = *p.method;
        cell.settings["seed"] = *p.seed;
        if (p.size_level) {
            cell.settings["size_level"] = static_cast<int>(*p.size_level);
            cell.settings.erase("model");
        }
        if (threads_->value() > 0) cell.settings["threads"] = threads_->value();
        cell.settings["name"] = p.run;
        out.push_back(std::move(cell));
    }
    return out;
}

double SweepDesigner::estimate_seconds(const json& settings) const {
    TrainConfig config;
    try {
        std::vector<json> layers;
        if (settings.contains("preset"))
            layers.push_back(preset_settings(settings["preset"].get<std::string>()));
        layers.push_back(settings);
        config = resolve_train_config(layers);
    } catch (const std::exception&) {
        return -1;
    }
    // Training examples per second of finished runs with this shape (median), from their summaries.
    std::vector<double> speeds;
    for (int r = 0; r < catalog_->size(); ++r) {
        const RunEntry& e = catalog_->at(r);
        if (e.status != "finished" || !e.summary.is_object()) continue;
        const double level = e.size_level;
        const bool same =
            config.size_level > 0
                ? level == config.size_level
                : level == 0 && config_value(e.config, "model").is_object() &&
                      json_number(config_value(e.config, "model"), "hidden", 0) == config.model.hidden &&
                      json_number(config_value(e.config, "model"), "layers", 0) == config.model.layers;
        const double train_seconds = json_number(e.summary, "train_seconds", 0.0),
                     epochs = json_number(e.summary, "epoch", 0.0);
        if (same && train_seconds > 0 && epochs > 0) speeds.push_back(e.train_size * epochs / train_seconds);
    }
    if (speeds.empty()) return -1;
    std::nth_element(speeds.begin(), speeds.begin() + speeds.size() / 2, speeds.end());
    const double speed = speeds[speeds.size() / 2];
    return double(config.train_size) * config.epochs / speed;
}

void SweepDesigner::update_summary() {
    QString error;
    const std::vector<SweepCell> grid = cells(&error);
    queue_button_->setEnabled(!grid.empty());
    if (grid.empty()) {
        summary_->setText("<span style='color:#d62728'>" + error.toHtmlEscaped() + "</span>");
        return;
    }
    double total = 0;
    int unknown = 0;
    for (const SweepCell& cell : grid) {
        const double s = estimate_seconds(cell.settings);
        if (s < 0)
            ++unknown;
        else
            total += s;
    }
    const int at_once = std::min<int>(parallel_->value(), static_cast<int>(grid.size()));
    QString text = QStringLiteral("<b>%1 runs</b>").arg(grid.size());
    if (unknown < static_cast<int>(grid.size()))
        text += at_once > 1
                    ? QStringLiteral(", about %1 of training; %2 at once: about %3 if the cores keep up")
                          .arg(format_seconds(total))
                          .arg(at_once)
                          .arg(format_seconds(total / at_once))
                    : QStringLiteral(", about %1 one after another").arg(format_seconds(total));
    if (unknown < static_cast<int>(grid.size()))
        text += " (estimated from the training speed of finished runs of the same model shape)";
    if (unknown > 0)
        text += QStringLiteral(
                    "; %1 runs have no estimate (no finished run of that model shape in the store yet)")
                    .arg(unknown);
    summary_->setText(text);
}

void SweepDesigner::queue_sweep() {
    QString error;
    const std::vector<SweepCell> grid = cells(&error);
    if (grid.empty()) return;
    // Queuing a sweep again continues it, each cell by the store's rule for its run (run_policy.h, as
    // `fone sweep`): finished or training cells are skipped, stopped or interrupted ones resumed (started
    // again when nothing was checkpointed), failed ones trained again (the failed run kept as
    // NAME.failed-<k>).
    QList<QStringList> args;
    QStringList labels;
    int skipped = 0;
    const std::string root = catalog_->root().toStdString();  // "" before the catalog opened a store
    RunWish wish;
    wish.retry_failed = true;
    for (const SweepCell& cell : grid) {
        const std::string dir = root + "/" + cell.name.toStdString();
        RunAction action = RunAction::start;
        if (!root.empty()) {
            action = decide_run(dir, wish).action;
            if (action == RunAction::restart || action == RunAction::retry) {
                try {
                    clear_run_dir(dir, action);
                } catch (const RunError&) {  // not ours to clear after all: left as it is
                    action = RunAction::leave;
                }
            }
        }
        if (action == RunAction::resume) {
            args << QStringList{"--resume", QString::fromStdString(dir)};
            labels << "resume " + cell.name;
        } else if (action == RunAction::start || action == RunAction::restart || action == RunAction::retry) {
            args << LaunchPanel::train_args(cell.settings);
            labels << cell.name;
        } else {
            ++skipped;
        }
    }
    summary_->setText(
        summary_->text() +
        QStringLiteral("<br>Queued %1 runs; %2 already finished or training.").arg(args.size()).arg(skipped));
    if (!args.isEmpty()) Q_EMIT sweepRequested(args, labels);
}

}  // namespace fone::gui
