// `fone analyse` as a user runs it: the files it writes (exact CSV headers, values worked out by hand), its
// JSON summary line, and one-line errors for bad input.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "fone_process.h"

using fone_test::first_line;
using fone_test::run_fone;

namespace {

QStringList read_lines(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QStringList lines = QString::fromUtf8(f.readAll()).split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty()) lines.removeLast();
    return lines;
}

void write_text(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

// PNG files start with these eight bytes.
bool is_png(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && f.read(8) == QByteArray("\x89PNG\r\n\x1a\n", 8);
}

// A failure is a non-zero exit (not a crash) with one line on stderr.
void expect_one_line_error(const QStringList& args, const QString& needle) {
    const auto r = run_fone(args);
    QVERIFY2(r.code > 0, qPrintable(args.join(' ') + " gave " + QString::number(r.code)));
    const QString err = QString::fromUtf8(r.err).trimmed();
    QVERIFY2(err.contains(needle, Qt::CaseInsensitive), qPrintable(err));
    QCOMPARE(err.count('\n'), 0);
}

}  // namespace

class TestAnalyseCli : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

  private Q_SLOTS:
    void spectrum_of_the_encoder() {
        const QString out = dir_.filePath("enc");
        const auto r = run_fone({"analyse", "spectrum", "--numbers", "1000", "--out", out});
        QCOMPARE(r.code, 0);
        const QJsonObject s = first_line(r.out);
        const QJsonArray spikes = s["top_spikes"].toArray();
        QCOMPARE(spikes.size(), 3);  // 0..999 fits m = 3: periods 10, 100, 1000 and nothing else
        QList<double> periods;
        for (const auto& v : spikes) {
            periods << v.toObject()["period"].toDouble();
            QVERIFY(std::abs(v.toObject()["magnitude"].toDouble() - std::sqrt(2.0)) < 1e-12);
        }
        std::sort(periods.begin(), periods.end());
        QCOMPARE(periods, (QList<double>{10, 100, 1000}));
        const QStringList lines = read_lines(out + "/spectrum.csv");
        QCOMPARE(lines.size(), 502);  // header + k = 0..500
        QCOMPARE(lines[0], QString("k,period,magnitude"));
        QVERIFY(lines[101].startsWith("100,10,1.41421356237"));
#ifdef FONE_WITH_PLOTS
        QVERIFY(is_png(out + "/spectrum.png"));
#endif
    }

    void spectrum_periods_follow_the_step() {
        // 0, 0.5, ..., 49.5 fits m = 2, n = 1: periods 1, 10, 100, i.e. 2, 20 and 200 rows. The period column
        // is in number units: k = 50 is period 100/50 rows · 0.5 = 1, k = 5 is 20 rows · 0.5 = 10.
        const QString out = dir_.filePath("step");
        const auto r =
            run_fone({"analyse", "spectrum", "--numbers", "100", "--step", "0.5", "--out", out, "--no-png"});
        QCOMPARE(r.code, 0);
        const QStringList lines = read_lines(out + "/spectrum.csv");
        QVERIFY(lines[51].startsWith("50,1,"));
        QVERIFY(lines[6].startsWith("5,10,"));
        QVERIFY(!QFile::exists(out + "/spectrum.png"));
    }

    void spectrum_of_csv_layers() {
        // Two layers over 20 numbers: cos of period 10 (k = 2) and 3·cos of period 4 (k = 5).
        QByteArray a = "number,v\n", b = "number,v\n";
        for (int n = 0; n < 20; ++n) {
            a +=
                QByteArray::number(n) + "," + QByteArray::number(std::cos(2 * M_PI * n / 10), 'g', 17) + "\n";
            b += QByteArray::number(n) + "," + QByteArray::number(3 * std::cos(2 * M_PI * n / 4), 'g', 17) +
                 "\n";
        }
        write_text(dir_.filePath("a.csv"), a);
        write_text(dir_.filePath("b.csv"), b);
        const QString out = dir_.filePath("layers");
        const auto r = run_fone({"analyse", "spectrum", "--source", "csv", "--input", dir_.filePath("a.csv"),
                                 "--input", dir_.filePath("b.csv"), "--layer", "0", "--out", out});
        QCOMPARE(r.code, 0);
        const QJsonObject top = first_line(r.out)["top_spikes"].toArray()[0].toObject();
        QCOMPARE(top["k"].toInt(), 2);
        QCOMPARE(top["period"].toDouble(), 10.0);
        const QStringList layers = read_lines(out + "/spectrum_layers.csv");
        QCOMPARE(layers[0], QString("layer,k,period,magnitude"));
        QCOMPARE(layers.size(), 1 + 2 * 11);
        QVERIFY(layers.contains("b,5,4,3"));
#ifdef FONE_WITH_PLOTS
        QVERIFY(is_png(out + "/spectrum_heatmap.png"));
#endif
        write_text(dir_.filePath("uneven.csv"), "0,1\n1,2\n3,1\n");
        expect_one_line_error(
            {"analyse", "spectrum", "--source", "csv", "--input", dir_.filePath("uneven.csv"), "--out", out},
            "evenly spaced");
    }

    void pca_of_the_circle_of_ten() {
        const QString out = dir_.filePath("pca");
        const auto r = run_fone({"analyse", "pca", "--numbers", "10", "--out", out});
        QCOMPARE(r.code, 0);
        const QJsonArray ratio = first_line(r.out)["explained_variance_ratio"].toArray();
        QVERIFY(std::abs(ratio[0].toDouble() - 0.5) < 1e-12 && std::abs(ratio[1].toDouble() - 0.5) < 1e-12);
        const QStringList lines = read_lines(out + "/pca.csv");
        QCOMPARE(lines[0], QString("number,pc1,pc2,pc3"));
        QCOMPARE(lines.size(), 11);
        for (int i = 1; i <= 10; ++i) {
            const QStringList cells = lines[i].split(',');
            QCOMPARE(cells[0], QString::number(i - 1));
            QVERIFY(std::abs(std::hypot(cells[1].toDouble(), cells[2].toDouble()) - 1.0) <
                    1e-9);  // the unit circle
        }
        QCOMPARE(read_lines(out + "/pca_variance.csv")[0], QString("component,variance,explained_ratio"));
        QCOMPARE(run_fone({"analyse", "pca", "--numbers", "100", "--color-mod", "7", "--out", out}).code, 0);
    }

    void probe_of_the_encoder() {
        const QString out = dir_.filePath("probe");
        const auto r = run_fone({"analyse", "probe", "--numbers", "1000", "--mod", "10,100", "--out", out});
        QCOMPARE(r.code, 0);
        const QStringList lines = read_lines(out + "/probe.csv");
        QCOMPARE(lines[0], QString("T,accuracy,chance,train,test"));
        QVERIFY(lines[1].startsWith("10,1,"));
        QVERIFY(lines[2].startsWith("100,1,"));
        QVERIFY(lines[1].endsWith(",750,250"));
    }

    void circles_of_4_17() {
        const QString out = dir_.filePath("circles");
        const auto r = run_fone({"analyse", "circles", "4.17", "--out", out});
        QCOMPARE(r.code, 0);
        const QJsonObject c = first_line(r.out);
        QCOMPARE(c["number"].toString(), QString("4.17"));
        const QJsonArray circles = c["circles"].toArray();  // m = 1, n = 2: periods 0.1, 1, 10
        QCOMPARE(circles.size(), 3);
        QCOMPARE(circles[2].toObject()["period"].toString(), QString("10"));
        QCOMPARE(circles[2].toObject()["residue"].toString(), QString("4.17"));
        QCOMPARE(circles[2].toObject()["digit"].toInt(), 4);
        QCOMPARE(circles[0].toObject()["residue"].toString(), QString("0.07"));
        QCOMPARE(c["markers"].toArray().size(), 10);
        QVERIFY(QFile::exists(out + "/circles.json"));
#ifdef FONE_WITH_PLOTS
        QVERIFY(is_png(out + "/circles.png"));
#endif
        const auto neg = first_line(run_fone({"analyse", "circles", "--base", "2", "--", "-5"}).out);
        QCOMPARE(neg["circles"].toArray().size(), 3);  // 5 = 101 in base 2
        QCOMPARE(neg["circles"].toArray()[0].toObject()["residue"].toString(), QString("1"));  // -5 mod 2
    }

    void hidden_state_on_the_circles() {
        // 3·φ(d) for the digits 7, 2, 4 of slots 0..2 (m = 1, n = 2) and a negative sign logit: 4.27.
        QStringList values;
        for (int d : {7, 2, 4})
            values << QString::number(3 * std::cos(2 * M_PI * d / 10), 'g', 17)
                   << QString::number(3 * std::sin(2 * M_PI * d / 10), 'g', 17);
        values << "-2";
        const QString out = dir_.filePath("hidden");
        const auto r = run_fone({"analyse", "hidden", "-m", "1", "-n", "2", "--hidden", values.join(','),
                                 "--truth", "4.17", "--out", out});
        QCOMPARE(r.code, 0);
        const QJsonObject h = first_line(r.out);
        QCOMPARE(h["predicted"].toString(), QString("4.27"));
        const QJsonArray pairs = h["pairs"].toArray();
        QCOMPARE(pairs.size(), 3);
        QCOMPARE(pairs[1].toObject()["wrong"].toBool(), true);
        QCOMPARE(pairs[1].toObject()["truth"].toInt(), 1);
        QVERIFY(std::abs(pairs[0].toObject()["length"].toDouble() - 3.0) < 1e-6);  // floats
        QVERIFY(QFile::exists(out + "/hidden.json"));
#ifdef FONE_WITH_PLOTS
        QVERIFY(is_png(out + "/hidden.png"));
#endif
        // The same as a JSON array on stdin.
        const auto j = run_fone({"analyse", "hidden", "-m", "1", "-n", "2", "--hidden-file", "-"},
                                ("[" + values.join(',') + "]").toUtf8());
        QCOMPARE(first_line(j.out)["predicted"].toString(), QString("4.27"));
        expect_one_line_error({"analyse", "hidden", "-m", "1", "-n", "2", "--hidden", "1,2,x"},
                              "not a number");
        expect_one_line_error({"analyse", "hidden", "--hidden", "1,2"}, "hidden state has 2 entries");
    }

    void tokens_of_a_table() {
        write_text(dir_.filePath("t.csv"), "city,population\nOslo,\"709,037\"\nRome,-12.5\n");
        const auto r = run_fone({"analyse", "tokens", "--csv", dir_.filePath("t.csv")});
        QCOMPARE(r.code, 0);
        const QJsonObject t = first_line(r.out)["tables"].toArray()[0].toObject();
        QCOMPARE(t["numbers"].toInt(), 2);
        QCOMPARE(t["text_tokens"].toInt(), 4);
        // 709,037 and -12.5: 7 + 5 characters; subword 709|,|037 and -|12|.|5.
        QCOMPARE(t["number_tokens"].toObject()["fone"].toInt(), 2);
        QCOMPARE(t["number_tokens"].toObject()["digit"].toInt(), 12);
        QCOMPARE(t["number_tokens"].toObject()["subword"].toInt(), 7);
        QCOMPARE(t["total_tokens"].toObject()["digit"].toInt(), 16);
    }

    void errors_of_the_mod5_table() {
        write_text(dir_.filePath("p.csv"),
                   "predicted,actual\n934.03,934.585\n3.009,558.509\n912.311,917.366\n6201.003,1756.008\n"
                   "1240.34,1290.84\n5,5\n");
        const auto r = run_fone({"analyse", "errors", "--input", dir_.filePath("p.csv")});
        QCOMPARE(r.code, 0);
        const QJsonObject e = first_line(r.out);
        QCOMPARE(e["total"].toInt(), 6);
        QCOMPARE(e["wrong"].toInt(), 5);
        QCOMPARE(e["all_off_by_5"].toInt(), 5);
        QCOMPARE(e["off_by_5_digits"].toInt(), 17);
    }

    void dump_writes_what_source_csv_reads() {
        // 0, 0.5, 1: m = 1, n = 1, periods 10 and 1, the sign entry last; values worked out by hand.
        const QString out = dir_.filePath("dump");
        const auto r = run_fone({"analyse", "dump", "--numbers", "3", "--step", "0.5", "--out", out});
        QCOMPARE(r.code, 0);
        const QJsonObject j = first_line(r.out);
        QCOMPARE(j["analysis"].toString(), QString("dump"));
        QCOMPARE(j["numbers"].toInt(), 3);
        QCOMPARE(j["step"].toDouble(), 0.5);
        const QJsonArray layers = j["layers"].toArray();
        QCOMPARE(layers.size(), 1);
        QCOMPARE(layers[0].toObject()["name"].toString(), QString("FoNE encoder"));
        QCOMPARE(layers[0].toObject()["dims"].toInt(), 5);
        const QStringList lines = read_lines(out + "/layer-0.csv");
        QCOMPARE(lines.size(), 4);
        QCOMPARE(lines[0], QString("number,d0,d1,d2,d3,d4"));
        QCOMPARE(lines[1], QString("0,1,0,1,0,0"));  // cos 0, sin 0 for T = 1 and T = 10
        // 0.5: T = 1 gives (cos π, sin π) = (-1, 1.22e-16); T = 10 gives (cos π/10, sin π/10).
        const QStringList half = lines[2].split(',');
        QCOMPARE(half[0], QString("0.5"));
        QCOMPARE(half[1].toDouble(), -1.0);
        QVERIFY(std::abs(half[2].toDouble()) < 1e-15);
        QCOMPARE(half[3].toDouble(), std::cos(M_PI / 10));  // shortest round-trip text: exact
        QCOMPARE(half[4].toDouble(), std::sin(M_PI / 10));
        // The dump is a --source csv input: the same spectrum as from the encoder.
        const auto a = first_line(run_fone({"analyse", "spectrum", "--numbers", "3", "--step", "0.5", "--out",
                                            out + "/a", "--no-png"})
                                      .out);
        const auto b = first_line(run_fone({"analyse", "spectrum", "--source", "csv", "--input",
                                            out + "/layer-0.csv", "--out", out + "/b", "--no-png"})
                                      .out);
        QCOMPARE(a["top_spikes"].toArray(), b["top_spikes"].toArray());
        expect_one_line_error(
            {"analyse", "dump", "--source", "csv", "--input", out + "/layer-0.csv", "--out", out},
            "encoder or run");
    }

    void bad_input_is_a_one_line_error() {
        const QString out = dir_.filePath("bad");
        expect_one_line_error({"analyse", "spectrum", "--numbers", "1", "--out", out}, "at least 2");
        expect_one_line_error({"analyse", "spectrum", "--source", "csv", "--out", out}, "--input");
        expect_one_line_error({"analyse", "spectrum", "--numbers", "100", "-m", "1", "--out", out},
                              "integer digits");
        expect_one_line_error({"analyse", "circles", "4.1.7"}, "4.1.7");
        expect_one_line_error({"analyse", "tokens", "--csv", dir_.filePath("missing.csv")},
                              "missing.csv: missing");
        expect_one_line_error({"analyse", "probe", "--numbers", "100", "--mod", "1", "--out", out},
                              "at least 2");
        const auto run_source = run_fone({"analyse", "spectrum", "--source", "run", "--out", out});
        QVERIFY(run_source.code > 0);
    }
};

QTEST_GUILESS_MAIN(TestAnalyseCli)
#include "test_analyse_cli.moc"
