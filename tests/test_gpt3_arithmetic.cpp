// GPT-3's arithmetic benchmark's problems (fone/tasks/gpt3_arithmetic.h): prompts and answers checked
// against hand-worked examples (negative differences, 1DC's bracket), the distributions of the published
// files (operands on [0, 10^n), about half of the differences negative), and the seed's reproducibility.
#include <QtTest>
#include <set>

#include "fone/tasks/gpt3_arithmetic.h"

using namespace fone;

class TestGpt3Arithmetic : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void ten_tasks_in_the_papers_order() {
        std::vector<std::string> names, lm_eval;
        for (const Gpt3ArithmeticTask& t : gpt3_arithmetic_tasks()) {
            names.emplace_back(t.name);
            lm_eval.emplace_back(t.lm_eval_name);
        }
        QCOMPARE(names, (std::vector<std::string>{"2D+", "2D-", "3D+", "3D-", "4D+", "4D-", "5D+", "5D-",
                                                  "2Dx", "1DC"}));
        QCOMPARE(lm_eval.front(), std::string("arithmetic_2da"));
        QCOMPARE(lm_eval[8], std::string("arithmetic_2dm"));
        QCOMPARE(gpt3_arithmetic_task("arithmetic_4ds").name, std::string_view("4D-"));
        QCOMPARE(gpt3_arithmetic_task("2dx").name, std::string_view("2Dx"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gpt3_arithmetic_task("6D+"));
    }

    // Worked by hand.
    void prompts_and_answers() {
        const Gpt3Problem add = gpt3_problem(gpt3_arithmetic_task("2D+"), {98, 45});
        QCOMPARE(add.question, std::string("What is 98 plus 45?"));
        QCOMPARE(gpt3_context(add, Gpt3PromptStyle::gpt3), std::string("Q: What is 98 plus 45?\n\nA:"));
        QCOMPARE(gpt3_completion(add), std::string(" 143"));
        QCOMPARE(gpt3_context(add, Gpt3PromptStyle::lm_eval),
                 std::string("Question: What is 98 plus 45?\nAnswer:"));
        // a negative difference: 312 - 4075 = -3763
        const Gpt3Problem sub = gpt3_problem(gpt3_arithmetic_task("4D-"), {312, 4075});
        QCOMPARE(sub.question, std::string("What is 312 minus 4075?"));
        QCOMPARE(gpt3_completion(sub), std::string(" -3763"));
        QCOMPARE(gpt3_completion(gpt3_problem(gpt3_arithmetic_task("5D-"), {7, 7})), std::string(" 0"));
        QCOMPARE(gpt3_problem(gpt3_arithmetic_task("2Dx"), {24, 99}).question,
                 std::string("What is 24 times 99?"));
        QCOMPARE(gpt3_problem(gpt3_arithmetic_task("2Dx"), {24, 99}).answer, 2376LL);
        // 1DC: the first two bracketed. (9 + 8) * 2 = 34; (2 - 9) * 3 = -21 (not 2 - 27 = -25); (6 * 0) - 5 =
        // -5
        const Gpt3ArithmeticTask& c = gpt3_arithmetic_task("1DC");
        const Gpt3Problem one = gpt3_problem(c, {9, 8, 2}, {'+', '*'});
        QCOMPARE(one.question, std::string("What is (9 + 8) * 2?"));
        QCOMPARE(gpt3_completion(one), std::string(" 34"));
        QCOMPARE(gpt3_problem(c, {2, 9, 3}, {'-', '*'}).answer, -21LL);
        QCOMPARE(gpt3_completion(gpt3_problem(c, {6, 0, 5}, {'*', '-'})), std::string(" -5"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gpt3_problem(c, {1, 2}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gpt3_problem(gpt3_arithmetic_task("2D+"), {1, 2, 3}));
    }

    void few_shot_prompt() {
        const Gpt3ArithmeticTask& t = gpt3_arithmetic_task("2D+");
        const std::string p = gpt3_prompt({gpt3_problem(t, {1, 2}), gpt3_problem(t, {30, 4})},
                                          gpt3_problem(t, {98, 45}), Gpt3PromptStyle::gpt3);
        QCOMPARE(p, std::string("Q: What is 1 plus 2?\n\nA: 3\n\nQ: What is 30 plus 4?\n\nA: 34\n\n"
                                "Q: What is 98 plus 45?\n\nA:"));
        QCOMPARE(gpt3_prompt({}, gpt3_problem(t, {98, 45}), Gpt3PromptStyle::gpt3),
                 std::string("Q: What is 98 plus 45?\n\nA:"));
    }

    // The published files' distributions: operands on [0, 10^n) (some shorter than n digits), about half of
    // the differences negative (974-1001 of 2,000 in the files), 1DC's three digits and three operators.
    void distributions() {
        for (const char* name : {"2D-", "3D-", "4D-", "5D-"}) {
            const Gpt3ArithmeticTask& t = gpt3_arithmetic_task(name);
            const auto problems = gpt3_arithmetic_problems(t, 2000, 0);
            int negative = 0;
            for (const Gpt3Problem& p : problems)
                negative += p.answer < 0 ? 1 : 0;
            QVERIFY2(negative > 930 && negative < 1070,
                     qPrintable(QString("%1: %2").arg(name).arg(negative)));
        }
        const auto five = gpt3_arithmetic_problems(gpt3_arithmetic_task("5D+"), 2000, 3);
        bool short_operand = false;
        for (const Gpt3Problem& p : five) {
            QVERIFY(p.answer >= 0 && p.answer <= 2 * 99999);
            short_operand |= p.question.find("What is 9999 ") != std::string::npos ||
                             p.question.size() < std::string("What is 10000 plus 10000?").size();
        }
        QVERIFY(short_operand);
        std::set<std::string> operators;
        for (const Gpt3Problem& p : gpt3_arithmetic_problems(gpt3_arithmetic_task("1DC"), 300, 0)) {
            QCOMPARE(p.question.size(), std::string("What is (9 + 8) * 2?").size());
            operators.insert(p.question.substr(11, 1));
            operators.insert(p.question.substr(16, 1));
        }
        QCOMPARE(operators, (std::set<std::string>{"*", "+", "-"}));
    }

    void seeded_and_prefix_stable() {
        const Gpt3ArithmeticTask& t = gpt3_arithmetic_task("3D+");
        const auto a = gpt3_arithmetic_problems(t, 50, 11), b = gpt3_arithmetic_problems(t, 20, 11);
        for (std::size_t i = 0; i < b.size(); ++i)
            QCOMPARE(a[i].question, b[i].question);
        QVERIFY(gpt3_arithmetic_problems(t, 20, 12)[0].question != b[0].question ||
                gpt3_arithmetic_problems(t, 20, 12)[1].question != b[1].question);
        // the tasks draw from streams of their own
        QVERIFY(gpt3_arithmetic_problems(gpt3_arithmetic_task("3D-"), 1, 11)[0].question.find(" minus ") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestGpt3Arithmetic)
#include "test_gpt3_arithmetic.moc"
