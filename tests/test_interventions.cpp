// The geometry and bookkeeping of interventions (fone/analysis/interventions.h) against values worked out
// by hand: a pair turned keeps its length, digit d sits at 2π·d/10, replacing one digit of 123.456, and
// what a knockout changed over three prompts.
#include <QtTest>

#include <cmath>
#include <numbers>

#include "fone/analysis/interventions.h"

using fone::Decimal;
namespace fa = fone::analysis;

namespace {

constexpr double kPi = std::numbers::pi;

Decimal d(const char* text) {
    return Decimal::parse(text);
}

}  // namespace

class TestInterventions : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void pair_length_and_angle() {
        const fa::Pair p{0.0, -2.0};
        QCOMPARE(p.length(), 2.0);
        QVERIFY(std::abs(p.angle() - 1.5 * kPi) < 1e-12);  // [0, 2π), not -π/2
        QVERIFY(std::abs(fa::Pair{1.0, 0.0}.angle()) < 1e-12);
    }

    void turning_keeps_the_length() {
        // (3, 4) has length 5; turned to 90°: (0, 5).
        const fa::Pair t = fa::turned({3.0, 4.0}, kPi / 2);
        QVERIFY(std::abs(t.x) < 1e-12);
        QVERIFY(std::abs(t.y - 5.0) < 1e-12);
        // A zero pair has no length to keep: the unit point.
        const fa::Pair z = fa::turned({0.0, 0.0}, kPi);
        QVERIFY(std::abs(z.x + 1.0) < 1e-12 && std::abs(z.y) < 1e-12);
    }

    void digit_angles() {
        QCOMPARE(fa::digit_angle(0), 0.0);
        QVERIFY(std::abs(fa::digit_angle(3) - 0.6 * kPi) < 1e-12);  // 2π·3/10
        QVERIFY(std::abs(fa::digit_angle(1, 2) - kPi) < 1e-12);
    }

    void replacing_one_digit() {
        QCOMPARE(fa::with_digit(d("123.456"), 0, 5), d("125.456"));
        QCOMPARE(fa::with_digit(d("123.456"), 2, 9), d("923.456"));
        QCOMPARE(fa::with_digit(d("123.456"), -2, 0), d("123.406"));
        QCOMPARE(fa::with_digit(d("123.456"), 3, 7), d("7123.456"));  // a place above the number's digits
        QCOMPARE(fa::with_digit(d("-7"), 1, 2), d("-27"));            // the sign kept
        QCOMPARE(fa::with_digit(d("0.5"), -1, 0), d("0"));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fa::with_digit(d("1"), 0, 10));
    }

    void comparing_answers() {
        // Three prompts: the first unchanged, the second's tens changed, the third's tenths and sign.
        const std::vector<Decimal> before{d("777.777"), d("120"), d("0.5")};
        const std::vector<Decimal> after{d("777.777"), d("150"), d("-0.1")};
        const std::vector<Decimal> truth{d("777.777"), d("150"), d("0.5")};
        const std::vector<int> places{2, 1, 0, -1};
        const fa::AnswerChanges c = fa::compare_answers(before, after, truth, places);
        QCOMPARE(c.prompts, 3);
        QVERIFY(std::abs(c.answers_changed - 2.0 / 3) < 1e-12);
        QVERIFY(std::abs(c.exact_before - 2.0 / 3) < 1e-12);  // 777.777 and 0.5
        QVERIFY(std::abs(c.exact_after - 2.0 / 3) < 1e-12);   // 777.777 and 150
        QCOMPARE(c.place_changed, (std::vector<double>{0.0, 1.0 / 3, 0.0, 1.0 / 3}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fa::compare_answers(before, {d("1")}, {}, places));
    }

    void damage_csv_rows() {
        fa::DamageMap map;
        map.layers = {"input", "head"};
        map.periods = {"0.1", "10"};
        map.places = {-1, 0};
        map.scale = 0.0;
        const std::vector<int> places{0, -1};
        const fa::AnswerChanges none = fa::compare_answers({d("1.5")}, {d("1.5")}, {}, places);
        const fa::AnswerChanges units = fa::compare_answers({d("1.5")}, {d("2.5")}, {}, places);
        map.cells = {{none, units}, {none, none}};
        const QStringList lines = QString::fromStdString(fa::damage_csv(map)).trimmed().split('\n');
        QCOMPARE(lines.size(), 5);
        QCOMPARE(lines[0],
                 QString("layer,period,place,scale,prompts,exact_before,exact_after,answers_changed,"
                         "changed_at_0,changed_at_-1"));
        QCOMPARE(lines[2], QString("input,10,0,0,1,0,0,1,1,0"));
    }
};

QTEST_APPLESS_MAIN(TestInterventions)
#include "test_interventions.moc"
