// Reliability (issue 13): nothing lost, nobody in. Each case runs the built `fone` as a user would.
//   - checkpoints are safetensors files (data, never code); an older build's .pt is never opened: refused
//     with the conversion command, converted only by `fone runs convert RUN --trust`
//   - a checkpoint copied from another run is refused (its identity)
//   - one trainer per run (flock on train.lock); a "running" status.json whose lock is free reads as
//     interrupted, whatever process its pid now names
//   - a full disk (a real tmpfs, filled to several levels) stops training cleanly: one line naming the
//     file and the free space, no temporary left, every checkpoint whole, and a resume once space is back
//     reaches the uninterrupted run's weights
//   - a metrics line cut short is repaired before a resume appends; FIFOs, /dev/zero and huge models are
//     refused at once; `fone train | head -1` trains to the end; eval/predict create no store
//   ctest --test-dir build -R test_safe_runs --output-on-failure
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "fone/store/run_lock.h"
#include "fone/store/run_store.h"
#include "fone_process.h"

using namespace fone_test;

namespace {

// A tiny run (a few seconds on 2 cores): 4 epochs of 4 steps, a checkpoint each epoch.
QStringList tiny_args(const QString& runs, const QString& name) {
    return {"train", "--task",    "dec-add", "--train-size", "128", "--test-size",    "16", "--val-size",
            "16",    "--epochs",  "4",       "--batch",      "32",  "--hidden",       "16", "--layers",
            "1",     "--heads",   "2",       "--kv-heads",   "1",   "--intermediate", "32", "--head-dim",
            "8",     "--threads", "1",       "--seed",       "3",   "--name",         name, "--runs-dir",
            runs};
}

QString last_digest(const QByteArray& out) {
    const auto lines = json_lines(out);
    return lines.isEmpty() ? QString() : lines.last()["weights_digest"].toString();
}

bool copy_dir(const QString& from, const QString& to) {
    if (!QDir().mkpath(to)) return false;
    for (const QFileInfo& f : QDir(from).entryInfoList(QDir::Files | QDir::Hidden))
        if (!QFile::copy(f.filePath(), to + "/" + f.fileName())) return false;
    return true;
}

void write_file(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

QString one_line(const QByteArray& err) {
    return QString::fromUtf8(err).trimmed();
}

QStringList temporaries(const QString& dir) {
    QStringList out;
    for (const QString& f : QDir(dir).entryList(QDir::Files | QDir::Hidden))
        if (f.contains(".tmp-")) out << f;
    return out;
}

}  // namespace

class TestSafeRuns : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString runs_, good_, digest_;

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first");
        runs_ = dir_.path() + "/runs";
        const Result r = run_fone(tiny_args(runs_, "good"));
        QVERIFY2(r.code == 0, r.err.constData());
        good_ = runs_ + "/good";
        digest_ = last_digest(r.out);
        QVERIFY(!digest_.isEmpty());
    }

    // The checkpoint is a safetensors file: an 8-byte little-endian header length, then a JSON header.
    void checkpoints_are_safetensors() {
        for (const char* name : {fone::kLastCheckpoint, fone::kBestCheckpoint}) {
            QFile f(good_ + "/" + name);
            QVERIFY2(f.open(QIODevice::ReadOnly), name);
            const QByteArray head = f.read(9);
            QCOMPARE(head.size(), 9);
            QCOMPARE(head[8], '{');
        }
        QVERIFY(QDir(good_).entryList({"*.pt"}).isEmpty());
        const Result e = run_fone({"eval", "--run", good_, "--threads", "1"});
        QVERIFY2(e.code == 0, e.err.constData());
    }

    // An older build's run: refused (never opened) with the conversion command; converted only with --trust.
    void legacy_checkpoint_refused_then_converted() {
        const QString legacy = dir_.path() + "/legacy-run";
        QVERIFY(copy_dir(QStringLiteral(FONE_SOURCE_DIR "/tests/golden/legacy-run"), legacy));
        for (const QStringList& args :
             {QStringList{"eval", "--run", legacy}, QStringList{"predict", "--run", legacy, "1.5+2.25="},
              QStringList{"train", "--resume", legacy, "--runs-dir", runs_}}) {
            const Result r = run_fone(args);
            QVERIFY2(r.code != 0, r.out.constData());
            QVERIFY2(r.err.contains("checkpoint-last.pt") && r.err.contains("fone runs convert") &&
                         r.err.count('\n') == 1,
                     r.err.constData());
        }
        const Result untrusted = run_fone({"runs", "convert", legacy, "--runs-dir", runs_});
        QCOMPARE(untrusted.code, 2);
        QVERIFY2(untrusted.err.contains("--trust"), untrusted.err.constData());
        QVERIFY(!QFile::exists(legacy + "/" + fone::kLastCheckpoint));

        const Result c = run_fone({"runs", "convert", legacy, "--trust", "--runs-dir", runs_});
        QVERIFY2(c.code == 0, c.err.constData());
        QCOMPARE(first_line(c.out)["converted"].toArray().size(), 1);
        QVERIFY(QFile::exists(legacy + "/" + fone::kLastCheckpoint));
        const Result e = run_fone({"eval", "--run", legacy, "--threads", "1"});
        QVERIFY2(e.code == 0, e.err.constData());
        QVERIFY(first_line(e.out).contains("exact_match"));
    }

    // A checkpoint copied from another run is refused by eval, export and resume.
    void checkpoint_of_another_run_refused() {
        const Result o = run_fone(tiny_args(runs_, "other") << "--lr"
                                                            << "0.002");
        QVERIFY2(o.code == 0, o.err.constData());
        const QString mixed = runs_ + "/mixed";
        QVERIFY(copy_dir(good_, mixed));
        QFile::remove(mixed + "/" + fone::kBestCheckpoint);
        QFile::remove(mixed + "/" + fone::kLastCheckpoint);
        QVERIFY(QFile::copy(runs_ + "/other/" + fone::kLastCheckpoint, mixed + "/" + fone::kLastCheckpoint));
        for (const QStringList& args : {QStringList{"eval", "--run", mixed},
                                        QStringList{"export", "--run", mixed, "--out", dir_.path() + "/x"},
                                        QStringList{"train", "--resume", mixed}}) {
            const Result r = run_fone(args);
            QVERIFY2(r.code != 0, r.out.constData());
            QVERIFY2(r.err.contains("belongs to another run"), r.err.constData());
        }
    }

    // One trainer per run: a second is refused naming the holder.
    void second_trainer_refused() {
        const QString run = runs_ + "/locked";
        QVERIFY(copy_dir(good_, run));
        QFile::remove(run + "/" + fone::kSummaryFile);
        write_file(run + "/" + fone::kStatusFile, R"({"status": "interrupted", "pid": 0})");
        const fone::RunLock lock = fone::RunLock::acquire(run.toStdString());
        QVERIFY(lock.held());
        const Result r = run_fone({"train", "--resume", run});
        QVERIFY2(r.code != 0, r.out.constData());
        QVERIFY2(r.err.contains("process " + QByteArray::number(::getpid())), r.err.constData());
    }

    // status.json says "running" with a pid that is alive but is not the trainer (pid 1, as after a reboot):
    // the lock is free, so the run reads as interrupted.
    void stale_running_status_is_interrupted() {
        const QString stale = runs_ + "/stale";
        QVERIFY(copy_dir(good_, stale));
        QFile::remove(stale + "/" + fone::kSummaryFile);
        write_file(stale + "/" + fone::kStatusFile,
                   QByteArray("{\"status\": \"running\", \"pid\": 1, \"host\": \"") +
                       QByteArray::fromStdString(fone::host_name()) + "\", \"step\": 4, \"epoch\": 1}");
        QVERIFY(QFile::exists(stale + "/" + fone::kLockFile));
        const Result r = run_fone({"runs", "show", "stale", "--runs-dir", runs_});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(first_line(r.out)["status"].toString(), QString("interrupted"));
    }

    // A metrics line cut short (a power cut): the resume cuts it off before appending; show and export work.
    void cut_metrics_tail_repaired_on_resume() {
        const QString cut = runs_ + "/cut";
        QVERIFY(copy_dir(good_, cut));
        QFile::remove(cut + "/" + fone::kSummaryFile);
        write_file(cut + "/" + fone::kStatusFile, R"({"status": "interrupted", "pid": 0})");
        {
            QFile m(cut + "/" + fone::kMetricsFile);
            QVERIFY(m.open(QIODevice::Append));
            m.write(R"({"step": 16, "loss": 0.12)");
        }
        const Result r = run_fone({"train", "--resume", cut, "--threads", "1"});
        QVERIFY2(r.code == 0, r.err.constData());
        QFile m(cut + "/" + fone::kMetricsFile);
        QVERIFY(m.open(QIODevice::ReadOnly));
        const QByteArray text = m.readAll();
        QVERIFY(!text.contains(R"("loss": 0.12{)"));
        QVERIFY(text.contains("repaired_tail_bytes"));
        for (const QStringList& args : {QStringList{"runs", "show", cut, "--runs-dir", runs_},
                                        QStringList{"runs", "export", cut, "--runs-dir", runs_}}) {
            const Result s = run_fone(args);
            QVERIFY2(s.code == 0, s.err.constData());
        }
    }

    // A FIFO config.json, /dev/zero as data and a model larger than the machine: refused at once.
    void special_files_and_huge_models_refused_at_once() {
        const QString fifo = runs_ + "/fifo";
        QVERIFY(QDir().mkpath(fifo));
        QVERIFY(::mkfifo((fifo + "/config.json").toLocal8Bit().constData(), 0644) == 0);
        QElapsedTimer t;
        t.start();
        const Result list = run_fone({"runs", "list", "--runs-dir", runs_}, {}, 20000);
        QVERIFY2(list.code == 0, list.err.constData());
        QVERIFY(list.out.contains("fifo"));
        const Result zero =
            run_fone({"train", "--task", "file", "--data", "/dev/zero", "--runs-dir", runs_}, {}, 20000);
        QVERIFY2(zero.code != 0 && zero.err.contains("not a regular file"), zero.err.constData());
        const Result huge = run_fone({"train", "--task", "dec-add", "--hidden", "65536", "--layers", "256",
                                      "--intermediate", "1048576", "--heads", "64", "--kv-heads", "64",
                                      "--head-dim", "1024", "--runs-dir", runs_, "--name", "huge"},
                                     {}, 60000);
        QVERIFY2(huge.code != 0 && huge.err.contains("billion parameters"), huge.err.constData());
        QVERIFY(!QFile::exists(runs_ + "/huge/" + fone::kLastCheckpoint));
        QVERIFY2(t.elapsed() < 60000, "refusals must not wait or allocate");
    }

    // `fone train | head -1`: the reader goes, the run trains to its end.
    void closed_stdout_does_not_kill_training() {
        QProcess sh;
        const QString cmd = "'" FONE_BIN_DIR "/fone' " + tiny_args(runs_, "piped").join(' ') + " | head -1";
        sh.start("bash", {"-c", cmd});
        QVERIFY(sh.waitForFinished(300000));
        QCOMPARE(read_json(runs_ + "/piped/" + fone::kStatusFile)["status"].toString(), QString("finished"));
    }

    // Reading commands never create a store; names that a listing would hide are refused before training.
    void read_only_commands_create_nothing_and_names_are_checked() {
        const QString missing = dir_.path() + "/no/such/store";
        for (const QStringList& args :
             {QStringList{"eval", "--run", "x", "--runs-dir", missing},
              QStringList{"predict", "--run", "x", "1+2=", "--runs-dir", missing}}) {
            const Result r = run_fone(args);
            QVERIFY(r.code != 0);
        }
        QVERIFY(!QDir(dir_.path() + "/no").exists());
        // (Invalid UTF-8, which a QProcess argument cannot carry, is checked in test_run_store.)
        QStringList args = tiny_args(runs_, "n");
        args[args.indexOf("n")] = "x.tmp-5";
        const Result r = run_fone(args);
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.count('\n') == 1 && r.err.contains("run name"), r.err.constData());
        QVERIFY(!QDir(runs_).entryList().join(' ').contains("x.tmp"));
    }

    // What an error echoes of the user's input is cut and escaped, and a bad data line is named file:line.
    void echoed_input_is_cut_and_escaped() {
        const QString esc = dir_.path() + "/esc.txt";
        write_file(esc, "1+2=3\n\x1b[31mred+1=2\n");
        const Result e = run_fone({"eval", "--run", good_, "--data", esc});
        QVERIFY(e.code != 0);
        QVERIFY2(e.err.contains("esc.txt:2:") && e.err.contains("\\x1b[31m") && !e.err.contains('\x1b'),
                 e.err.constData());
        write_file(dir_.path() + "/big.txt", "1+2=3\n# a comment\n99999999+1=100000000\n");
        const Result big = run_fone({"eval", "--run", good_, "--data", dir_.path() + "/big.txt"});
        QVERIFY2(big.code != 0 && big.err.contains("big.txt:3: number 99999999"), big.err.constData());
        const Result p = run_fone({"predict", "--run", good_, "1+" + QString(100000, 'x') + "="});
        QVERIFY(p.code != 0);
        QVERIFY2(p.err.size() < 400 && p.err.count('\n') == 1, p.err.left(400).constData());
        for (const QString& prompt : {QString("1+2"), QString("5"), QString("1+2=3=4+5")}) {
            const Result q = run_fone({"predict", "--run", good_, prompt});
            QVERIFY2(q.code != 0 && q.out.isEmpty(), qPrintable(prompt));
        }
    }

    // A data file is stored as an absolute path with its digest: eval says when it changed since.
    void data_file_absolute_with_digest() {
        QVERIFY(QDir::setCurrent(dir_.path()));
        QByteArray lines;
        for (int i = 0; i < 200; ++i)
            lines += QByteArray::number(i) + "+" + QByteArray::number(i * 7 % 100) + "=" +
                     QByteArray::number(i + i * 7 % 100) + "\n";
        write_file(dir_.path() + "/sums.txt", lines);
        QStringList args = tiny_args(runs_, "filed");
        args[args.indexOf("dec-add")] = "file";
        args << "--data"
             << "sums.txt";
        const Result r = run_fone(args);
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject config = read_json(runs_ + "/filed/" + fone::kConfigFile);
        QCOMPARE(config["data"].toString(), QDir(dir_.path()).absoluteFilePath("sums.txt"));
        QCOMPARE(config["data_digest"].toString().size(), 16);
        write_file(dir_.path() + "/sums.txt", lines + "1+1=2\n");
        const Result e = run_fone({"eval", "--run", runs_ + "/filed", "--threads", "1"});
        QVERIFY2(e.code == 0, e.err.constData());
        QVERIFY2(first_line(e.out)["data_note"].toString().contains("changed"), e.out.constData());
    }

    // A real full disk: a tmpfs filled so that N bytes are free, for several N across the run's writes.
    void full_disk_stops_cleanly_and_resumes() {
        if (::geteuid() != 0) QSKIP("needs root to mount a tmpfs");
        const QString mnt = dir_.path() + "/disk";
        QVERIFY(QDir().mkpath(mnt));
        if (::mount("tmpfs", mnt.toLocal8Bit().constData(), "tmpfs", 0, "size=4m") != 0)
            QSKIP("cannot mount a tmpfs here");
        const auto unmount = qScopeGuard([&] { ::umount(mnt.toLocal8Bit().constData()); });
        int stopped = 0, resumed = 0;
        QStringList outcomes;  // per fill level, for docs/reliability.md
        // From nothing free to enough for a few checkpoints: each level stops the run at another write.
        for (const int free_kb : {0, 8, 24, 40, 56, 72, 88, 100, 112, 124, 140, 200}) {
            const QString runs = mnt + "/runs", filler = mnt + "/filler";
            QDir(runs).removeRecursively();
            QFile::remove(filler);
            {  // fill the disk to leave free_kb free (tmpfs counts 4 KB pages)
                QFile f(filler);
                QVERIFY(f.open(QIODevice::WriteOnly));
                const QByteArray block(4096, 'x');
                while (f.write(block) == block.size() && f.flush()) {
                }
            }
            QVERIFY(QDir().mkpath(runs));
            if (free_kb > 0)
                QVERIFY(::truncate(filler.toLocal8Bit().constData(),
                                   QFileInfo(filler).size() - free_kb * 1024) == 0);
            const Result r = run_fone(tiny_args(runs, "v"));
            const QString run = runs + "/v";
            if (r.code == 0) {  // enough space
                QCOMPARE(last_digest(r.out), digest_);
                outcomes << QString("%1 KB: finished").arg(free_kb);
                continue;
            }
            QVERIFY2(r.code == 1 || r.code == 2, r.err.constData());
            QVERIFY2(r.err.count('\n') == 1 && r.err.contains("No space left"), r.err.constData());
            if (!QFile::exists(run + "/" + fone::kConfigFile)) {  // not even the run could be made
                outcomes << QString("%1 KB: refused at start").arg(free_kb);
                continue;
            }
            ++stopped;
            QVERIFY2(temporaries(run).isEmpty(), qPrintable(temporaries(run).join(' ')));
            const Result show = run_fone({"runs", "show", "v", "--runs-dir", runs});
            QVERIFY2(show.code == 0, show.err.constData());
            const QString status = first_line(show.out)["status"].toString();
            QVERIFY2(status == "failed" || status == "interrupted", qPrintable(status));
            QFile::remove(filler);  // space is back
            if (QFile::exists(run + "/" + fone::kLastCheckpoint)) {
                const Result e = run_fone({"eval", "--run", run, "--threads", "1"});
                QVERIFY2(e.code == 0, e.err.constData());  // the checkpoint left is whole
            }
            const bool had_checkpoint = QFile::exists(run + "/" + fone::kLastCheckpoint);
            const Result again = run_fone({"train", "--resume", run, "--threads", "1"});
            QVERIFY2(again.code == 0, again.err.constData());
            QCOMPARE(last_digest(again.out), digest_);
            ++resumed;
            outcomes << QString("%1 KB: stopped (%2, %3), resumed to the digest")
                            .arg(free_kb)
                            .arg(status, had_checkpoint ? "a checkpoint left" : "no checkpoint yet");
        }
        qInfo("%s", qPrintable(outcomes.join("; ")));
        qInfo("full disk: %d fill levels stopped the run cleanly, %d resumed to the uninterrupted digest",
              stopped, resumed);
        QVERIFY(stopped >= 3);
    }
};

QTEST_GUILESS_MAIN(TestSafeRuns)
#include "test_safe_runs.moc"
