// Reliability: a store of 2,000 runs, 100 of them damaged (truncated, empty, binary, missing or mistyped
// files: tests/reliability/store_fixture.h). `fone runs list` and the workbench's catalog list every run;
// the broken ones as "broken" with the file and the reason; runs with odd but valid files (wrong types in
// summary.json, a garbage metrics line, a cut last line) stay listed as they are and the window survives
// selecting them all. Times are printed, not asserted (bench/bench_store.cpp measures them).
//   ctest --test-dir build -R test_store_scale --output-on-failure
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "comparison_view.h"
#include "curve_view.h"
#include "fone_process.h"
#include "run_catalog.h"
#include "store_fixture.h"
#include "workbench_window.h"

using namespace fone::gui;
using nlohmann::json;

class TestStoreScale : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString root_;
    std::vector<std::pair<std::string, std::size_t>> damaged_;

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first");
        root_ = dir_.path() + "/runs";
        QElapsedTimer t;
        t.start();
        damaged_ = fone_test::make_store(root_.toStdString(), 2000);
        qInfo("made 2,000 runs (%zu damaged) in %lld ms", damaged_.size(), t.elapsed());
        QCOMPARE(damaged_.size(), std::size_t(100));
    }

    void cli_lists_every_run_and_names_the_damage() {
        QElapsedTimer t;
        t.start();
        const auto r = fone_test::run_fone({"runs", "list", "--format", "json", "--runs-dir", root_});
        qInfo("fone runs list --format json: %lld ms for 2,000 runs", t.elapsed());
        QCOMPARE(r.code, 0);
        QVERIFY(r.err.isEmpty());
        std::map<std::string, json> rows;
        for (const QByteArray& line : r.out.split('\n'))
            if (!line.isEmpty()) {
                const json row = json::parse(line.toStdString());
                rows[row["name"].get<std::string>()] = row;
            }
        QCOMPARE(rows.size(), std::size_t(2000));
        int broken = 0;
        for (const auto& [name, row] : rows)
            broken += row["status"] == "broken";
        int expected_broken = 0;
        for (const auto& [name, k] : damaged_) {
            const auto& d = fone_test::damages()[k];
            const json& row = rows[name];
            if (*d.expect) {
                ++expected_broken;
                QVERIFY2(row["status"] == "broken", qPrintable(QString::fromStdString(name + " " + d.kind)));
                QVERIFY2(
                    row["message"].get<std::string>().find(d.expect) != std::string::npos,
                    qPrintable(QString::fromStdString(std::string(d.kind) + ": " + row["message"].dump())));
            } else {
                QVERIFY2(row["status"] == "finished",
                         qPrintable(QString::fromStdString(name + " " + d.kind)));
            }
        }
        QCOMPARE(broken, expected_broken);
        // The table and CSV forms list them too.
        const auto table = fone_test::run_fone({"runs", "list", "--runs-dir", root_});
        QCOMPARE(table.code, 0);
        QCOMPARE(table.out.count('\n'), 2001);  // the header and one line per run
        QVERIFY(table.out.contains("broken"));
        const auto only = fone_test::run_fone({"runs", "list", "--status", "broken", "--runs-dir", root_});
        QCOMPARE(only.out.count('\n'), expected_broken + 1);
    }

    void show_names_a_damaged_metrics_line() {
        bool garbage_seen = false, cut_seen = false;  // one run of each kind is enough
        for (const auto& [name, k] : damaged_) {
            const std::string kind = fone_test::damages()[k].kind;
            if (kind == "metrics-garbage-line" && !std::exchange(garbage_seen, true)) {
                const auto r =
                    fone_test::run_fone({"runs", "show", QString::fromStdString(name), "--runs-dir", root_});
                QCOMPARE(r.code, 1);
                QVERIFY2(r.err.contains("metrics.jsonl:2: corrupt metrics line"), r.err.constData());
                QCOMPARE(r.err.count('\n'), 1);
            } else if (kind == "metrics-cut-tail" && !std::exchange(cut_seen, true)) {
                const auto r =
                    fone_test::run_fone({"runs", "show", QString::fromStdString(name), "--runs-dir", root_});
                QCOMPARE(r.code, 0);
                QVERIFY(r.out.contains("\"truncated_tail\":true"));
            }
        }
        QVERIFY(garbage_seen && cut_seen);
    }

    void workbench_lists_every_run_and_survives_them() {
        WorkbenchOptions o;
        o.runs_dir = root_;
        o.use_settings = false;
        o.cli = FONE_BIN_DIR "/fone";
        QElapsedTimer t;
        t.start();
        WorkbenchWindow w(o);
        w.show();
        if (!w.catalog()->is_loaded()) {
            QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
            QVERIFY(loaded.wait(60000));
        }
        qInfo("workbench: window and catalog of 2,000 runs in %lld ms", t.elapsed());
        QCOMPARE(w.catalog()->size(), 2000);
        for (const auto& [name, k] : damaged_) {
            const auto& d = fone_test::damages()[k];
            const int row = w.catalog()->row_of(QString::fromStdString(name));
            QVERIFY(row >= 0);
            const RunEntry& e = w.catalog()->at(row);
            if (*d.expect) {
                QCOMPARE(e.status, QString("broken"));
                QVERIFY2(e.message.contains(d.expect), qPrintable(e.message));
            } else {
                QCOMPARE(e.status, QString("finished"));
            }
        }
        // Select every damaged run and its neighbours: curves, comparison and details read them all.
        QStringList names;
        for (const auto& [name, k] : damaged_)
            names << QString::fromStdString(name);
        w.select_runs(names);
        QTRY_VERIFY_WITH_TIMEOUT(w.curves()->shown_count() > 0, 20000);
        w.run_table()->selectAll();
        QTest::qWait(500);
        QVERIFY(!w.selected_rows_text(true).isEmpty());
        QVERIFY(w.isEnabled());
    }
};

QTEST_MAIN(TestStoreScale)
#include "test_store_scale.moc"
