// FoNE encoding, its exact inverse and the digit head, against values worked out independently: by hand
// (the paper's 4.17 and 18), and with exact rationals + 60-digit mpmath (tests/golden/fone_golden.json,
// made by tests/golden/make_fone_golden.py) for 20-, 60- and 200-digit numbers.
#include <QtTest>

#include <cmath>
#include <random>

#include "fone/numbers/fourier.h"

using fone::Decimal;
using fone::EncodeMethod;
using fone::FoneSpec;

namespace {

FoneSpec spec_of(int m, int n, int base = 10) {
    FoneSpec s;
    s.int_digits = m;
    s.frac_digits = n;
    s.base = base;
    return s;
}

// A random number that fits (m, n) in base 10: random length, random digits, random sign.
Decimal random_fitting(std::mt19937_64& rng, int m, int n) {
    std::uniform_int_distribution<int> digit(0, 9), len_i(0, m), len_f(0, n), coin(0, 1);
    std::string i(static_cast<std::size_t>(len_i(rng)), '0'), f(static_cast<std::size_t>(len_f(rng)), '0');
    for (char& c : i)
        c = static_cast<char>('0' + digit(rng));
    for (char& c : f)
        c = static_cast<char>('0' + digit(rng));
    return Decimal::from_digits(coin(rng) == 1, i, f);
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
    double m = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
        m = std::max(m, std::abs(a[i] - b[i]));
    return m;
}

}  // namespace

class TestFourier : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void paper_example_4_17() {
        // Periods 0.1, 1, 10: residues 0.07, 0.17, 4.17, i.e. phases 0.7, 0.17, 0.417 of a turn.
        const auto e = fone::encode(Decimal::parse("4.17"), spec_of(1, 2));
        QCOMPARE(e.size(), std::size_t(7));
        const double by_hand[] = {-0.30901699437494745,
                                  -0.95105651629515353,  // 252°
                                  0.48175367410171527,
                                  0.87630668004386359,  // 61.2°
                                  -0.86707070116449005,
                                  0.49818510533949084,  // 150.12°
                                  0.0};
        for (int i = 0; i < 7; ++i)
            QVERIFY2(std::abs(e[i] - by_hand[i]) < 1e-15, qPrintable(QString::number(i)));
    }

    void paper_example_18() {
        // 18 mod 10 = 8 → 288°; 18 mod 100 = 18 → 64.8°.
        const auto e = fone::encode(Decimal::parse("18"), spec_of(2, 0));
        QVERIFY(std::abs(e[0] - 0.30901699437494742) < 1e-15);
        QVERIFY(std::abs(e[1] + 0.95105651629515357) < 1e-15);
        QVERIFY(std::abs(e[2] - 0.42577929156507266) < 1e-15);
        QVERIFY(std::abs(e[3] - 0.90482705246601953) < 1e-15);
    }

    void zero_is_embedded_not_masked() {
        const auto e = fone::encode(Decimal(), spec_of(3, 2));
        const std::vector<double> expected = {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0};
        QCOMPARE(e, expected);
    }

    void negative_is_conjugate_plus_sign() {
        const FoneSpec s = spec_of(3, 3);
        const auto pos = fone::encode(Decimal::parse("123.456"), s);
        const auto neg = fone::encode(Decimal::parse("-123.456"), s);
        for (int k = 0; k < s.pair_count(); ++k) {
            QCOMPARE(neg[2 * k], pos[2 * k]);
            QCOMPARE(neg[2 * k + 1], -pos[2 * k + 1]);
        }
        QCOMPARE(pos.back(), 0.0);
        QCOMPARE(neg.back(), 1.0);
    }

    void periods_and_widths() {
        const auto p = spec_of(3, 2).periods();
        QCOMPARE(p.size(), std::size_t(5));
        QCOMPARE(p.front().exponent, -1);
        QCOMPARE(p.back().exponent, 3);
        QCOMPARE(spec_of(3, 2).width(), 11);
        FoneSpec mixed = spec_of(2, 0);
        mixed.multipliers = {2, 5, 10};
        std::vector<double> values;
        for (const auto& t : mixed.periods())
            values.push_back(t.value());
        QCOMPARE(values, (std::vector<double>{2, 5, 10, 20, 50, 100}));
        FoneSpec no_sign = spec_of(7, 3);
        no_sign.sign_feature = false;
        QCOMPARE(no_sign.width(), 20);
    }

    void golden_values() {
        QFile f(QStringLiteral(FONE_SOURCE_DIR "/tests/golden/fone_golden.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto cases = QJsonDocument::fromJson(f.readAll()).object()["cases"].toArray();
        QVERIFY(cases.size() >= 16);
        for (const auto& c : cases) {
            const auto o = c.toObject();
            FoneSpec s = spec_of(o["m"].toInt(), o["n"].toInt(), o["base"].toInt());
            for (const auto& mult : o["multipliers"].toArray())
                s.multipliers.push_back(mult.toInt());
            if (o["method"].toString() == "chunked") s.method = EncodeMethod::chunked;
            const Decimal x = Decimal::parse(o["value"].toString().toStdString());
            std::vector<double> expected;
            for (const auto& v : o["embedding"].toArray())
                expected.push_back(v.toString().toDouble());
            const auto got = fone::encode(x, s);
            QCOMPARE(got.size(), expected.size());
            const double diff = max_abs_diff(got, expected);
            QVERIFY2(diff < 4e-15, qPrintable(o["value"].toString() + " diff " + QString::number(diff)));
            std::vector<float> as_float(got.size());
            fone::encode_into(x, s, as_float.data());
            for (std::size_t i = 0; i < got.size(); ++i)
                QVERIFY(std::abs(as_float[i] - expected[i]) < 1e-7);
            if (s.plain()) {
                QCOMPARE(fone::decode(std::span<const double>(expected), s), x);
                QCOMPARE(fone::decode(std::span<const float>(as_float), s), x);
            }
        }
    }

    void round_trips_million_per_setting_data() {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        for (auto [m, n] : {std::pair{1, 0}, {0, 4}, {3, 3}, {7, 3}, {10, 0}, {20, 5}, {60, 0}})
            QTest::addRow("m=%d n=%d", m, n) << m << n;
    }
    void round_trips_million_per_setting() {
        QFETCH(int, m);
        QFETCH(int, n);
        const FoneSpec s = spec_of(m, n);
        std::mt19937_64 rng(1000 * m + n);
        std::vector<float> f(static_cast<std::size_t>(s.width()));
        std::vector<double> d(static_cast<std::size_t>(s.width()));
        int failures = 0;
        for (int i = 0; i < 1'000'000; ++i) {
            const Decimal x = random_fitting(rng, m, n);
            fone::encode_into(x, s, f.data());
            fone::encode_into(x, s, d.data());
            // float32 is what the model sees: the inverse must survive it.
            if (!(fone::decode(std::span<const float>(f), s) == x) ||
                !(fone::decode(std::span<const double>(d), s) == x))
                if (++failures < 5) qWarning("round trip failed for %s", x.to_string().c_str());
        }
        QCOMPARE(failures, 0);
    }

    void round_trips_long_numbers() {
        for (int m : {200, 1000}) {
            const FoneSpec s = spec_of(m, 0);
            std::mt19937_64 rng(m);
            for (int i = 0; i < 300; ++i) {
                const Decimal x = random_fitting(rng, m, 0);
                QCOMPARE(fone::decode(std::span<const double>(fone::encode(x, s)), s), x);
            }
        }
    }

    void round_trips_other_bases() {
        for (int base : {2, 5, 7, 9, 11, 12, 13}) {
            const FoneSpec s = spec_of(12, 0, base);
            std::mt19937_64 rng(base);
            std::uniform_int_distribution<long long> v(0, static_cast<long long>(std::pow(base, 12)) - 1);
            for (int i = 0; i < 20000; ++i) {
                const Decimal x = Decimal::from_int(v(rng));
                QCOMPARE(fone::decode(std::span<const double>(fone::encode(x, s)), s), x);
            }
        }
        // Fractions that base 12 holds exactly (x·12^2 integer) and base 2 with n=3.
        QCOMPARE(
            fone::decode(std::span<const double>(fone::encode(Decimal::parse("1234.25"), spec_of(5, 2, 12))),
                         spec_of(5, 2, 12)),
            Decimal::parse("1234.25"));
        QCOMPARE(
            fone::decode(std::span<const double>(fone::encode(Decimal::parse("-5.375"), spec_of(4, 3, 2))),
                         spec_of(4, 3, 2)),
            Decimal::parse("-5.375"));
    }

    void round_trips_chunked() {
        FoneSpec s = spec_of(12, 3);
        s.method = EncodeMethod::chunked;
        std::mt19937_64 rng(5);
        for (int i = 0; i < 100000; ++i) {
            const Decimal x = random_fitting(rng, 12, 3);
            QCOMPARE(fone::decode(std::span<const double>(fone::encode(x, s)), s), x);
        }
    }

    void float64_reference_breaks_past_15_digits() {
        // The paper's float64 computation loses the low digits of a 20-digit number; exact phases do not.
        const Decimal x = Decimal::parse("12345678901234567891");
        FoneSpec exact = spec_of(20, 0), f64 = spec_of(20, 0);
        f64.method = EncodeMethod::float64;
        QCOMPARE(fone::decode(std::span<const double>(fone::encode(x, exact)), exact), x);
        QVERIFY(!(fone::decode(std::span<const double>(fone::encode(x, f64)), exact) == x));
        // ...and agrees with exact for short numbers.
        const Decimal y = Decimal::parse("4821.5");
        FoneSpec short_exact = spec_of(4, 1), short_f64 = spec_of(4, 1);
        short_f64.method = EncodeMethod::float64;
        QVERIFY(max_abs_diff(fone::encode(y, short_exact), fone::encode(y, short_f64)) < 1e-12);
    }

    void errors_name_the_number_and_limits_data() {
        QTest::addColumn<QString>("value");
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<QString>("message");
        QTest::newRow("integer digits")
            << "12345678" << 7 << 3 << "number 12345678 has 8 integer digits; the limit is m=7";
        QTest::newRow("fraction lost")
            << "1.2345" << 7 << 3 << "number 1.2345 has 4 fractional digits that would be lost";
        QTest::newRow("integer spec")
            << "0.5" << 5 << 0 << "number 0.5 has 1 fractional digits that would be lost";
    }
    void errors_name_the_number_and_limits() {
        QFETCH(QString, value);
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(QString, message);
        try {
            fone::encode(Decimal::parse(value.toStdString()), spec_of(m, n));
            QFAIL("no error");
        } catch (const fone::NumberError& e) {
            QVERIFY2(QString(e.what()).startsWith(message), e.what());
        }
    }

    void other_errors() {
        FoneSpec no_sign = spec_of(3, 0);
        no_sign.sign_feature = false;
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fone::encode(Decimal::parse("-5"), no_sign));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError,
                                 fone::encode(Decimal::parse("343"), spec_of(3, 0, 7)));  // 7^3
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fone::encode(Decimal::parse("0.5"), spec_of(3, 2, 7)));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fone::encode(Decimal(), spec_of(0, 0)));
        // m + n overflowing an int (`fone encode -m 2147483647 1.5` printed zeros): refused, not wrapped.
        QVERIFY_THROWS_EXCEPTION(fone::NumberError,
                                 fone::encode(Decimal::parse("1.5"), spec_of(2147483647, 1)));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError,
                                 fone::encode(Decimal::parse("1.5"), spec_of(1, 2147483647)));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fone::encode(Decimal(), spec_of(3, 0, 1)));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fone::encode_padded(Decimal(), spec_of(3, 0), 4));
        const std::vector<double> short_embedding(5, 0.0);
        QVERIFY_THROWS_EXCEPTION(fone::NumberError,
                                 fone::decode(std::span<const double>(short_embedding), spec_of(3, 0)));
        const std::vector<double> off_circle(7, 0.0);
        QVERIFY_THROWS_EXCEPTION(fone::NumberError,
                                 fone::decode(std::span<const double>(off_circle), spec_of(3, 0)));
        std::vector<double> nan_entry = fone::encode(Decimal::parse("5"), spec_of(3, 0));
        nan_entry[2] = std::nan("");
        QVERIFY_THROWS_EXCEPTION(fone::NumberError,
                                 fone::decode(std::span<const double>(nan_entry), spec_of(3, 0)));
        FoneSpec mixed = spec_of(3, 0);
        mixed.multipliers = {2, 5};
        QVERIFY_THROWS_EXCEPTION(
            fone::NumberError,
            fone::decode(std::span<const double>(fone::encode(Decimal::parse("5"), mixed)), mixed));
    }

    void padded() {
        const auto e = fone::encode_padded(Decimal::parse("7"), spec_of(1, 0), 8);
        QCOMPARE(e.size(), std::size_t(8));
        QCOMPARE(e[3], 0.0);
        QCOMPARE(e[7], 0.0);
    }

    // ---- digit head ----
    void prototypes_are_the_ten_points() {
        const auto p = fone::digit_prototypes(10);
        QCOMPARE(p.size(), std::size_t(20));
        QCOMPARE(p[0], 1.0);
        QCOMPARE(p[1], 0.0);
        QVERIFY(std::abs(p[2 * 5] + 1.0) < 1e-15);                  // φ(5) = (-1, 0)
        QVERIFY(std::abs(p[2 * 1] - 0.80901699437494742) < 1e-15);  // cos 36°
    }

    void label_digits_least_significant_first() {
        QCOMPARE(fone::label_digits(Decimal::parse("123.45"), spec_of(3, 2)),
                 (std::vector<int>{5, 4, 3, 2, 1}));
        QCOMPARE(fone::label_digits(Decimal::parse("7"), spec_of(3, 1)), (std::vector<int>{0, 7, 0, 0}));
        QCOMPARE(fone::label_digits(Decimal::parse("100"), spec_of(4, 0, 7)),
                 (std::vector<int>{2, 0, 2, 0}));  // 202₇
        QCOMPARE(fone::label_digits(Decimal::parse("-12"), spec_of(2, 0)), (std::vector<int>{2, 1}));
    }

    void loss_by_hand() {
        // h's pair = φ(0) = (1, 0) and label 0: logits are cos(36°·j), so the loss is
        // log Σ_j exp(cos 36°j) − 1, with the sum written out from the table of cosines.
        FoneSpec s = spec_of(1, 0);
        s.sign_feature = false;
        const std::vector<float> h = {1.0f, 0.0f};
        const double sum = std::exp(1.0) + 2 * std::exp(0.80901699437494742) +
                           2 * std::exp(0.30901699437494742) + 2 * std::exp(-0.30901699437494742) +
                           2 * std::exp(-0.80901699437494742) + std::exp(-1.0);
        QVERIFY(std::abs(fone::digit_loss(h, Decimal(), s) - (std::log(sum) - 1.0)) < 1e-7);
        // A large scale (temperature) drives the loss to ~0 for the right digit.
        QVERIFY(fone::digit_loss(h, Decimal(), s, 1000.0) < 1e-12);
        // With the sign entry: z = 0 adds log 2 as one more averaged term.
        FoneSpec signed_spec = spec_of(1, 0);
        const std::vector<float> h2 = {1.0f, 0.0f, 0.0f};
        QVERIFY(std::abs(fone::digit_loss(h2, Decimal(), signed_spec) -
                         (std::log(sum) - 1.0 + std::log(2.0)) / 2) < 1e-7);
    }

    void read_digits_assembles_exact_value() {
        // A hidden state that points each pair at the digits of -907.25 (scaled by 3).
        const FoneSpec s = spec_of(3, 2);
        const Decimal y = Decimal::parse("-907.25");
        const auto digits = fone::label_digits(y, s);
        std::vector<float> h(12, 0.0f);
        for (int k = 0; k < 5; ++k) {
            h[2 * k] = 3.0f * static_cast<float>(std::cos(2 * M_PI * digits[k] / 10));
            h[2 * k + 1] = 3.0f * static_cast<float>(std::sin(2 * M_PI * digits[k] / 10));
        }
        h[10] = 2.0f;  // sign logit > 0: negative
        const auto r = fone::read_digits(h, s);
        QCOMPARE(r.value, y);
        QCOMPARE(r.digits, digits);
        QVERIFY(r.negative);
        QVERIFY(std::abs(r.p_negative - 1.0 / (1.0 + std::exp(-2.0))) < 1e-12);
        double total = 0.0;
        for (double p : r.probs[0])
            total += p;
        QVERIFY(std::abs(total - 1.0) < 1e-12);
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fone::read_digits(std::span<const float>(h).first(4), s));
    }

    void fitted_spec_takes_just_enough_slots() {
        const auto d = [](const char* t) { return Decimal::parse(t); };
        // Base 10: the longest integer and fractional parts; at least one integer digit.
        FoneSpec s = fone::fitted_spec(spec_of(-1, -1), {d("12.5"), d("-3.125"), d("999")});
        QCOMPARE(s.int_digits, 3);
        QCOMPARE(s.frac_digits, 3);
        s = fone::fitted_spec(spec_of(-1, -1), {d("0.5")});
        QCOMPARE(s.int_digits, 1);
        QCOMPARE(s.frac_digits, 1);
        s = fone::fitted_spec(spec_of(-1, -1), {});
        QCOMPARE(s.int_digits, 1);
        QCOMPARE(s.frac_digits, 0);
        // Given slots are kept, whatever the numbers; the rest of the spec too.
        FoneSpec given = spec_of(7, -1);
        given.sign_feature = false;
        given.multipliers = {2, 5};
        s = fone::fitted_spec(given, {d("1.25")});
        QCOMPARE(s.int_digits, 7);
        QCOMPARE(s.frac_digits, 2);
        QVERIFY(!s.sign_feature);
        QCOMPARE(s.multipliers, (std::vector<int>{2, 5}));
        // Other bases count base-b digits of the integer part: 7 = 111 in base 2 (3 digits), 8 = 1000 (4),
        // 343 = 1000 in base 7 (4), 342 = 666 (3); no fractional slots.
        QCOMPARE(fone::fitted_spec(spec_of(-1, -1, 2), {d("7")}).int_digits, 3);
        QCOMPARE(fone::fitted_spec(spec_of(-1, -1, 2), {d("8")}).int_digits, 4);
        QCOMPARE(fone::fitted_spec(spec_of(-1, -1, 7), {d("343"), d("5")}).int_digits, 4);
        QCOMPARE(fone::fitted_spec(spec_of(-1, -1, 7), {d("342")}).int_digits, 3);
        QCOMPARE(fone::fitted_spec(spec_of(-1, -1, 7), {d("342.5")}).frac_digits, 0);
        // An invalid result is refused as FoneSpec::validate refuses it.
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fone::fitted_spec(spec_of(0, 0), {d("1")}));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fone::fitted_spec(spec_of(-1, -1, 1), {d("1")}));
    }

    void assemble_exact() {
        const std::vector<int> d = {5, 2, 3, 4, 3, 2, 1};  // 12343.25 least significant first
        QCOMPARE(fone::assemble_digits(d, false, spec_of(5, 2)), Decimal::parse("12343.25"));
        // 177732 = 1234.25·12²; base-12 digits of 177732.
        std::vector<int> b12;
        for (long long v = 177732; v; v /= 12)
            b12.push_back(static_cast<int>(v % 12));
        while (b12.size() < 7)
            b12.push_back(0);
        QCOMPARE(fone::assemble_digits(b12, false, spec_of(5, 2, 12)), Decimal::parse("1234.25"));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError,
                                 fone::assemble_digits(std::vector<int>{1, 10}, false, spec_of(2, 0)));
    }
};

QTEST_APPLESS_MAIN(TestFourier)
#include "test_fourier.moc"
