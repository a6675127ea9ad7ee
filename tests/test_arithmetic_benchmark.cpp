// `fone eval --benchmark arithmetic` through `fone`, on a model folder (the tiny random Llama of
// tests/golden/pretrained/) and on a tiny text run: the ten tasks' table and JSON, the prompts as the
// docs say, each example's "correct" consistent with what the model wrote, and bad input as one line.
// The problems themselves are checked by hand in test_gpt3_arithmetic; the greedy check against
// transformers' continuations in test_model_generate.
#include <QJsonArray>
#include <QtTest>

#include "fone_process.h"
#include "one_block_model.h"

using namespace fone_test;

namespace {

const QString kLlama = QStringLiteral(FONE_SOURCE_DIR "/tests/golden/pretrained/llama");

}  // namespace

class TestArithmeticBenchmark : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

  private Q_SLOTS:
    void model_folder_json() {
        const auto r = run_fone({"eval", "--benchmark", "arithmetic", "--model", kLlama, "--problems", "4",
                                 "--json", "--threads", "1"});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject j = first_line(r.out);
        QCOMPARE(j["benchmark"].toString(), QString("arithmetic"));
        QCOMPARE(j["source"].toString(), QString("model"));
        const QJsonArray tasks = j["tasks"].toArray();
        QCOMPARE(tasks.size(), 10);
        QCOMPARE(tasks[0].toObject()["task"].toString(), QString("2D+"));
        QCOMPARE(tasks[9].toObject()["lm_eval_name"].toString(), QString("arithmetic_1dc"));
        for (const auto& t : tasks) {
            const QJsonObject o = t.toObject();
            QCOMPARE(o["n"].toInt(), 4);
            QCOMPARE(o["exact_match"].toDouble(), o["correct"].toDouble() / 4);
            for (const auto& e : o["examples"].toArray()) {
                const QJsonObject x = e.toObject();
                QVERIFY(x["prompt"].toString().startsWith("Q: What is "));
                QVERIFY(x["prompt"].toString().endsWith("?\n\nA:"));
                QVERIFY(x["expected"].toString().startsWith(" "));
                // greedy writes the expected tokens exactly when the output starts with the expected text
                if (x["correct"].toBool())
                    QVERIFY(x["output"].toString().startsWith(x["expected"].toString()));
            }
        }
        // the same seed gives the same problems; the 1DC prompt has its bracket
        const QString c = tasks[9].toObject()["examples"].toArray()[0].toObject()["prompt"].toString();
        QVERIFY2(c.startsWith("Q: What is (") && c.contains(") "), qPrintable(c));
    }

    void table_few_shot_and_lm_eval_style() {
        const auto r = run_fone({"eval", "--benchmark", "arithmetic", "--model", kLlama, "--problems", "3",
                                 "--tasks", "4D-,1DC", "--shots", "2", "--threads", "1"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("4D-"));
        QVERIFY(r.out.contains("arithmetic_1dc"));
        QVERIFY(r.out.contains("mean of 2 tasks"));
        const auto j = run_fone({"eval", "--benchmark", "arithmetic", "--model", kLlama, "--problems", "2",
                                 "--tasks", "2D+", "--shots", "1", "--prompt-style", "lm-eval", "--json"});
        QVERIFY2(j.code == 0, j.err.constData());
        const QString p = first_line(j.out)["tasks"]
                              .toArray()[0]
                              .toObject()["examples"]
                              .toArray()[0]
                              .toObject()["prompt"]
                              .toString();
        QVERIFY2(p.startsWith("Question: What is ") && p.contains("\nAnswer: ") &&
                     p.contains("\n\nQuestion: ") && p.endsWith("?\nAnswer:"),
                 qPrintable(p));
    }

    void text_run() {
        const QString runs = dir_.path() + "/runs";
        const auto t = run_fone(QStringList{"train",
                                            "--task",
                                            "word-problems",
                                            "--train-size",
                                            "64",
                                            "--test-size",
                                            "8",
                                            "--val-size",
                                            "0",
                                            "--epochs",
                                            "1",
                                            "--batch",
                                            "32",
                                            "--vocab-size",
                                            "400",
                                            "--threads",
                                            "1",
                                            "--eval-every",
                                            "0",
                                            "--runs-dir",
                                            runs,
                                            "--name",
                                            "wp",
                                            "--int-digits",
                                            "6"} +
                                fone_test::one_block_model_options());
        QVERIFY2(t.code == 0, t.err.constData());
        const auto r = run_fone({"eval", "--benchmark", "arithmetic", "--run", "wp", "--runs-dir", runs,
                                 "--problems", "2", "--json", "--threads", "1"});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject j = first_line(r.out);
        QCOMPARE(j["source"].toString(), QString("run"));
        QCOMPARE(j["tasks"].toArray().size(), 10);
        for (const auto& task : j["tasks"].toArray()) {
            QCOMPARE(task.toObject()["unreadable"].toInt(), 0);  // 6 integer digits hold every number
            QCOMPARE(task.toObject()["examples"].toArray().size(), 2);
        }
        for (const auto& task : j["tasks"].toArray())
            for (const auto& e : task.toObject()["examples"].toArray()) {
                const QJsonObject x = e.toObject();
                const QString written = x["output"].toString().trimmed();
                QCOMPARE(x["correct"].toBool(),
                         written.startsWith(x["expected"].toString().trimmed()) &&
                             (written.size() == x["expected"].toString().trimmed().size() ||
                              !(written[x["expected"].toString().trimmed().size()].isDigit() ||
                                written[x["expected"].toString().trimmed().size()] == '.')));
            }
    }

    void bad_input_is_one_line() {
        const QList<QStringList> bad = {
            {"eval", "--benchmark", "arithmetic"},                                       // neither
            {"eval", "--benchmark", "arithmetic", "--model", kLlama, "--run", "x"},      // both
            {"eval", "--benchmark", "arithmetic", "--model", kLlama, "--tasks", "6D+"},  // no such task
            {"eval", "--benchmark", "arithmetic", "--model", "/nonexistent"},            // no folder
            {"eval", "--benchmark", "mmlu", "--model", kLlama},                          // no such benchmark
            {"eval", "--model", kLlama},                                                 // no --benchmark
        };
        for (const QStringList& args : bad) {
            const auto r = run_fone(args);
            QVERIFY2(r.code != 0, qPrintable(args.join(' ')));
            QVERIFY2(r.out.isEmpty() || r.out.startsWith("task"), qPrintable(args.join(' ')));
            QVERIFY2(r.err.trimmed().count('\n') == 0, r.err.constData());
        }
    }
};

QTEST_GUILESS_MAIN(TestArithmeticBenchmark)
#include "test_arithmetic_benchmark.moc"
