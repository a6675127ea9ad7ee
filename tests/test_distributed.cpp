// One run on several processes (issue 32; docs/cluster.md): `fone train --nproc 2` on Gloo, on this machine.
//
// - the ranks' environment: torchrun's and Slurm's variables, Slurm node lists;
// - equivalence: 2 processes x half the batch end on the weights of 1 process x the whole batch (float32
//   tolerance), only rank 0 writes the run;
// - kill -9 of rank 1 mid-run: one line names it, the run resumes on 1 or on 2 processes and ends on exactly
//   the weights digest of the uninterrupted 2-process run;
// - a rank that hangs past --dist-timeout, one that fails (as out of memory): one line naming it;
// - a second job on a run that is training: refused by the run lock.
//   ctest --test-dir build -R '^test_distributed(_failures)?$' --output-on-failure
// (test_distributed_failures, label reliability: the hung, failing and locked cases.)
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmath>

#include <csignal>
#include <cstring>
#include <map>
#include <utility>

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QMap>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include "fone/io/safetensors.h"
#include "fone/train/distributed.h"
#include "fone_process.h"

using namespace fone_test;

namespace {

// 16 steps of a tiny model (256 examples and their swaps, batch 64, 2 epochs), a checkpoint every 2 steps.
QStringList train_args(const QString& runs, const QString& name) {
    return {"train", "--task",      "dec-add", "--train-size",
            "256",   "--val-size",  "0",       "--test-size",
            "64",    "--hidden",    "32",      "--layers",
            "1",     "--heads",     "2",       "--kv-heads",
            "1",     "--head-dim",  "16",      "--intermediate",
            "64",    "--epochs",    "2",       "--batch",
            "64",    "--threads",   "2",       "--seed",
            "5",     "--snapshots", "none",    "--checkpoint-every",
            "2",     "--runs-dir",  runs,      "--name",
            name};
}

// Every float32 tensor of a checkpoint (weights and AdamW's moments), by name.
std::map<std::string, std::vector<float>> float_tensors(const QString& path) {
    const fone::safetensors::File f = fone::safetensors::File::open(path.toStdString());
    std::map<std::string, std::vector<float>> out;
    for (const auto& t : f.tensors()) {
        if (t.dtype != fone::safetensors::Dtype::F32) continue;
        const auto bytes = f.bytes(t);
        std::vector<float> v(bytes.size() / sizeof(float));
        std::memcpy(v.data(), bytes.data(), bytes.size());
        out[t.name] = std::move(v);
    }
    return out;
}

QString digest_of(const QString& run) {
    return read_json(run + "/summary.json")["weights_digest"].toString();
}

QString error_lines(const QByteArray& err) {
    return QString::fromUtf8(err).trimmed();
}

// The lines of stderr that say "error:" (a failure must be one, not one per rank).
int error_line_count(const QByteArray& err) {
    int n = 0;
    for (const QByteArray& line : err.split('\n'))
        n += line.contains("error:");
    return n;
}

// Lines of LibTorch's and Gloo's own logging ("[W ProcessGroupGloo.cpp:...]", glog's "E1128 ...") or their
// source positions ("pair.cc:598").
bool has_library_noise(const QByteArray& err) {
    for (const QByteArray& line : err.split('\n')) {
        if (line.size() > 3 && line[0] == '[' && QByteArray("WEIF").contains(line[1]) && line[2] == ' ')
            return true;
        if (line.contains(".cc:") || line.contains(".cpp:")) return true;
    }
    return false;
}

// The processes whose parent is pid (from /proc/<pid>/task/*/children).
QList<int> children_of(int pid) {
    QList<int> out;
    const QDir tasks(QString("/proc/%1/task").arg(pid));
    for (const QString& t : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile f(tasks.filePath(t) + "/children");
        if (!f.open(QIODevice::ReadOnly)) continue;
        for (const QByteArray& c : f.readAll().split(' '))
            if (!c.trimmed().isEmpty()) out << c.trimmed().toInt();
    }
    return out;
}

// The local addresses ("0100007F:9C40", "00000000000000000000000000000000:1F90") of the processes' TCP
// sockets that listen (0A) or are connected (01): Gloo's pairs listen only while they connect, then stay
// connected, so both are looked at (a test that saw only listeners found none on a loaded machine).
QStringList tcp_addresses(const QList<int>& pids) {
    QSet<QString> inodes;
    for (int pid : pids) {
        const QDir fds(QString("/proc/%1/fd").arg(pid));
        for (const QFileInfo& fd : fds.entryInfoList(QDir::System | QDir::Files | QDir::NoDotAndDotDot)) {
            const QString target =
                fd.symLinkTarget().isEmpty() ? QFile::symLinkTarget(fd.filePath()) : fd.symLinkTarget();
            const QString link = QString::fromLocal8Bit(QFile::encodeName(target));
            const int open = link.indexOf("socket:[");
            if (open >= 0) inodes << link.mid(open + 8).chopped(1);
        }
    }
    QStringList out;
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        QFile f(table);
        if (!f.open(QIODevice::ReadOnly)) continue;
        for (const QByteArray& line : f.readAll().split('\n')) {
            const QList<QByteArray> cols = line.simplified().split(' ');
            if (cols.size() > 9 && (cols[3] == "0A" || cols[3] == "01") && inodes.contains(QString(cols[9])))
                out << QString(cols[1]);
        }
    }
    return out;
}

// A loopback address as /proc/net/tcp{,6} writes it.
bool is_loopback_address(const QString& address) {
    const QString host = address.section(':', 0, 0);
    return host == "0100007F" || host == "00000000000000000000000001000000" ||
           host == "0000000000000000FFFF00000100007F";
}

}  // namespace

// The tests that train on CPUs need Gloo: a build against PyPI's CUDA LibTorch has c10d and NCCL only.
#define SKIP_WITHOUT_CPU_BACKEND()             \
    if (!fone::distributed_available_on_cpu()) \
    QSKIP("this build has no Gloo: data-parallel on CPUs is not in it")

class TestDistributed : public QObject {
    Q_OBJECT

  private:
    QTemporaryDir dir_;
    QString runs() const { return dir_.path() + "/runs"; }

  private Q_SLOTS:
    void initTestCase() {
        if (!fone::distributed_available())
            QSKIP("this build has no distributed training (c10d / Gloo headers)");
    }

    // torchrun's variables, Slurm's, and what is not a rank.
    void environment() {
        auto from = [](std::map<std::string, std::string> vars) {
            return fone::distributed_from_environment([vars](const char* n) -> const char* {
                const auto it = vars.find(n);
                return it == vars.end() ? nullptr : it->second.c_str();
            });
        };
        const auto t = from({{"RANK", "3"},
                             {"WORLD_SIZE", "4"},
                             {"LOCAL_RANK", "1"},
                             {"LOCAL_WORLD_SIZE", "2"},
                             {"MASTER_ADDR", "n1"},
                             {"MASTER_PORT", "1234"}});
        QVERIFY(t);
        QCOMPARE(t->rank, 3);
        QCOMPARE(t->world_size, 4);
        QCOMPARE(t->local_rank, 1);
        QCOMPARE(t->local_world_size, 2);
        QCOMPARE(QString::fromStdString(t->master_addr), QString("n1"));
        QCOMPARE(t->master_port, 1234);
        QCOMPARE(QString::fromStdString(t->launcher), QString("torchrun"));
        const auto s = from({{"SLURM_PROCID", "5"},
                             {"SLURM_NTASKS", "8"},
                             {"SLURM_LOCALID", "1"},
                             {"SLURM_STEP_NUM_TASKS", "8"},
                             {"SLURM_NTASKS_PER_NODE", "4"},
                             {"SLURM_JOB_NODELIST", "gpu[07-08,12],cpu1"},
                             {"SLURM_JOB_ID", "4321"}});
        QVERIFY(s);
        QCOMPARE(s->rank, 5);
        QCOMPARE(s->world_size, 8);
        QCOMPARE(s->local_rank, 1);
        QCOMPARE(s->local_world_size, 4);
        QCOMPARE(QString::fromStdString(s->master_addr), QString("gpu07"));
        QCOMPARE(s->master_port, 29500 + 321);
        QCOMPARE(QString::fromStdString(s->launcher), QString("slurm"));
        QVERIFY(!from({}));
        QVERIFY(!from({{"WORLD_SIZE", "1"}, {"RANK", "0"}}));  // one process: not distributed
        QVERIFY(!from({{"SLURM_NTASKS", "1"}, {"SLURM_PROCID", "0"}}));
        QVERIFY_EXCEPTION_THROWN(from({{"WORLD_SIZE", "2"}, {"RANK", "2"}}), std::invalid_argument);
        QVERIFY_EXCEPTION_THROWN(from({{"WORLD_SIZE", "two"}}), std::invalid_argument);
        QCOMPARE(QString::fromStdString(fone::first_slurm_host("node[07-09,12],gpu1")), QString("node07"));
        QCOMPARE(QString::fromStdString(fone::first_slurm_host("a,b")), QString("a"));
        QCOMPARE(QString::fromStdString(fone::first_slurm_host("solo")), QString("solo"));
        QCOMPARE(QString::fromStdString(fone::first_slurm_host("x[3]")), QString("x3"));
    }

    // 2 processes x half the batch against 1 process x the whole batch: the same weights within float32
    // rounding (the gradient is summed in another order); one writer.
    void two_processes_train_the_weights_of_one() {
        SKIP_WITHOUT_CPU_BACKEND();
        const Result one = run_fone(train_args(runs(), "one"));
        QVERIFY2(one.code == 0, one.err.constData());
        const Result two = run_fone(train_args(runs(), "two") << "--nproc"
                                                              << "2");
        QVERIFY2(two.code == 0, two.err.constData());
        const auto events = json_lines(two.out);
        QCOMPARE(events.first()["event"].toString(), QString("start"));
        QCOMPARE(events.first()["data_parallel"].toObject()["processes"].toInt(), 2);
        QCOMPARE(events.first()["threads"].toInt(), 1);  // --threads 2 shared by 2 ranks
        int ends = 0;
        for (const auto& e : events) {
            ends += e["event"].toString() == "end";
            if (e["event"].toString() == "progress") QCOMPARE(e["ranks"].toArray().size(), 2);
        }
        QCOMPARE(ends, 1);  // rank 1 prints nothing
        QCOMPARE(read_json(runs() + "/two/data-parallel.json")["gradient_shards"].toInt(), 2);
        QCOMPARE(read_json(runs() + "/two/summary.json")["step"].toInt(), 16);
        const auto a = float_tensors(runs() + "/one/checkpoint-last.safetensors");
        const auto b = float_tensors(runs() + "/two/checkpoint-last.safetensors");
        QCOMPARE(a.size(), b.size());
        double worst = 0.0;
        for (const auto& [name, va] : a) {
            const auto& vb = b.at(name);
            QCOMPARE(va.size(), vb.size());
            for (std::size_t i = 0; i < va.size(); ++i)
                worst = std::max(worst, std::abs(double(va[i]) - vb[i]) / (1e-3 + std::abs(double(va[i]))));
        }
        qInfo("largest relative difference of 2 x half the batch against 1 x the batch: %.3g", worst);
        QVERIFY2(worst < 1e-3, qPrintable(QString::number(worst)));
        QVERIFY(digest_of(runs() + "/one") != digest_of(runs() + "/two"));  // not the very same sums
    }

    // kill -9 of rank 1 at step 5: one line names it; a resume on 1 process, and one on 2, end on exactly
    // the uninterrupted 2-process run's weights (2 shares summed are the same sum in one process or two).
    void killed_rank_resumes_on_one_or_two_processes() {
        SKIP_WITHOUT_CPU_BACKEND();
        const QString full = digest_of(runs() + "/two");
        QVERIFY(!full.isEmpty());
        for (const QString nproc : {"1", "2"}) {
            const QString name = "killed-" + nproc;
            const Result killed = run_fone(train_args(runs(), name) << "--nproc"
                                                                    << "2",
                                           {}, 120000, {"FONE_INJECT_RANK_FAULT=1:5:kill"});
            QVERIFY(killed.code != 0);
            const QString err = error_lines(killed.err);
            QVERIFY2(err.contains("rank 1 was killed by signal 9"), qPrintable(err));
            QVERIFY2(err.contains("rank 1 stopped answering"), qPrintable(err));
            QCOMPARE(read_json(runs() + "/" + name + "/status.json")["status"].toString(), QString("failed"));
            // The same threads per process as the ranks had (1): LibTorch's sums depend on the thread count.
            const Result resumed = run_fone(
                {"train", "--resume", name, "--runs-dir", runs(), "--nproc", nproc, "--threads", nproc});
            QVERIFY2(resumed.code == 0, resumed.err.constData());
            QCOMPARE(read_json(runs() + "/" + name + "/summary.json")["step"].toInt(), 16);
            QCOMPARE(digest_of(runs() + "/" + name), full);
        }
    }

    // A rank that hangs past --dist-timeout, and one that fails: one line naming it, the run resumable.
    void hung_or_failing_rank_is_named() {
        if (!qEnvironmentVariableIsSet("FONE_DISTRIBUTED_FAILURES"))
            QSKIP("CTest test_distributed_failures runs it");
        SKIP_WITHOUT_CPU_BACKEND();
        QElapsedTimer clock;
        clock.start();
        const Result hung = run_fone(train_args(runs(), "hung") << "--nproc"
                                                                << "2"
                                                                << "--dist-timeout"
                                                                << "3",
                                     {}, 120000, {"FONE_INJECT_RANK_FAULT=1:3:hang"});
        QVERIFY(hung.code != 0);
        QVERIFY2(error_lines(hung.err).contains("rank 1 stopped answering (it died, or hung past the 3 s"),
                 hung.err.constData());
        QVERIFY2(clock.elapsed() < 60000, "the hung rank was not stopped");
        const Result failing = run_fone(train_args(runs(), "failing") << "--nproc"
                                                                      << "2",
                                        {}, 120000, {"FONE_INJECT_RANK_FAULT=1:3:error"});
        QVERIFY(failing.code != 0);
        QVERIFY2(
            error_lines(failing.err).contains("rank 1 failed: injected failure (as out of memory would be)"),
            failing.err.constData());
        QCOMPARE(read_json(runs() + "/failing/status.json")["status"].toString(), QString("failed"));
    }

    // A second job on a run that is training is refused by the run lock, naming the holder.
    void second_job_is_refused_by_the_lock() {
        if (!qEnvironmentVariableIsSet("FONE_DISTRIBUTED_FAILURES"))
            QSKIP("CTest test_distributed_failures runs it");
        SKIP_WITHOUT_CPU_BACKEND();
        QProcess first;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FONE_INJECT_RANK_FAULT", "1:2:hang");  // holds the run (and its lock) for 10 s
        first.setProcessEnvironment(env);
        first.start(FONE_BIN_DIR "/fone", train_args(runs(), "locked") << "--nproc"
                                                                       << "2"
                                                                       << "--dist-timeout"
                                                                       << "10");
        QVERIFY(first.waitForStarted());
        for (int i = 0; i < 200 && !QFile::exists(runs() + "/locked/checkpoint-last.safetensors"); ++i)
            QThread::msleep(100);
        const Result second = run_fone(
            {"train", "--resume", "locked", "--runs-dir", runs(), "--nproc", "2", "--dist-timeout", "20"});
        QCOMPARE(second.code, 1);
        QVERIFY2(error_lines(second.err).contains("already being trained by process"),
                 second.err.constData());
        first.terminate();  // the launcher forwards SIGTERM to its ranks
        QVERIFY(first.waitForFinished(60000));
    }

    // Issue 44. Two --nproc 2 runs of other settings started together on one --master-port, 10 times: a run
    // that finishes ends on the weights it gets alone (its ranks never meet the other run's); one that
    // cannot host or join the rendezvous fails with one line and leaves no run. (Before: 5 of 13 trials
    // recorded "finished" with weights no single run gives.)
    void two_runs_on_one_port_never_merge() {
        if (!qEnvironmentVariableIsSet("FONE_DISTRIBUTED_RENDEZVOUS"))
            QSKIP("CTest test_distributed_rendezvous runs it");
        SKIP_WITHOUT_CPU_BACKEND();
        const QString ref = dir_.path() + "/ref";
        QMap<QString, QString> alone;  // seed -> digest of the run alone
        for (const QString seed : {"5", "7"}) {
            const Result r = run_fone(train_args(ref, "s" + seed) << "--seed" << seed << "--nproc"
                                                                  << "2");
            QVERIFY2(r.code == 0, r.err.constData());
            alone[seed] = digest_of(ref + "/s" + seed);
        }
        QVERIFY(alone["5"] != alone["7"]);
        int finished = 0;
        for (int trial = 0; trial < 10; ++trial) {
            const QString port =
                QString::number(23000 + (QCoreApplication::applicationPid() + 37 * trial) % 20000);
            const QString runs = dir_.path() + "/trial" + QString::number(trial);
            QProcess a, b;
            for (auto [p, seed] : {std::pair{&a, QString("5")}, std::pair{&b, QString("7")}})
                p->start(FONE_BIN_DIR "/fone", train_args(runs, "s" + seed)
                                                   << "--seed" << seed << "--nproc"
                                                   << "2"
                                                   << "--master-port" << port << "--dist-timeout"
                                                   << "20");
            QVERIFY(a.waitForFinished(120000) && b.waitForFinished(120000));
            for (auto [p, seed] : {std::pair{&a, QString("5")}, std::pair{&b, QString("7")}}) {
                const QByteArray err = p->readAllStandardError();
                const QString run = runs + "/s" + seed;
                if (p->exitCode() == 0) {
                    ++finished;
                    QCOMPARE(digest_of(run), alone[seed]);
                } else {
                    QVERIFY2(error_line_count(err) == 1, err.constData());
                    QVERIFY2(read_json(run + "/status.json")["status"].toString() != "finished",
                             err.constData());
                }
            }
        }
        qInfo(
            "two runs on one port, 10 trials: %d of 20 runs finished (each on its own weights), the others "
            "refused in one line",
            finished);
        QVERIFY(finished >= 10);  // at least the run that hosted the port, every time
    }

    // Without --master-port/--master-addr the ranks of --nproc meet through a file in a private folder:
    // nothing of theirs listens or connects on an address other than loopback (Gloo's pairs bind 127.0.0.1),
    // and the folder is gone after the run. (Before: rank 0's TCPStore listened on 0.0.0.0 and [::].)
    void nproc_listens_on_loopback_only() {
        if (!qEnvironmentVariableIsSet("FONE_DISTRIBUTED_RENDEZVOUS"))
            QSKIP("CTest test_distributed_rendezvous runs it");
        SKIP_WITHOUT_CPU_BACKEND();
        const QString tmp = dir_.path() + "/tmp-listen";
        QDir().mkpath(tmp);
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("TMPDIR", tmp);
        env.insert("FONE_INJECT_RANK_FAULT", "1:4:hang");  // holds the ranks up while they are looked at
        p.setProcessEnvironment(env);
        p.start(FONE_BIN_DIR "/fone", train_args(dir_.path() + "/listen", "l") << "--nproc"
                                                                               << "2"
                                                                               << "--dist-timeout"
                                                                               << "30");
        QVERIFY(p.waitForStarted());
        QStringList addresses;
        for (int i = 0; i < 300 && addresses.size() < 2; ++i) {
            QThread::msleep(100);
            addresses = tcp_addresses(children_of(static_cast<int>(p.processId())));
        }
        QVERIFY2(!addresses.isEmpty(), "the ranks were never seen listening or connected (Gloo's pairs)");
        for (const QString& a : addresses)
            QVERIFY2(is_loopback_address(a), qPrintable(addresses.join(", ")));
        QVERIFY(!QDir(tmp).entryList({"fone-rendezvous-*"}, QDir::Dirs).isEmpty());  // private, while it runs
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(QDir(tmp).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).isEmpty(),
                 qPrintable(QDir(tmp).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).join(", ")));
    }

    // Ctrl-C while rank 1 hangs (before: ignored until --dist-timeout, 300 s by default, and the run ended
    // "failed"): the run stops within the grace (5 s) and the launcher's 5 s, "stopped" at the last step all
    // ranks finished; a second Ctrl-C stops at once. The stopped run resumes to the uninterrupted run's
    // weights: nothing lost.
    void ctrl_c_with_a_hung_rank_stops_and_resumes() {
        if (!qEnvironmentVariableIsSet("FONE_DISTRIBUTED_RENDEZVOUS"))
            QSKIP("CTest test_distributed_rendezvous runs it");
        SKIP_WITHOUT_CPU_BACKEND();
        const QString runs = dir_.path() + "/ctrlc";
        const Result whole = run_fone(train_args(runs, "whole") << "--nproc"
                                                                << "2");
        QVERIFY2(whole.code == 0, whole.err.constData());
        for (const int signals : {1, 2}) {
            const QString name = "hung" + QString::number(signals);
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("FONE_INJECT_RANK_FAULT", "1:5:hang");
            p.setProcessEnvironment(env);
            p.start(FONE_BIN_DIR "/fone", train_args(runs, name) << "--nproc"
                                                                 << "2"
                                                                 << "--dist-timeout"
                                                                 << "120");
            QVERIFY(p.waitForStarted());
            // Step 4's status is written: rank 0 then waits in step 5's all-reduce for rank 1, which hangs
            // there.
            for (int i = 0; i < 600; ++i) {
                QThread::msleep(100);
                if (read_json(runs + "/" + name + "/status.json")["step"].toInt() >= 4) break;
            }
            QThread::msleep(500);
            QElapsedTimer clock;
            clock.start();
            for (int k = 0; k < signals; ++k) {
                ::kill(static_cast<pid_t>(p.processId()), SIGINT);
                QThread::msleep(100);
            }
            QVERIFY(p.waitForFinished(60000));
            const qint64 ms = clock.elapsed();
            qInfo("%d Ctrl-C with rank 1 hung: the launcher ended after %.1f s (--dist-timeout 120)", signals,
                  ms / 1000.0);
            QVERIFY2(ms < (signals == 1 ? 20000 : 12000), qPrintable(QString::number(ms)));
            const QByteArray err = p.readAllStandardError();
            QCOMPARE(p.exitCode(), 0);
            const QJsonObject status = read_json(runs + "/" + name + "/status.json");
            QCOMPARE(status["status"].toString(), QString("stopped"));
            QVERIFY2(status["message"].toString().contains("waiting for a rank"), err.constData());
            QCOMPARE(status["step"].toInt(), 5);  // steps 0..4 taken by both ranks; rank 1 hangs in step 5
            QVERIFY2(!has_library_noise(err), err.constData());
        }
        const Result resumed =
            run_fone({"train", "--resume", "hung1", "--runs-dir", runs, "--nproc", "2", "--threads", "2"});
        QVERIFY2(resumed.code == 0, resumed.err.constData());
        QCOMPARE(read_json(runs + "/hung1/summary.json")["step"].toInt(), 16);
        QCOMPARE(digest_of(runs + "/hung1"), digest_of(runs + "/whole"));
    }

    // The rendezvous has one deadline, --dist-timeout, whatever it waits for: a listener that accepts and
    // never answers (before: 193.6 s for a 15 s timeout), or rank 0 alone (before: about 2.4 times it).
    void meeting_is_bounded_by_the_timeout() {
        if (!qEnvironmentVariableIsSet("FONE_DISTRIBUTED_RENDEZVOUS"))
            QSKIP("CTest test_distributed_rendezvous runs it");
        SKIP_WITHOUT_CPU_BACKEND();
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        QVERIFY(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
        QVERIFY(::listen(fd, 16) == 0);  // the kernel completes connections; nobody ever answers them
        QVERIFY(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
        const QString port = QString::number(ntohs(addr.sin_port));
        for (const QString rank : {"1", "0"}) {
            const QString listen_port = rank == "1" ? port : QString::number(ntohs(addr.sin_port) + 1);
            QElapsedTimer clock;
            clock.start();
            const Result r = run_fone(
                train_args(dir_.path() + "/meet", "m" + rank) << "--dist-timeout"
                                                              << "4",
                {}, 120000,
                {"WORLD_SIZE=2", "RANK=" + rank, "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + listen_port});
            const qint64 ms = clock.elapsed();
            qInfo("rank %s, --dist-timeout 4: failed after %.1f s", qPrintable(rank), ms / 1000.0);
            QVERIFY(r.code != 0);
            QVERIFY2(r.err.contains("could not meet the other 1 rank(s)") && error_line_count(r.err) == 1,
                     r.err.constData());
            QVERIFY2(!has_library_noise(r.err), r.err.constData());  // no glog line ("E1129 ... socket.cpp")
            // The timeout, the deadline's 2 s margin, and a process's start-up on a loaded 2-core machine (up
            // to 14.6 s in all seen). Before: no bound (a build of 7bf7959 waited 400 s, until the listener
            // was closed, with --dist-timeout 4).
            QVERIFY2(ms < 4000 + 2000 + 14000, qPrintable(QString::number(ms)));
        }
        ::close(fd);
    }

    // Issue 44: a data-parallel fone-adapter run crashed every rank at its first evaluation (the
    // arithmetic path of split_evaluation copied from an empty vector), and its resume again. Its other
    // rank prepares the model in a private temporary folder (mkdtemp), removed after: nothing is left in
    // TMPDIR (before: fone-rank-<pid>, made with create_directories through any planted link, never removed).
    void adapter_run_trains_and_resumes_on_two_processes() {
        if (!qEnvironmentVariableIsSet("FONE_DISTRIBUTED_RENDEZVOUS"))
            QSKIP("CTest test_distributed_rendezvous runs it");
        SKIP_WITHOUT_CPU_BACKEND();
        const QString corpus = dir_.path() + "/adapter-corpus.txt";
        {
            QFile f(corpus);
            QVERIFY(f.open(QIODevice::WriteOnly));
            for (int i = 0; i < 48; ++i)
                f.write(QString("In %1, %2 of %3 boxes cost %4 dollars; %5 plus %6 is %7.\n")
                            .arg(1990 + i)
                            .arg(125 * i + 7)
                            .arg(375 + 13 * i)
                            .arg(i * 2.5)
                            .arg(98 + i)
                            .arg(45 + 2 * i)
                            .arg(143 + 3 * i)
                            .toUtf8());
        }
        const QString tmp = dir_.path() + "/tmp-adapter";
        QDir().mkpath(tmp);
        const QString runs = dir_.path() + "/adapter";
        const QStringList args = {"train",
                                  "--init-from",
                                  FONE_SOURCE_DIR "/tests/golden/pretrained/llama",
                                  "--method",
                                  "fone-adapter",
                                  "--task",
                                  "text",
                                  "--data",
                                  corpus,
                                  "--train-size",
                                  "32",
                                  "--val-size",
                                  "8",
                                  "--test-size",
                                  "8",
                                  "--context",
                                  "64",
                                  "--batch",
                                  "4",
                                  "--epochs",
                                  "1",
                                  "--warmup",
                                  "0",
                                  "--snapshots",
                                  "none",
                                  "--checkpoint-every",
                                  "2",
                                  "--runs-dir",
                                  runs,
                                  "--name",
                                  "a",
                                  "--nproc",
                                  "2",
                                  "--threads",
                                  "2"};
        const Result failed =
            run_fone(args, {}, 180000, {"TMPDIR=" + tmp, "FONE_INJECT_RANK_FAULT=1:5:error"});
        QVERIFY2(failed.code != 0 && failed.err.contains("rank 1 failed: injected failure"),
                 failed.err.constData());
        QVERIFY2(error_line_count(failed.err) == 1, failed.err.constData());
        QVERIFY2(QDir(tmp).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).isEmpty(),
                 qPrintable(QDir(tmp).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).join(", ")));
        const Result resumed =
            run_fone({"train", "--resume", "a", "--runs-dir", runs, "--nproc", "2", "--threads", "2"}, {},
                     180000, {"TMPDIR=" + tmp});
        QVERIFY2(resumed.code == 0, resumed.err.constData());
        const QJsonObject summary = read_json(runs + "/a/summary.json");
        QCOMPARE(summary["status"].toString(), QString("finished"));
        QVERIFY(summary["final"].toObject().contains("exact_match"));
    }
};

QTEST_GUILESS_MAIN(TestDistributed)
#include "test_distributed.moc"
