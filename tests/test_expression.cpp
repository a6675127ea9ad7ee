// The arithmetic grammar (fone/tasks/expression.h): the operator table, dataset lines ("a+b=c": forms,
// signs, Unicode operators, errors) and prompts (numbers as the number parser finds them, operators, "="),
// and the exact answer of an arithmetic prompt. Expected values are written out by hand.
#include <QtTest>
#include <cstring>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fone/numbers/number_parser.h"
#include "fone/tasks/expression.h"

using fone::DatasetError;
using fone::Decimal;
using fone::Example;
using fone::Op;
using fone::PromptTerm;

namespace {

std::int64_t to_int(const Decimal& d) {
    if (d.frac_digit_count() != 0) throw std::runtime_error("not an integer: " + d.to_string());
    return std::stoll(d.to_string());
}

// A prompt's terms as text: numbers canonical, operators by name, "=" as is; joined by spaces.
QString terms_text(const std::vector<PromptTerm>& terms) {
    QStringList words;
    for (const PromptTerm& t : terms)
        words << (t.kind == PromptTerm::Kind::number ? QString::fromStdString(t.number.to_string())
                  : t.kind == PromptTerm::Kind::op ? QString::fromStdString(std::string(fone::op_name(t.op)))
                                                   : QStringLiteral("="));
    return words.join(' ');
}

}  // namespace

class TestExpression : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    // ---- the operator table -----------------------------------------------------------------------
    void operator_names_round_trip() {
        const std::vector<std::string> names = {"+", "-", "*", ",", "mod", "/", "max"};
        QCOMPARE(fone::kOps.size(), names.size());
        for (std::size_t i = 0; i < names.size(); ++i) {
            QCOMPARE(std::string(fone::op_name(fone::kOps[i])), names[i]);
            QVERIFY(fone::op_named(names[i]) == fone::kOps[i]);
        }
        // Stored names are ASCII: the Unicode spellings are read, never stored.
        QVERIFY(!fone::op_named("\xC3\x97"));
        QVERIFY(!fone::op_named("\xE2\x88\x92"));
        QVERIFY(!fone::op_named("\xC3\xB7"));
        // The base operators, every number model's words, are the first five in order.
        for (std::size_t i = 0; i < fone::kBaseOps.size(); ++i)
            QVERIFY(fone::kBaseOps[i] == fone::kOps[i]);
        QVERIFY(!fone::op_named("x"));
        QVERIFY(!fone::op_named(""));
        QVERIFY(!fone::op_named("="));
    }

    // ---- dataset lines ----------------------------------------------------------------------------
    void parses_lines_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("canonical");
        QTest::addColumn<QString>("ops");
        QTest::newRow("add") << "12+40=52"
                             << "12+40=52"
                             << "+";
        QTest::newRow("spaces") << "  12 +\t40 =  52  "
                                << "12+40=52"
                                << "+";
        QTest::newRow("sub") << "7-3=4"
                             << "7-3=4"
                             << "-";
        QTest::newRow("mul") << "6*7=42"
                             << "6*7=42"
                             << "*";
        QTest::newRow("times sign") << "6×7=42"
                                    << "6*7=42"
                                    << "*";
        QTest::newRow("unicode minus op") << "7−3=4"
                                          << "7-3=4"
                                          << "-";
        QTest::newRow("classify") << "1,2,3=1"
                                  << "1,2,3=1"
                                  << ",,";
        QTest::newRow("classify spaces") << "1 , 2 ,3 = 0"
                                         << "1,2,3=0"
                                         << ",,";
        QTest::newRow("two numbers") << "4,5=9"
                                     << "4,5=9"
                                     << ",";
        QTest::newRow("mod") << "12+40 mod 97=52"
                             << "12+40 mod 97=52"
                             << "+mod";
        QTest::newRow("mod no spaces") << "12+90mod97=5"
                                       << "12+90 mod 97=5"
                                       << "+mod";
        QTest::newRow("negatives") << "-5+-3=-8"
                                   << "-5+-3=-8"
                                   << "+";
        QTest::newRow("minus minus") << "5--3=8"
                                     << "5--3=8"
                                     << "-";
        QTest::newRow("minus space minus") << "5 - -3 = 8"
                                           << "5--3=8"
                                           << "-";
        QTest::newRow("unicode minus both") << "5−−3=8"
                                            << "5--3=8"
                                            << "-";
        QTest::newRow("unicode minus sign") << "−5+3=−2"
                                            << "-5+3=-2"
                                            << "+";
        QTest::newRow("times negative") << "3*-4=-12"
                                        << "3*-4=-12"
                                        << "*";
        QTest::newRow("plus sign") << "+3++4=+7"
                                   << "3+4=7"
                                   << "+";
        QTest::newRow("decimals") << "12.500+0.034=12.534"
                                  << "12.5+0.034=12.534"
                                  << "+";
        QTest::newRow("dot forms") << ".5+5.=5.5"
                                   << "0.5+5=5.5"
                                   << "+";
        QTest::newRow("leading zeros") << "007+1=08"
                                       << "7+1=8"
                                       << "+";
        QTest::newRow("exponents") << "1e-2+1E+1=10.01"
                                   << "0.01+10=10.01"
                                   << "+";
        QTest::newRow("exponent then minus") << "1.5e2-1e1=140"
                                             << "150-10=140"
                                             << "-";
        QTest::newRow("trailing CR") << "1+2=3\r"
                                     << "1+2=3"
                                     << "+";
        QTest::newRow("divide") << "1234.56/48=25.72"
                                << "1234.56/48=25.72"
                                << "/";
        QTest::newRow("division sign") << "9÷4=2.25"
                                       << "9/4=2.25"
                                       << "/";
        QTest::newRow("max") << "527.381 max 527.093=527.381"
                             << "527.381 max 527.093=527.381"
                             << "max";
        QTest::newRow("max glued") << "3max4=4"
                                   << "3 max 4=4"
                                   << "max";
        QTest::newRow("long") << "123456789012345678901234567890+1=123456789012345678901234567891"
                              << "123456789012345678901234567890+1=123456789012345678901234567891"
                              << "+";
    }
    void parses_lines() {
        QFETCH(QString, text);
        QFETCH(QString, canonical);
        QFETCH(QString, ops);
        const Example e = fone::parse_example_line(text.toStdString());
        QCOMPARE(QString::fromStdString(e.line()), canonical);
        std::string joined;
        for (const auto& op : e.ops)
            joined += op;
        QCOMPARE(QString::fromStdString(joined), ops);
        QCOMPARE(e.operands.size(), e.ops.size() + 1);
        QVERIFY(fone::parse_example_line(e.line()) == e);
    }
    void parsed_values() {
        const Example e = fone::parse_example_line("5--3=8");
        QCOMPARE(to_int(e.operands[0]), std::int64_t{5});
        QCOMPARE(to_int(e.operands[1]), std::int64_t{-3});
        QCOMPARE(to_int(e.answer), std::int64_t{8});
        const Example m = fone::parse_example_line("12+40 mod 97=52");
        QCOMPARE(m.ops, (std::vector<std::string>{"+", "mod"}));
        QCOMPARE(to_int(m.operands[2]), std::int64_t{97});
        QCOMPARE(m.prompt(), std::string("12+40 mod 97="));
    }

    void rejects_lines_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << ""
                               << "empty line";
        QTest::newRow("spaces only") << "   "
                                     << "empty line";
        QTest::newRow("no equals") << "1+2"
                                   << "expected '='";
        QTest::newRow("no answer") << "1+2="
                                   << "expected the answer";
        QTest::newRow("bad first") << "x1+2=3"
                                   << "not a number 'x1'";
        QTest::newRow("bad second") << "1+x2=3"
                                    << "not a number 'x2'";
        QTest::newRow("bad answer") << "1+2=three"
                                    << "not a number 'three'";
        QTest::newRow("two points") << "1.2.3+1=2"
                                    << "not a number '1.2.3'";
        QTest::newRow("missing operand") << "1+=3"
                                         << "expected a number after '+'";
        QTest::newRow("operator at end") << "1+"
                                         << "expected a number after '+' at the end";
        QTest::newRow("leading equals") << "=3"
                                        << "expected a number, found '=3'";
        QTest::newRow("no operator") << "1 2=3"
                                     << "expected an operator";
        QTest::newRow("two slashes") << "1/2/3=0.1"
                                     << "unsupported form 'a/a/a=c'";
        QTest::newRow("max chain") << "1 max 2 max 3=3"
                                   << "unsupported form 'a max a max a=c'";
        QTest::newRow("caret") << "2^3=8"
                               << "not a number '2^3'";
        QTest::newRow("single number") << "5=5"
                                       << "expected an operator between two numbers";
        QTest::newRow("chain") << "1+2*3=7"
                               << "unsupported form 'a+a*a=c'";
        QTest::newRow("mod alone") << "7 mod 3=1"
                                   << "unsupported form 'a mod a=c'";
        QTest::newRow("mod first") << "7 mod 3+1=2"
                                   << "unsupported form";
        QTest::newRow("two equals") << "1+2=3=3"
                                    << "unexpected text after the answer: '=3'";
        QTest::newRow("trailing junk") << "1+2=3 # note"
                                       << "unexpected text after the answer";
        QTest::newRow("sign then space") << "- 5+1=-4"
                                         << "expected a number";
        QTest::newRow("huge exponent") << "1e99999+1=1"
                                       << "not a number '1e99999'";
    }
    void rejects_lines() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        try {
            fone::parse_example_line(text.toStdString());
            QFAIL("no DatasetError");
        } catch (const DatasetError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find(message.toStdString()) != std::string::npos, what.c_str());
        }
    }

    // ---- prompts ----------------------------------------------------------------------------------
    void reads_prompts_data() {
        QTest::addColumn<QString>("prompt");
        QTest::addColumn<QString>("terms");
        QTest::newRow("add") << "12.5+3="
                             << "12.5 + 3 =";
        QTest::newRow("spaces") << "  12 +\t40 =  "
                                << "12 + 40 =";
        QTest::newRow("line break") << "12 +\n40 ="
                                    << "12 + 40 =";
        QTest::newRow("unicode minus") << "7 − 3 ="
                                       << "7 - 3 =";
        QTest::newRow("unicode times") << "7 × 3 ="
                                       << "7 * 3 =";
        QTest::newRow("mod") << "52+94 mod 97="
                             << "52 + 94 mod 97 =";
        QTest::newRow("list") << "1,2,3="
                              << "1 , 2 , 3 =";
        QTest::newRow("divide") << "7 ÷ 2="
                                << "7 / 2 =";
        QTest::newRow("slash") << "1/2="
                               << "1 / 2 =";
        QTest::newRow("max") << "3 max 4="
                             << "3 max 4 =";
        // The number parser's rules: a sign after an operator or at the start, none after a digit.
        QTest::newRow("negative first") << "-5+3="
                                        << "-5 + 3 =";
        QTest::newRow("minus after a digit") << "3-5="
                                             << "3 - 5 =";
        // As a dataset line reads them: commas part the numbers of a classify question, and a '-' right
        // after an operator is the sign of the number that follows.
        QTest::newRow("classify commas") << "120,450,900="
                                         << "120 , 450 , 900 =";
        QTest::newRow("minus minus") << "5--3="
                                     << "5 - -3 =";
        QTest::newRow("exponent") << "1e3*2="
                                  << "1000 * 2 =";
    }
    void reads_prompts() {
        QFETCH(QString, prompt);
        QFETCH(QString, terms);
        QCOMPARE(terms_text(fone::parse_prompt(prompt.toStdString())), terms);
    }
    void refuses_prompts_data() {
        QTest::addColumn<QString>("prompt");
        QTest::addColumn<QString>("message");
        QTest::newRow("word")
            << "12 plus 5 ="
            << "the model has no token for 'plus' (it knows: + - * , mod / max = and numbers)";
        QTest::newRow("word glued") << "12+five="
                                    << "no token for 'five='";
        QTest::newRow("caret") << "2^3="
                               << "no token for '^";
        QTest::newRow("no equals") << "12+3"
                                   << "ends with '='";
        QTest::newRow("one number") << "4.17"
                                    << "ends with '='";
        QTest::newRow("answered") << "1+2=3=4+5"
                                  << "text after '='";
        QTest::newRow("answered and asked") << "1+2=3="
                                            << "text after '='";
        QTest::newRow("no form") << "1,000+2="
                                 << "not a question the model can answer";
        QTest::newRow("escape sequence") << "\x1b[31m="
                                         << "no token for '\\x1b[31m='";
        QTest::newRow("no number") << "+ ="
                                   << "the prompt has no number";
        QTest::newRow("empty") << ""
                               << "the prompt has no number";
    }
    void refuses_prompts() {
        QFETCH(QString, prompt);
        QFETCH(QString, message);
        try {
            fone::parse_prompt(prompt.toStdString());
            QFAIL("no std::invalid_argument");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::string(e.what()).find(message.toStdString()) != std::string::npos, e.what());
        }
    }
    // A 100,000-character prompt gives a short message.
    void long_prompt_short_message() {
        try {
            fone::parse_prompt("1+" + std::string(100000, 'x') + "=");
            QFAIL("no std::invalid_argument");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::strlen(e.what()) < 300, e.what());
        }
    }
    void prompt_with_the_placeholder_is_a_number_error() {
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fone::parse_prompt("[NUM]+1="));
    }
    // Both readers know the same operators: a dataset line and its prompt give the same operators.
    void lines_and_prompts_share_the_operators() {
        for (const std::string line : {"7+3=10", "7-3=4", "7*3=21", "7×3=21", "7−3=4", "1,2,3=1",
                                       "12+40 mod 97=52", "7/2=3.5", "7÷2=3.5", "3 max 4=4"}) {
            const Example e = fone::parse_example_line(line);
            std::vector<std::string> ops;
            for (const PromptTerm& t : fone::parse_prompt(line.substr(0, line.find('=') + 1)))
                if (t.kind == PromptTerm::Kind::op) ops.emplace_back(fone::op_name(t.op));
            QCOMPARE(ops, e.ops);
        }
    }

    // ---- exact answers ----------------------------------------------------------------------------
    void exact_answers_data() {
        QTest::addColumn<QString>("prompt");
        QTest::addColumn<QString>("answer");  // "" : none
        QTest::newRow("add") << "527.38+94.605="
                             << "621.985";
        QTest::newRow("sub below zero") << "7-10="
                                        << "-3";
        QTest::newRow("negative operand") << "5--3="
                                          << "8";
        QTest::newRow("mul") << "1.5*2="
                             << "3";
        QTest::newRow("times sign") << "6×7="
                                    << "42";
        QTest::newRow("mod") << "12+40 mod 7="
                             << "3";
        QTest::newRow("mod zero") << "1+1 mod 0="
                                  << "";
        QTest::newRow("mod of a fraction") << "1.5+1 mod 2="
                                           << "";
        QTest::newRow("classify") << "1,2,3="
                                  << "";
        QTest::newRow("max") << "527.381 max 527.093="
                             << "527.381";
        QTest::newRow("max of negatives") << "-3 max -7="
                                          << "-3";
        QTest::newRow("div") << "1234.56/48="
                             << "25.72";
        QTest::newRow("div by a fraction") << "7/0.25="
                                           << "28";
        QTest::newRow("div negative") << "-7/4="
                                      << "-1.75";
        QTest::newRow("div never ends") << "1/3="
                                        << "";
        QTest::newRow("div by zero") << "1/0="
                                     << "";
        QTest::newRow("div of zero") << "0/7="
                                     << "0";
        QTest::newRow("no equals") << "12+40"
                                   << "";
        QTest::newRow("text") << "twelve+1="
                              << "";
        QTest::newRow("empty") << ""
                               << "";
        // Issue 33: operands of at most kMaxExactAnswerDigits (1,000) digits; longer ones are not worked out
        // (before: 1e1000*1= was, and 1e7888/1e9811= took 1.8 s in the window's GUI thread, per keystroke).
        QTest::newRow("1,000 digits each") << "1e999*1e999="
                                           << "1" + QString(1998, '0');
        QTest::newRow("1,001 digits") << "1e1000*1="
                                      << "";
        QTest::newRow("long division") << "1e7888/1e9811="
                                       << "";
    }
    void exact_answers() {
        QFETCH(QString, prompt);
        QFETCH(QString, answer);
        const std::optional<Decimal> got = fone::exact_answer(prompt.toStdString());
        QCOMPARE(got ? QString::fromStdString(got->to_string()) : QString(), answer);
    }
};

QTEST_APPLESS_MAIN(TestExpression)
#include "test_expression.moc"
