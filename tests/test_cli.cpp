// The `fone` command line, run as a user runs it: output contracts (JSON fields) and errors.
#include <QtTest>

#include "fone_process.h"

using namespace fone_test;

class TestCli : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void version() {
        const auto r = run_fone({"--version"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("fone "));
        // The project's version and git revision; LibTorch's, with or without CUDA; Qt's (full builds).
        QVERIFY2(r.out.contains(" (git "), r.out.constData());
        QVERIFY2(r.out.contains("LibTorch ") || r.out.contains("without LibTorch"), r.out.constData());
        QVERIFY2(r.out.contains("CPU only") || r.out.contains("CUDA") || r.out.contains("without LibTorch"),
                 r.out.constData());
        QVERIFY2(r.out.contains("; Qt 6.") || r.out.contains("without Qt"), r.out.constData());
    }

    void encode_contract() {
        const auto r = run_fone({"encode", "--int-digits", "2", "--frac-digits", "0", "18", "007"});
        QCOMPARE(r.code, 0);
        const auto lines = json_lines(r.out);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0]["value"].toString(), QString("18"));
        const auto e = lines[0]["embedding"].toArray();
        QCOMPARE(e.size(), 5);  // two pairs and the sign entry
        QVERIFY(std::abs(e[0].toDouble() - 0.30901699437494742) < 1e-15);
        QVERIFY(std::abs(e[3].toDouble() - 0.90482705246601953) < 1e-15);
        QCOMPARE(e[4].toDouble(), 0.0);
        QCOMPARE(lines[1]["value"].toString(), QString("7"));
    }

    void encode_negative_and_options() {
        auto r = run_fone({"encode", "-m", "1", "-n", "0", "--", "-3"});
        QCOMPARE(r.code, 0);
        QCOMPARE(first_line(r.out)["embedding"].toArray().last().toDouble(), 1.0);
        r = run_fone({"encode", "-m", "2", "-n", "0", "--no-sign", "--dim", "8", "5"});
        QCOMPARE(r.code, 0);
        QCOMPARE(first_line(r.out)["embedding"].toArray().size(), 8);
        r = run_fone({"encode", "-m", "4", "-n", "0", "--base", "7", "100"});
        QCOMPARE(r.code, 0);
        r = run_fone({"encode", "-m", "2", "-n", "0", "--periods", "2,5,10", "18"});
        QCOMPARE(first_line(r.out)["embedding"].toArray().size(), 13);
    }

    void encode_errors_one_line_each() {
        const auto r = run_fone({"encode", "12", "123456789", "1.23456", "abc"});
        QCOMPARE(r.code, 1);
        QCOMPARE(json_lines(r.out).size(), 1);  // 12 still encoded
        const auto errs = r.err.trimmed().split('\n');
        QCOMPARE(errs.size(), 3);
        QVERIFY(errs[0].contains("123456789") && errs[0].contains("m=7"));
        QVERIFY(errs[1].contains("1.23456") && errs[1].contains("would be lost"));
        QVERIFY(errs[2].contains("'abc'"));
        QCOMPARE(run_fone({"encode", "--base", "1", "5"}).code, 2);
    }

    void encode_decode_round_trip_via_stdin() {
        const QByteArray numbers = "0\n4.17\n-9999999.999\n1234567.5\n";
        const auto enc = run_fone({"encode"}, numbers);
        QCOMPARE(enc.code, 0);
        const auto dec = run_fone({"decode"}, enc.out);
        QCOMPARE(dec.code, 0);
        QStringList values;
        for (const auto& o : json_lines(dec.out))
            values << o["value"].toString();
        QCOMPARE(values, (QStringList{"0", "4.17", "-9999999.999", "1234567.5"}));
    }

    void decode_forms_and_errors() {
        auto r = run_fone(
            {"decode", "-m", "1", "-n", "0", "--no-sign", "0.30901699437494742,-0.95105651629515357"});
        QCOMPARE(r.code, 0);
        QCOMPARE(first_line(r.out)["value"].toString(), QString("8"));
        r = run_fone({"decode", "-m", "1", "-n", "0", "--no-sign", "[1, 0, 0, 0]"});  // zero-padded
        QCOMPARE(first_line(r.out)["value"].toString(), QString("0"));
        r = run_fone({"decode", "-m", "1", "-n", "0", "1,2,x"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("not a number"));
        r = run_fone({"decode", "{\"embedding\": [1, 0]"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("not valid JSON"));
        r = run_fone({"decode", "[1, 0]"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("expected 21"));
    }

    void parse_contract() {
        const auto r = run_fone({"parse", "Ana buys 12 pens at $3.45 each, 1,234.5 in all"});
        QCOMPARE(r.code, 0);
        const auto o = first_line(r.out);
        QCOMPARE(o["template"].toString(), QString("Ana buys [NUM] pens at $[NUM] each, [NUM] in all"));
        const auto n = o["numbers"].toArray();
        QCOMPARE(n.size(), 3);
        QCOMPARE(n[0]["text"].toString(), QString("12"));
        QCOMPARE(n[0]["value"].toString(), QString("12"));
        QCOMPARE(n[0]["start"].toInt(), 9);
        QCOMPARE(n[0]["end"].toInt(), 11);
        QCOMPARE(n[1]["value"].toString(), QString("3.45"));
        QCOMPARE(n[2]["text"].toString(), QString("1,234.5"));
        QCOMPARE(n[2]["value"].toString(), QString("1234.5"));
    }

    void parse_errors() {
        const auto r = run_fone({"parse", "already [NUM] here"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("[NUM]"));
    }

    void data_writes_the_splits() {
        QTemporaryDir dir;
        const auto r = run_fone({"data", "--task", "int-add", "--train-size", "50", "--val-size", "5",
                                 "--test-size", "10", "--out", dir.path()});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(first_line(r.out)["files"].toObject()["test"].toObject()["examples"].toInt(), 10);
        QFile f(dir.path() + "/train.txt");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto lines = f.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 50);
        // Each line is a+b=c with the right sum.
        const auto eq = lines[0].split('=');
        const auto ab = eq[0].split('+');
        QCOMPARE(ab[0].toLongLong() + ab[1].toLongLong(), eq[1].toLongLong());
        QCOMPARE(run_fone({"data", "--task", "mod-add", "--modulus", "11", "--train-size", "100", "--out",
                           dir.path()})
                     .code,
                 1);
        QCOMPARE(run_fone({"data", "--task", "nope", "--out", dir.path()}).code, 1);
    }

    void usage_errors() {
        QVERIFY(run_fone({}).code != 0);
        QVERIFY(run_fone({"frobnicate"}).code != 0);
        QVERIFY(run_fone({"encode", "--method", "magic", "1"}).code != 0);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
