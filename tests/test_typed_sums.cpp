// Typed sums (fone/tasks/typed_sums.h): the shapes' definitions on sums worked out by hand, every drawn
// sum inside its shape and its task's range with an exact answer (recomputed here in int64 thousandths),
// the typed suite (distinct, seeded, independent per shape), the typed training split (the uniform test
// and val of the same seed, no example twice, none of the suite, the weights obeyed, both operand orders),
// the weights' syntax and checks, and the range sentence a visitor gets.
#include <QtTest>

#include <map>
#include <set>
#include <string>

#include "fone/tasks/tasks.h"
#include "fone/tasks/typed_sums.h"

using fone::Decimal;
using fone::Example;
using fone::SumShape;
using fone::TaskKind;
using fone::TaskOptions;

namespace {

Example sum(const std::string& line) {
    return fone::parse_example_line(line);
}

// x·1000 as an integer, from the text (no library arithmetic).
std::int64_t milli(const Decimal& d) {
    std::string frac = d.frac_digits();
    if (frac.size() > 3) throw std::runtime_error("more than 3 decimals: " + d.to_string());
    frac.resize(3, '0');
    return std::stoll((d.int_digits().empty() ? "0" : d.int_digits()) + frac) * (d.negative() ? -1 : 1);
}

TaskOptions typed(TaskKind kind, std::map<std::string, double> weights = {}) {
    TaskOptions t;
    t.kind = kind;
    t.sampling = "typed";
    t.sampling_weights = std::move(weights);
    return t;
}

const TaskKind kTyped[] = {TaskKind::dec_add, TaskKind::int_add, TaskKind::sub};

}  // namespace

class TestTypedSums : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void names_and_shapes_per_task() {
        for (const SumShape s : fone::task_shapes(TaskKind::dec_add))
            QCOMPARE(*fone::shape_named(fone::shape_name(s)), s);
        QVERIFY(!fone::shape_named("Round"));
        QCOMPARE(fone::task_shapes(TaskKind::dec_add).size(), std::size_t{8});
        for (const TaskKind k : {TaskKind::int_add, TaskKind::sub}) {
            const auto shapes = fone::task_shapes(k);
            QCOMPARE(shapes.size(), std::size_t{7});
            QVERIFY(std::find(shapes.begin(), shapes.end(), SumShape::one_decimal) == shapes.end());
        }
        QVERIFY(fone::task_shapes(TaskKind::mul3).empty());
        QVERIFY(!fone::has_typed_sums(TaskKind::long_add));
    }

    // The definitions, on sums checked by hand.
    void definitions_data() {
        QTest::addColumn<int>("task");
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("shapes");  // every shape the sum has, besides uniform
        const int dec = static_cast<int>(TaskKind::dec_add), sub = static_cast<int>(TaskKind::sub),
                  add = static_cast<int>(TaskKind::int_add);
        QTest::newRow("500+500") << dec << "500+500=1000"
                                 << "round equal carry";
        QTest::newRow("250+250") << dec << "250+250=500"
                                 << "round equal carry";
        QTest::newRow("30+700") << dec << "30+700=730"
                                << "round mixed";
        QTest::newRow("100+23") << dec << "100+23=123"
                                << "mixed";
        QTest::newRow("0.5+0.25") << dec << "0.5+0.25=0.75"
                                  << "short mixed";
        QTest::newRow("0.5+0.5") << dec << "0.5+0.5=1"
                                 << "short one_decimal equal carry";
        QTest::newRow("999.999+0.001") << dec << "999.999+0.001=1000"
                                       << "carry mixed";
        QTest::newRow("123.4+5") << dec << "123.4+5=128.4"
                                 << "mixed";
        QTest::newRow("123.4+5.6") << dec << "123.4+5.6=129"
                                   << "one_decimal mixed carry";
        QTest::newRow("12.75+7.25") << dec << "12.75+7.25=20"
                                    << "carry mixed";
        QTest::newRow("0+123.4") << dec << "0+123.4=123.4"
                                 << "zeros mixed";
        QTest::newRow("0+0") << dec << "0+0=0"
                             << "short equal zeros";
        QTest::newRow("uniform") << dec << "123.456+654.321=777.777"
                                 << "";
        QTest::newRow("15+990") << dec << "15+990=1005"
                                << "mixed";  // 15: no trailing zero, not round
        QTest::newRow("100+900") << dec << "100+900=1000"
                                 << "round carry";
        QTest::newRow("120000+3") << add << "120000+3=120003"
                                  << "mixed";
        QTest::newRow("120000+990000") << add << "120000+990000=1110000"
                                       << "round";
        QTest::newRow("1000-1") << sub << "1000-1=999"
                                << "carry mixed";
        QTest::newRow("500-250") << sub << "500-250=250"
                                 << "round carry";
        QTest::newRow("7-7") << sub << "7-7=0"
                             << "short equal";
        QTest::newRow("250-0") << sub << "250-0=250"
                               << "zeros mixed";
        QTest::newRow("99-11") << sub << "99-11=88"
                               << "short";
    }
    void definitions() {
        QFETCH(int, task);
        QFETCH(QString, line);
        QFETCH(QString, shapes);
        const TaskKind kind = static_cast<TaskKind>(task);
        const QStringList want = shapes.split(' ', Qt::SkipEmptyParts);
        for (const SumShape s : fone::task_shapes(kind)) {
            const QString name = QString::fromStdString(fone::shape_name(s));
            const bool expected = s == SumShape::uniform || want.contains(name);
            QVERIFY2(fone::has_shape(kind, sum(line.toStdString()), s) == expected,
                     qPrintable(line + ": " + name));
        }
    }

    void sums_outside_the_task_have_no_shape() {
        for (const char* line : {"1000+1=1001", "0.0001+1=1.0001", "5-7=-2", "3*4=12", "-1+2=1"})
            QVERIFY2(!fone::has_shape(TaskKind::dec_add, sum(line), SumShape::uniform), line);
        QVERIFY(!fone::has_shape(TaskKind::sub, sum("5-7=-2"), SumShape::uniform));  // a >= b
        QVERIFY(!fone::has_shape(TaskKind::int_add, sum("1.5+2=3.5"), SumShape::uniform));
        QVERIFY(!fone::has_shape(TaskKind::mul3, sum("3*4=12"), SumShape::uniform));
    }

    // Every drawn sum has its shape, lies inside the task's range, and has the exact answer.
    void draws_have_their_shape() {
        for (const TaskKind kind : kTyped) {
            std::mt19937_64 rng(7);
            const std::int64_t max =
                kind == TaskKind::sub ? 99999000 : 999999 * (kind == TaskKind::dec_add ? 1 : 1000);
            for (const SumShape s : fone::task_shapes(kind)) {
                std::set<std::string> distinct;
                int swapped = 0;
                for (int i = 0; i < 2000; ++i) {
                    const Example e = fone::draw_shape(kind, s, rng);
                    const QString what = QString::fromStdString(fone::shape_name(s) + ": " + e.line());
                    QVERIFY2(fone::has_shape(kind, e, s), qPrintable(what));
                    const std::int64_t a = milli(e.operands[0]), b = milli(e.operands[1]);
                    QVERIFY2(a >= 0 && b >= 0 && a <= max && b <= max, qPrintable(what));
                    if (kind != TaskKind::dec_add) QVERIFY2(a % 1000 == 0 && b % 1000 == 0, qPrintable(what));
                    if (kind == TaskKind::sub) {
                        QVERIFY2(a >= b, qPrintable(what));
                        QCOMPARE(milli(e.answer), a - b);
                    } else {
                        QCOMPARE(milli(e.answer), a + b);
                        swapped += a > b;
                    }
                    distinct.insert(e.line());
                }
                QVERIFY2(distinct.size() > 200, qPrintable(QString::fromStdString(fone::shape_name(s))));
                if (kind != TaskKind::sub && s != SumShape::equal)  // both orders, as people type them
                    QVERIFY2(swapped > 600 && swapped < 1400, qPrintable(QString::number(swapped)));
            }
        }
    }

    void suite_is_distinct_seeded_and_independent_per_shape() {
        const auto suite = fone::typed_suite(TaskKind::dec_add);
        QCOMPARE(suite.shapes.size(), std::size_t{8});
        for (const auto& [shape, examples] : suite.shapes) {
            QCOMPARE(examples.size(), fone::kTypedSuitePerShape);
            std::set<std::uint64_t> ids;
            for (const Example& e : examples) {
                QVERIFY(fone::has_shape(TaskKind::dec_add, e, shape));
                ids.insert(fone::sum_id(TaskKind::dec_add, e));
            }
            QCOMPARE(ids.size(), examples.size());
        }
        const auto again = fone::typed_suite(TaskKind::dec_add);
        const auto small = fone::typed_suite(TaskKind::dec_add, 10);
        const auto other = fone::typed_suite(TaskKind::dec_add, 10, 99);
        for (std::size_t i = 0; i < suite.shapes.size(); ++i) {
            QVERIFY(suite.shapes[i].second == again.shapes[i].second);
            // The first ten of each shape do not depend on how many are drawn.
            QVERIFY(std::equal(small.shapes[i].second.begin(), small.shapes[i].second.end(),
                               suite.shapes[i].second.begin()));
            QVERIFY(small.shapes[i].second != other.shapes[i].second);
        }
        // A shape with fewer distinct sums than asked for: dec-add has 99 round numbers, 4,950 pairs.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fone::typed_suite(TaskKind::dec_add, 5000));
    }

    void typed_training_split() {
        for (const TaskKind kind : kTyped) {
            TaskOptions uniform;
            uniform.kind = kind;
            const auto u = fone::generate_splits(uniform, 3000, 300, 500, 11);
            const auto t = fone::generate_splits(typed(kind), 3000, 300, 500, 11);
            QVERIFY(t.test == u.test);  // the paper's test and val, example for example
            QVERIFY(t.val == u.val);
            QCOMPARE(t.train.size(), std::size_t{3000});
            std::set<std::uint64_t> ids;
            for (const auto* split : {&t.train, &t.val, &t.test})
                for (const Example& e : *split)
                    QVERIFY2(ids.insert(fone::sum_id(kind, e)).second, e.line().c_str());
            for (const auto& [shape, examples] : fone::typed_suite(kind).shapes)
                for (const Example& e : examples)
                    QVERIFY2(!ids.count(fone::sum_id(kind, e)), e.line().c_str());
            // Determinism, and a larger train split only appends.
            const auto bigger = fone::generate_splits(typed(kind), 4000, 300, 500, 11);
            QVERIFY(std::equal(t.train.begin(), t.train.end(), bigger.train.begin()));
            QVERIFY(bigger.test == t.test);
        }
    }

    // The share of each shape follows its weight (a uniform draw is almost never one of these shapes).
    void typed_training_follows_the_weights() {
        const auto count = [](const std::vector<Example>& train, SumShape shape) {
            return std::count_if(train.begin(), train.end(), [&](const Example& e) {
                return fone::has_shape(TaskKind::dec_add, e, shape);
            });
        };
        const auto one = fone::generate_splits(typed(TaskKind::dec_add, {{"one_decimal", 1}, {"uniform", 3}}),
                                               8000, 0, 100, 3);
        QVERIFY2(std::abs(count(one.train, SumShape::one_decimal) - 2000) < 150,
                 qPrintable(QString::number(count(one.train, SumShape::one_decimal))));
        const auto zeros =
            fone::generate_splits(typed(TaskKind::dec_add, {{"zeros", 1}, {"uniform", 1}}), 4000, 0, 100, 3);
        QVERIFY2(std::abs(count(zeros.train, SumShape::zeros) - 2000) < 130,
                 qPrintable(QString::number(count(zeros.train, SumShape::zeros))));
        // Only round sums: 4,950 pairs of round numbers, 500 of them in the suite.
        const auto round = fone::generate_splits(typed(TaskKind::dec_add, {{"round", 1}}), 4000, 0, 10, 3);
        for (const Example& e : round.train)
            QVERIFY2(fone::has_shape(TaskKind::dec_add, e, SumShape::round), e.line().c_str());
        try {
            fone::generate_splits(typed(TaskKind::dec_add, {{"round", 1}}), 4500, 0, 10, 3);
            QFAIL("4,500 round sums are more than there are");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("ran out"), e.what());
        }
        // A shape that runs out hands its share to the others.
        const auto both =
            fone::generate_splits(typed(TaskKind::dec_add, {{"round", 1}, {"short", 1}}), 9000, 0, 10, 3);
        QCOMPARE(both.train.size(), std::size_t{9000});
    }

    void weights_syntax_and_checks() {
        const auto w = fone::parse_shape_weights("round=0.2,uniform=3");
        QCOMPARE(w.size(), std::size_t{2});
        QCOMPARE(w.at("round"), 0.2);
        for (const char* bad : {"", "round", "round=", "round=x", "round=1x", "=1"})
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fone::parse_shape_weights(bad));
        fone::validate_shape_weights(TaskKind::dec_add, {});
        fone::validate_shape_weights(TaskKind::dec_add, w);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 fone::validate_shape_weights(TaskKind::int_add, {{"one_decimal", 1}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 fone::validate_shape_weights(TaskKind::dec_add, {{"round", -1}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 fone::validate_shape_weights(TaskKind::dec_add, {{"round", 0}}));
        TaskOptions bad = typed(TaskKind::mul3);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fone::validate_task(bad));
        bad = typed(TaskKind::dec_add);
        bad.sampling = "shaped";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fone::validate_task(bad));
    }

    // The range's ends (issue 28): off by default, on when named. Definitions on sums checked by hand.
    void edges_definition() {
        const std::pair<const char*, bool> dec[] = {{"999.999+999.999=1999.998", true},
                                                    {"999.999+0=999.999", true},
                                                    {"0+0=0", true},
                                                    {"0+999.999=999.999", true},
                                                    {"999.999+0.001=1000", true},
                                                    {"500+500=1000", true},
                                                    {"999+1=1000", true},
                                                    {"0.999+0.001=1", true},
                                                    {"99.999+900.001=1000", true},
                                                    {"999.991+5=1004.991", true},
                                                    {"0.5+0.5=1", true},
                                                    {"123.456+654.321=777.777", false},
                                                    {"250+250=500", false},
                                                    {"999.89+1=1000.89", false},
                                                    {"998.999+0.01=999.009", false},
                                                    {"999.9+0.1=1000", true},
                                                    {"999.95+0.999=1000.949", true},
                                                    {"909+1=910", false}};
        for (const auto& [line, edge] : dec)
            QVERIFY2(fone::has_shape(TaskKind::dec_add, sum(line), SumShape::edges) == edge, line);
        QVERIFY(fone::has_shape(TaskKind::int_add, sum("999999+1=1000000"), SumShape::edges));
        QVERIFY(fone::has_shape(TaskKind::sub, sum("1000-1=999"), SumShape::edges));  // 1 + 999 = 1000
        QVERIFY(!fone::has_shape(TaskKind::sub, sum("5000-1=4999"), SumShape::edges));
        QCOMPARE(*fone::shape_named("edges"), SumShape::edges);
    }

    // Every drawn edge sum has the shape, lies in the range, has the exact answer; operands in both orders.
    void edges_draws() {
        for (const TaskKind kind : kTyped) {
            std::mt19937_64 rng(5);
            const std::int64_t max = kind == TaskKind::sub       ? 99999000
                                     : kind == TaskKind::dec_add ? 999999
                                                                 : 999999000;
            std::set<std::string> distinct;
            int swapped = 0, at_max = 0;
            for (int i = 0; i < 3000; ++i) {
                const Example e = fone::draw_shape(kind, SumShape::edges, rng);
                QVERIFY2(fone::has_shape(kind, e, SumShape::edges), e.line().c_str());
                const std::int64_t a = milli(e.operands[0]), b = milli(e.operands[1]);
                QVERIFY2(a >= 0 && b >= 0 && a <= max && b <= max, e.line().c_str());
                QCOMPARE(milli(e.answer), kind == TaskKind::sub ? a - b : a + b);
                if (kind == TaskKind::sub) QVERIFY2(a >= b, e.line().c_str());
                swapped += a > b;
                at_max += a == max || b == max;
                distinct.insert(e.line());
            }
            QVERIFY2(distinct.size() > 1000, qPrintable(QString::number(distinct.size())));
            QVERIFY2(at_max > 450, qPrintable(QString::number(at_max)));  // the largest operand is common
            if (kind != TaskKind::sub)
                QVERIFY2(swapped > 1100 && swapped < 1900, qPrintable(QString::number(swapped)));
        }
    }

    // Off by default: not a shape of the suite nor of the default mixture, and a weight of 0 draws exactly
    // the split of before; named, it takes its share.
    void edges_off_unless_named() {
        for (const TaskKind kind : kTyped) {
            const auto shapes = fone::task_shapes(kind);
            QVERIFY(std::find(shapes.begin(), shapes.end(), SumShape::edges) == shapes.end());
            QCOMPARE(fone::training_shapes(kind).back(), SumShape::edges);
            QCOMPARE(fone::training_shapes(kind).size(), shapes.size() + 1);
            QVERIFY(!fone::default_shape_weights(kind, 51200).count("edges"));
        }
        QVERIFY(fone::training_shapes(TaskKind::mul3).empty());
        auto weights = fone::default_shape_weights(TaskKind::dec_add, 4000);
        const auto plain = fone::generate_splits(typed(TaskKind::dec_add), 4000, 100, 100, 9);
        weights["edges"] = 0;
        QVERIFY(fone::generate_splits(typed(TaskKind::dec_add, weights), 4000, 100, 100, 9).train ==
                plain.train);
        fone::validate_shape_weights(TaskKind::sub, {{"edges", 1}});
        const auto half =
            fone::generate_splits(typed(TaskKind::dec_add, {{"edges", 1}, {"uniform", 1}}), 4000, 0, 100, 3);
        const auto edges = std::count_if(half.train.begin(), half.train.end(), [](const Example& e) {
            return fone::has_shape(TaskKind::dec_add, e, SumShape::edges);
        });
        QVERIFY2(std::abs(edges - 2000) < 150, qPrintable(QString::number(edges)));
    }

    void range_in_plain_words() {
        QCOMPARE(fone::task_range_text(TaskKind::dec_add),
                 std::string("numbers from 0 to 999.999, with up to three decimals"));
        QCOMPARE(fone::task_range_text(TaskKind::int_add), std::string("whole numbers from 0 to 999999"));
        for (const char* fine : {"500+500=", "250+250=", "100+23=", "0.5+0.25=", "999.999+0.001=", "123.4+5=",
                                 " 1 + 2 = ", "0+0="})
            QVERIFY2(fone::outside_task_range(TaskKind::dec_add, fine).empty(), fine);
        const std::map<std::string, std::string> refused{
            {"1000+1=", "1000 is larger than 999.999"},
            {"0.0001+1=", "0.0001 has 4 decimals, more than three"},
            {"-5+3=", "-5 is below 0"},
            {"5-3=", "This model adds numbers from 0 to 999.999"},
            {"hello", "type a sum such as 0.5+0.25="},
            {"1+2+3=", "This model adds"},
            {"1/3=", "1/3 is a division: its decimals never end"},
            {"1/4=", "1/4 is a division. This model adds"},
            {"2.5/0.5=", "2.5/0.5 is a division. This model adds"},
            {"0.1/0.3=", "0.1/0.3 is a division: its decimals never end"},
            {"7/0=", "7/0 divides by zero"},
            {"3*4=", "3*4 is a multiplication"}};
        for (const auto& [prompt, says] : refused) {
            const std::string why = fone::outside_task_range(TaskKind::dec_add, prompt);
            QVERIFY2(why.find(says) != std::string::npos, (prompt + " -> " + why).c_str());
        }
        QVERIFY(fone::outside_task_range(TaskKind::sub, "1000-1=").empty());
        QVERIFY(fone::outside_task_range(TaskKind::sub, "1-1000=").find("below 0") != std::string::npos);
        QVERIFY(fone::outside_task_range(TaskKind::int_add, "1.5+2=").find("not a whole number") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestTypedSums)
#include "test_typed_sums.moc"
