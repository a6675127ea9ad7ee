// How numbers are written for the token methods (number_pieces.h), BitTokens' IEEE 754 bits
// (float_bits.h) and the encoding zoo (number_encodings.h), against values worked out by hand.
#include <QtTest>

#include <cmath>

#include "fone/numbers/float_bits.h"
#include "fone/numbers/number_encodings.h"
#include "fone/numbers/number_pieces.h"

using namespace fone;

namespace {

QStringList joined(const std::vector<std::string>& pieces) {
    QStringList out;
    for (const auto& p : pieces)
        out << QString::fromStdString(p);
    return out;
}

QStringList words(const char* text) {
    return QString(text).split(' ');
}

QStringList pieces_of(const char* number, const NumberWriting& how) {
    return joined(write_number_pieces(Decimal::parse(number), how));
}

const NumberWriting kDigit{}, kL2r{3, ChunkDirection::left_to_right, false, false},
    kR2l{3, ChunkDirection::right_to_left, false, false},
    kNumero{1, ChunkDirection::left_to_right, true, false},
    kReversed{1, ChunkDirection::left_to_right, false, true};

// The bit pattern of x as a 64-bit word, sign bit first.
std::uint64_t word_of(double x) {
    std::uint64_t w = 0;
    for (const bool b : float64_bits(x))
        w = (w << 1) | (b ? 1u : 0u);
    return w;
}

}  // namespace

class TestNumberEncodings : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void chunks_in_both_directions() {
        QCOMPARE(joined(chunk_digits("1234567", 3, ChunkDirection::left_to_right)), words("123 456 7"));
        QCOMPARE(joined(chunk_digits("1234567", 3, ChunkDirection::right_to_left)), words("1 234 567"));
        QCOMPARE(joined(chunk_digits("123456", 3, ChunkDirection::right_to_left)), words("123 456"));
        QCOMPARE(joined(chunk_digits("12", 3, ChunkDirection::right_to_left)), words("12"));
        QCOMPARE(joined(chunk_digits("1234", 1, ChunkDirection::right_to_left)), words("1 2 3 4"));
    }

    void numbers_written_every_way() {
        QCOMPARE(pieces_of("-1234.5", kDigit), words("- 1 2 3 4 . 5"));
        QCOMPARE(pieces_of("1234567.8912", kL2r), words("123 456 7 . 891 2"));
        // Right to left: the integer part from the point leftwards, the fraction from the point rightwards.
        QCOMPARE(pieces_of("1234567.8912", kR2l), words("1 234 567 . 891 2"));
        QCOMPARE(pieces_of("0.05", kL2r), words("0 . 05"));
        QCOMPARE(pieces_of("42", kNumero), words("{ 2 : 4 2 }"));
        QCOMPARE(pieces_of("3.14", kNumero), words("{ 1 . 2 : 3 . 1 4 }"));  // NumeroLogic's {1.2:3.14}
        QCOMPARE(pieces_of("-0.5", kNumero), words("- { 1 . 1 : 0 . 5 }"));
        QCOMPARE(pieces_of("1234567890", NumberWriting{3, ChunkDirection::right_to_left, true, false}),
                 words("{ 10 : 1 234 567 890 }"));
        QCOMPARE(pieces_of("-12.5", kReversed), words("- 5 . 2 1"));  // Abacus: the sign stays first
    }

    void pieces_read_back() {
        for (const NumberWriting& how : {kDigit, kL2r, kR2l, kNumero, kReversed})
            for (const char* x : {"0", "7", "-1234567.891", "1000070", "0.05", "999.999"}) {
                const auto back = read_number_pieces(write_number_pieces(Decimal::parse(x), how), how);
                QVERIFY2(back && *back == Decimal::parse(x), x);
            }
        const auto read = [](const char* text, const NumberWriting& how) {
            const auto split = words(text);
            std::vector<std::string> p;
            for (const auto& w : split)
                p.push_back(w.toStdString());
            return read_number_pieces(p, how);
        };
        // NumeroLogic's count is the model's plan: a wrong count still reads as the digits.
        QCOMPARE(read("{ 3 : 4 2 }", kNumero)->to_string(), std::string("42"));
        QVERIFY(!read("{ 2 4 2 }", kNumero));      // no ":"
        QVERIFY(!read("{ 2 : 4 2", kNumero));      // no "}"
        QVERIFY(!read("4 2", kNumero));            // no braces at all
        QVERIFY(!read("{ 2 . : 4 2 }", kNumero));  // a count ending in a point
        QVERIFY(!read("{ : 4 2 }", kNumero));      // no count
        QVERIFY(!read("4 - 2", kDigit));           // a sign inside
        QVERIFY(!read("-", kDigit));               // nothing written
        QVERIFY(!read("4 + 2", kDigit));           // an operator
        QCOMPARE(read("- 4 2", kDigit)->to_string(), std::string("-42"));
    }

    // IEEE 754 binary64, worked by hand: 1 = 1.0·2^0 (exponent 1023 = 0x3FF); -2.5 = -1.25·2^1 (sign 1,
    // exponent 1024 = 0x400, significand .01); 12.5 = 1.5625·2^3 (exponent 1026 = 0x402, significand
    // .1001); 0.1 rounds to 0x3FB999999999999A.
    void float64_bit_patterns() {
        QCOMPARE(word_of(1.0), std::uint64_t(0x3FF0000000000000ull));
        QCOMPARE(word_of(-2.5), std::uint64_t(0xC004000000000000ull));
        QCOMPARE(word_of(12.5), std::uint64_t(0x4029000000000000ull));
        QCOMPARE(word_of(0.1), std::uint64_t(0x3FB999999999999Aull));
        QCOMPARE(word_of(0.0), std::uint64_t(0));
        for (const double x : {1.0, -2.5, 0.1, 1e300, -7e-300})
            QCOMPARE(from_float64_bits(float64_bits(x)), x);
        QVERIFY(std::isinf(from_float64_bits(float64_bits(1.0 / 0.0))));
    }

    void bit_features_are_plus_minus_one() {
        std::vector<float> f(static_cast<std::size_t>(bit_feature_width(true)));
        bit_features_into(12.5, true, f.data());
        QCOMPARE(f.size(), std::size_t(128));
        // 12.5: 0 10000000010 1001 0...; 1/12.5 = 0.08 = 0x3FB47AE147AE147B: 0 01111111011 0100...
        const char* x_bits = "0100000000101001";
        for (int i = 0; i < 16; ++i)
            QCOMPARE(f[static_cast<std::size_t>(i)], x_bits[i] == '1' ? 1.0f : -1.0f);
        QCOMPARE(f[63], -1.0f);
        const char* r_bits = "0011111110110100";
        for (int i = 0; i < 16; ++i)
            QCOMPARE(f[static_cast<std::size_t>(64 + i)], r_bits[i] == '1' ? 1.0f : -1.0f);
        QCOMPARE(bit_feature_width(false), 64);
    }

    // BitTokens' exact match counts 14 significant digits: 0.1 + 0.2 (0.30000000000000004) is 0.3.
    void doubles_read_to_14_significant_digits() {
        QCOMPARE(decimal_of_double(0.1 + 0.2)->to_string(), std::string("0.3"));
        QCOMPARE(decimal_of_double(15.5)->to_string(), std::string("15.5"));
        QCOMPARE(decimal_of_double(-1234.567)->to_string(), std::string("-1234.567"));
        QCOMPARE(decimal_of_double(123456789.123456789)->to_string(), std::string("123456789.12346"));
        QVERIFY(!decimal_of_double(std::nan("")));
        QVERIFY(!decimal_of_double(1.0 / 0.0));
        QVERIFY(!decimal_of_double(1e308));
    }

    void the_zoo_shows_every_encoding() {
        FoneSpec spec;
        spec.int_digits = 4;
        spec.frac_digits = 1;
        const auto zoo = encode_every_way(Decimal::parse("1234.5"), spec);
        QStringList names;
        for (const auto& e : zoo)
            names << QString::fromStdString(e.name);
        QCOMPARE(names, words("fone bittokens xval digit subword subword-r2l numerologic"));
        QCOMPARE(joined(zoo[0].tokens), words("[NUM]"));
        QCOMPARE(zoo[0].vector.size(), std::size_t(2 * 5 + 1));  // 5 clocks and the sign entry
        QCOMPARE(zoo[0].vector_labels.size(), zoo[0].vector.size());
        QVERIFY(std::fabs(zoo[0].vector[0] - std::cos(2 * M_PI * 0.5)) < 1e-12);  // period 1: x mod 1 = .5
        QCOMPARE(zoo[1].vector.size(), std::size_t(128));
        QCOMPARE(zoo[2].vector.size(), std::size_t(1));
        QCOMPARE(zoo[2].vector[0], 0.12345);  // 1234.5 / 10^4
        QCOMPARE(joined(zoo[3].tokens), words("1 2 3 4 . 5"));
        QCOMPARE(joined(zoo[4].tokens), words("123 4 . 5"));
        QCOMPARE(joined(zoo[5].tokens), words("1 234 . 5"));
        QCOMPARE(joined(zoo[6].tokens), words("{ 4 . 1 : 1 2 3 4 . 5 }"));
        QVERIFY(zoo[3].vector.empty());
        QVERIFY_THROWS_EXCEPTION(NumberError, encode_every_way(Decimal::parse("12345"), spec));
    }
};

QTEST_APPLESS_MAIN(TestNumberEncodings)
#include "test_number_encodings.moc"
