// Keeping and sharing runs through `fone` (issue 43): notes and tags kept by resume and copied by export,
// `runs diff`, mv / rm / restore / archive, the all-metrics export, and a packed run unpacked on another
// store giving the same eval and predict answers. One tiny run (the one-block model, two epochs), trained
// once: a few seconds.
#include <QDir>
#include <QJsonArray>
#include <QtTest>

#include "fone_process.h"
#include "one_block_model.h"

using namespace fone_test;

namespace {

QStringList tiny(const QString& runs, const QString& name, const QStringList& extra = {}) {
    return QStringList{"train", "--task",     "dec-add", "--train-size", "64", "--test-size",
                       "32",    "--val-size", "0",       "--epochs",     "2",  "--batch",
                       "32",    "--threads",  "1",       "--runs-dir",   runs, "--name",
                       name} +
           one_block_model_options(16) + extra;
}

// eval's figures that depend only on the weights and the data (not the clock).
QJsonObject answers(const QJsonObject& eval) {
    QJsonObject out;
    for (const char* key : {"exact_match", "digit_accuracy", "r2", "rmse", "n", "malformed"})
        out[key] = eval[key];
    return out;
}

// predict's answer without the checkpoint's path (the only thing that differs between two stores).
QJsonObject answer(const QByteArray& out) {
    QJsonObject j = first_line(out);
    j.remove("checkpoint");
    return j;
}

}  // namespace

class TestRunShareCli : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir dir_;
    QString mine() const { return dir_.path() + "/mine"; }
    QString theirs() const { return dir_.path() + "/theirs"; }
    Result runs(const QString& store, const QStringList& args) {
        return run_fone(QStringList{"runs", "--runs-dir", store} + args);
    }

  private Q_SLOTS:
    void initTestCase() {
        const auto r = run_fone(tiny(mine(), "src"));
        QVERIFY2(r.code == 0, r.err.constData());
    }

    void notes_and_tags() {
        auto r = runs(mine(), {"note", "src", "baseline for figure 3"});
        QVERIFY2(r.code == 0, r.err.constData());
        r = runs(mine(), {"tag", "src", "+baseline", "+old", "fig3"});
        QVERIFY2(r.code == 0, r.err.constData());
        r = runs(mine(), {"tag", "src", "-old"});  // "-old" is an edit, not an option
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(first_line(r.out)["tags"].toArray(), (QJsonArray{"baseline", "fig3"}));
        r = runs(mine(), {"note", "src"});
        QCOMPARE(r.out, QByteArray("baseline for figure 3\n"));
        r = runs(mine(), {"list", "--tag", "baseline", "--format", "json"});
        QCOMPARE(json_lines(r.out).size(), 1);
        QCOMPARE(first_line(r.out)["tags"].toArray(), (QJsonArray{"baseline", "fig3"}));
        r = runs(mine(), {"list", "--tag", "nope", "--format", "json"});
        QVERIFY(r.out.isEmpty());
        r = runs(mine(), {"show", "src"});
        QCOMPARE(first_line(r.out)["notes"].toString(), QString("baseline for figure 3"));
        r = runs(mine(), {"tag", "src", "+two words"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("spaces") && r.err.count('\n') == 1, r.err.constData());
        // --edit: the editor is whatever $VISUAL says (here a script that appends a line).
        const QString editor = dir_.path() + "/editor.sh";
        QFile f(editor);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\necho 'edited' >> \"$1\"\n");
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        r = run_fone({"runs", "--runs-dir", mine(), "note", "src", "--edit"}, {}, 60000,
                     {"VISUAL=" + editor});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(first_line(r.out)["notes"].toString(), QString("baseline for figure 3edited\n"));
        runs(mine(), {"note", "src", "baseline for figure 3"});
    }

    void packed_run_answers_the_same_on_another_store() {
        const QString file = dir_.path() + "/src.fonerun";
        auto r = runs(mine(), {"pack", "src", "-o", file});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(first_line(r.out)["members"].toInt(), 7);  // config status metrics summary notes best last
        r = runs(theirs(), {"unpack", file});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(first_line(r.out)["run"].toString(), QString("src"));
        r = runs(theirs(), {"unpack", file});  // again: the name is taken, and said
        QCOMPARE(first_line(r.out)["run"].toString(), QString("src-2"));
        QVERIFY2(r.err.contains("unpacked as src-2"), r.err.constData());
        // The received run works like one of your own: the same eval and predict answers, its notes.
        const auto e1 = run_fone({"eval", "--run", "src", "--runs-dir", mine()});
        const auto e2 = run_fone({"eval", "--run", "src", "--runs-dir", theirs()});
        QVERIFY2(e1.code == 0 && e2.code == 0, e2.err.constData());
        QCOMPARE(answers(first_line(e2.out)), answers(first_line(e1.out)));
        for (const char* prompt : {"123.456+654.321=", "1.5+2.25=", "999.999+0.001="}) {
            const auto p1 = run_fone({"predict", "--run", "src", "--runs-dir", mine(), prompt});
            const auto p2 = run_fone({"predict", "--run", "src", "--runs-dir", theirs(), prompt});
            QVERIFY2(p1.code == 0 && p2.code == 0, p2.err.constData());
            QVERIFY(!answer(p1.out).isEmpty());
            QCOMPARE(answer(p2.out), answer(p1.out));
        }
        QCOMPARE(first_line(runs(theirs(), {"show", "src"}).out)["tags"].toArray(),
                 (QJsonArray{"baseline", "fig3"}));
        // A damaged copy is refused with one line, and the store is as it was.
        QFile in(file);
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        QFile cut(dir_.path() + "/cut.fonerun");
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(bytes.left(bytes.size() / 2));
        cut.close();
        const QStringList before =
            QDir(theirs()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
        r = runs(theirs(), {"unpack", cut.fileName()});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.count('\n') == 1 && r.err.contains("nothing was unpacked"), r.err.constData());
        QCOMPARE(QDir(theirs()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), before);
    }

    void diff_shows_what_differs() {
        auto r = runs(mine(), {"diff", "src", theirs() + "/src-2", "--format", "json"});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(first_line(r.out)["differing_settings"].toInt(), 0);  // the same run, copied
        QVERIFY(first_line(r.out)["rows"].toArray().isEmpty());
        r = runs(mine(), {"diff", "src", theirs() + "/src-2", "--all"});
        QVERIFY2(r.out.contains("= lr") && r.out.contains("settings (0 of"), r.out.constData());
        r = runs(mine(), {"diff", "src"});
        QCOMPARE(r.code, 2);  // two runs or more
    }

    void resume_keeps_notes_and_export_copies_them() {
        qputenv("FONE_INJECT_NAN_STEP",
                "3");  // step 3 is in the second epoch: the first one's checkpoint stays
        auto r = run_fone(tiny(mine(), "failed"));
        qunsetenv("FONE_INJECT_NAN_STEP");
        QCOMPARE(r.code, 1);
        QCOMPARE(runs(mine(), {"note", "failed", "NaN at step 3: resumed"}).code, 0);
        // Sent before it is resumed: the colleague resumes it too, and ends on the same weights.
        const QString file = dir_.path() + "/failed.fonerun";
        QCOMPARE(runs(mine(), {"pack", "failed", "-o", file}).code, 0);
        QCOMPARE(runs(theirs(), {"unpack", file}).code, 0);
        r = run_fone({"train", "--resume", "failed", "--runs-dir", mine()});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(runs(mine(), {"note", "failed"}).out, QByteArray("NaN at step 3: resumed\n"));
        r = run_fone({"train", "--resume", "failed", "--runs-dir", theirs()});
        QVERIFY2(r.code == 0, r.err.constData());
        const QString digest = read_json(mine() + "/failed/summary.json")["weights_digest"].toString();
        QVERIFY(!digest.isEmpty());
        QCOMPARE(read_json(theirs() + "/failed/summary.json")["weights_digest"].toString(), digest);
        QCOMPARE(runs(theirs(), {"note", "failed"}).out, QByteArray("NaN at step 3: resumed\n"));
        const QString out = dir_.path() + "/exported";
        r = run_fone({"export", "--run", "src", "--runs-dir", mine(), "--out", out});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(read_json(out + "/notes.json")["notes"].toString(), QString("baseline for figure 3"));
    }

    void all_metrics_in_one_file() {
        const QString csv = dir_.path() + "/all.csv";
        auto r = runs(mine(), {"export", "--all", "--metrics", "--out", csv});
        QVERIFY2(r.code == 0, r.err.constData());
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().split('\n');
        QVERIFY2(lines.first().startsWith("run,"), lines.first().constData());
        int src = 0, failed = 0;
        for (const QByteArray& l : lines) {
            src += l.startsWith("src,");
            failed += l.startsWith("failed,");
        }
        QVERIFY(src > 0 && failed > 0);
        r = runs(mine(), {"export", "--metrics"});
        QCOMPARE(r.code, 2);  // --metrics needs --all
    }

    void mv_rm_restore_archive() {
        auto r = runs(theirs(), {"mv", "src-2", "copy"});
        QVERIFY2(r.code == 0, r.err.constData());
        r = runs(theirs(), {"rm", "copy"});
        QVERIFY2(r.code == 0 && r.err.contains("fone runs restore"), r.err.constData());
        QVERIFY(!QDir(theirs() + "/copy").exists());
        r = runs(theirs(), {"trash"});
        QCOMPARE(first_line(r.out)["run"].toString(), QString("copy"));
        r = runs(theirs(), {"restore", "copy"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(QDir(theirs() + "/copy").exists());
        r = runs(theirs(), {"archive", "copy"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(first_line(r.out)["freed_bytes"].toDouble() > 0);
        QVERIFY(!QFile::exists(theirs() + "/copy/checkpoint-last.safetensors"));
        // An archived run still answers.
        const auto p = run_fone({"predict", "--run", "copy", "--runs-dir", theirs(), "1.5+2.25="});
        QVERIFY2(p.code == 0, p.err.constData());
        QCOMPARE(answer(p.out),
                 answer(run_fone({"predict", "--run", "src", "--runs-dir", mine(), "1.5+2.25="}).out));
    }
};

QTEST_GUILESS_MAIN(TestRunShareCli)
#include "test_run_share_cli.moc"
