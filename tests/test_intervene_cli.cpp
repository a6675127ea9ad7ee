// `fone analyse patch | knockout` on the bundled demo model (issue 17): turning the answer's clock at the
// digit head changes that place's digit and no other; turning an operand's clock at layer 0 answers as if
// the operand had changed (the same answer as `fone predict` of the changed prompt); a knockout of one
// period at the head breaks that period's place only.
#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include "fone_process.h"

using namespace fone_test;

namespace {

// place -> digit of a `digits_*` array.
QMap<int, int> digits_of(const QJsonArray& digits) {
    QMap<int, int> out;
    for (const auto& d : digits)
        out[d.toObject()["position"].toInt()] = d.toObject()["digit"].toInt();
    return out;
}

}  // namespace

class TestInterveneCli : public QObject {
    Q_OBJECT

    QTemporaryDir store_;
    const QString model_ = QStringLiteral(FONE_SOURCE_DIR "/resources/demo-model");

    QJsonObject fone_json(QStringList args) {
        args << "--run" << model_ << "--runs-dir" << store_.path() << "--threads"
             << "1";
        const Result r = run_fone(args);
        if (r.code != 0) qWarning("%s", r.err.constData());
        return r.code == 0 ? first_line(r.out) : QJsonObject();
    }

    QJsonObject patch(const QStringList& args) {
        return fone_json(QStringList{"analyse", "patch", "--prompt", "123.456+654.321="} + args);
    }

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first");
        QVERIFY(store_.isValid());
    }

    // The figures: the units of 777.777 turned to 3, the hundredths to 0.
    void head_patch_turns_one_place() {
        const QJsonObject units = patch({"--place", "0", "--digit", "3"});
        QCOMPARE(units["before"].toString(), QString("777.777"));
        QCOMPARE(units["after"].toString(), QString("773.777"));
        QCOMPARE(units["layer"].toString(), QString("head"));
        QCOMPARE(patch({"--place", "-2", "--digit", "0"})["after"].toString(), QString("777.707"));
        // Every place's probabilities before and after; only the turned place's digit differs.
        QMap<int, int> before = digits_of(units["digits_before"].toArray());
        const QMap<int, int> after = digits_of(units["digits_after"].toArray());
        QCOMPARE(before.size(), 7);
        QCOMPARE(after[0], 3);
        before[0] = 3;
        QCOMPARE(after, before);
        for (const auto& d : units["digits_after"].toArray())
            QCOMPARE(d.toObject()["probabilities"].toArray().size(), 10);
        // The turned pair keeps its length.
        const QJsonArray p0 = units["pair_before"].toArray(), p1 = units["pair_after"].toArray();
        QVERIFY(std::abs(std::hypot(p0[0].toDouble(), p0[1].toDouble()) -
                         std::hypot(p1[0].toDouble(), p1[1].toDouble())) < 1e-4);
        // Any angle: 3·36° is digit 3's point.
        QCOMPARE(patch({"--place", "0", "--angle", "108"})["after"].toString(), QString("773.777"));
    }

    // The first operand's units turned to 5 in its own FoNE features: the model adds 125.456.
    void operand_patch_at_layer_zero_changes_the_operand() {
        const QJsonObject p = patch({"--place", "0", "--digit", "5", "--layer", "0", "--position", "1"});
        QCOMPARE(p["token"].toString(), QString("[NUM]"));
        QCOMPARE(p["number_before"].toString(), QString("123.456"));
        QCOMPARE(p["number_after"].toString(), QString("125.456"));
        const Result direct =
            run_fone({"predict", "--run", model_, "--runs-dir", store_.path(), "125.456+654.321="});
        QVERIFY2(direct.code == 0, direct.err.constData());
        QCOMPARE(p["after"].toString(), first_line(direct.out)["value"].toString());
        QCOMPARE(p["after"].toString(), QString("779.777"));
    }

    void bad_options_are_one_line() {
        for (const QStringList& args : {QStringList{"--place", "9", "--digit", "1"},
                                        QStringList{"--place", "0", "--digit", "1", "--layer", "7"},
                                        QStringList{"--place", "0", "--digit", "1", "--position", "2"}}) {
            const Result r = run_fone(QStringList{"analyse", "patch", "--prompt", "1+2=", "--run", model_,
                                                  "--runs-dir", store_.path()} +
                                      args);
            QVERIFY2(r.code != 0, qPrintable(args.join(' ')));
            QCOMPARE(r.err.trimmed().count('\n'), 0);
        }
    }

    // Removing the units' pair (period 10) at the head breaks the units and nothing else.
    void knockout_of_one_prompt() {
        const QJsonObject k =
            fone_json({"analyse", "knockout", "--prompt", "123.456+654.321=", "--period", "10"});
        QCOMPARE(k["place"].toInt(), 0);
        QCOMPARE(k["broken"].toArray(), QJsonArray({0}));
        QVERIFY(k["after"].toString() != k["before"].toString());
    }

    // The layer x period map: at the head a period's pair only reads its own place.
    void knockout_map_csv() {
        const QString out = store_.path() + "/knockout";
        const QJsonObject m = fone_json({"analyse", "knockout", "--examples", "30", "--out", out});
        QCOMPARE(m["prompts"].toInt(), 30);
        QFile csv(out + "/knockout.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).trimmed().split('\n');
        const QStringList header = lines[0].split(',');
        QCOMPARE(lines.size(), 1 + 4 * 7);  // input, block 1, block 2, head x 7 periods
        int head_rows = 0;
        for (const QString& line : lines.mid(1)) {
            const QStringList f = line.split(',');
            if (f[0] != "head") continue;
            ++head_rows;
            for (int c = 8; c < f.size(); ++c)
                if (header[c] != "changed_at_" + f[2]) QCOMPARE(f[c].toDouble(), 0.0);
        }
        QCOMPARE(head_rows, 7);
#ifdef FONE_WITH_PLOTS
        QVERIFY(QFile::exists(out + "/knockout.png"));
#endif
    }
};

QTEST_GUILESS_MAIN(TestInterveneCli)
#include "test_intervene_cli.moc"
