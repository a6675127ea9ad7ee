// Reliability: a training worker that crashes, hangs, prints garbage on its progress stream, or says
// "finished" and then fails. The workbench shows each as failed, with the reason, and goes on: the job
// queued behind them trains to the end. The workers are a fake `fone` (the window runs whatever its CLI
// path names, as $FONE_CLI does) that misbehaves by run name and hands every other run to the real one.
//   ctest --test-dir build -R test_worker_failures --output-on-failure
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QtTest>

#include "fone/build_info.h"
#include "job_runner.h"
#include "launch_panel.h"
#include "run_catalog.h"
#include "workbench_window.h"

using namespace fone::gui;

namespace {

const char* kFakeCli = R"(#!/bin/sh
case "$1" in --version) exec "@REAL@" --version ;; esac
name=""; prev=""
for a in "$@"; do [ "$prev" = "--name" ] && name="$a"; prev="$a"; done
case "$name" in
  crash)
    echo '{"event":"progress","step":1,"total_steps":10,"loss":2.5}'
    echo 'Segmentation fault coming' >&2
    kill -SEGV $$ ;;
  hang)
    echo '{"event":"progress","step":1,"total_steps":10,"loss":2.5}'
    trap '' TERM
    while :; do sleep 1; done ;;
  garbage)
    printf '\000\377\376 not json\n'
    echo '{"event":5}'
    echo '[1,2,3]'
    echo '{"event":"progress","step":"seven","loss":null,"total_steps":{"a":1}}'
    echo '{"event":"eval","split":7,"exact_match":"high","digit_accuracy":[1]}'
    echo '{"event":"start","dir":42,"params":"many"}'
    echo '{"event":"end","status":7,"message":[1]}'
    head -c 65536 /dev/urandom
    printf '\n'
    head -c 2097152 /dev/zero | tr '\000' 'x'
    printf '\n{"event":"progress",\n'
    exit 0 ;;
  liar)
    echo '{"event":"end","status":"finished","message":"all good"}'
    exit 1 ;;
  *) exec "@REAL@" "$@" ;;
esac
)";

}  // namespace

class TestWorkerFailures : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() { QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first"); }

    void bad_workers_fail_and_the_queue_goes_on() {
        QTemporaryDir dir;
        const QString cli = dir.path() + "/fake-fone";
        QFile f(cli);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(kFakeCli).replace("@REAL@", FONE_BIN_DIR "/fone"));
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);

        WorkbenchOptions o;
        o.runs_dir = dir.path() + "/runs";
        o.cli = cli;
        o.use_settings = false;
        WorkbenchWindow w(o);
        w.show();
        w.jobs()->set_max_parallel(1);
        w.jobs()->set_stall_timeout_ms(2000);  // "hang" prints one line, then nothing
        w.jobs()->set_grace_ms(1000);          // and ignores SIGTERM: SIGKILL after this

        // Each job's end, timed: when this test fails on a loaded machine, its log says which job was slow.
        QElapsedTimer clock;
        clock.start();
        QObject::connect(w.jobs(), &JobRunner::jobStarted, &w,
                         [&](int id) { qInfo("job %d started at %.1f s", id, clock.elapsed() / 1000.0); });
        QObject::connect(w.jobs(), &JobRunner::jobFinished, &w,
                         [&](int id, const QString& status, const QString&) {
                             qInfo("job %d %s at %.1f s", id, qPrintable(status), clock.elapsed() / 1000.0);
                         });

        LaunchPanel* panel = w.launch_panel();
        panel->field("train_size")->setText("400");
        panel->field("test_size")->setText("50");
        panel->field("epochs")->setText("1");
        panel->field("threads")->setText("1");
        const QStringList names{"crash", "hang", "garbage", "liar", "good"};
        QMap<QString, int> job_of;
        QSignalSpy queued(w.jobs(), &JobRunner::jobQueued);
        for (const QString& name : names) {
            panel->field("name")->setText(name);
            QVERIFY2(panel->is_valid(), qPrintable(name));
            panel->launch();
            QCOMPARE(queued.size(), job_of.size() + 1);
            // The catalog's row for the job (rows never move; a finished job keeps its row).
            job_of[name] = w.catalog()->row_of_job(queued.last().at(0).toInt());
            QVERIFY(job_of[name] >= 0);
        }
        const auto status = [&](const QString& name) { return w.catalog()->at(job_of[name]).status; };
        const auto message = [&](const QString& name) { return w.catalog()->at(job_of[name]).message; };
        // The short stall timeout is for "hang" alone: on a loaded machine the real `fone train` of "good"
        // can be silent for seconds while LibTorch loads, and must not be taken for a hung worker.
        // Waits on the wall clock (QTRY's loop counts its steps, and waits up to three times its timeout
        // when it fails: 120 s became the 300 s watchdog's abort, without a word on which job was slow).
        const auto within = [](int ms, const auto& done) {
            QElapsedTimer waited;
            waited.start();
            while (!done() && waited.elapsed() < ms)
                QTest::qWait(50);
            return done();
        };
        const auto states = [&] {
            QString all;
            for (const QString& name : names)
                all += QStringLiteral("%1: %2 (%3)\n").arg(name, status(name), message(name).left(200));
            return all;
        };
        QVERIFY2(within(60000, [&] { return status("hang") == "failed"; }), qPrintable(states()));
        w.jobs()->set_stall_timeout_ms(15 * 60 * 1000);
        QVERIFY2(within(120000, [&] { return status("good") == "finished"; }), qPrintable(states()));

        QCOMPARE(status("crash"), QString("failed"));
        QVERIFY2(message("crash").contains("crashed"), qPrintable(message("crash")));
        QVERIFY2(message("crash").contains("Segmentation fault coming"), qPrintable(message("crash")));
        QCOMPARE(status("hang"), QString("failed"));
        QVERIFY2(message("hang").contains("hung"), qPrintable(message("hang")));
        QCOMPARE(status("garbage"), QString("failed"));
        QVERIFY2(message("garbage").contains("exited with status 0"), qPrintable(message("garbage")));
        QVERIFY2(message("garbage").contains("over 1 MiB"), qPrintable(message("garbage")));
        QCOMPARE(status("liar"), QString("failed"));
        QVERIFY2(message("liar").contains("said finished"), qPrintable(message("liar")));
        QVERIFY(w.isEnabled());
        // The store says "finished" as soon as the run's status.json does; the child exits a moment later.
        QTRY_COMPARE_WITH_TIMEOUT(w.jobs()->running_count(), 0, 30000);
        QVERIFY2(w.status_text().contains("4 launches failed"), qPrintable(w.status_text()));

        // Help > About names the versions: the workbench's, the CLI's LibTorch (CPU or CUDA), Qt's.
        QTRY_VERIFY_WITH_TIMEOUT(w.cuda_checked(), 30000);
        const QString about = w.about_text();
        QVERIFY2(about.contains(FONE_VERSION), qPrintable(about));
        QVERIFY2(about.contains("LibTorch") && (about.contains("CPU only") || about.contains("CUDA")),
                 qPrintable(about));
        QVERIFY2(about.contains(QString("Qt</td><td>") + qVersion()), qPrintable(about));
    }
};

QTEST_MAIN(TestWorkerFailures)
#include "test_worker_failures.moc"
