// Reliability: kill -9 a training run at random moments, 10 times, resuming it after each kill.
//
// After every kill: every file of the run parses (config.json, status.json, metrics.jsonl with no cut line,
// both checkpoints load with their weights), the store lists the run as "interrupted" (never "broken"),
// every metrics record the run had printed before it died is in metrics.jsonl (the engine appends and closes
// a line before it prints the event), and what metrics.jsonl held after the previous kill is still its
// beginning. At the end the resumed run finishes on the same weights (digest) as an uninterrupted run.
//
// The kill moments are random: FONE_KILL_SEED=<n> replays a sequence (the seed used is printed).
//   ctest --test-dir build -R test_kill_resume --output-on-failure
#include <signal.h>

#include <algorithm>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include "fone/checkpoints/checkpoint.h"
#include "fone/store/run_store.h"
#include "fone_process.h"

using namespace fone_test;

namespace {

constexpr int kKills = 10;

// About 20 s of training on one thread; checkpoints every 10 steps, evaluations every 25.
QStringList run_args(const QString& runs, const QString& name) {
    return {"train", "--task",         "dec-add", "--train-size", "3200", "--val-size",
            "0",     "--test-size",    "100",     "--hidden",     "64",   "--layers",
            "2",     "--heads",        "2",       "--kv-heads",   "1",    "--head-dim",
            "32",    "--intermediate", "128",     "--epochs",     "8",    "--batch",
            "32",    "--threads",      "1",       "--seed",       "7",    "--checkpoint-every",
            "10",    "--eval-every",   "25",      "--runs-dir",   runs,   "--name",
            name};
}

QByteArray read_all(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The progress and eval events (the ones that go to metrics.jsonl) among a child's stdout lines, compact.
QList<QByteArray> metric_events(const QByteArray& out) {
    QList<QByteArray> lines;
    for (const QByteArray& line : out.split('\n')) {
        const auto doc = QJsonDocument::fromJson(line);
        if (!doc.isObject()) continue;
        const QString kind = doc.object()["event"].toString();
        if (kind == "progress" || kind == "eval") lines << doc.toJson(QJsonDocument::Compact);
    }
    return lines;
}

}  // namespace

class TestKillResume : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() { QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first"); }

    void kill9_ten_times_then_same_weights() {
        QTemporaryDir tmp;
        const QString runs = tmp.path();
        QElapsedTimer clock;
        clock.start();
        const Result ref = run_fone(run_args(runs, "reference"));
        QVERIFY2(ref.code == 0, ref.err.constData());
        const double ref_seconds = clock.elapsed() / 1000.0;
        const QString digest = json_lines(ref.out).last()["weights_digest"].toString();
        QVERIFY(!digest.isEmpty());

        quint32 seed = QRandomGenerator::global()->generate();
        if (qEnvironmentVariableIsSet("FONE_KILL_SEED"))
            seed = qEnvironmentVariable("FONE_KILL_SEED").toUInt();
        QRandomGenerator rng(seed);
        // A kill in training lands at most 1/(2·kKills) of the reference run's time after the start event
        // (capped at 1.5 s), so the ten kills together cannot let the run finish first, however fast the
        // machine: on a fast one the reference run took 6 s, and 0-1.5 s delays let it end after 7 kills.
        const int max_delay_ms = std::clamp(static_cast<int>(ref_seconds * 1000.0 / (2 * kKills)), 50, 1500);
        qInfo(
            "reference run: %.1f s; kills in training within %d ms of its start; kill moments from "
            "FONE_KILL_SEED=%u",
            ref_seconds, max_delay_ms, seed);

        const QString dir = runs + "/victim";
        QByteArray previous_metrics;
        int kills = 0, in_startup_kills = 0, before_first_checkpoint = 0, tmp_left = 0;
        QStringList moments;
        for (int attempt = 0; kills < kKills && attempt < 3 * kKills; ++attempt) {
            const bool fresh = !QDir(dir).exists();
            QProcess p;
            p.start(
                QStringLiteral(FONE_BIN_DIR "/fone"),
                fresh ? run_args(runs, "victim") : QStringList{"train", "--resume", dir, "--threads", "1"});
            QVERIFY(p.waitForStarted());
            // One kill in five lands while it starts up (loading LibTorch, making the data, before its
            // "start" event); the others at a random moment of training, 0-max_delay_ms after it started.
            QByteArray out;
            const bool in_startup = rng.bounded(5) == 0;
            QElapsedTimer since;
            since.start();
            if (!in_startup) {
                while (!out.contains("\"event\":\"start\"") && p.state() != QProcess::NotRunning &&
                       since.elapsed() < 120000)
                    if (p.waitForReadyRead(100)) out += p.readAllStandardOutput();
            }
            const int delay_ms = static_cast<int>(rng.bounded(in_startup ? 1000 : max_delay_ms));
            if (p.waitForFinished(delay_ms)) {
                // It finished (or failed) before the kill: that must be a clean finish.
                QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
                break;
            }
            const bool had_checkpoint = QFile::exists(dir + "/checkpoint-last.safetensors");
            ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
            QVERIFY(p.waitForFinished(10000));
            ++kills;
            const bool started = out.contains("\"event\":\"start\"");
            in_startup_kills += !started;
            before_first_checkpoint += started && !had_checkpoint;
            moments << QString("%1%2 ms").arg(started ? "training +" : "start-up +").arg(delay_ms);
            out += p.readAllStandardOutput();

            // 1. Every file parses.
            if (!QDir(dir).exists()) continue;  // killed before it made its run: the next attempt starts it
            QVERIFY2(QFile::exists(dir + "/config.json"), "a run directory without config.json");
            try {
                (void)fone::read_json_file((dir + "/config.json").toStdString());
                if (QFile::exists(dir + "/status.json"))
                    (void)fone::read_json_file((dir + "/status.json").toStdString());
                const fone::MetricsFile m = fone::read_metrics((dir + "/metrics.jsonl").toStdString());
                QVERIFY2(!m.truncated_tail, "a metrics line was cut short");
                for (const char* ck : {"/checkpoint-last.safetensors", "/checkpoint-best.safetensors"})
                    if (QFile::exists(dir + ck)) (void)fone::inspect_checkpoint((dir + ck).toStdString());
            } catch (const std::exception& e) {
                QFAIL(qPrintable(QString("kill %1 at %2 ms left a corrupt file: %3")
                                     .arg(kills)
                                     .arg(delay_ms)
                                     .arg(e.what())));
            }
            for (const QString& f : QDir(dir).entryList(QDir::Files))
                tmp_left += f.contains(".tmp-");

            // 2. The store lists it as interrupted, with a reason.
            const fone::RunInfo info = fone::RunStore(runs.toStdString()).info(dir.toStdString());
            QVERIFY2(info.status == fone::kStatusInterrupted,
                     qPrintable(QString::fromStdString(info.status + ": " + info.message)));

            // 3. Nothing printed before the kill is missing from metrics.jsonl, and nothing older was lost.
            const QByteArray metrics = read_all(dir + "/metrics.jsonl");
            QVERIFY2(metrics.startsWith(previous_metrics), "metrics.jsonl lost lines it held before");
            QList<QByteArray> file_events;
            for (const QByteArray& line : metrics.mid(previous_metrics.size()).split('\n'))
                if (!line.trimmed().isEmpty())
                    file_events << QJsonDocument::fromJson(line).toJson(QJsonDocument::Compact);
            const QList<QByteArray> printed = metric_events(out);
            int k = 0;  // printed must be a subsequence of what this session appended
            for (const QByteArray& e : file_events)
                if (k < printed.size() && e == printed[k]) ++k;
            QVERIFY2(k == printed.size(),
                     qPrintable(QString("kill %1: %2 of %3 printed metric lines are not in "
                                        "metrics.jsonl")
                                    .arg(kills)
                                    .arg(printed.size() - k)
                                    .arg(printed.size())));
            previous_metrics = metrics;
        }
        qInfo(
            "%d kills (%s): %d during start-up, %d in training before the run's first checkpoint; "
            "%d temporary files left by the kills (a resume removes them)",
            kills, qPrintable(moments.join(", ")), in_startup_kills, before_first_checkpoint, tmp_left);
        QCOMPARE(kills, kKills);

        // The last resume runs to the end: the same weights as the run that was never killed.
        const Result last = run_fone({"train", "--resume", dir, "--threads", "1"});
        QVERIFY2(last.code == 0, last.err.constData());
        const QJsonObject end = json_lines(last.out).last();
        QCOMPARE(end["status"].toString(), QString("finished"));
        QCOMPARE(end["weights_digest"].toString(), digest);
        QVERIFY(read_all(dir + "/metrics.jsonl").startsWith(previous_metrics));
        for (const QString& f : QDir(dir).entryList(QDir::Files))
            QVERIFY2(!f.contains(".tmp-"), qPrintable("left behind: " + f));
        const fone::RunInfo info = fone::RunStore(runs.toStdString()).info(dir.toStdString());
        QCOMPARE(QString::fromStdString(info.status), QString("finished"));
    }
};

QTEST_GUILESS_MAIN(TestKillResume)
#include "test_kill_resume.moc"
