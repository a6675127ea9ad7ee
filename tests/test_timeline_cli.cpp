// Representation snapshots through `fone train` and `fone analyse timeline` (issue 17): a tiny FoNE run
// records one snapshot per evaluation (the probe numbers 0..199 at every layer, in half precision), the
// timeline reads them back; `--snapshots none` records none; a run without snapshots (the demo model, made
// before they existed) is one clear error.
#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include "fone_process.h"

using namespace fone_test;

class TestTimelineCli : public QObject {
    Q_OBJECT

    QTemporaryDir store_;

    QStringList tiny(const QString& name, const QStringList& extra = {}) {
        return QStringList{"train",       "--task",         "dec-add", "--train-size", "512", "--val-size",
                           "64",          "--test-size",    "100",     "--hidden",     "32",  "--layers",
                           "1",           "--heads",        "2",       "--kv-heads",   "1",   "--head-dim",
                           "16",          "--intermediate", "64",      "--epochs",     "2",   "--batch",
                           "64",          "--eval-every",   "4",       "--threads",    "1",   "--runs-dir",
                           store_.path(), "--name",         name} +
               extra;
    }

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first");
        QVERIFY(store_.isValid());
    }

    void every_evaluation_records_a_snapshot() {
        const Result r = run_fone(tiny("snap"));
        QVERIFY2(r.code == 0, r.err.constData());
        int evals = 0;
        for (const QJsonObject& e : json_lines(r.out))
            evals += e["event"].toString() == "eval";
        const QFileInfoList files =
            QDir(store_.path() + "/snap/snapshots").entryInfoList({"step-*.safetensors"});
        QVERIFY(evals >= 4);  // 8 steps per epoch, every 4 steps, 2 epochs
        QCOMPARE(files.size(), evals);
        // 200 numbers x 32 dims x 2 layers (input, block 1) x 2 bytes, and a header.
        for (const QFileInfo& f : files)
            QVERIFY2(f.size() > 200 * 32 * 2 * 2 && f.size() < 200 * 32 * 2 * 2 + 4096,
                     qPrintable(f.fileName()));

        const QString out = store_.path() + "/timeline";
        const Result t =
            run_fone({"analyse", "timeline", "--run", "snap", "--runs-dir", store_.path(), "--out", out});
        QVERIFY2(t.code == 0, t.err.constData());
        const QJsonObject j = first_line(t.out);
        QCOMPARE(j["snapshots"].toInt(), evals);
        QCOMPARE(j["numbers"].toInt(), 200);
        QCOMPARE(j["layers"].toArray().size(), 2);
        QFile csv(out + "/timeline.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        // One row per snapshot, layer and frequency k = 1..100.
        QCOMPARE(QString::fromUtf8(csv.readAll()).trimmed().split('\n').size(), 1 + evals * 2 * 100);
#ifdef FONE_WITH_PLOTS
        QVERIFY(QFile::exists(out + "/timeline-layer-0.png"));
#endif
    }

    void none_records_nothing() {
        const Result r = run_fone(tiny("quiet", {"--snapshots", "none"}));
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(!QDir(store_.path() + "/quiet/snapshots").exists());
        const Result bad = run_fone(tiny("bad", {"--snapshots", "all"}));
        QCOMPARE(bad.code, 2);
    }

    void a_run_without_snapshots_is_one_line() {
        const Result r = run_fone({"analyse", "timeline", "--run", FONE_SOURCE_DIR "/resources/demo-model",
                                   "--runs-dir", store_.path(), "--out", store_.path() + "/none"});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("no representation snapshots"), r.err.constData());
        QCOMPARE(r.err.trimmed().count('\n'), 0);
    }
};

QTEST_GUILESS_MAIN(TestTimelineCli)
#include "test_timeline_cli.moc"
