// The bundled demo model (resources/demo-model, made by scripts/make-demo-model.sh) still loads with this
// build and still answers: 123.456+654.321 = 777.777, the sums people type (500+500, 0.5+0.25, ...), every
// sum at the edges of its range (999.999+999.999, 0+0, the carries from the top; answers worked out here in
// integer thousandths), and at least 99% exact match on its test split.
// The installed copy (share/fone-workbench/demo-model) is checked by scripts/package.sh --install-check.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "fone_process.h"

using namespace fone_test;

namespace {

// "999.999" -> 999999 thousandths, from the text alone (no library arithmetic).
qint64 thousandths(const QString& x) {
    const QStringList parts = x.split('.');
    const QString frac = (parts.size() > 1 ? parts[1] : QString()).leftJustified(3, '0');
    return parts[0].toLongLong() * 1000 + frac.toLongLong();
}
// 1999998 -> "1999.998", 1000000 -> "1000", 0 -> "0".
QString written(qint64 milli) {
    QString frac = QString::number(milli % 1000).rightJustified(3, '0');
    while (frac.endsWith('0'))
        frac.chop(1);
    return QString::number(milli / 1000) + (frac.isEmpty() ? "" : "." + frac);
}

// The range's ends (issue 28): the largest, 0, nines and the sums whose carry ripples from the top digit,
// each in both orders.
QStringList edge_sums() {
    const QStringList pairs{"999.999+999.999", "999.999+0",       "0+0",           "999.999+0.001",
                            "500+500",         "999+1",           "0.999+0.001",   "99.999+900.001",
                            "9.999+990.001",   "999.9+0.1",       "999.99+0.01",   "999.999+1",
                            "999.999+999",     "999.999+0.999",   "999.999+500",   "999.998+0.002",
                            "999.5+0.5",       "999.999+999.998", "998.999+1.001", "0.001+0",
                            "999+999",         "99.99+900.01",    "9.9+990.1",     "999.001+0.999"};
    QStringList out;
    for (const QString& p : pairs) {
        const QStringList xy = p.split('+');
        for (const auto& [a, b] : {std::pair{xy[0], xy[1]}, std::pair{xy[1], xy[0]}}) {
            const QString line = a + "+" + b + "=" + written(thousandths(a) + thousandths(b));
            if (!out.contains(line)) out << line;
        }
    }
    return out;
}

}  // namespace

class TestDemoModel : public QObject {
    Q_OBJECT

    QTemporaryDir store_;  // an empty store, so that nothing is made in the user's
    const QString model_ = QStringLiteral(FONE_SOURCE_DIR "/resources/demo-model");

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first");
        QVERIFY2(QFile::exists(model_ + "/checkpoint-best.safetensors"), "resources/demo-model is missing");
        QVERIFY2(QDir(model_).entryList({"checkpoint-last*", "*.pt"}).isEmpty(),
                 "the demo ships one checkpoint, in safetensors");
        QVERIFY(QFileInfo(model_ + "/checkpoint-best.safetensors").size() < 2 * 1024 * 1024);  // no optimiser
    }

    void answers_the_readme_example() {
        const Result r =
            run_fone({"predict", "--run", model_, "--runs-dir", store_.path(), "123.456+654.321="});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject p = first_line(r.out);
        QCOMPARE(p["value"].toString(), QString("777.777"));
        // One digit per FoNE slot of the task (3 integer, 3 fractional and the carry), each a distribution.
        const QJsonArray digits = p["digits"].toArray();
        QCOMPARE(digits.size(), 7);
        for (const auto& d : digits) {
            double total = 0;
            for (const auto& q : d.toObject()["probabilities"].toArray())
                total += q.toDouble();
            QVERIFY(std::abs(total - 1.0) < 1e-4);
        }
    }

    // The sums a visitor types (issue 14): round numbers, short ones, carries to a round number.
    void answers_the_sums_people_type() {
        const std::pair<const char*, const char*> sums[] = {
            {"500+500=", "1000"},  {"250+250=", "500"},        {"100+23=", "123"},
            {"0.5+0.25=", "0.75"}, {"999.999+0.001=", "1000"}, {"123.4+5=", "128.4"}};
        for (const auto& [prompt, answer] : sums) {
            const Result r = run_fone({"predict", "--run", model_, "--runs-dir", store_.path(), prompt});
            QVERIFY2(r.code == 0, r.err.constData());
            QCOMPARE(first_line(r.out)["value"].toString(), QString(answer));
        }
    }

    // Every sum at the edges of the range, as a visitor types them to test the limit: all right.
    void answers_the_edges_of_its_range() {
        const QStringList sums = edge_sums();
        QCOMPARE(sums.first(), QString("999.999+999.999=1999.998"));  // the arithmetic above, by hand
        QVERIFY(sums.contains("99.999+900.001=1000") && sums.contains("0+999.999=999.999"));
        QTemporaryDir dir;
        QFile data(dir.filePath("edges.txt"));
        QVERIFY(data.open(QIODevice::WriteOnly));
        data.write((sums.join('\n') + '\n').toUtf8());
        data.close();
        const Result r = run_fone({"eval", "--run", model_, "--runs-dir", store_.path(), "--threads", "1",
                                   "--data", data.fileName(), "--mispredictions", "100"});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject m = first_line(r.out);
        QCOMPARE(m["n"].toInt(), static_cast<int>(sums.size()));
        QVERIFY2(m["exact_match"].toDouble() == 1.0,
                 QJsonDocument(m["mispredictions"].toArray()).toJson(QJsonDocument::Compact).constData());
    }

    void exact_match_on_its_test_split() {
        const Result r = run_fone({"eval", "--run", model_, "--runs-dir", store_.path(), "--threads", "1"});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject m = first_line(r.out);
        QCOMPARE(m["n"].toInt(), 2000);
        QVERIFY2(m["exact_match"].toDouble() >= 0.99,
                 qPrintable(QString::number(m["exact_match"].toDouble())));
    }

    // The demo's real checkpoint damaged three ways (one bit flipped in its header, truncated, not a
    // safetensors file at all): through the CLI, one clear line each, never a crash.
    void damaged_checkpoint_is_one_clear_line() {
        QFile f(model_ + "/checkpoint-best.safetensors");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QByteArray flipped = bytes;
        flipped[12] = char(flipped[12] ^ 0x10);  // inside the JSON header
        const QString dir = store_.path() + "/damaged";
        QVERIFY(QDir().mkpath(dir));
        for (const char* name : {"config.json", "summary.json", "status.json"})
            QVERIFY(QFile::copy(model_ + "/" + name, dir + "/" + name));
        for (const QByteArray& b :
             {flipped, bytes.left(bytes.size() - 100),
              QByteArray("not a safetensors file at all, just text that is long enough")}) {
            QFile out(dir + "/checkpoint-best.safetensors");
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(b);
            out.close();
            const Result r = run_fone({"predict", "--run", dir, "--runs-dir", store_.path(), "1+1="});
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains("checkpoint") && r.err.count('\n') == 1, r.err.constData());
        }
    }

    void dump_does_not_depend_on_the_batch() {
        // `fone analyse dump` runs numbers through the model 256 at a time: 0..299 is a chunk of 256 and one
        // of 44. Number 257 alone (with 258) must give the same hidden state in every layer, to float noise.
        QTemporaryDir out;
        const auto dump = [&](const QString& start, const QString& count, const QString& dir) {
            const Result r = run_fone({"analyse", "dump", "--source", "run", "--run", model_, "--runs-dir",
                                       store_.path(), "--start", start, "--numbers", count, "--out", dir});
            QVERIFY2(r.code == 0, r.err.constData());
        };
        dump("0", "300", out.filePath("all"));
        dump("257", "2", out.filePath("two"));
        for (const QString layer : {"layer-0.csv", "layer-1.csv", "layer-2.csv"}) {
            const auto row = [&](const QString& file, const QString& number) {
                QFile f(file);
                if (!f.open(QIODevice::ReadOnly)) return QStringList();
                for (const QByteArray& line : f.readAll().split('\n'))
                    if (line.startsWith(number.toUtf8() + ',')) return QString(line).split(',');
                return QStringList();
            };
            const QStringList a = row(out.filePath("all/" + layer), "257");
            const QStringList b = row(out.filePath("two/" + layer), "257");
            QVERIFY2(a.size() == 65 && b.size() == 65, qPrintable(layer));  // the number, then 64 values
            for (int k = 1; k < a.size(); ++k)
                QVERIFY2(std::abs(a[k].toDouble() - b[k].toDouble()) < 1e-4, qPrintable(layer + " " + a[k]));
        }
    }

    void is_listed_as_a_finished_run() {
        const Result r = run_fone({"runs", "show", model_});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(first_line(r.out)["status"].toString(), QString("finished"));
    }
};

QTEST_GUILESS_MAIN(TestDemoModel)
#include "test_demo_model.moc"
