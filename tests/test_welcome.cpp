// The welcome view (widgets/analysis/welcome_view.h), offscreen: the bundled demo model is found and answers
// 123.456+654.321= with 777.777 through a real `fone predict` child, digit by digit on its circles; the two
// "Train it live" runs get the same data and seed; and the live logic, driven by a fake `fone` that speaks
// the events: both runs train at once, FoNE's curve fills, and once FoNE ends the digit-wise run is given as
// long again and then stopped (resumable), and the view says where each one got. The window opens on the
// welcome view.
//
//   ctest --test-dir build -R test_welcome --output-on-failure
#include <qcustomplot.h>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

#include "analysis_views.h"
#include "fone/platform/cpu.h"
#include "hidden_view.h"
#include "plot_panel.h"
#include "run_catalog.h"
#include "run_picker.h"
#include "welcome_view.h"
#include "workbench_window.h"

using namespace fone::gui;

namespace {

constexpr int kChildMs = 120000;  // a child `fone` on a busy 2-core machine
const QString kFone = QStringLiteral(FONE_BIN_DIR "/fone");

// A `fone` that trains nothing (tests/fake_fone_live.sh): the fone run reports 20%, 70%, 99.5% and ends;
// the digit run reports 1% every 0.1 s until it gets SIGTERM, then ends "stopped" as `fone train` does.
const QString kFakeFone = QStringLiteral(FONE_SOURCE_DIR "/tests/fake_fone_live.sh");

}  // namespace

class TestWelcome : public QObject {
    Q_OBJECT

  private Q_SLOTS:
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
