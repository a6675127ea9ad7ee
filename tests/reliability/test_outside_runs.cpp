// Reliability (issue 33): a run folder someone sends you, through the built `fone` as a user would run it.
//   - `train --resume` of a run whose train.lock or metrics.jsonl is a symbolic link (to ~/.bashrc):
//     refused with one line, the link's target untouched (before: truncated and overwritten, or its last
//     line cut and lines appended)
//   - `analyse … --out DIR` where DIR/spectrum.png is a link: refused, the target untouched
//   - NaN in a checkpoint's weight: eval, predict, export, analyse patch and knockout refuse it naming the
//     tensor (before: exit 0 and plausible-looking numbers)
//   - `analyse patch --serve`: fields type-checked (place 2^40, true, 3.7 are errors, not 0, 1, 3), a
//     prompt without "=" refused as predict refuses it, a line over the limit refused without being held,
//     deep JSON refused, errors one short line without nlohmann's tags
//   - a kill at each step of making a run: no run or a whole one; an older build's husk is never deleted
//   ctest --test-dir build -R test_outside_runs --output-on-failure
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstring>

#include "fone/io/safetensors.h"
#include "fone/store/run_store.h"
#include "fone_process.h"

using namespace fone_test;
namespace st = fone::safetensors;

namespace {

QStringList tiny_args(const QString& runs, const QString& name) {
    return {"train", "--task",    "dec-add", "--train-size", "128", "--test-size",    "16", "--val-size",
            "16",    "--epochs",  "2",       "--batch",      "32",  "--hidden",       "16", "--layers",
            "1",     "--heads",   "2",       "--kv-heads",   "1",   "--intermediate", "32", "--head-dim",
            "8",     "--threads", "1",       "--seed",       "3",   "--name",         name, "--runs-dir",
            runs};
}

bool copy_dir(const QString& from, const QString& to) {
    if (!QDir().mkpath(to)) return false;
    for (const QFileInfo& f : QDir(from).entryInfoList(QDir::Files | QDir::Hidden))
        if (!QFile::copy(f.filePath(), to + "/" + f.fileName())) return false;
    return true;
}

QByteArray read_all(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void write_file(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

// One line on stderr, under 1,000 bytes.
bool one_line(const QByteArray& err) {
    return err.count('\n') == 1 && err.endsWith('\n') && err.size() < 1000;
}

// The checkpoint rewritten with its first float32 weight's first value set to NaN (the rest, metadata
// and identity included, as they were).
void poison(const QString& path, QString* tensor) {
    std::string bytes;
    {
        const st::File f = st::File::open(path.toStdString());
        std::vector<std::string> copies;
        copies.reserve(f.tensors().size());
        std::vector<st::TensorData> tensors;
        bool done = false;
        for (const st::TensorInfo& t : f.tensors()) {
            const auto b = f.bytes(t);
            copies.emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
            if (!done && t.dtype == st::Dtype::F32 && t.name.rfind("optim", 0) != 0 && b.size() >= 4) {
                const float nan = std::nanf("");
                std::memcpy(copies.back().data(), &nan, 4);
                *tensor = QString::fromStdString(t.name);
                done = true;
            }
            tensors.push_back({t.name, t.dtype, t.shape, copies.back().data(), copies.back().size()});
        }
        bytes = st::serialize(tensors, f.metadata());
    }
    write_file(path, QByteArray::fromStdString(bytes));
}

}  // namespace

class TestOutsideRuns : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString runs_, good_;

    // A copy of the good run that --resume continues (its status says interrupted).
    QString resumable(const QString& name) {
        const QString run = runs_ + "/" + name;
        if (!copy_dir(good_, run)) return {};
        QFile::remove(run + "/" + fone::kSummaryFile);
        write_file(run + "/" + fone::kStatusFile, R"({"status": "interrupted", "pid": 0})");
        return run;
    }

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first");
        runs_ = dir_.path() + "/runs";
        const Result r = run_fone(tiny_args(runs_, "good"));
        QVERIFY2(r.code == 0, r.err.constData());
        good_ = runs_ + "/good";
    }

    void resume_never_writes_through_links() {
        const QString victim = dir_.path() + "/bashrc";
        const QByteArray kept = "export PATH=/usr/bin\n# the last line, without newline";
        for (const char* name : {fone::kLockFile, fone::kMetricsFile}) {
            write_file(victim, kept);
            const QString run = resumable(QString("linked-") + name);
            QVERIFY(!run.isEmpty());
            QFile::remove(run + "/" + name);
            QVERIFY(QFile::link(victim, run + "/" + name));
            const Result r = run_fone({"train", "--resume", run, "--threads", "1"});
            QVERIFY2(r.code != 0, r.out.constData());
            QVERIFY2(one_line(r.err) && r.err.contains("symbolic link") && r.err.contains(name),
                     r.err.constData());
            QCOMPARE(read_all(victim), kept);
        }
    }

    void analyse_out_never_writes_through_links() {
        const QString victim = dir_.path() + "/picture-victim";
        write_file(victim, "keep");
        const QString out = dir_.path() + "/analyse-out";
        QVERIFY(QDir().mkpath(out));
        // The CSV, which every build writes (a build without Qt writes no PNG).
        QVERIFY(QFile::link(victim, out + "/spectrum.csv"));
        const Result r = run_fone({"analyse", "spectrum", "--numbers", "1000", "--out", out});
        QVERIFY2(r.code != 0, r.out.constData());
        QVERIFY2(one_line(r.err) && r.err.contains("symbolic link"), r.err.constData());
        QCOMPARE(read_all(victim), QByteArray("keep"));
    }

    void nan_weights_refused_naming_the_tensor() {
        const QString run = runs_ + "/nan";
        QVERIFY(copy_dir(good_, run));
        QString tensor;
        for (const char* name : {fone::kBestCheckpoint, fone::kLastCheckpoint})
            poison(run + "/" + name, &tensor);
        QVERIFY(!tensor.isEmpty());
        for (const QStringList& args :
             {QStringList{"eval", "--run", run}, QStringList{"predict", "--run", run, "1.5+2.25="},
              QStringList{"export", "--run", run, "--out", dir_.path() + "/nan-export"},
              QStringList{"analyse", "patch", "--run", run, "--prompt", "1.5+2.25=", "--digit", "3"},
              QStringList{"analyse", "knockout", "--run", run, "--prompt", "1.5+2.25=", "--period", "10"}}) {
            const Result r = run_fone(args);
            QVERIFY2(r.code != 0, qPrintable(args.join(' ') + ": " + QString::fromUtf8(r.out)));
            QVERIFY2(one_line(r.err) && r.err.contains("NaN") && r.err.contains(tensor.toUtf8()),
                     r.err.constData());
        }
        QVERIFY(!QFile::exists(dir_.path() + "/nan-export"));
    }

    // runs convert --trust: a .pt whose stored settings are not the run's is refused (never stamped with
    // this run's identity); a notice names the legacy format on stderr; stdout is the JSON report alone.
    void convert_refuses_another_runs_pt() {
        const QString swapped = dir_.path() + "/swapped-legacy";
        QVERIFY(copy_dir(QStringLiteral(FONE_SOURCE_DIR "/tests/golden/legacy-run"), swapped));
        QByteArray config = read_all(swapped + "/config.json");
        QVERIFY(config.contains("\"seed\": 3"));
        config.replace("\"seed\": 3", "\"seed\": 4");  // another run's settings
        write_file(swapped + "/config.json", config);
        const Result r = run_fone({"runs", "convert", swapped, "--trust"});
        QVERIFY2(r.code != 0 && r.err.contains("belongs to another run"), r.err.constData());
        QVERIFY(!QFile::exists(swapped + "/" + fone::kLastCheckpoint));
        const QString legacy = dir_.path() + "/legacy";
        QVERIFY(copy_dir(QStringLiteral(FONE_SOURCE_DIR "/tests/golden/legacy-run"), legacy));
        const Result ok = run_fone({"runs", "convert", legacy, "--trust"});
        QVERIFY2(ok.code == 0, ok.err.constData());
        QVERIFY2(ok.err.contains("legacy format"), ok.err.constData());
        QCOMPARE(ok.out.count('\n'), 1);
        QVERIFY(ok.out.startsWith("{\""));
        QVERIFY(QFile::exists(legacy + "/" + fone::kLastCheckpoint));
    }

    // A kill while a run is being made (FONE_INJECT_CREATE_KILL: SIGKILL at each step of the creation)
    // leaves no run or a whole one, never a husk. Before, the run folder was made, then config.json was
    // written (through a temporary), then the lock taken: a kill in the middle left a folder whose only copy
    // of its settings was "config.json.tmp-<pid>", and `train --resume` deleted it as litter.
    void kill_while_made_leaves_no_husk() {
        const QString runs = dir_.path() + "/made";
        const QStringList steps = {"folder", "config", "lock", "published"};
        for (const QString& step : steps) {
            const Result r =
                run_fone(tiny_args(runs, "made"), {}, 300000, {"FONE_INJECT_CREATE_KILL=" + step});
            QVERIFY2(r.code == -1, qPrintable(step + ": " + r.err));  // killed
            const QStringList visible = QDir(runs).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
            if (step != "published") {
                QVERIFY2(visible.isEmpty(), qPrintable(step + ": " + visible.join(',')));
                continue;
            }
            // Whole: its settings and lock are there; the earlier kills' hidden folders are gone.
            QCOMPARE(QDir(runs).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                     QStringList{"made"});
            QVERIFY(read_json(runs + "/made/config.json").contains("seed"));
            QVERIFY(QFile::exists(runs + "/made/" + fone::kLockFile));
        }
        const Result listed = run_fone({"runs", "list", "--format", "json", "--runs-dir", runs});
        QCOMPARE(first_line(listed.out)["status"].toString(), QString("interrupted"));
        const Result resumed = run_fone({"train", "--resume", "made", "--runs-dir", runs, "--threads", "1"});
        QVERIFY2(resumed.code == 0, resumed.err.constData());
        QCOMPARE(read_json(runs + "/made/status.json")["status"].toString(), QString("finished"));
    }

    // A husk an older build left (no config.json, only the temporary of its write): --resume refuses it in
    // one line and deletes nothing (before: the temporary, the run's only copy of its settings, was removed
    // as litter, then config.json was reported missing).
    void resume_keeps_an_unfinished_config() {
        const QString husk = runs_ + "/husk";
        QVERIFY(QDir().mkpath(husk));
        const QString temporary = husk + "/config.json.tmp-999999999";
        QVERIFY(QFile::copy(good_ + "/config.json", temporary));
        const Result r = run_fone({"train", "--resume", "husk", "--runs-dir", runs_, "--threads", "1"});
        QVERIFY2(r.code != 0 && one_line(r.err) && r.err.contains("config.json.tmp-999999999, kept"),
                 r.err.constData());
        QCOMPARE(read_all(temporary), read_all(good_ + "/config.json"));
    }

    void serve_requests_are_typed_and_bounded() {
        const QByteArray deep =
            QByteArray(30000, '[') + QByteArray(30000, ']');  // 60 KB: under the line limit
        const QByteArray input =
            "{\"prompt\": \"1.5+2.25=\", \"place\": 1099511627776, \"digit\": 3}\n"
            "{\"prompt\": \"1.5+2.25=\", \"place\": true, \"digit\": 3}\n"
            "{\"prompt\": \"1.5+2.25=\", \"place\": 3.7, \"digit\": 3}\n"
            "{\"prompt\": \"1.5+2.25=\", \"digit\": true}\n"
            "{\"prompt\": \"1.5+2.25\", \"digit\": 3}\n"
            "{\"prompt\": \"" +
            QByteArray(200000, '1') + "+1=\", \"digit\": 3}\n" + deep +
            "\n"
            "{\"prompt\": \"1.5+2.25=\", \"digit\": 3, \"angle\": 90}\n"  // issue 44: both were answered
            "{\"prompt\": \"" +
            QByteArray(400, '\x01') +
            "\", \"digit\": 3}\n"  // escapes: 5,164 bytes before
            "{\"prompt\": \"1.5+2.25=\", \"digit\": 3, \"id\": \"" +
            QByteArray(5000, 'i') +
            "\"}\n"
            "{\"prompt\": \"1.5+2.25=\", \"digit\": 3, \"id\": 7}\n";
        const Result r = run_fone({"analyse", "patch", "--run", good_, "--serve", "--threads", "1"}, input);
        QVERIFY2(r.code == 0, r.err.constData());
        const QList<QJsonObject> lines = json_lines(r.out);
        const QList<QByteArray> raw = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 12);  // ready, 10 errors, 1 answer
        const char* expected[] = {"\"place\" must be a whole number",
                                  "\"place\" must be a whole number",
                                  "\"place\" must be a whole number",
                                  "\"digit\" must be a whole number",
                                  "'='",
                                  "longer than 65536 bytes",
                                  "nests deeper than 64",
                                  "not both",
                                  "corrupt JSON",
                                  "\"id\" must be"};
        for (int k = 0; k < 10; ++k) {
            const QString error = lines[k + 1]["error"].toString();
            QVERIFY2(error.contains(expected[k]), qPrintable(QString::number(k) + ": " + error));
            QVERIFY2(!error.contains("[json.exception") && raw[k + 1].size() <= 500,
                     qPrintable(QString::number(raw[k + 1].size()) + ": " + error));
        }
        QCOMPARE(lines[11]["id"].toInt(), 7);
        QVERIFY(!lines[11].contains("error"));
    }
};

QTEST_MAIN(TestOutsideRuns)
#include "test_outside_runs.moc"
