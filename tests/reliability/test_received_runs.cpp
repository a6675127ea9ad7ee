// What you publish and what you receive (issue 44), through the built `fone` as a user runs it:
//
// - a received run folder whose files are links (tokenizer.model -> a private key, pretrained -> ~/.ssh,
//   summary.json -> anything) exports nothing outside it: refused in one line, nothing written;
// - `export --out` a dangling link or "" leaves no temporary folder and no raw filesystem error;
// - bad input found in a corpus (more characters than --vocab-size, a corpus larger than memory allows) is
//   refused before the run folder exists;
// - options that were taken wrongly: --seed -1 (2^64 - 1), an empty prompt, a NaN temperature, a task
//   named twice, --nproc 1024;
// - an error line stays one short line whatever it quotes.
//   ctest --test-dir build -R '^test_received_runs$' --output-on-failure
#include <unistd.h>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "fone_process.h"

using namespace fone_test;

namespace {

const QByteArray kSecret = "PRIVATE-KEY-MATERIAL-3f9a";

void spit(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly), qPrintable(path));
    f.write(bytes);
}

// Whether any file below dir holds the bytes.
bool folder_holds(const QString& dir, const QByteArray& bytes) {
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (f.open(QIODevice::ReadOnly) && f.readAll().contains(bytes)) return true;
    }
    return false;
}

// Entries of dir whose name contains ".tmp-": what an interrupted or failed export would leave.
QStringList temporaries(const QString& dir) {
    return QDir(dir).entryList({"*.tmp-*"}, QDir::AllEntries | QDir::Hidden | QDir::System);
}

// fone run in `dir` as the working folder.
Result run_in(const QString& dir, const QStringList& args, const QStringList& env = {}) {
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const QString& kv : env)
        e.insert(kv.section('=', 0, 0), kv.section('=', 1));
    p.setProcessEnvironment(e);
    p.setWorkingDirectory(dir);
    p.start(QStringLiteral(FONE_BIN_DIR "/fone"), args);
    p.waitForFinished(300000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

bool one_short_line(const QByteArray& err) {
    return err.count('\n') == 1 && err.endsWith('\n') && err.size() < 1000;
}

// A tiny arithmetic run (a second of training).
QStringList tiny_run(const QString& runs, const QString& name) {
    return {"train", "--task",    "dec-add", "--train-size", "64",   "--test-size",    "16", "--val-size",
            "0",     "--epochs",  "1",       "--batch",      "32",   "--hidden",       "16", "--layers",
            "1",     "--heads",   "2",       "--kv-heads",   "1",    "--intermediate", "32", "--head-dim",
            "8",     "--threads", "1",       "--snapshots",  "none", "--runs-dir",     runs, "--name",
            name};
}

}  // namespace

class TestReceivedRuns : public QObject {
    Q_OBJECT

  private:
    QTemporaryDir dir_;

  private Q_SLOTS:
    // A run folder from someone else, whose files are links to the receiver's secrets: `fone export`
    // copied their targets into the folder it made (exit 0), which the receiver then publishes.
    void export_copies_no_link() {
        const QString runs = dir_.path() + "/runs";
        const Result trained = run_fone(tiny_run(runs, "r"));
        QVERIFY2(trained.code == 0, trained.err.constData());
        const QString secrets = dir_.path() + "/home";
        QDir().mkpath(secrets + "/.ssh");
        spit(secrets + "/.ssh/id_rsa", kSecret);
        spit(secrets + "/key.txt", kSecret);
        const QString received = runs + "/r";
        struct Plant {
            QString name, target, says;
        };
        const QList<Plant> plants = {
            {"tokenizer.model", secrets + "/key.txt", "tokenizer.model: is a symbolic link"},
            {"summary.json", secrets + "/key.txt", "summary.json: is a symbolic link"},
            {"pretrained", secrets + "/.ssh", "pretrained: not a folder (a symbolic link)"},
        };
        QFile::rename(received + "/summary.json", dir_.path() + "/summary.json.kept");
        for (const Plant& p : plants) {
            QVERIFY(QFile::link(p.target, received + "/" + p.name));
            const QString out = dir_.path() + "/published-" + p.name;
            for (const char* format : {"run", "hf"}) {
                const Result e = run_fone({"export", "--run", received, "--out", out, "--format", format});
                QVERIFY(e.code != 0);
                if (QByteArray(format) == "run")
                    QVERIFY2(e.err.contains(p.says.toUtf8()) && one_short_line(e.err), e.err.constData());
                QVERIFY(!QFileInfo::exists(out));
                QVERIFY2(temporaries(dir_.path()).isEmpty(), qPrintable(temporaries(dir_.path()).join(", ")));
            }
            QVERIFY(QFile::remove(received + "/" + p.name));
        }
        // A pretrained/ folder of real files: only the kept names are exported, and a link among them is
        // refused; a file of another name (a private key put there) is never copied.
        QFile::rename(dir_.path() + "/summary.json.kept", received + "/summary.json");
        QDir().mkpath(received + "/pretrained");
        spit(received + "/pretrained/config.json", "{\"model_type\": \"llama\"}");
        spit(received + "/pretrained/id_rsa", kSecret);
        QVERIFY(QFile::link(secrets + "/key.txt", received + "/pretrained/tokenizer_config.json"));
        const Result linked = run_fone({"export", "--run", received, "--out", dir_.path() + "/pub"});
        QVERIFY2(linked.code != 0 && linked.err.contains("tokenizer_config.json: is a symbolic link"),
                 linked.err.constData());
        QVERIFY(QFile::remove(received + "/pretrained/tokenizer_config.json"));
        const Result ok = run_fone({"export", "--run", received, "--out", dir_.path() + "/pub"});
        QVERIFY2(ok.code == 0, ok.err.constData());
        QVERIFY(QFile::exists(dir_.path() + "/pub/pretrained/config.json"));
        QVERIFY(!QFile::exists(dir_.path() + "/pub/pretrained/id_rsa"));
        QVERIFY(!folder_holds(dir_.path() + "/pub", kSecret));
        const Result eval = run_fone({"eval", "--run", dir_.path() + "/pub"});
        QVERIFY2(eval.code == 0, eval.err.constData());
    }

    // `--out` a dangling link left the whole export in LINK.tmp-<pid>/ with a raw "filesystem error";
    // `--out ""` left .tmp-<pid>/ in the current folder.
    void export_out_leaves_no_litter() {
        const QString runs = dir_.path() + "/runs";
        if (!QFile::exists(runs + "/r/config.json")) QVERIFY(run_fone(tiny_run(runs, "r")).code == 0);
        const QString work = dir_.path() + "/work";
        QDir().mkpath(work);
        QVERIFY(QFile::link(work + "/nowhere", work + "/dangling"));
        const Result dangling = run_in(work, {"export", "--run", runs + "/r", "--out", "dangling"});
        QVERIFY(dangling.code != 0);
        QVERIFY2(dangling.err.contains("exists") && !dangling.err.contains("filesystem error") &&
                     one_short_line(dangling.err),
                 dangling.err.constData());
        const Result empty = run_in(work, {"export", "--run", runs + "/r", "--out", ""});
        QVERIFY(empty.code != 0);
        QVERIFY2(empty.err.contains("--out is empty") && one_short_line(empty.err), empty.err.constData());
        QVERIFY2(temporaries(work).isEmpty(), qPrintable(temporaries(work).join(", ")));
        QVERIFY(QFileInfo(work + "/dangling").isSymLink());
    }

    // Bad input found in the corpus was found after the run folder existed (a `failed` run and
    // SentencePiece's raw message); docs say bad input writes nothing.
    void corpus_problems_are_refused_before_the_run_exists() {
        const QString runs = dir_.path() + "/corpus-runs";
        // 3,000 distinct CJK characters: more than the default text vocabulary of 1,000 leaves room for.
        QByteArray cjk;
        for (int line = 0; line < 30; ++line) {
            QString text;
            for (int k = 0; k < 100; ++k)
                text += QChar(0x4E00 + line * 100 + k);
            cjk += text.toUtf8() + " 12 " + QByteArray::number(line) + "\n";
        }
        spit(dir_.path() + "/cjk.txt", cjk);
        const Result r =
            run_fone({"train", "--task", "text", "--data", dir_.path() + "/cjk.txt", "--train-size", "14",
                      "--val-size", "8", "--test-size", "8", "--runs-dir", runs, "--name", "cjk"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--vocab-size") && !r.err.contains("Vocabulary size is smaller") &&
                     one_short_line(r.err),
                 r.err.constData());
        QVERIFY(!QFileInfo::exists(runs + "/cjk"));
        // A corpus this machine (made 64 MB small by the test hook) cannot prepare: the figure, nothing made.
        QByteArray prose;
        while (prose.size() < (1 << 20))
            prose += "In 2024, 1,250 of 3,750 boxes were 33.5% of the 12.75 tonnes shipped.\n";
        spit(dir_.path() + "/prose.txt", prose);
        const Result big = run_fone({"train", "--task", "text", "--data", dir_.path() + "/prose.txt",
                                     "--runs-dir", runs, "--name", "big"},
                                    {}, 120000, {"FONE_TEST_PHYSICAL_MEMORY=67108864"});
        QCOMPARE(big.code, 1);  // as for any data file fone cannot use (a missing one: 1)
        QVERIFY2(big.err.contains("needs about") && big.err.contains("of memory") && one_short_line(big.err),
                 big.err.constData());
        QVERIFY(!QFileInfo::exists(runs + "/big"));
    }

    // Options taken wrongly: --seed -1 became 2^64 - 1; an empty prompt exited 0; a NaN temperature passed
    // CLI11's Range; a task named twice weighed the mean; --nproc 1024 started 1,024 processes.
    void options_taken_wrongly_are_refused() {
        const QString llama = FONE_SOURCE_DIR "/tests/golden/pretrained/llama";
        const QString runs = dir_.path() + "/runs";
        if (!QFile::exists(runs + "/r/config.json")) QVERIFY(run_fone(tiny_run(runs, "r")).code == 0);
        const QList<QStringList> bad = {
            {"model", "generate", llama, "hello", "--seed", "-1"},
            {"model", "generate", llama, "hello", "--temperature", "nan"},
            {"eval", "--benchmark", "arithmetic", "--model", llama, "--seed", "-1"},
            {"eval", "--benchmark", "arithmetic", "--model", llama, "--tasks", "2D+,2D+,1DC"},
            {"generate", "--run", runs + "/r", "--seed", "-1", "x"},
            {"generate", "--run", runs + "/r", ""},
            {"train", "--task", "dec-add", "--nproc", "1024", "--runs-dir", runs},
        };
        for (const QStringList& args : bad) {
            const Result r = run_fone(args);
            // 2 (bad input), or 1 where the command's other errors are 1 (eval's)
            QVERIFY2((r.code == 2 || (r.code == 1 && args.contains("--tasks"))) && one_short_line(r.err) &&
                         r.out.isEmpty(),
                     qPrintable(args.join(' ') + " -> " + QString::number(r.code) + ": " + r.err));
        }
        // A tiny temperature is nearly greedy (before: it repeated the vocabulary's last token).
        const Result greedy =
            run_fone({"model", "generate", llama, "The", "--max-new-tokens", "6", "--json"});
        const Result tiny = run_fone(
            {"model", "generate", llama, "The", "--max-new-tokens", "6", "--json", "--temperature", "1e-40"});
        QVERIFY2(greedy.code == 0 && tiny.code == 0, tiny.err.constData());
        QCOMPARE(json_lines(tiny.out).last()["ids"], json_lines(greedy.out).last()["ids"]);
    }

    // Error lines quote what the user gave: they stay one line under 1,000 bytes (before: lines of 1 MB
    // and 120 KB).
    void error_lines_stay_short() {
        // A recipe file of a 100,000-byte name: its error line was 100,062 bytes.
        const QString name(100000, QChar('n'));
        const Result r = run_fone({"reproduce", dir_.path() + "/" + name});
        QVERIFY(r.code != 0);
        QVERIFY2(one_short_line(r.err) && r.err.contains("bytes more)"),
                 qPrintable(QString::number(r.err.size())));
    }
};

QTEST_GUILESS_MAIN(TestReceivedRuns)
#include "test_received_runs.moc"
