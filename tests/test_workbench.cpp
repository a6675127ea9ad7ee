// The workbench window, offscreen: launching a tiny run from the launch panel and seeing it finish in the
// table and the curves, a run that crashes (a fake CLI, and a NaN loss), cancel, reopening the window on a
// store with finished, running and interrupted runs, export, and the pure pieces (smoothing, seed
// averaging, sweep sizes) against values worked out by hand.
//
//   ctest --test-dir build -R test_workbench --output-on-failure
#include <qcustomplot.h>
#include <QAbstractItemModel>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "comparison_view.h"
#include "confirm.h"
#include "curve_view.h"
#include "fone/platform/cpu.h"
#include "fone/store/methods.h"
#include "fone/store/run_lock.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "fone_process.h"
#include "job_runner.h"
#include "launch_panel.h"
#include "run_catalog.h"
#include "run_colours.h"
#include "run_table_model.h"
#include "scaling_view.h"
#include "settings_compare_view.h"
#include "sweep_designer.h"
#include "window_options.h"
#include "workbench_window.h"

using namespace fone::gui;
using fone_test::window_options;
using nlohmann::json;

namespace {

constexpr int kRunTimeoutMs = 90000;

// Fills the launch panel for a run of a few steps.
void fill_tiny_run(LaunchPanel* panel, const QString& train_size = "400", const QString& epochs = "1") {
    panel->field("train_size")->setText(train_size);
    panel->field("test_size")->setText("50");
    panel->field("epochs")->setText(epochs);
    panel->field("threads")->setText("1");
}

int row_with_status(const RunCatalog* catalog, const QString& status) {
    for (int r = 0; r < catalog->size(); ++r)
        if (catalog->at(r).status == status) return r;
    return -1;
}

// The status the table shows for a catalog row (through the filter/sort proxy, as the user sees it).
QString table_status(WorkbenchWindow& w, const QString& name) {
    QAbstractItemModel* m = w.run_table()->model();
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, RunTableModel::kName).data().toString() == name)
            return m->index(r, RunTableModel::kStatus).data().toString();
    return {};
}

void write_json(const QString& path, const json& j) {
    fone::write_json_atomic(path.toStdString(), j);
}

// A finished run written by hand: only the files the workbench reads.
void write_finished_run(const QString& root, const QString& name, double train_size, int seed, double exact,
                        const QString& status = "finished") {
    QDir().mkpath(root + "/" + name);
    write_json(root + "/" + name + "/config.json", {{"task", "dec-add"},
                                                    {"method", "fone"},
                                                    // a whole number, as `fone train` writes it
                                                    {"train_size", static_cast<long long>(train_size)},
                                                    {"seed", seed},
                                                    {"size_level", 1}});
    write_json(root + "/" + name + "/status.json",
               {{"status", status.toStdString()}, {"pid", 1}, {"host", "elsewhere"}});
    write_json(root + "/" + name + "/summary.json", {{"best_exact_match", exact},
                                                     {"params", 1000 * train_size},
                                                     {"epoch", 2},
                                                     {"train_seconds", 3.0},
                                                     {"final",
                                                      {{"exact_match", exact},
                                                       {"digit_accuracy", 0.5},
                                                       {"eval_seconds", 0.25},
                                                       {"tokens_per_number", 1.0}}}});
}

}  // namespace

class TestWorkbench : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first");
        qunsetenv("FONE_INJECT_NAN_STEP");
    }

    // The Preset menu is experiments/recipes/launch.json; without it the menu is empty and says why.
    void presets_come_from_their_recipe() {
        {
            LaunchPanel panel;
            // The recipe's entries first (then the text experiments of fone reproduce: test_launch_kinds).
            QCOMPARE(panel.preset_titles().mid(0, 6),
                     QStringList({"Paper: decimal addition, FoNE", "Paper: integer addition, FoNE",
                                  "Paper: 3-digit multiplication, FoNE",
                                  "Quick look: decimal addition, 3,200 examples, 2 epochs",
                                  "Text: the bundled Factbook sample, FoNE, a minute",
                                  "FoNE adapter: the tiny test Llama on the Factbook sample"}));
            panel.apply_preset("Quick look: decimal addition, 3,200 examples, 2 epochs");
            QCOMPARE(panel.field("train_size")->text(), QString("3200"));
            QCOMPARE(panel.field("epochs")->text(), QString("2"));
        }
        QTemporaryDir empty;
        qputenv("FONE_EXPERIMENTS_DIR", empty.path().toUtf8());
        LaunchPanel panel;
        QVERIFY(panel.preset_titles().isEmpty());
        qunsetenv("FONE_EXPERIMENTS_DIR");
        QComboBox* menu = nullptr;
        for (QComboBox* box : panel.findChildren<QComboBox*>())
            if (box->itemText(0) == "Choose a preset…") menu = box;
        QVERIFY(menu);
        QCOMPARE(menu->count(), 1);
        QVERIFY2(menu->toolTip().startsWith("No presets: ") && menu->toolTip().contains("launch.json"),
                 qPrintable(menu->toolTip()));
    }

    // The table's best exact match is the one summary.json and checkpoint-best name: a run with the typed
    // suite counts an evaluation by its lowest shape when that is lower (Trainer::counted_exact_match).
    // Two evaluations of the demo store's demo-n3200-fone-s1 (steps 330 and 380): the window said 42%,
    // its summary 35.4%.
    void best_exact_match_is_counted_as_the_trainer_counts_it() {
        fone::gui::RunEntry e;
        fone::gui::apply_event(e, {{"event", "eval"},
                                   {"step", 330},
                                   {"exact_match", 0.42},
                                   {"typed", {{"carry", 0.62}, {"uniform", 0.342}, {"zeros", 0.786}}}});
        fone::gui::apply_event(e, {{"event", "eval"},
                                   {"step", 380},
                                   {"exact_match", 0.39},
                                   {"typed", {{"carry", 0.656}, {"uniform", 0.354}, {"zeros", 0.838}}}});
        QCOMPARE(e.exact_match, 0.39);
        QCOMPARE(e.best_exact_match, 0.354);
        fone::gui::RunEntry plain;  // no typed suite: the best of the exact matches
        for (const double em : {0.2, 0.5, 0.4})
            fone::gui::apply_event(plain, {{"event", "eval"}, {"exact_match", em}});
        QCOMPARE(plain.best_exact_match, 0.5);
    }

    void ema_smoothing_is_debiased() {
        // weight 0.5: s1 = 0.5·2 = 1 → 1/(1-0.5) = 2; s2 = 0.5·1 + 0.5·4 = 2.5 → 2.5/(1-0.25) = 10/3.
        EmaSmoother s(0.5);
        QCOMPARE(s.next(2.0), 2.0);
        QVERIFY(std::abs(s.next(4.0) - 10.0 / 3.0) < 1e-12);
        EmaSmoother constant(0.9);  // a constant series stays itself from the first point
        for (int i = 0; i < 5; ++i)
            QVERIFY(std::abs(constant.next(7.0) - 7.0) < 1e-12);
        EmaSmoother off(0.0);
        QCOMPARE(off.next(3.5), 3.5);
    }

    void sweep_sizes_double() {
        QCOMPARE(doubling_sizes(800, 12800), (std::vector<long long>{800, 1600, 3200, 6400, 12800}));
        QCOMPARE(doubling_sizes(800, 1000), (std::vector<long long>{800}));
        QVERIFY(doubling_sizes(5, 4).empty());
    }

    void sweep_designer_counts_the_grid() {
        LaunchPanel panel;
        fill_tiny_run(&panel);
        QTemporaryDir dir;
        RunCatalog catalog;
        SweepDesigner sweep(&panel, &catalog);
        sweep.field("name")->setText("g");
        sweep.field("from")->setText("100");
        sweep.field("to")->setText("400");  // 100, 200, 400
        sweep.field("seeds")->setText("1,2");
        sweep.set_level_checked(0, true);
        sweep.set_level_checked(2, true);  // default shape and level 2
        QString error;
        const auto cells = sweep.cells(&error);
        // FoNE alone is ticked when the designer opens: 3 sizes x 2 levels x 1 method x 2 seeds.
        QCOMPARE(int(cells.size()), 3 * 2 * 1 * 2);
        QCOMPARE(cells.front().name, QString("g-n100-fone-s1"));
        QCOMPARE(cells.front().settings["train_size"].get<long long>(), 100LL);
        // Ticking a baseline adds its cells; every method of the engine can be ticked.
        QVERIFY(sweep.set_method_checked("digit", true));
        QCOMPARE(int(sweep.cells(&error).size()), 3 * 2 * 2 * 2);
        // Every method of the engine can be ticked; those of another kind of run (fone-adapter: a pretrained
        // folder and text) are greyed out for this arithmetic sweep and add no cells.
        int arithmetic_methods = 0;
        for (const std::string& m : fone::method_names()) {
            QVERIFY(sweep.set_method_checked(QString::fromStdString(m), true));
            arithmetic_methods += !fone::is_adapter_method(m);
        }
        QCOMPARE(int(sweep.cells(&error).size()), 3 * 2 * arithmetic_methods * 2);
        QVERIFY(!sweep.set_method_checked("no-such-method", true));
        sweep.field("seeds")->setText("1,x");
        QVERIFY(sweep.cells(&error).empty());
        QVERIFY(error.contains("'x'"));
    }

    void seeds_are_averaged_with_their_spread() {
        QTemporaryDir dir;
        // 800 examples: 0.5, 0.7, 0.9 → mean 0.7, sample sd sqrt((0.04 + 0 + 0.04) / 2) = 0.2.
        write_finished_run(dir.path(), "a1", 800, 1, 0.5);
        write_finished_run(dir.path(), "a2", 800, 2, 0.7);
        write_finished_run(dir.path(), "a3", 800, 3, 0.9);
        write_finished_run(dir.path(), "b1", 1600, 1, 1.0);            // one seed: sd 0
        write_finished_run(dir.path(), "c1", 1600, 2, 0.1, "failed");  // not finished: left out
        RunCatalog catalog;
        QSignalSpy loaded(&catalog, &RunCatalog::loaded);
        catalog.open(dir.path());
        QVERIFY(loaded.wait(10000));
        QList<int> rows;
        for (int r = 0; r < catalog.size(); ++r)
            rows << r;
        const auto series = scaling_series(catalog, rows, ScalingMode::data_size, "dec-add",
                                           ScalingMetric::final_exact_match);
        QCOMPARE(int(series.size()), 1);
        QCOMPARE(series[0].name, QString("fone, level 1"));
        QCOMPARE(int(series[0].points.size()), 2);
        QCOMPARE(series[0].points[0].x, 800.0);
        QCOMPARE(series[0].points[0].n, 3);
        QVERIFY(std::abs(series[0].points[0].mean - 0.7) < 1e-12);
        QVERIFY(std::abs(series[0].points[0].stddev - 0.2) < 1e-12);
        QCOMPARE(series[0].points[1].mean, 1.0);
        QCOMPARE(series[0].points[1].stddev, 0.0);
        // Model size: x is the parameter count (1000 × size here), one series per training-set size.
        const auto by_model =
            scaling_series(catalog, rows, ScalingMode::model_size, "", ScalingMetric::final_exact_match);
        QCOMPARE(int(by_model.size()), 2);
        // The comparison table: train time per epoch 3 s / 2 epochs = 1.5.
        ComparisonView compare(&catalog);
        compare.set_runs({catalog.row_of("a1")});
        QVERIFY2(compare.to_csv().contains("a1,fone,dec-add,\"800,000\",1.5,0.25,1,,50.00%,50.00%"),
                 qPrintable(compare.to_csv()));
        QVERIFY(compare.to_markdown().startsWith("| Run | Method |"));
    }

    void validation_names_the_field() {
        LaunchPanel panel;
        panel.field("lr")->setText("abc");
        QVERIFY(!panel.is_valid());
        panel.field("lr")->setText("20");  // resolve_train_config: lr must be in (0, 10)
        QVERIFY(!panel.is_valid());
        panel.field("lr")->setText("3e-3");
        panel.field("epochs")->setText("0");
        QVERIFY(!panel.is_valid());
        panel.field("epochs")->setText("2");
        QVERIFY(panel.is_valid());
        const QStringList args = LaunchPanel::train_args(panel.settings());
        QVERIFY(args.contains("--lr"));
        QCOMPARE(args.at(args.indexOf("--epochs") + 1), QString("2"));
        // A run's config fills the fields back.
        panel.load_settings({{"task", "int-add"}, {"train_size", 1234}, {"size_level", 2}});
        QCOMPARE(panel.field("train_size")->text(), QString("1234"));
        QCOMPARE(panel.settings()["size_level"].get<int>(), 2);
        // Numbers as the window writes them: "6,400" is 6400; a comma anywhere else is not a number.
        panel.field("train_size")->setText("6,400");
        QVERIFY2(panel.is_valid(), qPrintable(panel.problems_text()));
        QCOMPARE(panel.settings()["train_size"].get<long long>(), 6400LL);
        QCOMPARE(LaunchPanel::plain_number("51,200"), QString("51200"));
        QCOMPARE(LaunchPanel::plain_number("1,234,567.5"), QString("1234567.5"));
        QCOMPARE(LaunchPanel::plain_number("64,00"), QString("64,00"));
        panel.field("train_size")->setText("64,00");
        QVERIFY(!panel.is_valid());
        panel.field("train_size")->setText("1234");
    }

    void launch_from_panel_finishes_in_table_and_curves() {
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        w.show();
        fill_tiny_run(w.launch_panel());
        QVERIFY(w.launch_panel()->is_valid());
        w.launch_panel()->launch();
        // The run is selected once it exists: its curve grows without a click.
        QTRY_COMPARE_WITH_TIMEOUT(w.curves()->shown_count(), 1, kRunTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(row_with_status(w.catalog(), "finished") >= 0, kRunTimeoutMs);
        const int row = row_with_status(w.catalog(), "finished");
        const RunEntry& e = w.catalog()->at(row);
        QVERIFY(!e.name.isEmpty());
        QVERIFY(QFile::exists(e.dir + "/summary.json"));
        QCOMPARE(table_status(w, e.name), QString("finished"));
        QCOMPARE(e.train_size, 400.0);
        QCOMPARE(w.curves()->shown_count(), 1);
        QTRY_VERIFY(w.curves()->point_count() >= 1);  // one evaluation at the end of the epoch
        w.curves()->set_metric(CurveMetric::loss);
        QVERIFY(w.curves()->point_count() >= 1);
    }

    void a_sweep_fills_the_data_size_figure() {
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(loaded.wait(10000));
        fill_tiny_run(w.launch_panel());
        w.launch_panel()->field("threads")->setText("");  // the queue chooses: its share of the cores
        SweepDesigner* sweep = w.sweep_designer();
        sweep->field("name")->setText("t");
        sweep->field("from")->setText("200");
        sweep->field("to")->setText("400");
        sweep->field("seeds")->setText("1");
        sweep->set_max_parallel(2);
        sweep->queue_sweep();
        QTRY_VERIFY_WITH_TIMEOUT(
            w.catalog()->row_of("t-n200-fone-s1") >= 0 && w.catalog()->row_of("t-n400-fone-s1") >= 0 &&
                w.catalog()->at(w.catalog()->row_of("t-n200-fone-s1")).status == "finished" &&
                w.catalog()->at(w.catalog()->row_of("t-n400-fone-s1")).status == "finished",
            kRunTimeoutMs);
        // Two at once: each run had half the cores (issue 15: no oversubscription).
        const QString config = w.catalog()->at(w.catalog()->row_of("t-n200-fone-s1")).dir + "/config.json";
        QFile cf(config);
        QVERIFY(cf.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(cf.readAll())["threads"].toInt(), fone::threads_per_run(2));
        // The figure fills in (its refresh is debounced): one series, the two sizes, one seed each.
        QTRY_VERIFY_WITH_TIMEOUT(
            !w.data_size_view()->series().empty() && w.data_size_view()->series()[0].points.size() == 2,
            5000);
        QCOMPARE(w.data_size_view()->series()[0].points[0].x, 200.0);
        QCOMPARE(w.data_size_view()->series()[0].points[1].n, 1);
        // Queuing the same sweep again trains nothing new (once the children have exited).
        QTRY_COMPARE_WITH_TIMEOUT(w.jobs()->running_count(), 0, 20000);
        const int rows = w.catalog()->size();
        QSignalSpy queued(sweep, &SweepDesigner::sweepQueued);
        sweep->queue_sweep();
        QVERIFY(!queued.isEmpty() || queued.wait(5000));
        QCOMPARE(queued.last().at(0).toInt(), 0);  // queued
        QCOMPARE(queued.last().at(1).toInt(), 2);  // finished already
        QCOMPARE(w.jobs()->queued_count() + w.jobs()->running_count(), 0);
        QCOMPARE(w.catalog()->size(), rows);
    }

    void settings_persist_across_windows() {
        QTemporaryDir dir;
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path() + "/config");
        QCoreApplication::setOrganizationName("fone-workbench-test");
        write_finished_run(dir.path() + "/runs", "s1", 800, 1, 0.5);
        WorkbenchOptions o = window_options(dir.path() + "/runs");
        o.use_settings = true;
        {
            WorkbenchWindow w(o);
            w.show();
            w.set_theme("dark");
            w.run_table()->setColumnHidden(RunTableModel::kSeed, true);
            w.launch_panel()->field("train_size")->setText("1234");
            // The sweep designer, the filter and the selection come back too.
            w.sweep_designer()->field("name")->setText("my-sweep");
            w.sweep_designer()->field("from")->setText("100");
            w.sweep_designer()->set_method_checked("digit", true);
            QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
            QVERIFY(w.catalog()->is_loaded() || loaded.wait(10000));
            w.run_filter()->setText("task:dec-add");  // (s1 stays in sight)
            w.select_runs({"s1"});
            w.close();  // saves
        }
        WorkbenchWindow again(o);
        QCOMPARE(again.theme().name, QString("dark"));
        QVERIFY(again.run_table()->isColumnHidden(RunTableModel::kSeed));
        QCOMPARE(again.launch_panel()->field("train_size")->text(), QString("1234"));
        QCOMPARE(again.sweep_designer()->field("name")->text(), QString("my-sweep"));
        QCOMPARE(again.sweep_designer()->field("from")->text(), QString("100"));
        auto methods = again.sweep_designer()->state()["methods"].get<std::vector<std::string>>();
        std::sort(methods.begin(), methods.end());
        QCOMPARE(methods, (std::vector<std::string>{"digit", "fone"}));
        QCOMPARE(again.run_filter()->text(), QString("task:dec-add"));
        QSignalSpy loaded(again.catalog(), &RunCatalog::loaded);
        QVERIFY(again.catalog()->is_loaded() || loaded.wait(10000));
        QTRY_COMPARE(again.curves()->shown_count(), 1);  // s1 selected again
        again.set_theme("light");
    }

    void a_crashing_cli_shows_its_stderr() {
        QTemporaryDir dir;
        const QString script = dir.path() + "/fake-fone";
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            "#!/bin/sh\n"
            "case \"$1\" in --version) echo 'fone 0 (CPU only)'; exit 0;; esac\n"
            "echo 'this is not JSON'\necho 'boom: the model exploded' >&2\nexit 3\n");
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        WorkbenchWindow w(window_options(dir.path() + "/runs", script));
        fill_tiny_run(w.launch_panel());
        w.launch_panel()->launch();
        QTRY_VERIFY_WITH_TIMEOUT(row_with_status(w.catalog(), "failed") >= 0, 20000);
        const RunEntry& e = w.catalog()->at(row_with_status(w.catalog(), "failed"));
        QVERIFY2(e.message.contains("exited with status 3"), qPrintable(e.message));
        QVERIFY2(e.message.contains("boom: the model exploded"), qPrintable(e.message));
        QVERIFY(e.message.contains("this is not JSON"));
        QVERIFY(w.isEnabled());  // the window lives on
    }

    void a_nan_loss_fails_the_run() {
        QTemporaryDir dir;
        qputenv("FONE_INJECT_NAN_STEP", "2");  // children inherit it
        WorkbenchWindow w(window_options(dir.path()));
        fill_tiny_run(w.launch_panel());
        w.launch_panel()->launch();
        QTRY_VERIFY_WITH_TIMEOUT(row_with_status(w.catalog(), "failed") >= 0, kRunTimeoutMs);
        qunsetenv("FONE_INJECT_NAN_STEP");
        const RunEntry& e = w.catalog()->at(row_with_status(w.catalog(), "failed"));
        QVERIFY(!e.dir.isEmpty());  // the run exists in the store, marked failed by the engine
        QVERIFY2(e.message.contains("NaN"), qPrintable(e.message));
        QCOMPARE(table_status(w, e.name), QString("failed"));
    }

    void cancel_stops_a_run() {
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        fill_tiny_run(w.launch_panel(), "3200", "500");
        w.launch_panel()->launch();
        // Wait for the run to exist and report progress, then ask it to stop.
        QTRY_VERIFY_WITH_TIMEOUT(row_with_status(w.catalog(), "running") >= 0 &&
                                     w.catalog()->at(row_with_status(w.catalog(), "running")).step > 0,
                                 kRunTimeoutMs);
        const QString name = w.catalog()->at(row_with_status(w.catalog(), "running")).name;
        w.select_runs({name});
        w.stop_selected();
        QTRY_COMPARE_WITH_TIMEOUT(w.catalog()->at(w.catalog()->row_of(name)).status, QString("stopped"),
                                  30000);
        const json status = fone::read_json_file(
            w.catalog()->at(w.catalog()->row_of(name)).dir.toStdString() + "/status.json");
        QCOMPARE(QString::fromStdString(status.value("status", "")), QString("stopped"));
        QVERIFY(w.catalog()->at(w.catalog()->row_of(name)).can_resume());
    }

    void reopening_shows_finished_running_and_interrupted_runs() {
        QTemporaryDir dir;
        const QString root = dir.path();
        // A finished run, trained by the CLI.
        const auto trained =
            fone_test::run_fone({"train", "--task", "dec-add", "--train-size", "400", "--test-size", "50",
                                 "--epochs", "1", "--threads", "1", "--name", "done", "--runs-dir", root});
        QCOMPARE(trained.code, 0);
        // A running run: a live process holds its pid. An interrupted one: its pid is gone.
        QProcess sleeper;
        sleeper.start("sleep", {"60"});
        QVERIFY(sleeper.waitForStarted());
        QProcess gone;
        gone.start("true");
        QVERIFY(gone.waitForFinished());
        const std::string host = fone::host_name();
        for (auto [name, pid] : {std::pair{QString("live"), int(sleeper.processId())},
                                 {QString("dead"), int(gone.processId())}}) {
            QDir().mkpath(root + "/" + name);
            write_json(root + "/" + name + "/config.json",
                       {{"task", "dec-add"}, {"method", "fone"}, {"train_size", 400}});
            write_json(root + "/" + name + "/status.json",
                       {{"status", "running"}, {"pid", pid}, {"host", host}});
            fone::append_jsonl((root + "/" + name + "/metrics.jsonl").toStdString(),
                               {{"event", "progress"},
                                {"step", 1},
                                {"total_steps", 10},
                                {"epoch", 0.1},
                                {"loss", 2.0},
                                {"elapsed_seconds", 0.5}});
        }
        // "running" is the lock's (issue 33): the live run's is held, as its trainer would hold it.
        const fone::RunLock live_lock = fone::RunLock::acquire((root + "/live").toStdString());
        WorkbenchWindow w(window_options(root));
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(loaded.wait(10000));
        QCOMPARE(table_status(w, "done"), QString("finished"));
        QCOMPARE(table_status(w, "live"), QString("running"));
        QCOMPARE(table_status(w, "dead"), QString("interrupted"));
        QVERIFY(w.catalog()->at(w.catalog()->row_of("dead")).can_resume());
        QVERIFY(!w.catalog()->at(w.catalog()->row_of("live")).can_resume());
        QVERIFY(w.status_text().contains("1 interrupted"));
        // Copying rows gives what the table shows.
        w.select_runs({"done"});
        const QStringList csv = w.selected_rows_text(false).trimmed().split('\n');
        QCOMPARE(csv.size(), 2);
        // CSV for spreadsheets: numbers as numbers, the units in the header; Markdown as the table reads.
        // (in the table's order: the run's tags beside its name, what a run reached right after how far it
        // is)
        QVERIFY2(csv[0].startsWith(
                     "Run,Tags,Status,Progress (%),Exact match (%),Best exact match (%),Task,Method"),
                 qPrintable(csv[0]));
        QVERIFY2(csv[1].startsWith("done,,finished,100,") && csv[1].contains(",dec-add,fone,"),
                 qPrintable(csv[1]));
        const RunEntry& done = w.catalog()->at(w.catalog()->row_of("done"));
        QVERIFY2(csv[1].contains("," + QString::number(done.params, 'g', 12) + ","), qPrintable(csv[1]));
        QVERIFY(!csv[1].contains('%'));
        QVERIFY(w.selected_rows_text(true).startsWith("| Run | Tags | Status | Progress |"));
        QVERIFY(w.selected_rows_text(true).contains("| 100% |"));

        // Reattached: new lines of the running run's metrics keep filling its curve.
        w.select_runs({"live"});
        w.curves()->set_metric(CurveMetric::loss);
        QTRY_COMPARE(w.curves()->point_count(), 1);
        fone::append_jsonl((root + "/live/metrics.jsonl").toStdString(), {{"event", "progress"},
                                                                          {"step", 2},
                                                                          {"total_steps", 10},
                                                                          {"epoch", 0.2},
                                                                          {"loss", 1.5},
                                                                          {"elapsed_seconds", 1.0}});
        QTRY_COMPARE_WITH_TIMEOUT(w.curves()->point_count(), 2, 5000);
        QCOMPARE(w.catalog()->at(w.catalog()->row_of("live")).step, 2.0);
        sleeper.kill();
        sleeper.waitForFinished();
    }

    void launch_form_says_what_the_run_gets() {
        LaunchPanel panel;
        panel.show();
        const QPoint epochs_at = panel.field("epochs")->pos(), lr_at = panel.field("lr")->pos();
        // A problem shows beside its field, under the field's title; no field moves.
        panel.field("lr")->setText("abc");
        panel.field("epochs")->setText("-1");
        QVERIFY(!panel.is_valid());
        QVERIFY2(panel.problems_text().contains("Learning rate: must be a number"),
                 qPrintable(panel.problems_text()));
        QVERIFY2(panel.field_problem("lr").startsWith("must be a number"),
                 qPrintable(panel.field_problem("lr")));
        QCOMPARE(panel.field_problem("epochs"), QString("must not be negative"));
        QCOMPARE(panel.field_problem("batch"), QString());
        auto* beside = panel.findChild<QLabel*>("lr_problem");
        QVERIFY(beside && beside->isVisible());
        const QRect field = panel.field("lr")->geometry(), line = beside->geometry();
        QVERIFY2(std::abs(beside->mapTo(&panel, QPoint(0, 0)).y() -
                          panel.field("lr")->mapTo(&panel, QPoint(0, 0)).y()) < field.height() + 2,
                 "the problem sits in the field's row");
        QVERIFY(line.height() >= beside->fontMetrics().height());
        QCOMPARE(panel.field("epochs")->pos(), epochs_at);
        QCOMPARE(panel.field("lr")->pos(), lr_at);
        panel.field("lr")->clear();
        panel.field("epochs")->clear();
        QCOMPARE(panel.field_problem("lr"), QString());
        QCOMPARE(panel.field("epochs")->pos(), epochs_at);
        // Threads: no more than this computer's cores.
        panel.field("threads")->setText("1000");
        QVERIFY(!panel.is_valid());
        QVERIFY2(panel.problems_text().contains("cores"), qPrintable(panel.problems_text()));
        panel.field("threads")->setText("1");
        // Stop at exact match is a percentage, the run gets a fraction.
        panel.field("target_acc")->setText("99");
        QVERIFY(panel.is_valid());
        QCOMPARE(panel.settings()["target_acc"].get<double>(), 0.99);
        panel.field("target_acc")->setText("150");
        QVERIFY(!panel.is_valid());
        // 0.99 meant as a fraction is said, not taken as 0.99% (issue 42).
        panel.field("target_acc")->setText("0.99");
        QVERIFY(!panel.is_valid());
        QVERIFY2(panel.problems_text().contains("type the percentage (99 for 99%)"),
                 qPrintable(panel.problems_text()));
        panel.field("target_acc")->setText("99");
        // A name that is taken: the run will be NAME-2 (or the next free), and the form says so (issue 42).
        panel.set_name_taken([](const QString& name) { return name == "taken" || name == "taken-2"; });
        panel.field("name")->setText("taken");
        QTRY_VERIFY2(panel.resolved_text().contains("named taken-3 (a run named taken exists)"),
                     qPrintable(panel.resolved_text()));
        panel.field("name")->setText("");
        panel.load_settings({{"task", "dec-add"}, {"target_acc", 0.99}});
        QCOMPARE(panel.field("target_acc")->text(), QString("99"));
        // Steps as the run counts them: 400 examples and their 400 swaps (a small set swaps operands), batch
        // 50, one epoch: 16 steps; the run does as many.
        panel.load_settings({});
        fill_tiny_run(&panel);
        panel.field("batch")->setText("50");
        QVERIFY(panel.is_valid());
        QVERIFY2(panel.resolved_text().contains("(about 16 steps)"), qPrintable(panel.resolved_text()));
        QTemporaryDir dir;
        const auto trained =
            fone_test::run_fone(QStringList{"train"} + LaunchPanel::train_args(panel.settings()) +
                                QStringList{"--name", "steps", "--runs-dir", dir.path()});
        QVERIFY2(trained.code == 0, trained.err.constData());
        const json summary = fone::read_json_file((dir.path() + "/steps/summary.json").toStdString());
        QCOMPARE(summary.value("step", 0), 16);
    }

    void a_read_only_store_is_flagged() {
        // /proc/sys/dev: a folder nobody (root included) can create files in.
        if (!QFileInfo(QStringLiteral("/proc/sys/dev")).isDir()) QSKIP("no /proc/sys/dev here");
        WorkbenchWindow w(window_options("/proc/sys/dev"));
        QVERIFY2(w.store_problem().startsWith("read-only"), qPrintable(w.store_problem()));
        QVERIFY(!w.launch_panel()->problems_text().isEmpty());
        QSignalSpy requested(w.launch_panel(), &LaunchPanel::launchRequested);
        w.launch_panel()->launch();
        QCOMPARE(requested.count(), 0);
        for (QPushButton* b : w.launch_panel()->findChildren<QPushButton*>())
            if (b->text() == "Launch run") QVERIFY(!b->isEnabled());
    }

    void a_run_can_be_removed_and_deleted() {
        QTemporaryDir dir;
        write_finished_run(dir.path(), "a", 800, 1, 0.5);
        write_finished_run(dir.path(), "b", 800, 2, 0.5);
        WorkbenchWindow w(window_options(dir.path()));
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(loaded.wait(10000));
        QCOMPARE(table_status(w, "a"), QString("finished"));
        QVERIFY(w.status_text().contains("2 runs"));
        // The Launch form says how long a run will take before it is launched (from these finished runs).
        QTRY_VERIFY2(w.launch_panel()->resolved_text().contains("Time: about"),
                     qPrintable(w.launch_panel()->resolved_text()));
        // Out of the list: its files stay, and the scan for new runs does not bring it back.
        w.select_runs({"a"});
        w.remove_selected();
        QTRY_COMPARE(table_status(w, "a"), QString());
        QVERIFY(QFile::exists(dir.path() + "/a/config.json"));
        QTest::qWait(2500);
        QCOMPARE(table_status(w, "a"), QString());
        QTRY_VERIFY2(w.status_text().contains("1 runs"), qPrintable(w.status_text()));
        // Deleted after a yes only.
        w.select_runs({"b"});
        set_confirm_answer([](const QString&, const QString&) { return false; });
        w.delete_selected();
        QVERIFY(QFile::exists(dir.path() + "/b/config.json"));
        QCOMPARE(table_status(w, "b"), QString("finished"));
        QString asked;
        set_confirm_answer([&asked](const QString&, const QString& text) {
            asked = text;
            return true;
        });
        w.delete_selected();
        set_confirm_answer({});
        QVERIFY2(asked.contains("cannot be undone"), qPrintable(asked));
        QVERIFY(!QFileInfo::exists(dir.path() + "/b"));
        QTRY_COMPARE(table_status(w, "b"), QString());
        QVERIFY(QFile::exists(dir.path() + "/a/config.json"));  // the other run untouched
    }

    void a_broken_run_shows_no_progress() {
        QTemporaryDir dir;
        write_finished_run(dir.path(), "b", 800, 1, 0.5);
        QFile summary(dir.path() + "/b/summary.json");
        QVERIFY(summary.open(QIODevice::WriteOnly));
        summary.write("{ not json");
        summary.close();
        RunCatalog catalog;
        QSignalSpy loaded(&catalog, &RunCatalog::loaded);
        catalog.open(dir.path());
        QVERIFY(loaded.wait(10000));
        const RunEntry& e = catalog.at(catalog.row_of("b"));
        QCOMPARE(e.status, QString("broken"));
        QVERIFY(e.progress() < 0);
        RunTableModel model(&catalog);
        QCOMPARE(model.index(catalog.row_of("b"), RunTableModel::kProgress).data().toString(), QString("—"));
    }

    // A run that reached its target exact match early is finished: its progress is whole, not its share of
    // the steps it was given (the demo run stops at step 1300 of 2000: "finished · 65%" before).
    void a_run_finished_early_shows_full_progress() {
        RunEntry e;
        e.status = "finished";
        e.step = 1300;
        e.total_steps = 2000;
        QCOMPARE(e.progress(), 1.0);
        e.status = "stopped";
        QCOMPARE(e.progress(), 0.65);
    }

    void large_sweeps_ask_first_and_queue_without_freezing() {
        QTemporaryDir dir;
        const QString script = dir.path() + "/fake-fone";  // trains nothing: the queue is what is tested
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\ncase \"$1\" in --version) echo 'fone 0 (CPU only)'; exit 0;; esac\nsleep 30\n");
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        WorkbenchWindow w(window_options(dir.path() + "/runs", script));
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(loaded.wait(10000));
        SweepDesigner* sweep = w.sweep_designer();
        sweep->set_max_parallel(1);
        sweep->field("name")->setText("big");
        sweep->field("from")->setText("1");
        sweep->field("to")->setText("1024");  // 11 sizes
        QStringList seeds;
        for (int s = 1; s <= 30; ++s)
            seeds << QString::number(s);
        sweep->field("seeds")->setText(seeds.join(','));  // x 30 seeds = 330 runs
        QVERIFY2(sweep->summary_text().contains("330 runs"), qPrintable(sweep->summary_text()));
        // With no finished run in the store, the designer says there is no estimate and why.
        QVERIFY2(sweep->summary_text().contains("no finished run"), qPrintable(sweep->summary_text()));
        QStringList asked;
        set_confirm_answer([&](const QString&, const QString& text) {
            asked << text;
            return false;
        });
        sweep->queue_sweep();
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked[0].contains("330 runs"), qPrintable(asked[0]));
        QCOMPARE(w.jobs()->queued_count() + w.jobs()->running_count(), 0);  // declined
        set_confirm_answer([](const QString&, const QString&) { return true; });
        QSignalSpy queued(sweep, &SweepDesigner::sweepQueued);
        sweep->queue_sweep();
        QVERIFY(sweep->queuing());  // the rest comes slice by slice, the event loop runs in between
        QVERIFY(queued.wait(20000));
        QCOMPARE(queued.last().at(0).toInt(), 330);
        QCOMPARE(w.jobs()->queued_count() + w.jobs()->running_count(), 330);
        set_confirm_answer({});
        w.jobs()->cancel_all();
    }

    void copied_rows_are_plain_numbers() {
        // A spreadsheet reads 800000 and 40.5, not the table's "800,000" and "40.5%" (the unit is in the
        // header).
        QTemporaryDir dir;
        write_finished_run(dir.path(), "c", 800, 1, 0.405);
        RunCatalog catalog;
        QSignalSpy loaded(&catalog, &RunCatalog::loaded);
        catalog.open(dir.path());
        QVERIFY(loaded.wait(10000));
        RunTableModel model(&catalog);
        QCOMPARE(model.rowCount(), 1);
        const QModelIndex params = model.index(0, RunTableModel::kParams),
                          best = model.index(0, RunTableModel::kBestExactMatch);
        QCOMPARE(params.data().toString(), QString("800,000"));
        QCOMPARE(params.data(RunTableModel::kCsvRole).toString(), QString("800000"));
        QCOMPARE(best.data(RunTableModel::kCsvRole).toString(), QString("40.5"));
        QVERIFY(model.headerData(RunTableModel::kBestExactMatch, Qt::Horizontal, RunTableModel::kCsvRole)
                    .toString()
                    .endsWith(" (%)"));
    }

    void a_finished_run_gives_every_cell_an_estimate() {
        QTemporaryDir dir;
        write_finished_run(dir.path(), "done", 800, 1, 0.5);  // level 1, fone, 2 epochs in 3 s of training
        LaunchPanel panel;
        RunCatalog catalog;
        QSignalSpy loaded(&catalog, &RunCatalog::loaded);
        catalog.open(dir.path());
        QVERIFY(loaded.wait(10000));
        SweepDesigner sweep(&panel, &catalog);
        sweep.field("from")->setText("800");
        sweep.field("to")->setText("800");
        sweep.field("seeds")->setText("1");
        sweep.set_level_checked(0, false);
        sweep.set_level_checked(1, true);
        sweep.set_level_checked(3, true);
        sweep.update_summary();
        QString error;
        const auto cells = sweep.cells(&error);
        QCOMPARE(int(cells.size()), 2);
        const CellEstimate same = sweep.estimate(cells[0].settings),
                           bigger = sweep.estimate(cells[1].settings);
        QCOMPARE(same.basis, CellEstimate::Basis::measured);
        QCOMPARE(bigger.basis, CellEstimate::Basis::scaled);
        QVERIFY(bigger.seconds > same.seconds);  // a larger model trains more slowly
        QVERIFY2(sweep.summary_text().contains(
                     "(1 from finished runs of the same method, task and shape, 1 scaled"),
                 qPrintable(sweep.summary_text()));
        // Only the larger level: every cell scaled, and the sentence says so without an empty count.
        sweep.set_level_checked(1, false);
        sweep.update_summary();
        QVERIFY2(sweep.summary_text().contains(
                     " (scaled by model size from the same method's runs of other shapes"),
                 qPrintable(sweep.summary_text()));
        QVERIFY2(!sweep.summary_text().contains("( "), qPrintable(sweep.summary_text()));
    }

    void a_run_finished_elsewhere_gives_an_estimate_at_once() {
        // The store was empty when the designer summed up; a finished run then turns up (a `fone sweep` in a
        // terminal): the designer's line changes by itself, with no field touched.
        QTemporaryDir dir;
        LaunchPanel panel;
        RunCatalog catalog;
        QSignalSpy loaded(&catalog, &RunCatalog::loaded);
        catalog.open(dir.path());
        QVERIFY(loaded.wait(10000));
        SweepDesigner sweep(&panel, &catalog);
        sweep.field("from")->setText("800");
        sweep.field("to")->setText("800");
        sweep.field("seeds")->setText("1");
        sweep.set_level_checked(0, false);
        sweep.set_level_checked(1, true);
        sweep.update_summary();
        QVERIFY2(sweep.summary_text().contains("no finished run"), qPrintable(sweep.summary_text()));
        // Made elsewhere and moved in whole, its config as `fone train` writes it ("preset": "" for none).
        QTemporaryDir elsewhere;
        write_finished_run(elsewhere.path(), "done", 800, 1, 0.5);
        json config = fone::read_json_file((elsewhere.path() + "/done/config.json").toStdString());
        config["preset"] = "";
        config["versions"] = {{"fone", "0.1"}, {"libtorch", "1.13"}};
        write_json(elsewhere.path() + "/done/config.json", config);
        QVERIFY(QDir().rename(elsewhere.path() + "/done", dir.path() + "/done"));
        QTRY_VERIFY2_WITH_TIMEOUT(sweep.summary_text().contains("about "), qPrintable(sweep.summary_text()),
                                  5000);
    }

    void closing_while_training_asks_first() {
        QTemporaryDir dir;
        const QString script = dir.path() + "/slow-fone";
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\ncase \"$1\" in --version) echo 'fone 0 (CPU only)'; exit 0;; esac\nsleep 30\n");
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        WorkbenchWindow w(window_options(dir.path() + "/runs", script));
        w.show();
        fill_tiny_run(w.launch_panel());
        w.launch_panel()->launch();
        QTRY_COMPARE(w.jobs()->running_count(), 1);
        QStringList asked;
        set_confirm_answer([&](const QString&, const QString& text) {
            asked << text;
            return false;
        });
        w.close();
        QVERIFY(w.isVisible());  // kept working
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked[0].contains("resume") && asked[0].contains("checkpoint"), qPrintable(asked[0]));
        QCOMPARE(w.jobs()->running_count(), 1);
        set_confirm_answer([](const QString&, const QString&) { return true; });
        w.close();
        QVERIFY(!w.isVisible());
        set_confirm_answer({});
    }

    void curves_pick_the_nearest_curve_and_keep_the_label_inside() {
        QTemporaryDir dir;
        const QString root = dir.path();
        QDir().mkpath(root + "/c");
        write_json(root + "/c/config.json", {{"task", "dec-add"}, {"method", "fone"}, {"train_size", 400}});
        write_json(root + "/c/status.json", {{"status", "finished"}});
        for (int step = 1; step <= 5; ++step)
            fone::append_jsonl((root + "/c/metrics.jsonl").toStdString(), {{"event", "eval"},
                                                                           {"split", "test"},
                                                                           {"step", step},
                                                                           {"epoch", step},
                                                                           {"exact_match", 0.2 * step},
                                                                           {"digit_accuracy", 0.2 * step},
                                                                           {"elapsed_seconds", step}});
        WorkbenchWindow w(window_options(root));
        w.resize(1200, 800);
        w.show();
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(loaded.wait(10000));
        w.raise_view("curves");
        w.select_runs({"c"});
        QTRY_COMPARE(w.curves()->point_count(), 5);
        QTest::qWait(400);
        QCustomPlot* plot = w.curves()->plot();
        // 25 pixels below the last point (at 100%, the top): still picked, and the label stays in the plot.
        const auto last = plot->graph(0)->data()->at(4);
        const QPoint near(int(plot->xAxis->coordToPixel(last->key)) - 3,
                          int(plot->yAxis->coordToPixel(last->value)) + 25);
        QTest::mouseMove(plot, near);
        QTRY_VERIFY(!w.curves()->hover_label().isEmpty());
        QVERIFY(w.curves()->hover_label().startsWith("c\n"));
        plot->replot();
        // The legend sits under the axes, not over them.
        QVERIFY(plot->legend->outerRect().top() >= plot->axisRect()->outerRect().bottom());
        w.curves()->set_smoothing(0.6);
        QCOMPARE(w.curves()->smoothing_text(), QString("0.60"));
    }

    // The slots by themselves: lowest free slot to a newcomer, kept while selected, given back after.
    void run_colours_keep_their_slots() {
        RunColours colours;
        QVERIFY(colours.follow({"x", "y", "z"}));
        QCOMPARE(colours.slot("x"), 0);
        QCOMPARE(colours.slot("z"), 2);
        QVERIFY(colours.follow({"y", "z"}));  // x leaves: y and z keep 1 and 2
        QCOMPARE(colours.slot("y"), 1);
        QCOMPARE(colours.slot("x"), -1);
        QVERIFY(!colours.follow({"z", "y"}));  // the same runs in another order: nothing changes
        QVERIFY(colours.follow({"w", "y", "z", "v"}));
        QCOMPARE(colours.slot("w"), 0);  // the slot x gave back
        QCOMPARE(colours.slot("v"), 3);
        QCOMPARE(colours.slot("z"), 2);
    }

    // Compare settings shows a fraction in six significant digits; its tooltip and Copy keep it whole (as
    // `fone runs diff` writes it: 15 digits).
    void compare_settings_rounds_what_it_shows_not_what_it_copies() {
        QTemporaryDir dir;
        write_finished_run(dir.path(), "p", 400, 1, 0.29235928839999797);
        write_finished_run(dir.path(), "q", 800, 1, 0.5);
        WorkbenchWindow w(window_options(dir.path()));
        w.resize(1280, 720);
        w.show();
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(loaded.wait(10000));
        w.select_runs({"p", "q"});
        const QStringList results = w.settings_compare()->group_rows(1);
        QVERIFY2(results.contains("best_exact_match: 0.292359 | 0.5"), qPrintable(results.join('\n')));
        QVERIFY2(w.settings_compare()->to_text().contains("best_exact_match\t0.292359288399998\t0.5"),
                 qPrintable(w.settings_compare()->to_text()));
        QTreeWidgetItem* results_group = w.settings_compare()->tree()->topLevelItem(1);
        for (int i = 0; i < results_group->childCount(); ++i)
            if (results_group->child(i)->text(0) == "best_exact_match")
                QCOMPARE(results_group->child(i)->toolTip(1), QString("0.292359288399998"));
    }

    // A run has one colour in every view (run_colours.h): its curve, its column in Compare settings, its
    // name in Compare and in the Runs table; selecting more runs, or fewer, never recolours it.
    void a_run_keeps_one_colour_in_every_view() {
        QTemporaryDir dir;
        const QString root = dir.path();
        for (const char* name : {"a", "b", "c"})
            write_finished_run(root, name, 400, 1, 0.5);
        WorkbenchWindow w(window_options(root));
        w.resize(1280, 720);
        w.show();
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(loaded.wait(10000));
        const Theme& theme = w.theme();
        auto curve_colour = [&](const QString& name) {
            QCustomPlot* plot = w.curves()->plot();
            for (int i = 0; i < plot->graphCount(); ++i)
                if (plot->graph(i)->name() == name) return plot->graph(i)->pen().color();
            return QColor();
        };
        auto column_colour = [&](const QString& name) {
            QTreeWidgetItem* header = w.settings_compare()->tree()->headerItem();
            for (int c = 1; c < header->columnCount(); ++c)
                if (header->text(c) == "■ " + name) return header->foreground(c).color();
            return QColor();
        };
        auto compare_colour = [&](const QString& name) {
            QTableWidget* t = w.comparison()->table();
            for (int r = 0; r < t->rowCount(); ++r)
                if (t->item(r, 0)->text() == name)
                    return swatch_colour(t->item(r, 0)->data(Qt::DecorationRole));
            return QColor();
        };
        auto table_colour = [&](const QString& name) {
            const QModelIndex i = w.run_model()->index(w.catalog()->row_of(name), RunTableModel::kName);
            return swatch_colour(w.run_model()->data(i, Qt::DecorationRole));
        };
        auto same_everywhere = [&](const QString& name) {
            // As drawn: 8 bits a channel (the dark theme's lighter tints carry more in a QColor).
            const QRgb c = curve_colour(name).rgb();
            return curve_colour(name).isValid() && c == column_colour(name).rgb() &&
                   c == compare_colour(name).rgb() && c == table_colour(name).rgb();
        };

        w.select_runs({"a", "c"});
        QVERIFY(same_everywhere("a") && same_everywhere("c"));
        const QColor a = curve_colour("a"), c = curve_colour("c");
        QVERIFY(a != c);
        QCOMPARE(a, theme.series(0));

        // b joins between them in the table's order: a and c keep theirs, b takes the free one.
        w.select_runs({"a", "b", "c"});
        QVERIFY(same_everywhere("a") && same_everywhere("b") && same_everywhere("c"));
        QCOMPARE(curve_colour("a"), a);
        QCOMPARE(curve_colour("c"), c);
        QVERIFY(curve_colour("b") != a && curve_colour("b") != c);

        // c alone: still c's colour; a, no longer selected, is unmarked in the table.
        w.select_runs({"c"});
        QCOMPARE(curve_colour("c"), c);
        QVERIFY(same_everywhere("c"));
        QVERIFY(!table_colour("a").isValid());

        // The dark theme paints the same slots in its own tints, in every view alike.
        w.set_theme("dark");
        QVERIFY(same_everywhere("c"));
        QCOMPARE(curve_colour("c"), w.theme().series(w.catalog()->colour_slot("c")));
    }

    void export_writes_valid_files() {
        QTemporaryDir dir;
        const QString root = dir.path() + "/runs";
        const auto trained =
            fone_test::run_fone({"train", "--task", "dec-add", "--train-size", "400", "--test-size", "50",
                                 "--epochs", "2", "--threads", "1", "--name", "r", "--runs-dir", root});
        QCOMPARE(trained.code, 0);
        WorkbenchWindow w(window_options(root));
        w.resize(1200, 800);
        w.show();
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(loaded.wait(10000));
        w.select_runs({"r"});
        QTRY_COMPARE(w.curves()->point_count(), 2);  // two evaluations, one per epoch

        // Hovering a point of the curve names its run and marks it in the table (linked highlight). The
        // Curves dock is brought to the front first: the default layout gives the screen to the Welcome.
        QVERIFY(w.raise_view("curves"));
        QCustomPlot* plot = w.curves()->plot();
        QTest::qWait(400);  // the throttled replot fits the axes to the data that just arrived
        QCPGraph* graph = plot->graph(0);
        const auto point = graph->data()->at(1);
        const QPoint pixel(int(plot->xAxis->coordToPixel(point->key)),
                           int(plot->yAxis->coordToPixel(point->value)));
        QSignalSpy hovered(w.curves(), &CurveView::runHovered);
        QTest::mouseMove(plot, pixel);
        QTRY_VERIFY(!hovered.isEmpty());
        QCOMPARE(hovered.last().at(0).toString(), QString("r"));
        QCOMPARE(w.run_model()->highlighted(), QString("r"));
        QTest::mouseMove(plot, QPoint(2, 2));  // far from every point
        QTRY_COMPARE(w.run_model()->highlighted(), QString());

        for (const QString suffix : {"png", "svg", "pdf", "csv"}) {
            const QString path = dir.path() + "/curves." + suffix;
            QString error;
            QVERIFY2(w.curves()->export_to(path, &error), qPrintable(error));
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray bytes = f.readAll();
            if (suffix == "png") QVERIFY(bytes.startsWith("\x89PNG\r\n\x1a\n"));
            if (suffix == "pdf") QVERIFY(bytes.startsWith("%PDF-") && bytes.contains("%%EOF"));
            if (suffix == "svg") QVERIFY(bytes.contains("<svg") && bytes.contains("</svg>"));
            if (suffix == "csv") {
                const QList<QByteArray> lines = bytes.trimmed().split('\n');
                QCOMPARE(lines.first(), QByteArray("series,step,exact match"));
                QCOMPARE(lines.size(), 3);
                QVERIFY(lines[1].startsWith("r,"));
            }
        }
        QString error;
        QVERIFY(!w.curves()->export_to(dir.path() + "/x.bmp", &error));
        QVERIFY(error.contains("unknown file type"));
        // The dialog's name: the filter's suffix is added to a name typed without one.
        QCOMPARE(export_path("/tmp/curves", "PNG image (*.png)"), QString("/tmp/curves.png"));
        QCOMPARE(export_path("/tmp/curves", "CSV data (*.csv)"), QString("/tmp/curves.csv"));
        QCOMPARE(export_path("/tmp/curves.svg", "PNG image (*.png)"), QString("/tmp/curves.svg"));
        // The name offered is the figure's (issue 42: every export was offered as plot.png).
        QCustomPlot bare;
        QCOMPARE(export_base_name(&bare), QString("fone-figure"));
        bare.yAxis->setLabel("exact match");
        bare.xAxis->setLabel("step");
        QCOMPARE(export_base_name(&bare), QString("exact-match-vs-step"));
        // The PNG has the plot's shape on screen.
        const QImage png(dir.path() + "/curves.png");
        QVERIFY(std::abs(double(png.width()) / png.height() - double(plot->width()) / plot->height()) < 0.01);
        QVERIFY(w.data_size_view()->export_to(dir.path() + "/size.csv", &error));
        // A chosen figure size, whatever the dock's shape: a 960 x 480 report figure from a dock made wide
        // and short, its plot laid out at that size (a data rectangle most of the figure, the y title
        // inside).
        w.curves()->resize(1800, 290);
        QTest::qWait(50);
        const QSize report = figure_sizes().at(1).size;
        QCOMPARE(report, QSize(960, 480));
        const QRect on_screen = plot->axisRect()->rect();
        QVERIFY2(w.curves()->export_to(dir.path() + "/report.png", &error, report), qPrintable(error));
        const QImage figure(dir.path() + "/report.png");
        QCOMPARE(figure.size(), report);
        QCOMPARE(plot->axisRect()->rect(), on_screen);  // the dock keeps its own layout afterwards
        QVERIFY(!QDir(dir.path())
                     .entryList(QDir::Hidden | QDir::Files)
                     .join(' ')
                     .contains(".tmp-"));  // no leftovers
    }
};

QTEST_MAIN(TestWorkbench)
#include "test_workbench.moc"
