// The welcome view (widgets/analysis/welcome_view.h), offscreen: the bundled demo model is found and answers
// 123.456+654.321= with 777.777 through a real `fone predict` child, digit by digit on its circles; the two
// "Train it live" runs get the same data and seed; and the live logic, driven by a fake `fone` that speaks
// the events: both runs train at once, FoNE's curve fills, and once FoNE ends the digit-wise run is given as
// long again and then stopped (resumable), and the view says where each one got. The window opens on the
// welcome view.
//
//   ctest --test-dir build -R test_welcome --output-on-failure
#include <qcustomplot.h>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

#include <QProcess>

#include "analysis_views.h"
#include "errors_view.h"
#include "fone/io/json_files.h"
#include "fone/platform/cpu.h"
#include "fone/store/run_lock.h"
#include "fone/store/run_store.h"
#include "hidden_view.h"
#include "plot_panel.h"
#include "presenter_view.h"
#include "run_catalog.h"
#include "run_picker.h"
#include "run_table_model.h"
#include "scaling_view.h"
#include "timeline_view.h"
#include "welcome_view.h"
#include "workbench_window.h"

using namespace fone::gui;

namespace {

constexpr int kChildMs = 120000;  // a child `fone` on a busy 2-core machine
const QString kFone = QStringLiteral(FONE_BIN_DIR "/fone");

// A `fone` that trains nothing (tests/fake_fone_live.sh): the fone run reports 20%, 70%, 99.5% and ends;
// the digit run reports 1% every 0.1 s until it gets SIGTERM, then ends "stopped" as `fone train` does.
const QString kFakeFone = QStringLiteral(FONE_SOURCE_DIR "/tests/fake_fone_live.sh");

// The status the Runs table shows for a run (through its filter/sort proxy, as the user sees it); "" when the
// run is not listed.
QString table_status(WorkbenchWindow& w, const QString& name) {
    QAbstractItemModel* m = w.run_table()->model();
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, RunTableModel::kName).data().toString() == name)
            return m->index(r, RunTableModel::kStatus).data().toString();
    return {};
}

// What the run's files say (the store's rule: status.json, and "running" only while its lock is held).
QString file_status(const QString& root, const QString& name) {
    // No run before its config is written (the store would call a folder without one "broken").
    if (!QFileInfo::exists(root + "/" + name + "/config.json")) return {};
    try {
        return QString::fromStdString(
            fone::RunStore(root.toStdString(), false).info((root + "/" + name).toStdString()).status);
    } catch (const std::exception&) {
        return {};  // no folder yet
    }
}

// The race's recipe made tiny (the same file the window reads, smaller sizes): a real race in seconds.
void write_tiny_race(const QString& experiments) {
    QDir().mkpath(experiments + "/recipes");
    nlohmann::json recipe = fone::read_json_file(FONE_SOURCE_DIR "/experiments/recipes/welcome-race.json");
    recipe["settings"] = {{"task", "dec-add"}, {"train_size", 512}, {"test_size", 40}, {"seed", 1},
                          {"eval_every", 8},   {"epochs", 4},       {"batch", 32},     {"size_level", 1}};
    fone::write_json_atomic((experiments + "/recipes/welcome-race.json").toStdString(), recipe);
}

}  // namespace

class TestWelcome : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    // The Welcome and Presenter name the model shown without the word "checkpoint" (issue 42).
    void checkpoints_in_plain_words() {
        CheckpointStamp stamp;
        QCOMPARE(checkpoint_words(stamp, true), QString("no saved model"));
        stamp.file = "checkpoint-best.safetensors";
        stamp.step = 400;
        QCOMPARE(checkpoint_words(stamp), QString("step 400 (best checkpoint)"));
        QCOMPARE(checkpoint_words(stamp, true), QString("step 400, where it scored best"));
        stamp.file = "checkpoint-last.safetensors";
        QCOMPARE(checkpoint_words(stamp, true), QString("step 400, its latest save"));
    }
    void initTestCase() {
        QVERIFY2(QFile::exists(kFone), "build the fone target first");
        register_analysis_views();
    }

    void the_demo_model_is_found_and_answers() {
        const QString dir = demo_model_dir();
        QVERIFY2(!dir.isEmpty(), "resources/demo-model is missing (scripts/make-demo-model.sh)");
        QVERIFY(run_has_model(dir));
        QTemporaryDir store;
        RunCatalog catalog;
        catalog.open(store.path());
        WelcomeView view(&catalog, kFone);
        view.resize(1200, 700);
        view.show();
        QCOMPARE(view.demo()->run(), dir);
        QCOMPARE(view.demo()->prompt(), QString("123.456+654.321="));
        QSignalSpy predicted(view.demo(), &HiddenView::predicted);
        view.demo()->predict();
        QVERIFY2(predicted.wait(kChildMs), qPrintable(view.demo()->status_text()));
        QCOMPARE(QString::fromStdString(view.demo()->prediction().value("value", std::string())),
                 QString("777.777"));
        // One circle per digit slot, every digit right.
        QVERIFY(view.demo()->circles().has_value());
        for (const auto& slot : view.demo()->circles()->pairs)
            QVERIFY(!slot.wrong());
        QVERIFY2(view.demo()->summary().contains("777.777"), qPrintable(view.demo()->summary()));
        QTRY_VERIFY(!view.busy());
    }

    // The race is experiments/recipes/welcome-race.json: its sentences quote its sizes, and without it the
    // race refuses to start with the file's name (the sentences show "?" rather than a placeholder).
    void the_race_is_its_recipe() {
        QCOMPARE(race_sentence("{train_size} sums, {test_size} tests"), QString("51,200 sums, 500 tests"));
        QTemporaryDir empty;
        qputenv("FONE_EXPERIMENTS_DIR", empty.path().toUtf8());
        QCOMPARE(race_sentence("{train_size} sums"), QString("? sums"));
        try {
            live_run_args("fone", "x");
            QFAIL("a race without its recipe started");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("welcome-race.json"), e.what());
        }
        qunsetenv("FONE_EXPERIMENTS_DIR");
    }

    void live_runs_share_data_and_seed() {
        const QStringList fone = live_run_args("fone", "a"), digit = live_run_args("digit", "b");
        auto value = [](const QStringList& args, const QString& key) {
            const qsizetype i = args.indexOf(key);
            return i >= 0 && i + 1 < args.size() ? args[i + 1] : QString();
        };
        for (const char* key :
             {"--task", "--train-size", "--test-size", "--seed", "--threads", "--eval-every"})
            QCOMPARE(value(fone, key), value(digit, key));
        QCOMPARE(value(fone, "--method"), QString("fone"));
        QCOMPARE(value(digit, "--method"), QString("digit"));
        QCOMPARE(value(fone, "--target-acc"), QString("0.99"));  // FoNE stops at 99%
        QVERIFY(!digit.contains("--target-acc"));                // digit-wise is stopped by the view
        // the two share the cores evenly
        QCOMPARE(value(fone, "--threads"), QString::number(std::max(1, fone::available_cores() / 2)));
    }

    void train_it_live_races_the_two_runs() {
        QTemporaryDir dir;
        const QString script = kFakeFone;
        RunCatalog catalog;
        catalog.open(dir.path() + "/runs");
        QTRY_VERIFY(catalog.is_loaded());
        WelcomeView view(&catalog, script);
        view.resize(1200, 700);
        view.show();
        QSignalSpy finished(&view, &WelcomeView::liveFinished);
        view.train_live();
        QVERIFY(view.live_running());
        QVERIFY(view.busy());
        view.train_live();  // a second click while they train starts nothing more
        QVERIFY(finished.wait(30000));
        QVERIFY(!view.live_running());
        QTRY_VERIFY(!view.busy());  // (the demo's predict, refused by the fake fone, has ended too)
        // FoNE's curve has its three points; digit-wise kept going until it was stopped.
        QCustomPlot* p = view.live_plot()->plot();
        QCOMPARE(p->graph(0)->dataCount(), 3);
        QCOMPARE(p->graph(0)->data()->at(2)->value, 99.5);
        QVERIFY(p->graph(1)->dataCount() >= 3);
        const QString summary = view.live_summary();
        QVERIFY2(summary.contains("FoNE: 99.5% exact match"), qPrintable(summary));
        QVERIFY2(summary.contains("digit-wise: 1.0% exact match"), qPrintable(summary));
        QVERIFY2(summary.contains("stopped; it can be resumed"), qPrintable(summary));
        QVERIFY2(summary.contains("Given twice that time"), qPrintable(summary));
        QVERIFY(view.live_runs().at(0).endsWith("-fone"));
        QVERIFY(view.live_runs().at(1).endsWith("-digit"));
        // The verdict in words, for presenter mode.
        QVERIFY2(view.verdict().contains("Given twice that time"), qPrintable(view.verdict()));
        QCOMPARE(view.live_curves().size(), 2);
        QCOMPARE(view.live_curves()[0].percent.size(), 3);
    }

    void train_it_live_uses_the_open_store() {
        // The window's store (--runs-dir), not the default one: the runs are rows of its Runs table.
        QTemporaryDir dir;
        WorkbenchOptions o;
        o.runs_dir = dir.path() + "/store";
        o.cli = kFakeFone;
        o.use_settings = false;
        WorkbenchWindow w(o);
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(loaded.wait(10000));
        auto* welcome = qobject_cast<WelcomeView*>(w.view("welcome"));
        QVERIFY(welcome);
        QSignalSpy finished(welcome, &WelcomeView::liveFinished);
        welcome->train_live();
        QCOMPARE(welcome->live_store(), w.catalog()->root());
        QVERIFY(finished.wait(30000));
        for (const QString& name : welcome->live_runs()) {
            QVERIFY2(QFile::exists(w.catalog()->root() + "/" + name + "/config.json"), qPrintable(name));
            QTRY_VERIFY_WITH_TIMEOUT(w.catalog()->row_of(name) >= 0, 10000);
        }
    }

    // issue 28's Done-when: a fresh store, Train it live with the real `fone`, and the Runs table's states
    // checked against the run files while the race runs and after it: a state the files have held for the
    // table's follow-up time (a poll of 1 s, a scan for new folders every 2 s) is the state the table shows.
    void the_race_states_follow_their_files() {
        QTemporaryDir dir;
        write_tiny_race(dir.path() + "/experiments");
        qputenv("FONE_EXPERIMENTS_DIR", QString(dir.path() + "/experiments").toUtf8());
        WorkbenchOptions o;
        o.runs_dir = dir.path() + "/store";
        o.cli = kFone;
        o.use_settings = false;
        WorkbenchWindow w(o);
        w.resize(1280, 720);
        w.show();
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(loaded.wait(10000));
        auto* welcome = qobject_cast<WelcomeView*>(w.view("welcome"));
        QVERIFY(welcome);
        QVERIFY(welcome->race_refusal().isEmpty());
        QSignalSpy finished(welcome, &WelcomeView::liveFinished);
        welcome->train_live();
        const QString root = w.catalog()->root();
        const QStringList names = welcome->live_runs();
        constexpr qint64 kFollowMs = 3500;
        QHash<QString, QString> held;       // the files' state at the last sample
        QHash<QString, qint64> held_since;  // since when the files have said it
        QElapsedTimer clock;
        clock.start();
        int running_seen = 0, checked = 0;
        while (finished.count() == 0 && clock.elapsed() < kChildMs) {
            QTest::qWait(250);
            for (const QString& name : names) {
                const QString files = file_status(root, name);
                if (files != held.value(name)) held[name] = files, held_since[name] = clock.elapsed();
                if (files.isEmpty() || clock.elapsed() - held_since[name] < kFollowMs) continue;
                ++checked;
                running_seen += files == "running";
                QCOMPARE(table_status(w, name), files);
            }
        }
        QVERIFY2(finished.count() == 1, "the race did not end in time");
        QVERIFY2(running_seen > 0, "never saw a run training for long enough to check the table");
        QVERIFY(checked > 0);
        // After: FoNE finished, the digit-wise run was stopped by the view; the table follows the files.
        QCOMPARE(file_status(root, names[0]), QString("finished"));
        // (stopped by the view, or finished first when its extra time outlasted its few steps)
        QVERIFY2(QStringList({"stopped", "finished"}).contains(file_status(root, names[1])),
                 qPrintable(file_status(root, names[1])));
        for (const QString& name : names)
            QTRY_COMPARE_WITH_TIMEOUT(table_status(w, name), file_status(root, name), int(kFollowMs));
        // The status bar counts the store's two runs, none of them running; the finished run is a point of
        // the data-size figure (it draws the finished runs the table shows).
        QTRY_VERIFY2_WITH_TIMEOUT(w.status_text().startsWith("0 running · 0 queued · 2 runs"),
                                  qPrintable(w.status_text()), int(kFollowMs));
        QVERIFY2(!w.status_text().contains("interrupted"), qPrintable(w.status_text()));
        // A run folder deleted behind the window's back leaves the list.
        QVERIFY(QDir(root + "/" + names[1]).removeRecursively());
        QTRY_COMPARE_WITH_TIMEOUT(table_status(w, names[1]), QString(), int(kFollowMs));
        QTRY_VERIFY2_WITH_TIMEOUT(w.status_text().startsWith("0 running · 0 queued · 1 runs"),
                                  qPrintable(w.status_text()), int(kFollowMs));
        qunsetenv("FONE_EXPERIMENTS_DIR");
    }

    // Every analysis result names its checkpoint and follows the run: views opened while a run trains show
    // the step they read; once the run has finished they show its final checkpoint (they refresh
    // themselves), and while it trains on they say that they are out of date.
    void analyses_name_their_checkpoint_and_follow_the_run() {
        QTemporaryDir dir;
        const QString run = dir.path() + "/r";
        QProcess train;
        train.start(kFone, {"train",    "--task",       "dec-add", "--train-size", "1024", "--test-size",
                            "40",       "--epochs",     "6",       "--batch",      "32",   "--eval-every",
                            "8",        "--size-level", "1",       "--threads",    "1",    "--runs-dir",
                            dir.path(), "--name",       "r"});
        QVERIFY(train.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(checkpoint_stamp(run).step >= 0, kChildMs);
        RunCatalog catalog;
        catalog.open(dir.path());
        HiddenView hidden(&catalog);
        ErrorsView errors(&catalog);
        TimelineView timeline(&catalog);
        hidden.set_program(kFone), errors.set_program(kFone), timeline.set_program(kFone);
        QList<AnalysisView*> views{&hidden, &errors, &timeline};
        QVERIFY(hidden.set_run(run) && errors.set_run(run) && timeline.set_run(run));
        hidden.set_prompt("12.5+3.25=");
        for (AnalysisView* v : views) {
            v->resize(900, 600);
            v->show();
        }
        hidden.predict(), errors.evaluate(), timeline.compute();
        for (AnalysisView* v : views)
            QTRY_VERIFY_WITH_TIMEOUT(!v->busy(), kChildMs);
        const qint64 early = checkpoint_stamp(run).step;
        for (AnalysisView* v : views)
            QVERIFY2(v->provenance_text().contains("From r at step "), qPrintable(v->provenance_text()));
        // While it trains on: the result says it is out of date, or it is of the newest checkpoint.
        QVERIFY(train.waitForFinished(kChildMs));
        QCOMPARE(train.exitCode(), 0);
        const CheckpointStamp last = checkpoint_stamp(run);
        QVERIFY(last.step >= early);
        const QString final_words = "From r at " + checkpoint_words(last);
        for (AnalysisView* v : views) {
            QTRY_VERIFY2_WITH_TIMEOUT(v->provenance_text() == final_words && !v->busy(),
                                      qPrintable(v->provenance_text() + " / wanted: " + final_words),
                                      kChildMs);
            QVERIFY(!v->out_of_date());
        }
        // The step named is the checkpoint's own (its metadata), which summary.json's best step agrees with
        // for the best checkpoint.
        QVERIFY(last.file == "checkpoint-best.safetensors" || last.file == "checkpoint-last.safetensors");
    }

    void a_view_of_a_training_run_says_it_is_out_of_date() {
        // A run that "trains" (status.json running, held by this process's lock) saves a newer checkpoint:
        // the view keeps its result and says so instead of refreshing at every evaluation.
        QTemporaryDir dir;
        const QString run = dir.path() + "/r";
        QProcess train;
        train.start(kFone, {"train", "--task", "dec-add", "--train-size", "256", "--test-size", "20",
                            "--epochs", "1", "--batch", "32", "--size-level", "1", "--threads", "1",
                            "--runs-dir", dir.path(), "--name", "r"});
        QVERIFY(train.waitForFinished(kChildMs));
        QCOMPARE(train.exitCode(), 0);
        RunCatalog catalog;
        catalog.open(dir.path());
        ErrorsView errors(&catalog);
        errors.set_program(kFone);
        QVERIFY(errors.set_run(run));
        errors.resize(900, 600);
        errors.show();
        errors.evaluate();
        QTRY_VERIFY_WITH_TIMEOUT(!errors.busy(), kChildMs);
        QVERIFY2(errors.provenance_text().startsWith("From r at step "),
                 qPrintable(errors.provenance_text()));
        QVERIFY(!errors.out_of_date());
        // Pretend it trains again: this process holds its lock and says so in status.json; a new checkpoint.
        const fone::RunLock lock = fone::RunLock::acquire(run.toStdString());
        nlohmann::json status = fone::read_json_file((run + "/status.json").toStdString());
        status["status"] = "running";
        status["pid"] = static_cast<int>(QCoreApplication::applicationPid());
        status["host"] = fone::host_name();
        fone::write_json_atomic((run + "/status.json").toStdString(), status);
        QTest::qWait(1100);  // a newer modification time
        for (const char* name : {"checkpoint-best.safetensors", "checkpoint-last.safetensors"}) {
            QFile f(run + "/" + name);
            if (f.exists()) {
                QVERIFY(f.open(QIODevice::ReadWrite));
                f.setFileTime(QDateTime::currentDateTime(), QFileDevice::FileModificationTime);
            }
        }
        QTRY_VERIFY_WITH_TIMEOUT(errors.out_of_date(), 10000);
        QVERIFY2(errors.provenance_text().contains("Out of date"), qPrintable(errors.provenance_text()));
        QVERIFY(!errors.busy());  // no refresh while it trains
    }

    // One demo, one set of rules: Presenter and Welcome refuse the same sums with the same sentence and give
    // the same answer to the rest (the demo model answers both, through the same HiddenView rules).
    void presenter_and_welcome_answer_alike() {
        QTemporaryDir dir;
        RunCatalog catalog;
        catalog.open(dir.path());
        WelcomeView welcome(&catalog, kFone);
        PresenterView presenter(&welcome, &catalog, kFone);
        welcome.resize(1280, 720), presenter.resize(1280, 720);
        welcome.show(), presenter.show();
        QVERIFY(QTest::qWaitForWindowExposed(&presenter));
        // Presenter starts with the prompt focused: typing goes there.
        QTRY_VERIFY(presenter.focusWidget() && presenter.focusWidget()->inherits("QLineEdit"));
        struct Case {
            QString prompt, says;  // says: words the refusal must contain ("" for a sum it answers)
            QString answer = {};   // the true sum, by hand, for the range's ends (issue 28)
        };
        const QList<Case> cases{{"5000+5000=", "5000 is larger than 999.999"},
                                {"1000+1=", "1000 is larger than 999.999"},
                                {"two plus two=", "type a sum such as"},
                                {"two plus two", "type a sum such as"},
                                {"-3+5=", "type a sum such as"},
                                {"999.999+0=", "", "999.999"},
                                {"0+0=", "", "0"},
                                {"999.999+999.999=", "", "1999.998"},
                                {"0+999.999=", "", "999.999"},
                                {"999.999+0.001=", "", "1000"},
                                {"99.999+900.001=", "", "1000"},
                                {"999+1=", "", "1000"},
                                {"0.999+0.001=", "", "1"}};
        for (const Case& c : cases) {
            HiddenView* views[] = {welcome.demo(), presenter.clocks()};
            for (HiddenView* v : views) {
                v->set_prompt(c.prompt);
                v->predict();
            }
            for (HiddenView* v : views)
                QTRY_VERIFY_WITH_TIMEOUT(!v->busy(), kChildMs);
            QCOMPARE(views[1]->status_text(), views[0]->status_text());
            QCOMPARE(views[1]->summary(), views[0]->summary());
            const QString said = views[0]->status_text() + views[0]->summary();
            if (c.says.isEmpty()) {
                QVERIFY2(views[0]->summary().startsWith("The model answers " + c.answer + " · true " +
                                                        c.answer + " ✓"),
                         qPrintable(c.prompt + ": " + said));
            } else {
                QVERIFY2(said.contains(c.says), qPrintable(c.prompt + ": " + said));
                QVERIFY2(!said.contains("The model answers") && !said.contains("limit is") &&
                             !said.contains("End the question"),
                         qPrintable(c.prompt + ": " + said));
            }
        }
    }

    void a_read_only_store_refuses_the_race_in_words() {
        if (!QFileInfo(QStringLiteral("/proc/sys/dev")).isDir()) QSKIP("no /proc/sys/dev here");
        RunCatalog catalog;
        QSignalSpy loaded(&catalog, &RunCatalog::loaded);
        WelcomeView view(&catalog, kFone);
        catalog.open("/proc/sys/dev");
        QVERIFY(loaded.wait(10000));
        QVERIFY(view.race_refusal().contains("cannot be written to"));
        QPushButton* train = nullptr;
        for (QPushButton* b : view.findChildren<QPushButton*>())
            if (b->text() == "Train it live") train = b;
        QVERIFY(train);
        QVERIFY(!train->isEnabled());
        view.train_live();
        QVERIFY(!view.live_running());
        QVERIFY2(view.status_text().contains("--runs-dir"), qPrintable(view.status_text()));
    }

    void a_failing_live_run_is_shown() {
        QTemporaryDir dir;
        const QString script = dir.path() + "/broken-fone";
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\necho 'fone train: error: no such task' >&2\nexit 2\n");
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        RunCatalog catalog;
        catalog.open(dir.path() + "/runs");
        WelcomeView view(&catalog, script);
        QSignalSpy finished(&view, &WelcomeView::liveFinished);
        view.train_live();
        QVERIFY(finished.wait(30000));
        QVERIFY2(view.status_text().contains("no such task"), qPrintable(view.status_text()));
        QVERIFY(!view.busy());
    }

    void the_demo_model_is_in_every_run_list() {
        // An empty store: the pickers of Hidden state, Spectrum, PCA and Errors offer the demo model.
        QTemporaryDir dir;
        RunCatalog catalog;
        QSignalSpy loaded(&catalog, &RunCatalog::loaded);
        catalog.open(dir.path());
        QVERIFY(loaded.wait(10000));
        RunPicker picker(&catalog);
        QCOMPARE(picker.count(), 1);
        QCOMPARE(picker.run_dir(), demo_model_dir());
        QVERIFY(picker.combo()->currentText().startsWith("demo model"));
    }

    void the_window_opens_on_the_welcome_view() {
        QTemporaryDir dir;
        WorkbenchOptions o;
        o.runs_dir = dir.path();
        o.use_settings = false;
        WorkbenchWindow w(o);
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QWidget* welcome = w.view("welcome");
        QVERIFY(welcome);
        QTRY_VERIFY(!welcome->visibleRegion().isEmpty());
        QVERIFY(w.view("runs")->visibleRegion().isEmpty());  // behind the welcome tab
    }
};

QTEST_MAIN(TestWelcome)
#include "test_welcome.moc"
