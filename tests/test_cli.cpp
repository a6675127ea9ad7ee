// The `fone` command line, run as a user runs it: output contracts (JSON fields) and errors.
#include <QtTest>

#include "fone/platform/blas_kernel.h"
#include "fone/platform/cpu.h"
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

    // The BLAS kernel in use (issue 15): on a CPU with AVX2 or AVX-512 never OpenBLAS's SSE fallback.
    void version_names_a_fitting_blas_kernel() {
        const auto r = run_fone({"--version"}, {}, 300000, {"OPENBLAS_CORETYPE="});
        QCOMPARE(r.code, 0);
        // Whether LibTorch's BLAS is OpenBLAS, asked here independently of `fone`'s answer.
        if (r.out.contains("without LibTorch") || !fone::torch_blas().openblas) QSKIP("no OpenBLAS here");
        QVERIFY2(r.out.contains("OpenBLAS ") && r.out.contains(" kernel"), r.out.constData());
        const fone::CpuFeatures cpu = fone::cpu_features();
        if (!cpu.avx2) QSKIP("this CPU has no AVX2: any kernel OpenBLAS picks fits it");
        for (const char* fallback : {"Prescott", "Core2", "Penryn", "Nehalem", "Barcelona", "Sandybridge"})
            QVERIFY2(!r.out.contains(QByteArray(", ") + fallback + " kernel"), r.out.constData());
    }

    void a_users_openblas_coretype_wins() {
        const auto r = run_fone({"--version"}, {}, 300000, {"OPENBLAS_CORETYPE=Prescott"});
        QCOMPARE(r.code, 0);
        if (r.out.contains("without LibTorch") || r.out.contains("not OpenBLAS")) QSKIP("no OpenBLAS here");
        QVERIFY2(r.out.contains("Prescott kernel (OPENBLAS_CORETYPE=Prescott)"), r.out.constData());
    }

    // What happens on a CPU that OpenBLAS does not know (Emerald Rapids: Prescott), emulated: `fone` sets
    // OPENBLAS_CORETYPE and starts again, and the kernel really is the better one.
    void a_fallback_kernel_is_replaced_before_libtorch_runs() {
        if (!fone::cpu_features().avx2) QSKIP("this CPU has no AVX2: there is nothing better than SSE");
        const auto r = run_fone({"--version"}, {}, 300000,
                                {"OPENBLAS_CORETYPE=", "FONE_PRETEND_OPENBLAS_CORE=Prescott"});
        QCOMPARE(r.code, 0);
        if (r.out.contains("without LibTorch") || r.out.contains("not OpenBLAS")) QSKIP("no OpenBLAS here");
        const std::string expected = *fone::better_blas_kernel(fone::cpu_features(), "Prescott");
        QVERIFY2(r.out.contains(QByteArray::fromStdString(", " + expected + " kernel (OPENBLAS_CORETYPE=")),
                 r.out.constData());
    }

    // OpenMP's waiting threads yield (issue 29): `fone` starts with OMP_WAIT_POLICY=PASSIVE, or with a short
    // spin (GOMP_SPINCOUNT=10000) when the machine was idle at its start (openmp_wait_for_load, whose rule
    // test_cpu_share checks; which one this test meets depends on the suite's load), starting itself again
    // when neither was in its environment (libgomp reads them at load); a user's own OMP_WAIT_POLICY or
    // GOMP_SPINCOUNT wins. --version reports the environment the process started with.
    void openmp_threads_wait_passively_unless_the_user_chose() {
        const auto plain = run_fone({"--version"}, {}, 300000, {"OMP_WAIT_POLICY=", "GOMP_SPINCOUNT="});
        QCOMPARE(plain.code, 0);
        if (plain.out.contains("without LibTorch")) QSKIP("no LibTorch here");
        QVERIFY2(plain.out.contains("; OpenMP wait PASSIVE (fone);") ||
                     plain.out.contains("; OpenMP wait GOMP_SPINCOUNT=10000 (fone);"),
                 plain.out.constData());
        const auto active =
            run_fone({"--version"}, {}, 300000, {"OMP_WAIT_POLICY=ACTIVE", "GOMP_SPINCOUNT="});
        QVERIFY2(active.out.contains("; OpenMP wait ACTIVE (environment);"), active.out.constData());
        const auto spin = run_fone({"--version"}, {}, 300000, {"OMP_WAIT_POLICY=", "GOMP_SPINCOUNT=5000"});
        QVERIFY2(spin.out.contains("; OpenMP wait GOMP_SPINCOUNT=5000 (environment);"), spin.out.constData());
    }

    // --dry-run's threads line says what --threads 0 would choose now, and why; a given count is the flag's.
    void dry_run_explains_the_automatic_threads() {
        const auto autom = run_fone({"train", "--task", "dec-add", "--dry-run", "--json"});
        QCOMPARE(autom.code, 0);
        const QString why = first_line(autom.out)["sources"].toObject()["threads"].toString();
        QVERIFY2(why.startsWith("default; auto now: ") && why.contains(" CPU") &&
                     why.contains("usable (affinity "),
                 qPrintable(why));
        const auto fixed = run_fone({"train", "--task", "dec-add", "--dry-run", "--json", "--threads", "2"});
        QCOMPARE(first_line(fixed.out)["sources"].toObject()["threads"].toString(),
                 QString("flag --threads"));
    }

    // The number commands and --help start without LibTorch (its start-up is ~0.4 s); train loads it.
    void number_commands_do_not_load_libtorch() {
        const auto loads_torch = [](const QStringList& args) {
            const auto r = run_fone(args, {}, 300000, {"LD_DEBUG=files"});
            return r.err.contains("libtorch_cpu.so");
        };
        QVERIFY(!loads_torch({"encode", "1.5"}));
        QVERIFY(!loads_torch({"decode", "0.3,0.9"}));
        QVERIFY(!loads_torch({"parse", "12 pens"}));
        QVERIFY(!loads_torch({"--help"}));
        QVERIFY(loads_torch({"train", "--help"}));
    }

    void help_lists_the_libtorch_commands() {
        const auto r = run_fone({"--help"});
        QCOMPARE(r.code, 0);
        for (const char* c : {"train", "eval", "predict", "generate", "sweep", "reproduce", "export"})
            QVERIFY2(r.out.contains(QByteArray("\n  ") + c + " "), c);
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
