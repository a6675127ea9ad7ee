#include "workbench_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>
#include <QTabBar>
#include <QTimer>

#include <qcustomplot.h>

#include "comparison_view.h"
#include "confirm.h"
#include "curve_view.h"
#include "fone/build_info.h"
#include "fone/store/run_store.h"
#include "job_runner.h"
#include "launch_panel.h"
#include "plot_panel.h"
#include "run_actions.h"
#include "run_catalog.h"
#include "run_notes_pane.h"
#include "run_table_model.h"
#include "scaling_view.h"
#include "settings_compare_view.h"
#include "sweep_designer.h"
#include "wheel_guard.h"
#include "window_layout.h"

namespace fone::gui {

namespace {

// A dock's view scrolls when the dock is smaller than the view can be: the window fits any screen.
QScrollArea* scrolling(QWidget* view) {
    auto* area = new QScrollArea;
    area->setWidget(view);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setObjectName("scroll-" + view->objectName());
    return area;
}

const char* const kNoNproc = "this build of fone has no data-parallel training (LibTorch's c10d and Gloo)";

}  // namespace

WorkbenchWindow::WorkbenchWindow(const WorkbenchOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options) {
    setWindowTitle("FoNE Workbench");
    setObjectName("WorkbenchWindow");
    setDockNestingEnabled(true);
    if (options.screen) setScreen(options.screen);
    install_wheel_guard();
    const QString root =
        options.runs_dir.isEmpty() ? QString::fromStdString(RunStore::default_root()) : options.runs_dir;
    catalog_ = new RunCatalog(this);
    jobs_ = new JobRunner(options.cli.isEmpty() ? JobRunner::default_cli_path() : options.cli, root, this);
    model_ = new RunTableModel(catalog_, this);
    proxy_ = new RunFilterProxy(this);
    proxy_->setSourceModel(model_);
    scaling_timer_ = new QTimer(this);
    scaling_timer_->setSingleShot(true);
    scaling_timer_->setInterval(300);
    connect(scaling_timer_, &QTimer::timeout, this, &WorkbenchWindow::update_scaling_runs);

    launch_ = new LaunchPanel;
    sweep_ = new SweepDesigner(launch_, catalog_);
    connect_launch_estimate();
    curves_ = new CurveView(catalog_);
    data_size_ = new ScalingView(catalog_, ScalingMode::data_size);
    model_size_ = new ScalingView(catalog_, ScalingMode::model_size);
    compare_ = new ComparisonView(catalog_);
    settings_compare_ = new SettingsCompareView(catalog_);
    actions_ = new RunActions(
        this, catalog_, [this] { return selected_rows(); }, [this](const QStringList& n) { select_runs(n); });
    plots_ = {curves_, data_size_, model_size_};
    last_plot_ = curves_;

    add_dock("launch", "Launch", launch_);
    add_dock("runs", "Runs", make_runs_view());
    add_dock("sweep", "Sweep", sweep_);
    add_dock("curves", "Curves", curves_);
    add_dock("data-size", "Data size", data_size_);
    add_dock("model-size", "Model size", model_size_);
    add_dock("compare", "Compare", compare_);
    add_dock("compare-settings", "Compare settings", settings_compare_);
    // Registered views: the welcome view and the analysis views.
    const WorkbenchContext context{catalog_, jobs_, [this](const QString& name) { return view(name); }};
    for (const ViewSpec& spec : registered_views()) {
        QDockWidget* dock = add_dock(spec.name, spec.title, spec.make(context));
        if (spec.in_front && !front_dock_) front_dock_ = dock;
    }
    if (!front_dock_) front_dock_ = docks_["runs"];
    layout_ = new WindowLayout(
        this, [this] { arrange_docks(); }, [this] { size_docks(); });
    layout_->fit_to_screen();
    arrange_docks();

    status_label_ = new QLabel;
    status_label_->setMinimumWidth(80);
    status_label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    store_label_ = new QLabel;
    store_label_->setStyleSheet("color: #d62728; font-weight: bold;");
    store_label_->hide();
    statusBar()->addWidget(store_label_);
    statusBar()->addPermanentWidget(status_label_, 1);
    make_menus();
    connect_jobs();

    connect(catalog_, &RunCatalog::loaded, this, [this] {
        update_status();
        scaling_timer_->start();
    });
    connect(catalog_, &RunCatalog::rowsInserted, this, [this] {
        update_status();
        scaling_timer_->start();
    });
    connect(catalog_, &RunCatalog::rowChanged, this, [this](int row) {
        update_status();
        if (catalog_->at(row).status == kRetired) proxy_->refilter();
        if (catalog_->at(row).status == "finished") scaling_timer_->start();
        if (!selected_rows().isEmpty() && selected_rows().first() == row) update_details();
    });
    connect(curves_, &CurveView::runHovered, model_, &RunTableModel::set_highlighted);
    // Compare settings and the curves point at the same run: a column hovered, its curve; a curve, its
    // column.
    connect(curves_, &CurveView::runHovered, settings_compare_, &SettingsCompareView::highlight);
    connect(settings_compare_, &SettingsCompareView::runHovered, curves_, &CurveView::highlight);

    theme_ = theme_named(options.theme);
    if (options.use_settings) restore_settings();
    if (!options.theme.isEmpty()) theme_ = theme_named(options.theme);
    set_theme(theme_.name);
    catalog_->open(root);
    check_store();
    check_cuda();
    update_status();
}

void WorkbenchWindow::connect_launch_estimate() {
    // The Launch form says how long the run will take before it is launched: the sweep designer's estimate
    // (finished runs of the store of the same shape, else scaled from other shapes), renewed as runs finish.
    const auto estimator = [this](const nlohmann::json& settings) {
        const CellEstimate e = sweep_->estimate(settings);
        if (e.basis == CellEstimate::Basis::none)
            return "Time: no estimate yet (no finished run in the store to go by: it waits for " + e.missing +
                   ")";
        return QStringLiteral("Time: %1 of training (%2)")
            .arg(e.text(), e.basis == CellEstimate::Basis::measured
                               ? QStringLiteral("from %1 finished run%2 of this method, task and shape")
                                     .arg(e.runs)
                                     .arg(e.runs == 1 ? "" : "s")
                               : "scaled by model size from this method's runs of other shapes: rough");
    };
    launch_->set_estimator(estimator);
    launch_->set_name_taken([this](const QString& name) { return catalog_->row_of(name) >= 0; });
    connect(catalog_, &RunCatalog::loaded, this, [this, estimator] { launch_->set_estimator(estimator); });
    connect(catalog_, &RunCatalog::rowChanged, this, [this, estimator](int row) {
        if (catalog_->at(row).status == "finished") launch_->set_estimator(estimator);
    });
}

void WorkbenchWindow::check_store() {
    store_problem_ = catalog_->write_problem();
    const bool ok = store_problem_.isEmpty();
    store_label_->setVisible(!ok);
    store_label_->setText("Run store " + store_problem_ + " — runs can be looked at, not launched");
    store_label_->setToolTip(catalog_->root());
    launch_->set_store_problem(ok ? QString()
                                  : "The run store " + catalog_->root() + " is " + store_problem_ +
                                        ": open a writable one with --runs-dir to launch runs.");
    sweep_->set_store_problem(ok ? QString() : "The run store is " + store_problem_ + ".");
}

WorkbenchWindow::~WorkbenchWindow() {
    // Children die after the views: stop the probe and the training children while the views still exist.
    if (cuda_probe_) {
        cuda_probe_->disconnect(this);
        cuda_probe_->kill();
        cuda_probe_->waitForFinished(1000);
        delete cuda_probe_;
    }
    delete jobs_;
}

QDockWidget* WorkbenchWindow::add_dock(const QString& name, const QString& title, QWidget* widget) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName("dock-" + name);
    if (widget->objectName().isEmpty()) widget->setObjectName("view-" + name);
    dock->setWidget(scrolling(widget));
    docks_.insert(name, dock);
    views_.insert(name, widget);
    return dock;
}

void WorkbenchWindow::make_menus() {
    QMenu* file = menuBar()->addMenu("&File");
    QAction* export_action =
        file->addAction("Export current plot…", this, &WorkbenchWindow::export_current_plot);
    export_action->setShortcut(QKeySequence("Ctrl+E"));
    file->addSeparator();
    file->addAction("Quit", QKeySequence::Quit, this, &QWidget::close);

    QMenu* run = menuBar()->addMenu("&Run");
    QAction* launch = run->addAction("Launch", launch_, &LaunchPanel::launch);
    launch->setShortcut(QKeySequence("Ctrl+Return"));
    run->addAction("Stop selected", QKeySequence("Ctrl+."), this, &WorkbenchWindow::stop_selected);
    run->addAction("Resume selected", QKeySequence("Ctrl+R"), this, &WorkbenchWindow::resume_selected);
    run->addAction("Re-run selected config", this, &WorkbenchWindow::rerun_selected);
    run->addAction("Stop everything", this, [this] { jobs_->cancel_all(); });
    actions_->add_to_menus(file, run);

    QMenu* view = menuBar()->addMenu("&View");
    for (QDockWidget* dock : docks_)
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    QAction* reset = view->addAction("Reset layout", this, &WorkbenchWindow::reset_layout);
    reset->setToolTip("Every view back where it starts, sized for this screen");
    connect(layout_, &WindowLayout::layoutReplaced, this,
            [this](const QString& why) { statusBar()->showMessage("Default layout: " + why, 15000); });
    QAction* dark = view->addAction("Dark theme");
    dark->setCheckable(true);
    dark->setShortcut(QKeySequence("Ctrl+Shift+T"));
    dark->setChecked(theme_.name == "dark");
    connect(dark, &QAction::toggled, this, [this](bool on) { set_theme(on ? "dark" : "light"); });
    QAction* find = view->addAction("Filter runs", this, [this] { filter_->setFocus(); });
    find->setShortcut(QKeySequence::Find);
    if (registered_presenter()) {
        QAction* present = view->addAction("Presenter mode", this, [this] { set_presenting(true); });
        present->setShortcut(QKeySequence(Qt::Key_F5));
        present->setToolTip(
            "The welcome story full screen, in large type: → and ← step through it, Esc returns");
    }

    QMenu* help = menuBar()->addMenu("&Help");
    help->addAction("About FoNE Workbench", this,
                    [this] { QMessageBox::about(this, "About FoNE Workbench", about_text()); });
    help->addAction("FoNE in one paragraph", this, [this] {
        QMessageBox::information(
            this, "FoNE in one paragraph",
            "FoNE (Fourier Number Embedding) puts every number in ONE token. Its embedding is [cos 2πx/T, "
            "sin 2πx/T] for the periods T = 10, 100, 1000, …: each pair encodes one digit of x, like the "
            "hands "
            "of a clock. The model reads each answer digit back from two entries of its last hidden state. "
            "Exact match: the whole answer right. Digit accuracy: the share of right digits. The paper shows "
            "FoNE reaching 99% with far less data and smaller models than digit-wise tokenisation: the "
            "'Data size' and 'Model size' views draw accuracy against them from your runs.");
    });
}

QString WorkbenchWindow::about_text() const {
    // The versions a bug report needs: this window's, the `fone` it runs (its LibTorch, CUDA or not), Qt's.
    QString cli = cli_version_;
    if (cli.isEmpty())
        cli = cuda_probe_ ? QStringLiteral("(asking fone --version…)") : QStringLiteral("unknown");
    return QStringLiteral(
               "<h3>FoNE Workbench %1</h3>"
               "<p>Fourier Number Embeddings: train, compare and look inside models that read every number "
               "as one token.</p>"
               "<table>"
               "<tr><td>Workbench</td><td>%1 (git %2)</td></tr>"
               "<tr><td>Training (<code>%3</code>)</td><td>%4</td></tr>"
               "<tr><td>Qt</td><td>%5 (built with %6)</td></tr>"
               "<tr><td>QCustomPlot</td><td>%7</td></tr>"
               "</table>"
               "<p>Licence: GPL-3.0-or-later.</p>")
        .arg(QStringLiteral(FONE_VERSION), QStringLiteral(FONE_GIT_REVISION), jobs_->cli().toHtmlEscaped(),
             cli.toHtmlEscaped(), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
             QStringLiteral(QCUSTOMPLOT_VERSION_STR));
}

void WorkbenchWindow::connect_jobs() {
    connect(launch_, &LaunchPanel::launchRequested, jobs_,
            [this](const QStringList& args, const QString& label) {
                launched_job_ = jobs_->enqueue(args, label);
            });
    connect(sweep_, &SweepDesigner::sweepRequested, this,
            [this](const QList<QStringList>& args, const QStringList& labels) {
                for (int i = 0; i < args.size(); ++i)
                    jobs_->enqueue(args[i], labels[i]);
            });
    connect(sweep_, &SweepDesigner::maxParallelChanged, jobs_, &JobRunner::set_max_parallel);
    jobs_->set_max_parallel(sweep_->max_parallel());
    connect(jobs_, &JobRunner::jobQueued, catalog_, &RunCatalog::add_job);
    // A launch shows the run table (it may be behind the welcome or an analysis view).
    connect(jobs_, &JobRunner::jobQueued, this, [this] { docks_["runs"]->raise(); });
    connect(jobs_, &JobRunner::jobStarted, catalog_,
            [this](int id) { catalog_->set_job_status(id, "starting"); });
    connect(jobs_, &JobRunner::runCreated, catalog_, &RunCatalog::bind_job);
    // A run just launched is selected once it exists, so that its curves grow at once.
    connect(jobs_, &JobRunner::runCreated, this, [this](int id, const QString& dir) {
        if (id == launched_job_) select_runs({QFileInfo(dir).fileName()});
    });
    connect(jobs_, &JobRunner::jobEvent, catalog_, &RunCatalog::job_event);
    connect(jobs_, &JobRunner::jobFinished, this,
            [this](int id, const QString& status, const QString& message) {
                catalog_->finish_job(id, status, message);
                if (status == "failed")
                    statusBar()->showMessage("A run failed: " + message.section('\n', 0, 0), 10000);
                update_details();
            });
    connect(jobs_, &JobRunner::countsChanged, this, &WorkbenchWindow::update_status);
}

void WorkbenchWindow::update_scaling_runs() {
    QList<int> rows;
    for (int r = 0; r < proxy_->rowCount(); ++r)
        rows << proxy_->mapToSource(proxy_->index(r, 0)).row();
    data_size_->set_runs(rows);
    model_size_->set_runs(rows);
}

QString WorkbenchWindow::status_text() const {
    // Runs are the store's runs (folders), counted as their files say; launches that never made a run
    // are counted apart, and rows taken out of the list not at all.
    int running = 0, interrupted = 0, failed = 0, failed_launches = 0;
    for (int r = 0; r < catalog_->size(); ++r) {
        const RunEntry& e = catalog_->at(r);
        if (e.status == kRetired) continue;
        if (e.dir.isEmpty()) {
            running += e.status == "starting";
            failed_launches += e.status == "failed";
            continue;
        }
        running += e.status == "running";
        interrupted += e.status == "interrupted";
        failed += e.status == "failed";
    }
    QString text = QStringLiteral("%1 running · %2 queued · %3 runs")
                       .arg(running)
                       .arg(jobs_->queued_count())
                       .arg(catalog_->store_run_count());
    if (interrupted) text += QStringLiteral(" · %1 interrupted").arg(interrupted);
    if (failed) text += QStringLiteral(" · %1 failed").arg(failed);
    if (failed_launches)
        text +=
            QStringLiteral(" · %1 launch%2 failed").arg(failed_launches).arg(failed_launches > 1 ? "es" : "");
    text += catalog_->is_loaded() ? " · " + catalog_->root() : " · reading " + catalog_->root() + "…";
    return text;
}

void WorkbenchWindow::update_status() {
    // Coalesced: a sweep of thousands of runs queues thousands of rows, and the count walks them all.
    if (!status_timer_) {
        status_timer_ = new QTimer(this);
        status_timer_->setSingleShot(true);
        status_timer_->setInterval(100);
        connect(status_timer_, &QTimer::timeout, this, [this] { status_label_->setText(status_text()); });
    }
    if (!status_timer_->isActive()) status_timer_->start();
}

void WorkbenchWindow::check_cuda() {
    // `fone --version` loads LibTorch (about a second of CPU): once per CLI and session.
    static QHash<QString, std::pair<bool, QString>> known;
    static QHash<QString, QString> versions;
    const QString cli = jobs_->cli();
    launch_->set_program(cli);  // model folders are described by `fone model inspect`
    if (known.contains(cli)) {
        launch_->set_cuda_available(known[cli].first, known[cli].second);
        cli_version_ = versions.value(cli);
        launch_->set_processes_available(cli_version_.contains("--nproc: Gloo"), kNoNproc);
        return;
    }
    auto* probe = new QProcess(this);
    cuda_probe_ = probe;
    connect(probe, &QProcess::finished, this, [this, probe, cli](int code) {
        const QString out = QString::fromUtf8(probe->readAllStandardOutput() + probe->readAllStandardError());
        probe->deleteLater();
        cuda_probe_ = nullptr;
        cli_version_ = code == 0 ? out.trimmed().section('\n', -1) : QStringLiteral("fone --version failed");
        const bool cuda = code == 0 && out.contains("CUDA available");
        versions[cli] = cli_version_;
        known[cli] = {cuda, cuda        ? QString()
                            : code == 0 ? "this build of fone is CPU only"
                                        : "fone --version failed"};
        launch_->set_cuda_available(known[cli].first, known[cli].second);
        launch_->set_processes_available(cli_version_.contains("--nproc: Gloo"), kNoNproc);
    });
    connect(probe, &QProcess::errorOccurred, this, [this, probe](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart) return;
        launch_->set_cuda_available(false, "cannot start " + jobs_->cli());
        cli_version_ = "cannot start " + jobs_->cli();
        statusBar()->showMessage("Cannot start " + jobs_->cli() + ": set FONE_CLI to the fone program",
                                 15000);
        probe->deleteLater();
        cuda_probe_ = nullptr;
    });
    probe->start(cli, {"--version"});
}

void WorkbenchWindow::export_current_plot() {
    // The focus in an analysis view (circles, spectrum, ...): its own Export… button, which knows its plots.
    if (QWidget* focus = focusWidget())
        for (QDockWidget* dock : docks_) {
            if (!dock->isAncestorOf(focus)) continue;
            for (QPushButton* button : dock->findChildren<QPushButton*>())
                if (button->text() == QStringLiteral("Export…") && button->isVisible() &&
                    button->isEnabled()) {
                    button->click();
                    return;
                }
        }
    for (PlotPanel* plot : plots_)
        if (plot->isVisible() && !plot->visibleRegion().isEmpty()) {
            last_plot_ = plot;
            if (plot->hasFocus() || plot->isAncestorOf(focusWidget())) break;
        }
    if (last_plot_) last_plot_->export_dialog();
}

QStringList WorkbenchWindow::view_names() const {
    return docks_.keys();
}

QWidget* WorkbenchWindow::view(const QString& name) const {
    return views_.value(name);
}

bool WorkbenchWindow::show_only_view(const QString& name) {
    if (!docks_.contains(name)) return false;
    for (auto it = docks_.begin(); it != docks_.end(); ++it)
        it.value()->setVisible(it.key() == name);
    docks_[name]->raise();
    return true;
}

bool WorkbenchWindow::raise_view(const QString& name) {
    if (!docks_.contains(name)) return false;
    docks_[name]->raise();
    return true;
}

void WorkbenchWindow::set_theme(const QString& name) {
    theme_ = theme_named(name);
    apply_theme_to_app(theme_);
    // Every plot: the training plots, the analysis figures (their page follows), presenter mode's.
    for (PlotPanel* plot : findChildren<PlotPanel*>())
        plot->apply_theme(theme_);
    settings_compare_->apply_theme(theme_);
    compare_->apply_theme(theme_);
    model_->set_theme(theme_);
}

bool WorkbenchWindow::set_presenting(bool on) {
    if (!registered_presenter()) return false;
    if (!presenter_ && on) {
        presenter_ =
            registered_presenter()({catalog_, jobs_, [this](const QString& name) { return view(name); }});
        presenter_->setParent(this, Qt::Window);
        presenter_->installEventFilter(this);
        if (presenter_->metaObject()->indexOfSignal("closeRequested()") >= 0)
            connect(presenter_, SIGNAL(closeRequested()), this, SLOT(stop_presenting()));
        for (PlotPanel* plot : presenter_->findChildren<PlotPanel*>())
            plot->apply_theme(theme_);
    }
    if (!presenter_) return true;
    if (on) {
        presenter_->setGeometry(screen() ? screen()->geometry() : geometry());
        presenter_->showFullScreen();
        presenter_->raise();
        presenter_->activateWindow();
        presenter_->setFocus();
    } else {
        presenter_->hide();
    }
    return true;
}

void WorkbenchWindow::stop_presenting() {
    set_presenting(false);
}

bool WorkbenchWindow::presenting() const {
    return presenter_ && presenter_->isVisible();
}

bool WorkbenchWindow::eventFilter(QObject* watched, QEvent* event) {
    // Leaving presenter mode (Esc, or its window closed) brings the workbench back to the front.
    if (watched == presenter_ && event->type() == QEvent::Hide) {
        raise();
        activateWindow();
    }
    return QMainWindow::eventFilter(watched, event);
}

bool WorkbenchWindow::event(QEvent* event) {
    // The tab bars of tabified docks are made by the main window's layout, whenever docks are grouped
    // (also later, when a user regroups them). Twelve tabs at 1280 px would elide to "Ru…" and "Knock…":
    // whole titles and scroll arrows instead.
    if (event->type() == QEvent::ChildPolished)
        if (auto* tabs = qobject_cast<QTabBar*>(static_cast<QChildEvent*>(event)->child())) {
            tabs->setElideMode(Qt::ElideNone);
            tabs->setUsesScrollButtons(true);
        }
    return QMainWindow::event(event);
}

int WorkbenchWindow::active_trainings() const {
    int n = 0;
    for (const JobRunner* runner : findChildren<JobRunner*>())
        n += runner->running_count() + runner->queued_count();
    return n;
}

void WorkbenchWindow::closeEvent(QCloseEvent* event) {
    // Quitting stops this window's trainings (each checkpoints and can be resumed): ask first.
    if (const int n = active_trainings(); n > 0 && isVisible()) {
        const QString text =
            QStringLiteral(
                "%1 training%2 still running or waiting. Quitting stops %3: each saves a checkpoint "
                "first, and you can resume %3 later from the Runs table (Resume).")
                .arg(n)
                .arg(n == 1 ? " is" : "s are")
                .arg(n == 1 ? "it" : "them");
        if (!confirm(this, "Quit FoNE Workbench?", text, "Stop and quit", "Keep working")) {
            event->ignore();
            return;
        }
    }
    if (options_.use_settings) save_settings();
    if (presenter_) presenter_->close();
    QMainWindow::closeEvent(event);
}

}  // namespace fone::gui
