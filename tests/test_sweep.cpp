// `fone sweep` as a user, a script and the workbench's sweep designer drive it: a grid of tiny runs N at a
// time, the sweep file, a second run that starts nothing, resuming after kill -9 and SIGTERM, the cell
// states a resume acts on, the doubling range, --dry-run and bad input.
#include <QtTest>

#include "fone_process.h"
#include "one_block_model.h"

using namespace fone_test;

#include <csignal>
#include <set>

namespace {

// Options that make a run take about a second.
QStringList tiny(int epochs = 2) {
    return QStringList{"--task",
                       "dec-add",
                       "--val-size",
                       "32",
                       "--test-size",
                       "100",
                       "--epochs",
                       QString::number(epochs),
                       "--batch",
                       "64",
                       "--threads",
                       "1",
                       "--no-swap-operands"} +
           fone_test::one_block_model_options();
}

QList<QJsonObject> events(const QByteArray& out) {
    return json_lines(out);
}

QList<QJsonObject> of_kind(const QList<QJsonObject>& ev, const QString& kind) {
    QList<QJsonObject> list;
    for (const auto& e : ev)
        if (e["event"].toString() == kind) list << e;
    return list;
}

QStringList runs_of(const QList<QJsonObject>& ev) {
    QStringList names;
    for (const auto& e : ev)
        names << e["run"].toString();
    return names;
}

bool write_json(const QString& path, const QJsonObject& o) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    return f.write(QJsonDocument(o).toJson()) > 0;
}

QStringList strings(const QJsonArray& a) {
    QStringList s;
    for (const auto& v : a)
        s << v.toString();
    return s;
}

// The run directories in a store whose names start with prefix (sorted).
QStringList run_dirs(const QString& store, const QString& prefix) {
    return QDir(store).entryList({prefix + "*"}, QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
}

// Waits until no run of the prefix is "running" with a live process: a killed sweep's children stop.
bool wait_no_live_runs(const QString& store, const QString& prefix, int timeout_ms = 120000) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeout_ms) {
        bool live = false;
        for (const QString& d : run_dirs(store, prefix)) {
            const QJsonObject st = read_json(store + "/" + d + "/status.json");
            const int pid = st["pid"].toInt();
            if (st["status"].toString() == "running" && pid > 0 && ::kill(pid, 0) == 0) live = true;
        }
        if (!live) return true;
        QThread::msleep(100);
    }
    return false;
}

// Reads a running process's stdout until a line satisfies pred; returns everything read.
QByteArray read_until(QProcess& p, const std::function<bool(const QJsonObject&)>& pred,
                      int timeout_ms = 120000) {
    QByteArray all;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeout_ms) {
        p.waitForReadyRead(100);
        while (p.canReadLine()) {
            const QByteArray line = p.readLine();
            all += line;
            if (pred(QJsonDocument::fromJson(line).object())) return all;
        }
        if (p.state() == QProcess::NotRunning) break;
    }
    return all;
}

}  // namespace

class TestSweep : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir dir_;
    QString store() const { return dir_.path() + "/runs"; }
    QStringList grid_2x2() const {
        return QStringList{"sweep", "--name",        "t",       "--runs-dir", store(), "--parallel",
                           "2",     "--train-sizes", "256,512", "--seeds",    "1,2",   "--"} +
               tiny();
    }

  private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void grid_runs_every_cell_n_at_a_time() {
        const Result r = run_fone(grid_2x2());
        QVERIFY2(r.code == 0, r.err.constData());
        const auto ev = events(r.out);
        QVERIFY(ev.size() > 10);
        QCOMPARE(ev.first()["event"].toString(), QString("sweep_start"));
        QCOMPARE(ev.first()["sweep"].toString(), QString("t"));
        QCOMPARE(ev.first()["cells"].toInt(), 4);
        QCOMPARE(ev.first()["todo"].toInt(), 4);
        QCOMPARE(ev.last()["event"].toString(), QString("sweep_end"));
        QCOMPARE(ev.last()["finished"].toInt(), 4);
        QCOMPARE(ev.last()["failed"].toInt(), 0);
        QCOMPARE(ev.last()["stopped"].toInt(), 0);
        QVERIFY(ev.last().contains("elapsed_seconds"));

        const QStringList expected = {"t-n256-s1", "t-n256-s2", "t-n512-s1", "t-n512-s2"};
        const auto starts = of_kind(ev, "cell_start"), ends = of_kind(ev, "cell_end");
        QCOMPARE(starts.size(), 4);
        QCOMPARE(ends.size(), 4);
        QStringList started = runs_of(starts);
        started.sort();
        QCOMPARE(started, expected);
        for (const auto& s : starts)
            QCOMPARE(expected.indexOf(s["run"].toString()), s["index"].toInt());
        for (const auto& e : ends) {
            QCOMPARE(e["status"].toString(), QString("finished"));
            QVERIFY(e["exact_match"].isDouble());
        }
        // Never more than --parallel children at once, and two at once at some point.
        int active = 0, most = 0;
        for (const auto& e : ev) {
            if (e["event"].toString() == "cell_start") most = std::max(most, ++active);
            if (e["event"].toString() == "cell_end") --active;
        }
        QCOMPARE(most, 2);
        // The children's eval and end events, each with its run; no progress without --verbose.
        for (const QString& run : expected) {
            int evals = 0, run_ends = 0;
            for (const auto& e : ev) {
                if (e["run"].toString() != run) continue;
                if (e["event"].toString() == "eval") ++evals;
                if (e["event"].toString() == "end") {
                    ++run_ends;
                    QCOMPARE(e["status"].toString(), QString("finished"));
                }
            }
            QVERIFY2(evals >= 1, qPrintable(run));
            QCOMPARE(run_ends, 1);
        }
        QVERIFY(of_kind(ev, "progress").isEmpty());
        // One human line per cell on stderr.
        for (const QString& run : expected)
            QVERIFY2(r.err.contains(run.toUtf8() + " finished"), r.err.constData());

        // The sweep file.
        const QJsonObject sw = read_json(store() + "/t.sweep.json");
        QCOMPARE(sw["sweep"].toString(), QString("t"));
        QCOMPARE(sw["format"].toInt(), 1);
        QVERIFY(!sw["created"].toString().isEmpty());
        QCOMPARE(sw["parallel"].toInt(), 2);
        QCOMPARE(strings(sw["shared_args"].toArray()), tiny());
        const QJsonObject grid = sw["grid"].toObject();
        QCOMPARE(grid["train_sizes"].toArray(), QJsonArray({256, 512}));
        QCOMPARE(grid["seeds"].toArray(), QJsonArray({1, 2}));
        QVERIFY(!grid.contains("size_levels"));
        QVERIFY(!grid.contains("methods"));
        const QJsonArray cells = sw["cells"].toArray();
        QCOMPARE(cells.size(), 4);
        QCOMPARE(cells[1].toObject()["run"].toString(), QString("t-n256-s2"));
        const QStringList cell_args =
            tiny() + QStringList({"--train-size", "256", "--seed", "2", "--name", "t-n256-s2"});
        QCOMPARE(strings(cells[1].toObject()["args"].toArray()), cell_args);

        // Each cell a normal run in the store, with its cell's settings.
        for (const QString& run : expected) {
            const QJsonObject config = read_json(store() + "/" + run + "/config.json");
            QCOMPARE(config["train_size"].toInt(), run.contains("n256") ? 256 : 512);
            QCOMPARE(config["seed"].toInt(), run.endsWith("s1") ? 1 : 2);
            QCOMPARE(read_json(store() + "/" + run + "/status.json")["status"].toString(),
                     QString("finished"));
            QVERIFY(QFile::exists(store() + "/.t.logs/" + run + ".stderr"));
        }
        // `fone runs list` sees the four runs: not the sweep file, not the log folder.
        const Result list = run_fone({"runs", "list", "--format", "json", "--runs-dir", store()});
        QCOMPARE(list.code, 0);
        const auto rows = events(list.out);
        QCOMPARE(rows.size(), 4);
        for (const auto& row : rows)
            QCOMPARE(row["status"].toString(), QString("finished"));
    }

    void same_sweep_again_starts_nothing() {
        for (const QStringList& args :
             {grid_2x2(), QStringList{"sweep", "--resume", "t", "--runs-dir", store()},
              QStringList{"sweep", "--name", "t", "--runs-dir", store()}}) {
            const Result r = run_fone(args);
            QVERIFY2(r.code == 0, r.err.constData());
            const auto ev = events(r.out);
            QCOMPARE(ev.first()["event"].toString(), QString("sweep_start"));
            QCOMPARE(ev.first()["todo"].toInt(), 0);
            QVERIFY(of_kind(ev, "cell_start").isEmpty());
            const auto skips = of_kind(ev, "cell_skip");
            QCOMPARE(skips.size(), 4);
            for (const auto& s : skips)
                QCOMPARE(s["status"].toString(), QString("finished"));
            QCOMPARE(ev.last()["event"].toString(), QString("sweep_end"));
            QCOMPARE(ev.last()["finished"].toInt(), 4);
            QCOMPARE(ev.last()["started"].toInt(), 0);
        }
        QCOMPARE(run_dirs(store(), "t-").size(), 4);

        // The same name with another grid is an error, not a second sweep under one name.
        QStringList other = grid_2x2();
        other[other.indexOf("256,512")] = "256";
        const Result r = run_fone(other);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--resume t"), r.err.constData());
        // --resume of a sweep that does not exist.
        QCOMPARE(run_fone({"sweep", "--resume", "nope", "--runs-dir", store()}).code, 1);
    }

    void killed_sweep_resumes_every_cell_exactly_once() {
        const QStringList args =
            QStringList{"sweep", "--name",        "k",         "--runs-dir", store(), "--parallel",
                        "2",     "--train-sizes", "1024,2048", "--seeds",    "1,2",   "--"} +
            tiny(8) + QStringList{"--checkpoint-every", "4"};
        QProcess p;
        p.start(QStringLiteral(FONE_BIN_DIR "/fone"), args);
        QVERIFY(p.waitForStarted());
        // Kill -9 once the third or fourth cell is training (the first two are done or nearly).
        const QByteArray first = read_until(p, [](const QJsonObject& e) {
            return e["event"].toString() == "eval" && e["index"].toInt() >= 2;
        });
        p.kill();
        p.waitForFinished();
        const auto ev1 = events(first);
        QVERIFY2(!of_kind(ev1, "cell_start").isEmpty(), first.constData());
        // The children stop (they get SIGTERM when the sweep dies); none trains on.
        QVERIFY(wait_no_live_runs(store(), "k-"));

        std::set<QString> done_first;
        for (const auto& e : of_kind(ev1, "cell_end"))
            if (e["status"].toString() == "finished") done_first.insert(e["run"].toString());

        const Result r = run_fone({"sweep", "--resume", "k", "--runs-dir", store()});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto ev2 = events(r.out);
        const QStringList all = {"k-n1024-s1", "k-n1024-s2", "k-n2048-s1", "k-n2048-s2"};
        std::set<QString> started_second;
        for (const auto& s : of_kind(ev2, "cell_start")) {
            const QString run = s["run"].toString();
            QVERIFY2(started_second.insert(run).second, qPrintable(run + " started twice"));
            QVERIFY2(!done_first.count(run), qPrintable(run + " finished before, started again"));
        }
        for (const auto& s : of_kind(ev2, "cell_skip")) {
            QCOMPARE(s["status"].toString(), QString("finished"));
            QVERIFY2(!started_second.count(s["run"].toString()), qPrintable(s["run"].toString()));
        }
        QCOMPARE(static_cast<int>(started_second.size() + of_kind(ev2, "cell_skip").size()), 4);
        // The cell killed mid-training (it had checkpointed) continues from its checkpoint.
        QStringList actions;
        for (const auto& s : of_kind(ev2, "cell_start"))
            actions << s["action"].toString();
        QVERIFY2(actions.contains("resume"), qPrintable(actions.join(',')));
        QCOMPARE(ev2.last()["finished"].toInt(), 4);
        // Exactly the four runs (no "-2" duplicates), each finished at its last step.
        QCOMPARE(run_dirs(store(), "k-"), all);
        for (const QString& run : all) {
            const QJsonObject st = read_json(store() + "/" + run + "/status.json");
            QCOMPARE(st["status"].toString(), QString("finished"));
            QCOMPARE(st["step"].toInt(), (run.contains("n1024") ? 16 : 32) * 8);
        }
    }

    void stopped_sweep_exits_130_and_resumes() {
        const QStringList args = QStringList{"sweep",         "--name", "s",       "--runs-dir", store(),
                                             "--train-sizes", "4096",   "--seeds", "1,2",        "--"} +
                                 tiny(20);
        QProcess p;
        p.start(QStringLiteral(FONE_BIN_DIR "/fone"), args);
        QVERIFY(p.waitForStarted());
        QByteArray out = read_until(p, [](const QJsonObject& e) { return e["event"].toString() == "eval"; });
        p.terminate();  // SIGTERM
        QVERIFY(p.waitForFinished(120000));
        out += p.readAllStandardOutput();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 130);
        const auto ev = events(out);
        QCOMPARE(of_kind(ev, "cell_start").size(), 1);  // nothing started after the signal
        const auto ends = of_kind(ev, "cell_end");
        QCOMPARE(ends.size(), 1);
        const QString status = ends.first()["status"].toString();
        QVERIFY2(status == "stopped" || status == "finished", qPrintable(status));
        QCOMPARE(ev.last()["event"].toString(), QString("sweep_end"));
        QVERIFY(ev.last()["interrupted"].toBool());

        const Result r = run_fone({"sweep", "--resume", "s", "--runs-dir", store()});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto ev2 = events(r.out);
        QStringList actions;
        for (const auto& s : of_kind(ev2, "cell_start"))
            actions << s["run"].toString() + ":" + s["action"].toString();
        if (status == "stopped")
            QCOMPARE(actions, QStringList({"s-n4096-s1:resume", "s-n4096-s2:start"}));
        else
            QCOMPARE(actions, QStringList({"s-n4096-s2:start"}));
        QCOMPARE(ev2.last()["finished"].toInt(), 2);
    }

    void resume_acts_on_each_state() {
        const QStringList args =
            QStringList{"sweep", "--name",  "r",       "--runs-dir", store(), "--train-sizes",
                        "256",   "--seeds", "1,2,3,4", "--parallel", "2",     "--"} +
            tiny();
        QCOMPARE(run_fone(args).code, 0);
        const QString s1 = store() + "/r-n256-s1", s2 = store() + "/r-n256-s2", s3 = store() + "/r-n256-s3";
        // s1: never started. s2: killed before its first checkpoint (a dead pid, no checkpoint).
        // s3: failed. s4: finished.
        QVERIFY(QDir(s1).removeRecursively());
        QProcess gone;
        gone.start("true");
        QVERIFY(gone.waitForStarted());
        const int dead_pid = static_cast<int>(gone.processId());
        gone.waitForFinished();
        QVERIFY(QFile::remove(s2 + "/checkpoint-last.safetensors"));
        QVERIFY(QFile::remove(s2 + "/summary.json"));
        QJsonObject st = read_json(s2 + "/status.json");
        st["status"] = "running";
        st["pid"] = dead_pid;
        QVERIFY(write_json(s2 + "/status.json", st));
        st = read_json(s3 + "/status.json");
        st["status"] = "failed";
        st["message"] = "loss is NaN at step 3";
        QVERIFY(write_json(s3 + "/status.json", st));

        const Result plan = run_fone({"sweep", "--resume", "r", "--runs-dir", store(), "--dry-run"});
        QCOMPARE(plan.code, 0);
        QStringList actions;
        for (const auto& c : of_kind(events(plan.out), "cell"))
            actions << c["action"].toString();
        QCOMPARE(actions, QStringList({"start", "restart", "leave", "skip"}));

        // Failed runs are left alone and reported: the sweep is not complete (exit 1).
        Result r = run_fone({"sweep", "--resume", "r", "--runs-dir", store()});
        QVERIFY2(r.code == 1, r.err.constData());
        auto ev = events(r.out);
        actions.clear();
        for (const auto& s : of_kind(ev, "cell_start"))
            actions << s["run"].toString() + ":" + s["action"].toString();
        QCOMPARE(actions, QStringList({"r-n256-s1:start", "r-n256-s2:restart"}));
        const auto skips = of_kind(ev, "cell_skip");
        QCOMPARE(skips.size(), 2);
        QCOMPARE(skips[0]["run"].toString(), QString("r-n256-s3"));
        QCOMPARE(skips[0]["status"].toString(), QString("failed"));
        QCOMPARE(ev.last()["finished"].toInt(), 3);
        QCOMPARE(ev.last()["failed"].toInt(), 1);
        QVERIFY(r.err.contains("--retry-failed"));
        QCOMPARE(read_json(s2 + "/status.json")["status"].toString(), QString("finished"));

        // --retry-failed: the failed run is kept aside and the cell run again (with --verbose, progress too).
        r = run_fone({"sweep", "--resume", "r", "--runs-dir", store(), "--retry-failed", "--verbose"});
        QVERIFY2(r.code == 0, r.err.constData());
        ev = events(r.out);
        const auto starts = of_kind(ev, "cell_start");
        QCOMPARE(starts.size(), 1);
        QCOMPARE(starts[0]["action"].toString(), QString("retry"));
        QVERIFY(!of_kind(ev, "progress").isEmpty());
        QCOMPARE(read_json(store() + "/r-n256-s3.failed-1/status.json")["status"].toString(),
                 QString("failed"));
        QCOMPARE(read_json(s3 + "/status.json")["status"].toString(), QString("finished"));
        QCOMPARE(ev.last()["finished"].toInt(), 4);
    }

    void failing_cells_are_reported_and_the_sweep_goes_on() {
        // Every cell's options are checked before the sweep starts (a bad one is exit 2, see
        // bad_input_is_one_line_and_exit_2): cells that fail while training are made with a NaN loss.
        qputenv("FONE_INJECT_NAN_STEP", "2");  // the children inherit it
        const Result r = run_fone(
            QStringList{"sweep", "--name", "f", "--runs-dir", store(), "--seeds", "1,2", "--"} + tiny());
        qunsetenv("FONE_INJECT_NAN_STEP");
        QCOMPARE(r.code, 1);
        const auto ev = events(r.out);
        QCOMPARE(of_kind(ev, "cell_start").size(), 2);
        const auto ends = of_kind(ev, "cell_end");
        QCOMPARE(ends.size(), 2);
        for (const auto& e : ends) {
            QCOMPARE(e["status"].toString(), QString("failed"));
            QCOMPARE(e["exit_code"].toInt(), 1);
            QVERIFY2(e["message"].toString().contains("NaN"), qPrintable(e["message"].toString()));
        }
        QCOMPARE(ev.last()["failed"].toInt(), 2);
        QVERIFY2(r.err.contains("NaN"), r.err.constData());
        QVERIFY(QFile::exists(store() + "/.f.logs/f-s1.stderr"));
    }

    // Issue 44: a cell's log planted as a link (a received store) was refused, and then the failed cell's
    // report printed the last lines of the link's target.
    void linked_cell_log_is_neither_written_nor_read() {
        const QString secret = dir_.path() + "/secret.txt";
        {
            QFile f(secret);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("line one\nPRIVATE-LINE-7f3c\n");
        }
        QDir().mkpath(store() + "/.lnk.logs");
        QVERIFY(QFile::link(secret, store() + "/.lnk.logs/lnk-s1.stderr"));
        const Result r = run_fone(
            QStringList{"sweep", "--name", "lnk", "--runs-dir", store(), "--seeds", "1", "--"} + tiny());
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("symbolic link"), r.err.constData());
        QVERIFY2(!r.err.contains("PRIVATE-LINE") && !r.out.contains("PRIVATE-LINE"), r.err.constData());
        QFile f(secret);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("line one\nPRIVATE-LINE-7f3c\n"));
    }

    void doubling_range() {
        const auto sizes = [&](const QString& range) {
            const Result r = run_fone(
                {"sweep", "--runs-dir", store(), "--name", "dbl", "--dry-run", "--train-sizes", range});
            QList<int> list;
            for (const auto& c : of_kind(events(r.out), "cell")) {
                const QStringList a = strings(c["args"].toArray());
                list << a[a.indexOf("--train-size") + 1].toInt();
            }
            return list;
        };
        QCOMPARE(sizes("256:2048"), QList<int>({256, 512, 1024, 2048}));
        QCOMPARE(sizes("256:3000"), QList<int>({256, 512, 1024, 2048}));
        QCOMPARE(sizes("800:800"), QList<int>({800}));
        QCOMPARE(sizes("800,1600, 3200"), QList<int>({800, 1600, 3200}));
    }

    void dry_run_counts_and_starts_nothing() {
        const QString fresh = dir_.path() + "/dry";
        Result r = run_fone({"sweep", "--runs-dir", fresh, "--name", "d", "--dry-run", "--train-sizes",
                             "256,512", "--size-levels", "1,2", "--methods", "fone", "--seeds", "1,2,3", "--",
                             "--task", "dec-add"});
        QVERIFY2(r.code == 0, r.err.constData());
        auto ev = events(r.out);
        const auto cells = of_kind(ev, "cell");
        QCOMPARE(cells.size(), 12);
        QCOMPARE(cells[0]["run"].toString(), QString("d-n256-l1-fone-s1"));
        QCOMPARE(strings(cells[0]["args"].toArray()),
                 QStringList({"--task", "dec-add", "--train-size", "256", "--size-level", "1", "--method",
                              "fone", "--seed", "1", "--name", "d-n256-l1-fone-s1"}));
        QCOMPARE(cells[11]["run"].toString(), QString("d-n512-l2-fone-s3"));
        QCOMPARE(ev.last()["event"].toString(), QString("dry_run"));
        QCOMPARE(ev.last()["cells"].toInt(), 12);
        QCOMPARE(ev.last()["todo"].toInt(), 12);
        QVERIFY(!QFileInfo::exists(fresh));  // not even the store

        // Axes not given: no option, no part of the name. The default name is sweep-YYYYMMDD-HHMMSS.
        r = run_fone({"sweep", "--runs-dir", fresh, "--dry-run", "--seeds", "7,8"});
        QVERIFY2(r.code == 0, r.err.constData());
        ev = events(r.out);
        const QString name = ev.last()["sweep"].toString();
        QVERIFY2(QRegularExpression("^sweep-\\d{8}-\\d{6}$").match(name).hasMatch(), qPrintable(name));
        QCOMPARE(of_kind(ev, "cell")[1]["run"].toString(), name + "-s8");
        QCOMPARE(strings(of_kind(ev, "cell")[1]["args"].toArray()),
                 QStringList({"--seed", "8", "--name", name + "-s8"}));
        QVERIFY(!QFileInfo::exists(fresh));
    }

    void bad_input_is_one_line_and_exit_2() {
        QStringList big_seeds, big_sizes;
        for (int i = 1; i <= 101; ++i)
            big_seeds << QString::number(i);
        for (int i = 1; i <= 100; ++i)
            big_sizes << QString::number(i);
        const QList<QStringList> cases = {
            {"--seeds", ""},
            {"--seeds", "1,,2"},
            {"--seeds", "1,x"},
            {"--train-sizes", "12k"},
            {"--train-sizes", "512:256"},
            {"--train-sizes", "0:256"},
            {"--train-sizes", "0,256"},
            {"--seeds", "1,2,1"},
            {"--train-sizes", "800:1600:3200"},
            {"--methods", "fone,fone"},
            {"--methods", "nope"},
            {"--size-levels", "7"},
            {"--parallel", "two", "--seeds", "1"},
            {},  // no axis
            {"--seeds", big_seeds.join(','), "--train-sizes", big_sizes.join(',')},
            {"--seeds", "1,2", "--", "--seed", "3"},
            {"--seeds", "1", "--", "--name", "x"},
            {"--seeds", "1", "--", "--runs-dir=/tmp"},
            {"--seeds", "1", "--", "train", "--task", "dec-add"},
            {"--seeds", "1,2", "--", "--device", "warp-drive"},  // checked before anything is written
            {"--seeds", "1", "--", "--lr", "fast"},
            {"--seeds", "1", "--", "--no-such-option"},
            {"--train-sizes", "100,200", "--", "--batch", "0"},
            {"--seeds", "1", "--slurm-cpus", "4"},  // --slurm-* needs --slurm
        };
        const QString fresh = dir_.path() + "/bad";
        for (const QStringList& c : cases) {
            const Result r = run_fone(QStringList{"sweep", "--runs-dir", fresh, "--name", "b"} + c);
            QVERIFY2(r.code == 2, qPrintable(c.join(' ') + " -> " + QString::number(r.code)));
            QVERIFY2(r.err.startsWith("fone sweep: error: "), r.err.constData());
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY(r.out.isEmpty());
        }
        // --resume with a grid, and --resume with --name.
        QCOMPARE(run_fone({"sweep", "--runs-dir", store(), "--resume", "t", "--seeds", "1"}).code, 2);
        QVERIFY(run_fone({"sweep", "--runs-dir", store(), "--resume", "t", "--name", "t"}).code != 0);
        QVERIFY(!QFileInfo::exists(fresh));
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "test_sweep.moc"
