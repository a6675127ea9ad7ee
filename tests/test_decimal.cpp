// fone::Decimal: exact parsing, canonical text, digit access and the exact arithmetic the tasks use.
#include <QtTest>

#include <random>

#include "fone/numbers/decimal.h"

using fone::Decimal;

class TestDecimal : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void parses_to_canonical_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("canonical");
        QTest::newRow("integer") << "42"
                                 << "42";
        QTest::newRow("leading zeros") << "007"
                                       << "7";
        QTest::newRow("trailing frac zeros") << "12.500"
                                             << "12.5";
        QTest::newRow("zero") << "0"
                              << "0";
        QTest::newRow("zero point zero") << "0.000"
                                         << "0";
        QTest::newRow("minus zero") << "-0"
                                    << "0";
        QTest::newRow("minus zero frac") << "-0.00"
                                         << "0";
        QTest::newRow("plus sign") << "+5"
                                   << "5";
        QTest::newRow("negative") << "-12.05"
                                  << "-12.05";
        QTest::newRow("dot first") << ".5"
                                   << "0.5";
        QTest::newRow("dot last") << "5."
                                  << "5";
        QTest::newRow("small") << "0.001"
                               << "0.001";
        QTest::newRow("exp negative") << "3.14e-2"
                                      << "0.0314";
        QTest::newRow("exp positive") << "6E3"
                                      << "6000";
        QTest::newRow("exp plus") << "1.5e+1"
                                  << "15";
        QTest::newRow("exp shifts into frac") << "12345e-7"
                                              << "0.0012345";
        QTest::newRow("exp zero mantissa") << "0e9999"
                                           << "0";
        QTest::newRow("long") << "123456789012345678901234567890.0987654321"
                              << "123456789012345678901234567890.0987654321";
    }
    void parses_to_canonical() {
        QFETCH(QString, text);
        QFETCH(QString, canonical);
        QCOMPARE(QString::fromStdString(Decimal::parse(text.toStdString()).to_string()), canonical);
    }

    void rejects_malformed_data() {
        QTest::addColumn<QString>("text");
        for (const char* bad :
             {"",      "-",  "+",  ".",    "-.",       "1.2.3",    "--5",     "+-5", "1e",  "1e+",  "e5",
              "1,000", " 1", "1 ", "0x10", "1e999999", "0e999999", "1e10001", "inf", "nan", "1..2", "١٢"})
            QTest::newRow(bad) << QString::fromUtf8(bad);
    }
    void rejects_malformed() {
        QFETCH(QString, text);
        const std::string s = text.toStdString();
        Decimal d;
        std::string error;
        QVERIFY(!Decimal::try_parse(s, d, &error));
        QVERIFY2(error.find("not a number") == 0, error.c_str());
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, Decimal::parse(s));
    }

    void exponent_limit_counts_significant_digits() {
        // 10,000 significant digits are allowed, one more is not.
        QCOMPARE(Decimal::parse("1e9999").int_digit_count(), 10000);
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, Decimal::parse("1e10000"));
        QCOMPARE(Decimal::parse("1e-9999").frac_digit_count(), 9999);
    }

    void digit_positions() {
        const Decimal x = Decimal::parse("4321.987");
        QCOMPARE(x.digit(0), 1);
        QCOMPARE(x.digit(3), 4);
        QCOMPARE(x.digit(4), 0);
        QCOMPARE(x.digit(-1), 9);
        QCOMPARE(x.digit(-3), 7);
        QCOMPARE(x.digit(-4), 0);
        QCOMPARE(Decimal().digit(0), 0);
    }

    void constructors() {
        QCOMPARE(Decimal::from_int(0).to_string(), std::string("0"));
        QCOMPARE(Decimal::from_int(-45).to_string(), std::string("-45"));
        QCOMPARE(Decimal::from_int(INT64_MIN).to_string(), std::string("-9223372036854775808"));
        QCOMPARE(Decimal::from_scaled(4170, 3).to_string(), std::string("4.17"));
        QCOMPARE(Decimal::from_scaled(-5, 3).to_string(), std::string("-0.005"));
        QCOMPARE(Decimal::from_scaled(12, -2).to_string(), std::string("1200"));
        QCOMPARE(Decimal::from_digits(true, "000", "000").to_string(), std::string("0"));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, Decimal::from_digits(false, "1a", ""));
    }

    void ordering() {
        auto d = [](const char* s) { return Decimal::parse(s); };
        QVERIFY(d("-2") < d("-1.5"));
        QVERIFY(d("-1.5") < d("0"));
        QVERIFY(d("0.09") < d("0.1"));
        QVERIFY(d("99.999") < d("100"));
        QVERIFY(d("1.50") == d("1.5"));
        QVERIFY(d("10") > d("9.99"));
    }

    void arithmetic_by_hand() {
        auto d = [](const char* s) { return Decimal::parse(s); };
        QCOMPARE((d("123.456") + d("654.321")).to_string(), std::string("777.777"));
        QCOMPARE((d("999.999") + d("0.001")).to_string(), std::string("1000"));
        QCOMPARE((d("0.1") + d("0.2")).to_string(), std::string("0.3"));  // not 0.30000000000000004
        QCOMPARE((d("5") - d("7.25")).to_string(), std::string("-2.25"));
        QCOMPARE((d("-5") + d("5")).to_string(), std::string("0"));
        QCOMPARE((d("-1.5") - d("-1.5")).to_string(), std::string("0"));
        QCOMPARE((d("12") * d("-3.5")).to_string(), std::string("-42"));
        QCOMPARE((d("999") * d("999")).to_string(), std::string("998001"));
        QCOMPARE((d("0.01") * d("0.01")).to_string(), std::string("0.0001"));
        QCOMPARE(Decimal::mod(d("1234"), d("97")).to_string(), std::string("70"));
        QCOMPARE(Decimal::mod(d("-3"), d("5")).to_string(), std::string("2"));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, Decimal::mod(d("1.5"), d("5")));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, Decimal::mod(d("15"), d("0")));
    }

    void arithmetic_long_numbers() {
        // (10^60 - 1) + 1 = 10^60, and (10^30 + 1)^2 = 10^60 + 2·10^30 + 1: checked by construction.
        const Decimal nines = Decimal::parse(std::string(60, '9'));
        QCOMPARE((nines + Decimal::from_int(1)).to_string(), "1" + std::string(60, '0'));
        const Decimal a = Decimal::parse("1" + std::string(29, '0') + "1");
        QCOMPARE((a * a).to_string(), "1" + std::string(29, '0') + "2" + std::string(29, '0') + "1");
    }

    void arithmetic_matches_int64_on_random_operands() {
        std::mt19937_64 rng(7);
        std::uniform_int_distribution<std::int64_t> v(-2'000'000'000, 2'000'000'000);
        for (int i = 0; i < 20000; ++i) {
            const std::int64_t a = v(rng), b = v(rng);
            const Decimal x = Decimal::from_int(a), y = Decimal::from_int(b);
            QCOMPARE((x + y).to_string(), std::to_string(a + b));
            QCOMPARE((x - y).to_string(), std::to_string(a - b));
            QCOMPARE((x * y).to_string(), std::to_string(a * b));
            QCOMPARE(x < y, a < b);
        }
    }

    void power_by_repeated_products() {
        // Against plain int64 products, written out: 2^10, 7^3, (-3)^3, 36^5, and x^0 = 1.
        QCOMPARE(Decimal::power(2, 10).to_string(), std::string("1024"));
        QCOMPARE(Decimal::power(7, 3).to_string(), std::string("343"));
        QCOMPARE(Decimal::power(-3, 3).to_string(), std::string("-27"));
        QCOMPARE(Decimal::power(36, 5).to_string(), std::to_string(36LL * 36 * 36 * 36 * 36));
        QCOMPARE(Decimal::power(10, 0).to_string(), std::string("1"));
        QCOMPARE(Decimal::power(0, 0).to_string(), std::string("1"));
        QCOMPARE(Decimal::power(0, 3).to_string(), std::string("0"));
        // Past int64: 10^40 is a one and forty zeros; 2^100 = 1267650600228229401496703205376.
        QCOMPARE(Decimal::power(10, 40).to_string(), "1" + std::string(40, '0'));
        QCOMPARE(Decimal::power(2, 100).to_string(), std::string("1267650600228229401496703205376"));
        for (int e = 0; e <= 20; ++e) {
            std::int64_t p = 1;
            for (int i = 0; i < e; ++i)
                p *= 7;
            QCOMPARE(Decimal::power(7, e).to_string(), std::to_string(p));
        }
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, Decimal::power(3, -1));
    }

    void to_double_is_correctly_rounded() {
        QCOMPARE(Decimal::parse("0.1").to_double(), 0.1);
        QCOMPARE(Decimal::parse("-123.456").to_double(), -123.456);
    }
};

QTEST_APPLESS_MAIN(TestDecimal)
#include "test_decimal.moc"
