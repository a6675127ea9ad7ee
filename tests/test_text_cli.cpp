// `fone data --task word-problems|units|tables` and `fone tokenize`, run as a user runs them: the files
// and JSON fields the issue names, counts worked out by hand, and one-line errors.
#include <QtTest>

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>

#include "fone_process.h"

using namespace fone_test;

namespace {

int line_count(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return -1;
    return static_cast<int>(f.readAll().count('\n'));
}

}  // namespace

class TestTextCli : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void data_writes_jsonl_splits() {
        QTemporaryDir dir;
        const auto r = run_fone({"data", "--task", "word-problems", "--out", dir.path(), "--train-size", "40",
                                 "--val-size", "5", "--test-size", "10", "--seed", "3"});
        QCOMPARE(r.code, 0);
        const auto files = first_line(r.out)["files"].toObject();
        QCOMPARE(files["train"].toObject()["examples"].toInt(), 40);
        QCOMPARE(line_count(dir.path() + "/train.jsonl"), 40);
        QCOMPARE(line_count(dir.path() + "/val.jsonl"), 5);
        QCOMPARE(line_count(dir.path() + "/test.jsonl"), 10);
        QFile test(dir.path() + "/test.jsonl");
        QVERIFY(test.open(QIODevice::ReadOnly));
        const auto example = QJsonDocument::fromJson(test.readLine()).object();
        QVERIFY(example["prompt"].toString().endsWith('?'));
        QVERIFY(!example["answer"].toString().isEmpty());
        // The paper's tasks still write a+b=c files.
        QCOMPARE(run_fone({"data", "--task", "dec-add", "--out", dir.path(), "--train-size", "5",
                           "--val-size", "1", "--test-size", "1"})
                     .code,
                 0);
        QCOMPARE(line_count(dir.path() + "/train.txt"), 5);
    }

    void data_writes_drills_into_train_only() {
        QTemporaryDir dir;
        const auto r =
            run_fone({"data", "--task", "word-problems", "--out", dir.path(), "--train-size", "400",
                      "--val-size", "0", "--test-size", "100", "--seed", "3", "--drills", "0.5"});
        QCOMPARE(r.code, 0);
        const auto drills_in = [&](const QString& file) {
            QFile f(dir.path() + "/" + file);
            if (!f.open(QIODevice::ReadOnly)) return -1;
            int drills = 0;
            while (!f.atEnd())
                drills += QJsonDocument::fromJson(f.readLine()).object()["prompt"].toString().endsWith(" =");
            return drills;
        };
        QVERIFY2(drills_in("train.jsonl") > 150 && drills_in("train.jsonl") < 250,
                 QByteArray::number(drills_in("train.jsonl")));
        QCOMPARE(drills_in("test.jsonl"), 0);
        // Other tasks have no drills: a clear error, no files.
        QTemporaryDir other;
        const auto bad =
            run_fone({"data", "--task", "units", "--out", other.path() + "/u", "--drills", "0.5"});
        QVERIFY(bad.code != 0);
        QVERIFY2(bad.err.contains("--drills is for word-problems"), qPrintable(bad.err));
        QVERIFY(!QFileInfo::exists(other.path() + "/u"));
    }

    void tokenize_a_text() {
        // "$41.40": fone 1 token, digit 5 (4 1 . 4 0), subword 3 (41 . 40).
        const auto r = run_fone({"tokenize", "--train-size", "300", "She pays $41.40 now."});
        QCOMPARE(r.code, 0);
        const auto lines = json_lines(r.out);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0]["scheme"].toString(), QString("fone"));
        QCOMPARE(lines[0]["numbers"].toArray().first().toString(), QString("41.4"));
        QVERIFY(lines[0]["pieces"].toArray().contains(QString("[NUM]")));
        const int fone_tokens = lines[0]["tokens"].toInt();
        QCOMPARE(lines[1]["scheme"].toString(), QString("digit"));
        QCOMPARE(lines[1]["tokens"].toInt(), fone_tokens + 4);
        QCOMPARE(lines[2]["scheme"].toString(), QString("subword"));
        QCOMPARE(lines[2]["tokens"].toInt(), fone_tokens + 2);
        QCOMPARE(lines[1]["ids"].toArray().size(), lines[1]["tokens"].toInt());
    }

    // The encoding zoo (`--all`): every number of the text under every encoding, counts worked out by hand.
    void tokenize_all_is_the_encoding_zoo() {
        const auto r = run_fone({"tokenize", "--all", "Pay 1234567 or -2.5"});
        QCOMPARE(r.code, 0);
        const auto lines = json_lines(r.out);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0]["value"].toString(), QString("1234567"));
        QCOMPARE(lines[0]["int_digits"].toInt(), 7);  // one FoNE spec for both numbers
        const auto first = lines[0]["encodings"].toArray();
        QStringList names, pieces;
        for (const auto& e : first) {
            names << e.toObject()["encoding"].toString();
            QStringList p;
            for (const auto& w : e.toObject()["pieces"].toArray())
                p << w.toString();
            pieces << p.join(' ');
        }
        QCOMPARE(names, QStringList(
                            {"fone", "bittokens", "xval", "digit", "subword", "subword-r2l", "numerologic"}));
        QCOMPARE(pieces, QStringList({"[NUM]", "[NUM]", "[NUM]", "1 2 3 4 5 6 7", "123 456 7", "1 234 567",
                                      "{ 7 : 1 2 3 4 5 6 7 }"}));
        // -2.5 = 0xC004000000000000: sign 1, exponent 10000000000, significand 0100...; as ±1.
        const auto bits = lines[1]["encodings"].toArray()[1].toObject()["vector"].toArray();
        QCOMPARE(bits.size(), 128);
        const char* want = "1100000000000100";
        for (int k = 0; k < 16; ++k)
            QCOMPARE(bits[k].toDouble(), want[k] == '1' ? 1.0 : -1.0);
        QCOMPARE(lines[1]["encodings"].toArray()[6].toObject()["tokens"].toInt(), 10);  // - { 1 . 1 : 2 . 5 }
        const auto bad = run_fone({"tokenize", "--all", "no number here"});
        QCOMPARE(bad.code, 1);
        QVERIFY2(bad.err.contains("no number"), qPrintable(bad.err));
    }

    void tokenize_counts_of_tables() {
        const auto r = run_fone({"tokenize", "--task", "tables", "--train-size", "300"});
        QCOMPARE(r.code, 0);
        const auto j = first_line(r.out);
        QCOMPARE(j["examples"].toInt(), 300);
        const auto schemes = j["schemes"].toObject();
        for (const char* s : {"fone", "digit", "subword"}) {
            QVERIFY(schemes[s].toObject().contains("tokens_per_example"));
            QVERIFY(schemes[s].toObject().contains("tokens_per_table"));
        }
        QCOMPARE(schemes["fone"].toObject()["tokens_per_number"].toDouble(), 1.0);
        const auto tables = j["tables"].toObject();
        QCOMPARE(tables["tables"].toInt(), 300);
        QCOMPARE(tables["digit_over_fone"].toDouble(),
                 tables["digit_tokens_per_table"].toDouble() / tables["fone_tokens_per_table"].toDouble());
        QCOMPARE(tables["paper_wikitablequestions"].toObject()["fone_tokens_per_table"].toDouble(), 149.25);
    }

    void tokenize_user_data_and_saved_tokenizer() {
        QTemporaryDir dir;
        const QString data = dir.path() + "/d.jsonl", model = dir.path() + "/t.model";
        QFile f(data);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            "{\"prompt\": \"Ana buys 12 pens.\", \"answer\": \"She pays $3.45.\"}\n"
            "{\"prompt\": \"Ben has 7 cats.\", \"answer\": \"He has 1234 fish.\"}\n");
        f.close();
        auto r = run_fone({"tokenize", "--data", data, "--scheme", "digit", "--save-tokenizer", model});
        QCOMPARE(r.code, 0);
        const auto digit = first_line(r.out)["schemes"].toObject()["digit"].toObject();
        QCOMPARE(first_line(r.out)["numbers"].toInt(), 4);
        QCOMPARE(digit["number_tokens"].toInt(), 2 + 4 + 1 + 4);  // 12, 3.45, 7, 1234
        QVERIFY(QFile::exists(model));
        r = run_fone({"tokenize", "--tokenizer", model, "--scheme", "subword", "He has 1234 fish."});
        QCOMPARE(r.code, 0);
        const auto pieces = first_line(r.out)["pieces"].toArray();
        QVERIFY(pieces.contains(QString("123")) && pieces.contains(QString("4")));
    }

    void errors_are_one_line() {
        QTemporaryDir dir;
        const QString data = dir.path() + "/bad.jsonl";
        QFile f(data);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"prompt\": \"a\", \"answer\": \"b\"}\n{\"prompt\": \"a\"}\n");
        f.close();
        auto r = run_fone({"tokenize", "--data", data});
        QCOMPARE(r.code, 1);
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY(r.err.contains((data + ":2: missing field \"answer\"").toUtf8()));
        r = run_fone({"tokenize", "--task", "poems"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("unknown text task 'poems'"));
        r = run_fone({"tokenize", "--tokenizer", data, "x"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("not a SentencePiece model"));
    }
};

QTEST_APPLESS_MAIN(TestTextCli)
#include "test_text_cli.moc"
