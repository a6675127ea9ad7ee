// Any corpus people have (issue 41), through `fone` as a user runs it: a plain-text corpus made here, with
// hashes, versions, numbers longer than a run's slots and digits glued to letters, trains with every
// method; its report counts what stayed text, by kind; --strict-numbers gives the refusal of before;
// `fone corpus text` splits and reports it; --cpu-seconds ends a run at its budget; the text-scaling
// experiment's quick preset writes the FoNE/digit ratio and its figure.
#include <QtTest>

#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>

#include "fone_process.h"
#include "one_block_model.h"

using namespace fone_test;

namespace {

// Lines of prose as people write them: version strings, dates, bug numbers, commit hashes, identifiers,
// a 45-digit constant and a fraction of 30 digits (together more than the 40 slots a run takes).
QByteArray messy_corpus() {
    QByteArray text;
    const char* lines[] = {
        "Version 1:11~++20200411120955 of the package fixes bug 2391 and adds 3 options.",
        "Commit c65e6079fc9 moved the build to x86_64 and arm64; 12 tests failed, then 0.",
        "The release 2.4.1 on 2024.01.05 weighs 1,234,567 bytes, about 1.2 MB.",
        "The constant is 123456789012345678901234567890123456789012345 exactly.",
        "Its reciprocal starts 0.000000000000000000000000000081 and goes on.",
        "In the 19th century the 1990s were far away; CO2 was 280 ppm, now 420 ppm.",
        "A 3x4 grid of 12 cells, each 2.5 cm wide, costs $41.40 in total.",
        "Merge 8a3f2c1 (topic) into v2.3 and tag it 0x1F; 7 files changed.",
        "On 5 May 2022 the team of 14 shipped 3 releases and closed 128 issues.",
        "The 2nd run took 45.5 s, the 3rd 38.25 s, and the 4th 40 s.",
    };
    for (int copy = 0; copy < 3; ++copy)
        for (const char* line : lines)
            text += QByteArray(line) + " (copy " + QByteArray::number(copy + 1) + ")\n";
    return text;
}

QStringList tiny_text_run(const QString& data, const QString& runs, const QString& name,
                          const QString& method) {
    return QStringList{"train", "--task",       "text", "--data",
                       data,    "--method",     method, "--epochs",
                       "1",     "--batch",      "4",    "--context",
                       "64",    "--vocab-size", "400",  "--test-size",
                       "4",     "--val-size",   "0",    "--threads",
                       "1",     "--runs-dir",   runs,   "--name",
                       name,    "--snapshots",  "none", "--no-bittokens-reciprocal"} +
           one_block_model_options(64);
}

QJsonObject event_of(const QByteArray& out, const QString& kind) {
    for (const QJsonObject& e : json_lines(out))
        if (e["event"].toString() == kind) return e;
    return {};
}

}  // namespace

class TestAnyCorpus : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir dir_;
    QString corpus_;
    QString runs() const { return dir_.path() + "/runs"; }

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = dir_.path() + "/messy.txt";
        QFile f(corpus_);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(messy_corpus());
    }

    // Every method trains on the corpus; each reads the same numbers (the same slots) and its start event
    // counts what stayed text, by kind, with examples.
    void every_method_trains_and_counts_what_became_text() {
        QJsonObject first_corpus;
        int first_int = -1, first_frac = -1;
        for (const char* method : {"fone", "digit", "subword", "xval", "bittokens"}) {
            const auto r = run_fone(tiny_text_run(corpus_, runs(), QString("messy-") + method, method));
            QVERIFY2(r.code == 0, r.err.constData());
            const QJsonObject start = event_of(r.out, "start"), end = event_of(r.out, "end");
            QCOMPARE(end["status"].toString(), QString("finished"));
            const QJsonObject corpus = start["text"].toObject()["corpus"].toObject();
            const QJsonObject fone = start["fone"].toObject();
            if (first_int < 0) {
                first_corpus = corpus;
                first_int = fone["int_digits"].toInt();
                first_frac = fone["frac_digits"].toInt();
            }
            // The same corpus for every method: the same slots, the same numbers, the same text spans.
            QCOMPARE(corpus, first_corpus);
            QCOMPARE(fone["int_digits"].toInt(), first_int);
            QCOMPARE(fone["frac_digits"].toInt(), first_frac);
        }
        // A 64-wide model takes 31 slots: holding the 30-digit fraction would leave 1 integer slot, so the
        // split that holds the most numbers is 14 + 2 (the 14-digit version stamp, $41.40), and the
        // fraction and the 45-digit constant are text.
        QCOMPARE(first_int, 14);
        QCOMPARE(first_frac, 2);
        const QJsonObject as_text = first_corpus["as_text"].toObject();
        // Each kind, counted over the three copies of the ten lines.
        QCOMPARE(as_text["hexadecimal"].toObject()["count"].toInt(), 9);  // c65e6079fc9, 8a3f2c1, 0x1F
        QCOMPARE(as_text["dotted"].toObject()["count"].toInt(), 6);       // 2.4.1, 2024.01.05
        QCOMPARE(as_text["in a word"].toObject()["count"].toInt(), 15);   // x86_64, arm64, CO2, 3x4, v2.3
        QCOMPARE(as_text["beyond the slots"].toObject()["count"].toInt(), 6);
        const QJsonArray beyond = as_text["beyond the slots"].toObject()["examples"].toArray();
        QVERIFY(beyond.contains(QJsonValue("123456789012345678901234567890123456789012345")));
        QVERIFY(beyond.contains(QJsonValue("0.000000000000000000000000000081")));
        QVERIFY(as_text["in a word"].toObject()["examples"].toArray().contains(QJsonValue("x86_64")));
        // The five runs trained one tokenizer (the same text and options) and shared it through the
        // store's cache: one model there, the same bytes in every run.
        QCOMPARE(QDir(runs() + "/.tokenizers").entryList({"*.model"}, QDir::Files).size(), 1);
        const auto bytes = [](const QString& path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        const QByteArray shared = bytes(runs() + "/messy-fone/tokenizer.model");
        QVERIFY(!shared.isEmpty());
        QCOMPARE(bytes(runs() + "/messy-bittokens/tokenizer.model"), shared);
    }

    // --strict-numbers: the old refusal, one line, before any run directory is made.
    void strict_numbers_refuses_as_before() {
        const QString name = "messy-strict";
        const auto r = run_fone(tiny_text_run(corpus_, runs(), name, "digit") << "--strict-numbers");
        QVERIFY(r.code != 0);
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(!err.contains('\n'), qPrintable(err));
        QVERIFY2(err.contains("the corpus holds a number of 45 integer and 30 fractional digits") &&
                     err.contains("a text run takes at most 40 digit slots in all"),
                 qPrintable(err));
        QVERIFY(!QDir(runs() + "/" + name).exists());
        // Not for an arithmetic task.
        const auto bad = run_fone({"train", "--task", "dec-add", "--strict-numbers", "--dry-run"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("strict_numbers: goes with a text task"), bad.err.constData());
    }

    // `fone corpus text`: paragraphs as documents, split by a hash of each, and the report by kind.
    void corpus_text_splits_and_reports() {
        const QString out = dir_.path() + "/messy-corpus";
        const auto r = run_fone({"corpus", "text", "--from", corpus_, "--out", out});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject report = first_line(r.out);
        QCOMPARE(report["documents"].toString(), QString("lines"));
        int documents = 0;
        for (const char* split : {"train", "val", "test"}) {
            QVERIFY(QFile::exists(out + "/" + split + ".jsonl"));
            documents += report["splits"].toObject()[split].toObject()["documents"].toInt();
        }
        QCOMPARE(documents, 30);
        // Without a model, the slots are the 40 of any run: the constant does not fit, and the fraction
        // (10 integer slots left) holds no more numbers than the 14-digit stamp: a tie, which goes to the
        // integer slots.
        const QJsonObject chosen = report["slots"].toObject();
        QCOMPARE(chosen["int_digits"].toInt(), 14);
        QCOMPARE(chosen["frac_digits"].toInt(), 2);
        QCOMPARE(report["report"].toObject()["as_text"].toObject()["hexadecimal"].toObject()["count"].toInt(),
                 9);
        QCOMPARE(read_json(out + "/report.json")["slots"].toObject(), chosen);
        const auto paragraphs =
            run_fone({"corpus", "text", "--from", corpus_, "--paragraphs", "--out", out + "-p"});
        QVERIFY2(paragraphs.code == 0, paragraphs.err.constData());
        QCOMPARE(first_line(paragraphs.out)["report"].toObject()["documents"].toInt(), 1);  // no blank line
    }

    // --cpu-seconds: the run ends at the step that spends the budget, evaluated there; the schedule runs
    // over the budget; the summary records the CPU seconds.
    void cpu_seconds_budget_ends_the_run() {
        const auto r = run_fone(tiny_text_run(corpus_, runs(), "budget", "fone") << "--epochs"
                                                                                 << "1000"
                                                                                 << "--cpu-seconds"
                                                                                 << "0.5"
                                                                                 << "--eval-every"
                                                                                 << "1000000"
                                                                                 << "--checkpoint-every"
                                                                                 << "1000000");
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject end = event_of(r.out, "end");
        QCOMPARE(end["status"].toString(), QString("finished"));
        QVERIFY2(end["message"].toString().startsWith("spent the budget of 0.5 CPU seconds"),
                 qPrintable(end["message"].toString()));
        const QJsonObject summary = read_json(runs() + "/budget/summary.json");
        QVERIFY(summary["train_cpu_seconds"].toDouble() >= 0.5);
        QVERIFY(summary["epoch"].toInt() < 1000);
        QVERIFY(summary["final"].toObject().contains("text_perplexity"));  // evaluated at the last step
        const auto bad = run_fone({"train", "--task", "dec-add", "--cpu-seconds", "-1", "--dry-run"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("cpu_seconds: must be in [0, 1e9]"), bad.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestAnyCorpus)
#include "test_any_corpus.moc"
