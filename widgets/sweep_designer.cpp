#include "sweep_designer.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTextDocument>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "confirm.h"
#include "fone/store/model_config.h"
#include "fone/store/run_policy.h"
#include "fone/store/run_store.h"
#include "fone/store/sweep.h"
#include "fone/store/train_config.h"
#include "launch_kinds.h"
#include "launch_panel.h"
#include "run_catalog.h"

namespace fone::gui {

using nlohmann::json;

namespace {

constexpr std::size_t kSliceCells = 250;  // cells queued per turn of the event loop

}  // namespace

std::vector<long long> doubling_sizes(long long from, long long to) {
    if (from < 1 || to < from) return {};
    const std::vector<std::uint64_t> sizes = fone::doubling_sizes(from, to);
    return {sizes.begin(), sizes.end()};
}

SweepDesigner::SweepDesigner(LaunchPanel* launch_panel, RunCatalog* catalog, QWidget* parent)
    : QWidget(parent), launch_panel_(launch_panel), catalog_(catalog), speeds_(catalog) {
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    // Narrow docks (a 1280 x 720 screen) put a field under its label rather than widen the window.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
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
    form->addRow("Training sizes", sizes);
    auto* level_grid = new QGridLayout;
    for (int level = 0; level <= 6; ++level) {
        auto* box = new QCheckBox(level == 0 ? QStringLiteral("default") : QStringLiteral("%1").arg(level));
        box->setToolTip(level == 0 ? "The default model for the task and size" : "The paper's size level");
        box->setChecked(level == 0);
        level_grid->addWidget(box, level / 4, level % 4);
        levels_.push_back(box);
        connect(box, &QCheckBox::toggled, this, &SweepDesigner::update_summary);
    }
    form->addRow("Size levels", level_grid);
    // Every method the engine has, three to a row; FoNE alone is ticked (the baselines are one click away).
    auto* method_grid = new QGridLayout;
    const std::vector<std::string> methods = method_names();
    for (std::size_t i = 0; i < methods.size(); ++i) {
        auto* box = new QCheckBox(QString::fromStdString(methods[i]));
        box->setChecked(methods[i] == kPaperMethod);
        box->setToolTip(QString::fromStdString(method_description(methods[i])));
        method_grid->addWidget(box, static_cast<int>(i / 3), static_cast<int>(i % 3));
        methods_.push_back(box);
        connect(box, &QCheckBox::toggled, this, &SweepDesigner::update_summary);
    }
    form->addRow("Methods", method_grid);
    form->addRow("Seeds", seeds_);
    parallel_ = new QSpinBox;
    parallel_->setRange(1, 64);
    parallel_->setToolTip("The queue trains at most this many runs at once (single launches included)");
    threads_ = new QSpinBox;
    threads_->setRange(0, std::max(1, QThread::idealThreadCount()));
    threads_->setValue(1);
    threads_->setToolTip(QStringLiteral("CPU threads per run (0: auto, from the CPUs free; this computer has "
                                        "%1). 1 suits several runs at once.")
                             .arg(std::max(1, QThread::idealThreadCount())));
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
    connect(catalog_, &RunCatalog::loaded, this, [this] {
        speeds_stale_ = true;
        update_summary();
    });
    // A run that finishes is one more speed to estimate from.
    // (and a finished run found by the scan for new folders, a row inserted, not changed). The summary
    // says it at once: "no time estimate yet" must not outlive the first finished run.
    // Rows change in bursts (a store of 2,000 runs loads its curves one row at a time) and the speeds are
    // read from every finished run: one update after the burst, not one per row (quadratic).
    speeds_timer_ = new QTimer(this);
    speeds_timer_->setSingleShot(true);
    speeds_timer_->setInterval(250);
    connect(speeds_timer_, &QTimer::timeout, this, &SweepDesigner::update_summary);
    connect(catalog_, &RunCatalog::rowChanged, this, [this](int row) {
        if (catalog_->at(row).status != "finished") return;
        speeds_stale_ = true;
        speeds_timer_->start();
    });
    connect(catalog_, &RunCatalog::rowsInserted, this, [this](int first, int last) {
        for (int row = first; row <= last; ++row)
            if (catalog_->at(row).status == "finished") speeds_stale_ = true;
        if (speeds_stale_) speeds_timer_->start();
    });
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
        if (levels_[level]->isChecked() && levels_[level]->isEnabled())
            grid.size_levels.push_back(level > 0 ? std::optional<std::uint64_t>(level) : std::nullopt);
    for (QCheckBox* method : methods_)
        if (method->isChecked() && method->isEnabled()) grid.methods.push_back(method->text().toStdString());
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

CellEstimate SweepDesigner::estimate(const json& settings) const {
    if (speeds_stale_) {
        auto* self = const_cast<SweepDesigner*>(this);
        self->speeds_.update();
        self->speeds_stale_ = false;
    }
    return speeds_.estimate(settings);
}

void SweepDesigner::update_choices() {
    // The methods and size levels that apply to the Launch panel's kind of run and task (a method that
    // does not is greyed out, saying why, and is not swept).
    const LaunchKind kind = launch_panel_->kind();
    const QString task = launch_panel_->choice("task")->currentText();
    for (QCheckBox* box : methods_) {
        const QString why = method_problem(kind, task, box->text());
        box->setEnabled(why.isEmpty());
        box->setToolTip(why.isEmpty()
                            ? QString::fromStdString(method_description(box->text().toStdString()))
                            : box->text() + " " + why + " (Launch panel: " +
                                  launch_kind_titles().value(launch_kind_index(kind)) + ", " + task + ")");
    }
    for (std::size_t level = 1; level < levels_.size(); ++level) {
        levels_[level]->setEnabled(kind != LaunchKind::pretrained);
        levels_[level]->setToolTip(kind != LaunchKind::pretrained
                                       ? "The paper's size level"
                                       : "A pretrained run takes its model folder's shape: no size levels");
    }
}

void SweepDesigner::update_summary() {
    if (queuing()) return;  // the summary says how far the queuing got
    update_choices();
    QString error;
    const std::vector<SweepCell> grid = cells(&error);
    queue_button_->setEnabled(!grid.empty() && store_problem_.isEmpty());
    if (!store_problem_.isEmpty()) error = store_problem_ + (grid.empty() ? " " + error : QString());
    if (grid.empty() || !store_problem_.isEmpty()) {
        summary_->setText("<span style='color:#d62728'>" + error.toHtmlEscaped() + "</span>");
        return;
    }
    // Cells differ in seed alone share an estimate.
    std::map<std::string, CellEstimate> known;
    double total = 0, low = 0, high = 0;
    int measured = 0, scaled = 0, unknown = 0;
    QStringList missing;
    for (const SweepCell& cell : grid) {
        json key = cell.settings;
        key.erase("seed");
        key.erase("name");
        auto it = known.find(key.dump());
        if (it == known.end()) it = known.emplace(key.dump(), estimate(cell.settings)).first;
        const CellEstimate& e = it->second;
        if (e.seconds < 0) {
            ++unknown;
            if (!missing.contains(e.missing)) missing << e.missing;
            continue;
        }
        total += e.seconds;
        low += e.low;
        high += e.high;
        (e.basis == CellEstimate::Basis::measured ? measured : scaled)++;
    }
    const int at_once = std::min<int>(parallel_->value(), static_cast<int>(grid.size()));
    QString text = QStringLiteral("<b>%1 runs</b>").arg(format_count(double(grid.size())));
    estimate_line_.clear();
    const CellEstimate sum{total, low, high, measured + scaled, CellEstimate::Basis::measured, {}};
    if (measured + scaled > 0) {
        estimate_line_ = sum.text() + " of training";
        if (at_once > 1)
            estimate_line_ += QStringLiteral(", about %1 with %2 at once")
                                  .arg(format_seconds(total / at_once))
                                  .arg(at_once);
        text += unknown > 0
                    ? QStringLiteral(": %1 of them %2").arg(format_count(measured + scaled), sum.text())
                    : ", " + sum.text();
        text += at_once > 1 ? QStringLiteral(" of training; %1 at once: about %2 if the cores keep up")
                                  .arg(at_once)
                                  .arg(format_seconds(total / at_once))
                            : QStringLiteral(" one after another");
        if (scaled == 0)
            text += QStringLiteral(" (from finished runs of the same method, task and model shape)");
        else if (measured == 0)
            text +=
                QStringLiteral(" (scaled by model size from the same method's runs of other shapes: rough)");
        else
            text += QStringLiteral(
                        " (%1 from finished runs of the same method, task and shape, %2 scaled by "
                        "model size from the same method's runs of other shapes: rough)")
                        .arg(measured)
                        .arg(scaled);
    }
    if (unknown > 0)
        text += QStringLiteral(
                    "%1no time estimate for %2 runs yet: the store has no finished run to go by of each "
                    "method and task (it waits for %3; train one, e.g. the Quick look preset with that "
                    "method)")
                    .arg(measured + scaled > 0 ? "; " : ": ")
                    .arg(format_count(unknown))
                    .arg(missing.join(", "));
    summary_->setText(text);
}

QString SweepDesigner::summary_text() const {
    QTextDocument doc;
    doc.setHtml(summary_->text());
    return doc.toPlainText();
}

void SweepDesigner::queue_sweep() {
    if (queuing() || !store_problem_.isEmpty()) return;
    QString error;
    std::vector<SweepCell> grid = cells(&error);
    if (grid.empty()) return;
    if (grid.size() > static_cast<std::size_t>(kConfirmRuns)) {
        const QString text =
            QStringLiteral(
                "This sweep trains %1 runs (%2). They wait in the queue and train %3 at a time. Queue "
                "them all?")
                .arg(format_count(double(grid.size())))
                .arg(estimate_line_.isEmpty() ? QStringLiteral("no time estimate yet") : estimate_line_)
                .arg(parallel_->value());
        if (!confirm(this, "Queue a large sweep?", text,
                     QStringLiteral("Queue %1 runs").arg(format_count(double(grid.size()))), "Cancel"))
            return;
    }
    std::reverse(grid.begin(), grid.end());  // taken from the back, in grid order
    pending_ = std::move(grid);
    queued_ = skipped_ = 0;
    queue_button_->setEnabled(false);
    queue_slice();
}

// Queuing a sweep again continues it, each cell by the store's rule for its run (run_policy.h, as `fone
// sweep`): finished or training cells are skipped, stopped or interrupted ones resumed (started again when
// nothing was checkpointed), failed ones trained again (the failed run kept as NAME.failed-<k>).
void SweepDesigner::queue_slice() {
    QList<QStringList> args;
    QStringList labels;
    const std::string root = catalog_->root().toStdString();  // "" before the catalog opened a store
    RunWish wish;
    wish.retry_failed = true;
    for (std::size_t n = 0; n < kSliceCells && !pending_.empty(); ++n) {
        const SweepCell cell = std::move(pending_.back());
        pending_.pop_back();
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
            ++skipped_;
        }
    }
    queued_ += static_cast<int>(args.size());
    if (!args.isEmpty()) Q_EMIT sweepRequested(args, labels);
    if (!pending_.empty()) {
        summary_->setText(QStringLiteral("Queuing… %1 runs so far, %2 to go")
                              .arg(format_count(queued_ + skipped_))
                              .arg(format_count(double(pending_.size()))));
        QTimer::singleShot(0, this, &SweepDesigner::queue_slice);
        return;
    }
    update_summary();
    summary_->setText(
        summary_->text() +
        QStringLiteral("<br>Queued %1 runs; %2 already finished or training.").arg(queued_).arg(skipped_));
    Q_EMIT sweepQueued(queued_, skipped_);
}

json SweepDesigner::state() const {
    json levels = json::array(), methods = json::array();
    for (std::size_t level = 0; level < levels_.size(); ++level)
        if (levels_[level]->isChecked() && levels_[level]->isEnabled()) levels.push_back(level);
    for (QCheckBox* m : methods_)
        if (m->isChecked()) methods.push_back(m->text().toStdString());
    return {{"name", name_->text().toStdString()},
            {"from", from_->text().toStdString()},
            {"to", to_->text().toStdString()},
            {"seeds", seeds_->text().toStdString()},
            {"levels", levels},
            {"methods", methods},
            {"threads", threads_->value()}};
}

void SweepDesigner::set_state(const json& state) {
    auto text = [&](const char* key, QLineEdit* edit) {
        if (state.contains(key) && state[key].is_string())
            edit->setText(QString::fromStdString(state[key].get<std::string>()));
    };
    text("name", name_);
    text("from", from_);
    text("to", to_);
    text("seeds", seeds_);
    if (state.contains("levels") && state["levels"].is_array())
        for (std::size_t level = 0; level < levels_.size(); ++level)
            levels_[level]->setChecked(std::find(state["levels"].begin(), state["levels"].end(), level) !=
                                       state["levels"].end());
    if (state.contains("methods") && state["methods"].is_array())
        for (QCheckBox* m : methods_)
            m->setChecked(std::find(state["methods"].begin(), state["methods"].end(),
                                    m->text().toStdString()) != state["methods"].end());
    if (state.contains("threads") && state["threads"].is_number_integer())
        threads_->setValue(state["threads"].get<int>());
    update_summary();
}

void SweepDesigner::set_store_problem(const QString& problem) {
    store_problem_ = problem;
    update_summary();
}

}  // namespace fone::gui
