// The training engine through `fone`, as a user and the workbench drive it: train -> eval -> predict,
// and runs that survive anything: SIGTERM, kill -9 (resume ends on the same weights as an uninterrupted
// run), a NaN loss, corrupt files.
#include <QtTest>

#include <csignal>

#include "fone_process.h"

using namespace fone_test;

namespace {

// A tiny model and task: seconds, not minutes. Options after `extra` override these.
QStringList tiny(const QString& runs, const QString& name, const QStringList& extra = {}) {
    return QStringList{"train", "--task",         "dec-add", "--train-size",       "1024", "--val-size",
                       "64",    "--test-size",    "200",     "--hidden",           "32",   "--layers",
                       "1",     "--heads",        "2",       "--kv-heads",         "1",    "--head-dim",
                       "16",    "--intermediate", "64",      "--epochs",           "4",    "--batch",
                       "64",    "--threads",      "1",       "--checkpoint-every", "4",    "--runs-dir",
                       runs,    "--name",         name} +
           extra;
}

QList<QJsonObject> events(const QByteArray& out) {
    return json_lines(out);
}

// Starts `fone train` and waits until its first checkpoint exists; returns the running process.
std::unique_ptr<QProcess> start_until_checkpoint(const QStringList& args, const QString& run_dir) {
    auto p = std::make_unique<QProcess>();
    p->start(QStringLiteral(FONE_BIN_DIR "/fone"), args);
    p->waitForStarted();
    QElapsedTimer t;
    t.start();
    while (!QFile::exists(run_dir + "/checkpoint-last.safetensors") && t.elapsed() < 60000)
        QThread::msleep(20);
    return p;
}

}  // namespace

class TestEngine : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir dir_;
    QString runs() const { return dir_.path() + "/runs"; }
    QString reference_digest_;

  private Q_SLOTS:
    void train_eval_predict_end_to_end() {
        const auto r = run_fone(tiny(runs(), "ref"));
        QVERIFY2(r.code == 0, r.err.constData());
        const auto ev = events(r.out);
        QVERIFY(ev.size() >= 3);
        QCOMPARE(ev.first()["event"].toString(), QString("start"));
        QCOMPARE(ev.last()["event"].toString(), QString("end"));
        QCOMPARE(ev.last()["status"].toString(), QString("finished"));
        int evals = 0;
        for (const auto& e : ev)
            if (e["event"].toString() == "eval") {
                ++evals;
                for (const char* key : {"exact_match", "digit_accuracy", "r2", "rmse", "epoch_seconds",
                                        "eval_seconds", "tokens_per_number", "examples_per_second", "n"})
                    QVERIFY2(e.contains(key), key);
                QCOMPARE(e["tokens_per_number"].toDouble(), 1.0);
            }
        QCOMPARE(evals, 4);  // one per epoch
        reference_digest_ = ev.last()["weights_digest"].toString();
        QVERIFY(!reference_digest_.isEmpty());

        const QString run_dir = runs() + "/ref";
        for (const char* f : {"config.json", "status.json", "metrics.jsonl", "summary.json",
                              "checkpoint-last.safetensors", "checkpoint-best.safetensors"})
            QVERIFY2(QFile::exists(run_dir + "/" + f), f);
        QCOMPARE(read_json(run_dir + "/status.json")["status"].toString(), QString("finished"));
        QCOMPARE(read_json(run_dir + "/config.json")["seed"].toInt(), 42);
        QVERIFY(read_json(run_dir + "/config.json").contains("versions"));

        const auto e = run_fone({"eval", "--run", "ref", "--runs-dir", runs()});
        QVERIFY2(e.code == 0, e.err.constData());
        const auto m = events(e.out).first();
        QCOMPARE(m["n"].toInt(), 200);
        for (const char* key : {"exact_match", "digit_accuracy", "r2", "rmse"})
            QVERIFY2(m.contains(key), key);

        const auto p = run_fone({"predict", "--run", run_dir, "123.456+654.321="});
        QVERIFY2(p.code == 0, p.err.constData());
        const auto pr = events(p.out).first();
        QVERIFY(pr.contains("value"));
        QCOMPARE(pr["digits"].toArray().size(), 7);  // dec-add: 4 integer + 3 fractional slots
        QCOMPARE(pr["digits"].toArray()[0].toObject()["probabilities"].toArray().size(), 10);
        QCOMPARE(pr["next_token"].toString(), QString("[NUM]"));
    }

    void same_seed_same_weights() {
        const auto r = run_fone(tiny(runs(), "again"));
        QCOMPARE(r.code, 0);
        QCOMPARE(events(r.out).last()["weights_digest"].toString(), reference_digest_);
    }

    void rerun_from_a_runs_config() {
        // A run's own config.json is a valid --config: same settings, a new run ("ref-2"), same weights.
        const auto r = run_fone({"train", "--config", runs() + "/ref/config.json", "--runs-dir", runs()});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(events(r.out).last()["run"].toString(), QString("ref-2"));
        QCOMPARE(events(r.out).last()["weights_digest"].toString(), reference_digest_);
    }

    void eval_on_a_data_file() {
        const QString file = dir_.path() + "/data.txt";
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("1.5+2.25=3.75\n# a comment\n10+20=30\n");
        f.close();
        const auto e = run_fone({"eval", "--run", "ref", "--runs-dir", runs(), "--data", file});
        QVERIFY2(e.code == 0, e.err.constData());
        QCOMPARE(events(e.out).first()["n"].toInt(), 2);
        QFile bad(dir_.path() + "/bad.txt");
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("1+2=3\n1+=3\n");
        bad.close();
        const auto b = run_fone({"eval", "--run", "ref", "--runs-dir", runs(), "--data", bad.fileName()});
        QCOMPARE(b.code, 1);
        QVERIFY2(b.err.contains(":2:"), b.err.constData());
    }

    void sigterm_checkpoints_and_resume_matches() {
        const QString run_dir = runs() + "/term";
        auto p = start_until_checkpoint(tiny(runs(), "term", {"--epochs", "40"}), run_dir);
        ::kill(static_cast<pid_t>(p->processId()), SIGTERM);
        QVERIFY(p->waitForFinished(60000));
        QVERIFY2(p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0,
                 p->readAllStandardError().constData());
        const auto ev = events(p->readAllStandardOutput());
        QCOMPARE(ev.last()["status"].toString(), QString("stopped"));
        QCOMPARE(read_json(run_dir + "/status.json")["status"].toString(), QString("stopped"));

        const auto full = run_fone(tiny(runs(), "term-ref", {"--epochs", "40"}));
        const auto resumed = run_fone({"train", "--resume", "term", "--runs-dir", runs()});
        QVERIFY2(resumed.code == 0, resumed.err.constData());
        QCOMPARE(events(resumed.out).last()["status"].toString(), QString("finished"));
        QCOMPARE(events(resumed.out).last()["weights_digest"].toString(),
                 events(full.out).last()["weights_digest"].toString());
    }

    void kill9_shows_interrupted_and_resume_matches() {
        const QString run_dir = runs() + "/killed";
        auto p = start_until_checkpoint(tiny(runs(), "killed", {"--epochs", "40"}), run_dir);
        QThread::msleep(150);
        p->kill();  // SIGKILL
        QVERIFY(p->waitForFinished(10000));
        const auto list = run_fone({"runs", "--runs-dir", runs(), "list", "--format", "json"});
        QVERIFY2(list.out.contains("interrupted"), list.out.constData());
        const auto resumed = run_fone({"train", "--resume", run_dir, "--threads", "1"});
        QVERIFY2(resumed.code == 0, resumed.err.constData());
        const auto full = read_json(runs() + "/term-ref/summary.json");
        QCOMPARE(events(resumed.out).last()["weights_digest"].toString(), full["weights_digest"].toString());
        // Every metrics line is intact JSON.
        QFile m(run_dir + "/metrics.jsonl");
        QVERIFY(m.open(QIODevice::ReadOnly));
        for (const QByteArray& line : m.readAll().split('\n'))
            if (!line.isEmpty()) QVERIFY(!QJsonDocument::fromJson(line).isNull());
    }

    // A token scheme with training noise (random Abacus offsets, drawn from a generator seeded by seed and
    // step) resumes bit-exactly too; eval scores it by free generation and lists mispredictions.
    void abacus_resume_matches_and_eval_generates() {
        const QStringList abacus = {"--method", "abacus", "--task", "int-add", "--epochs", "12"};
        const QString run_dir = runs() + "/abacus";
        auto p = start_until_checkpoint(tiny(runs(), "abacus", abacus), run_dir);
        ::kill(static_cast<pid_t>(p->processId()), SIGTERM);
        QVERIFY(p->waitForFinished(60000));
        const auto full = run_fone(tiny(runs(), "abacus-ref", abacus));
        QVERIFY2(full.code == 0, full.err.constData());
        const auto resumed = run_fone({"train", "--resume", "abacus", "--runs-dir", runs()});
        QVERIFY2(resumed.code == 0, resumed.err.constData());
        QCOMPARE(events(resumed.out).last()["weights_digest"].toString(),
                 events(full.out).last()["weights_digest"].toString());

        const auto e =
            run_fone({"eval", "--run", "abacus-ref", "--runs-dir", runs(), "--mispredictions", "3"});
        QVERIFY2(e.code == 0, e.err.constData());
        const QJsonObject m = first_line(e.out);
        QCOMPARE(m["method"].toString(), QString("abacus"));
        QCOMPARE(m["tokens_per_number"].toInt(), 6);  // six digits, one token each
        QVERIFY(m["epoch_seconds"].toDouble() > 0);   // the run's recorded training time per epoch
        QVERIFY(m["eval_seconds"].toDouble() > 0);
        const int wrong = qRound((1.0 - m["exact_match"].toDouble()) * m["n"].toInt());
        QCOMPARE(m["mispredictions"].toArray().size(), std::min(3, wrong));
        const auto pr = run_fone({"predict", "--run", "abacus-ref", "--runs-dir", runs(), "12+34="});
        QVERIFY2(pr.code == 0, pr.err.constData());
        const QJsonObject a = first_line(pr.out);
        QCOMPARE(a["tokens"].toArray().size(), 7);  // [BOS] 2 1 + 4 3 =, least significant digit first
        QCOMPARE(a["tokens"].toArray()[1].toString(), QString("2"));
        QVERIFY(a["generated"].toArray().size() >= 1);
    }

    // The peers of issue 19 train, evaluate and answer through the same engine: NumeroLogic on right-to-left
    // subword chunks (generation) on compare, BitTokens (its bit head) on div.
    void peers_train_evaluate_and_answer() {
        const auto n = run_fone(tiny(runs(), "numerologic",
                                     {"--method", "numerologic", "--numerologic-tokens", "subword",
                                      "--subword-direction", "r2l", "--task", "compare", "--epochs", "1"}));
        QVERIFY2(n.code == 0, n.err.constData());
        auto e = run_fone({"eval", "--run", "numerologic", "--runs-dir", runs()});
        QVERIFY2(e.code == 0, e.err.constData());
        // 999.999 -> { 3 . 3 : 999 . 999 }: 9 tokens.
        QCOMPARE(first_line(e.out)["tokens_per_number"].toInt(), 9);
        auto pr = run_fone({"predict", "--run", "numerologic", "--runs-dir", runs(), "123.5 max 7="});
        QVERIFY2(pr.code == 0, pr.err.constData());
        QStringList words;
        for (const auto& t : first_line(pr.out)["tokens"].toArray())
            words << t.toString();
        QCOMPARE(words.join(' '), QString("[BOS] { 3 . 1 : 123 . 5 } max { 1 : 7 } ="));

        const auto b = run_fone(tiny(runs(), "bittokens",
                                     {"--method", "bittokens", "--hidden", "128", "--head-dim", "64",
                                      "--task", "div", "--epochs", "1"}));
        QVERIFY2(b.code == 0, b.err.constData());
        e = run_fone({"eval", "--run", "bittokens", "--runs-dir", runs()});
        QVERIFY2(e.code == 0, e.err.constData());
        const QJsonObject m = first_line(e.out);
        QCOMPARE(m["tokens_per_number"].toInt(), 1);
        QVERIFY(m["log_smape"].toDouble() >= 0 && m["log_smape"].toDouble() <= 1);
        pr = run_fone({"predict", "--run", "bittokens", "--runs-dir", runs(), "12.5/5="});
        QVERIFY2(pr.code == 0, pr.err.constData());
        QCOMPARE(first_line(pr.out)["bits"].toString().size(), 64);
    }

    // The analyses read a trained run (engine: number_representations): at layer 0 (the input, the [NUM]
    // embedding plus FoNE) the spectrum over 0..99 has the encoder's spikes at periods 10 and 100.
    void analyse_spectrum_of_a_run() {
        const QString out = dir_.path() + "/spectrum";
        const auto r = run_fone({"analyse", "spectrum", "--source", "run", "--run", "ref", "--runs-dir",
                                 runs(), "--numbers", "100", "--layer", "0", "--out", out});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject j = first_line(r.out);
        QVERIFY(j["source"].toString().contains("input"));
        QList<int> top;
        for (const auto& spike : j["top_spikes"].toArray())
            top << spike.toObject()["k"].toInt();
        QVERIFY2(top.mid(0, 2).contains(10) && top.mid(0, 2).contains(1), r.out.constData());  // T = 10, 100
        QVERIFY(QFile::exists(out + "/spectrum.csv"));
        const auto bad = run_fone({"analyse", "spectrum", "--source", "run", "--run", "ref", "--runs-dir",
                                   runs(), "--numbers", "100", "--layer", "9", "--out", out});
        QCOMPARE(bad.code, 1);
        QVERIFY(bad.err.contains("--layer 9"));
    }

    void nan_loss_fails_with_step() {
        qputenv("FONE_INJECT_NAN_STEP", "3");
        const auto r = run_fone(tiny(runs(), "nan"));
        qunsetenv("FONE_INJECT_NAN_STEP");
        QCOMPARE(r.code, 1);
        const auto end = events(r.out).last();
        QCOMPARE(end["status"].toString(), QString("failed"));
        QVERIFY(end["message"].toString().contains("NaN at step 3"));
        QCOMPARE(read_json(runs() + "/nan/status.json")["status"].toString(), QString("failed"));
    }

    void corrupt_checkpoint_is_a_clear_error() {
        QVERIFY(QFile::copy(runs() + "/ref/checkpoint-last.safetensors", dir_.path() + "/saved.safetensors"));
        QFile f(runs() + "/ref/checkpoint-best.safetensors");
        QVERIFY(f.resize(f.size() / 2));
        const auto e = run_fone({"eval", "--run", "ref", "--runs-dir", runs()});
        QCOMPARE(e.code, 1);
        QVERIFY2(e.err.contains("checkpoint-best.safetensors: corrupt or truncated checkpoint"),
                 e.err.constData());
        QFile g(runs() + "/killed/checkpoint-last.safetensors");
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write("garbage");
        g.close();
        const auto r = run_fone({"train", "--resume", "killed", "--runs-dir", runs()});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("corrupt or truncated"), r.err.constData());
    }

    void bad_options_are_clear_errors() {
        auto r = run_fone({"train", "--task", "nope", "--runs-dir", runs()});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("dec-add"), r.err.constData());
        r = run_fone({"train", "--lr", "-1", "--epochs", "0", "--runs-dir", runs()});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("lr") && r.err.contains("epochs"));
        r = run_fone({"train", "--device", "cuda", "--runs-dir", runs(), "--name", "cuda"});
        if (!r.out.contains("\"device\":\"cuda")) {
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("cuda"), r.err.constData());
            QVERIFY(!QDir(runs() + "/cuda").exists());  // nothing made for a run that cannot start
        }
        r = run_fone({"train", "--heads", "3", "--kv-heads", "2", "--runs-dir", runs()});
        QCOMPARE(r.code, 2);
        r = run_fone({"predict", "--run", "again", "--runs-dir", runs(), "what is 2+2?"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("'what'"), r.err.constData());
        r = run_fone({"train", "--resume", "ref", "--epochs", "9", "--runs-dir", runs()});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("epochs"), r.err.constData());
        r = run_fone({"eval", "--run", "nope", "--runs-dir", runs()});
        QCOMPARE(r.code, 1);
    }
};

QTEST_GUILESS_MAIN(TestEngine)
#include "test_engine.moc"
