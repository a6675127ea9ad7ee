// The number parser: every rule and decision of docs/number-parsing.md has a row here, with the exact
// template, numbers (text, canonical value, code-point and byte spans) and warnings. Every row also
// checks that render(parse(x)) gives x back byte for byte.
#include <QtTest>

#include <string>
#include <vector>

#include "fone/numbers/number_parser.h"

namespace {

struct Expected {
    std::string text;
    std::string value;  // canonical, Decimal::to_string()
    std::size_t start = 0, end = 0;
    std::size_t byte_start = 0, byte_end = 0;
};

// A number in ASCII-only text: byte offsets equal code-point offsets.
Expected num(std::string text, std::string value, std::size_t start) {
    const std::size_t end = start + text.size();
    return {std::move(text), std::move(value), start, end, start, end};
}

// A number after (or containing) multi-byte characters: both spans given.
Expected num_u(std::string text, std::string value, std::size_t start, std::size_t end,
               std::size_t byte_start) {
    const std::size_t byte_end = byte_start + text.size();
    return {std::move(text), std::move(value), start, end, byte_start, byte_end};
}

using Numbers = std::vector<Expected>;
using Warnings = std::vector<std::string>;

std::string bytes(const QByteArray& a) {
    return std::string(a.constData(), static_cast<std::size_t>(a.size()));
}
QByteArray qbytes(const std::string& s) {
    return QByteArray(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace

Q_DECLARE_METATYPE(Numbers)
Q_DECLARE_METATYPE(Warnings)

class TestNumberParser : public QObject {
    Q_OBJECT

  private:
    static void row(const char* name, const std::string& input, const std::string& templ, Numbers numbers,
                    Warnings warnings = {}) {
        QTest::newRow(name) << qbytes(input) << qbytes(templ) << numbers << warnings;
    }

  private Q_SLOTS:
    void parse_data();
    void parse();
    void placeholder_in_text_throws_data();
    void placeholder_in_text_throws();
    void placeholder_match_is_exact();
    void never_throws_on_bytes();
    void render_canonical_uses_values_data();
    void render_canonical_uses_values();
    void render_template_fills_in_order();
    void render_template_count_mismatch_throws_data();
    void render_template_count_mismatch_throws();
    void max_digits_boundary();
    void long_digit_token_is_cut_in_warning();
    void large_inputs_are_linear();
    void limits_make_long_numbers_text();
    void as_text_spans_have_kinds();
};

void TestNumberParser::parse_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("templ");
    QTest::addColumn<Numbers>("numbers");
    QTest::addColumn<Warnings>("warnings");

    // Plain numbers.
    row("empty", "", "", {});
    row("no digits", "hello, world.", "hello, world.", {});
    row("integer", "42", "[NUM]", {num("42", "42", 0)});
    row("integer in sentence", "I have 42 apples", "I have [NUM] apples", {num("42", "42", 7)});
    row("decimal", "3.5", "[NUM]", {num("3.5", "3.5", 0)});
    row("trailing fractional zeros", "2.50", "[NUM]", {num("2.50", "2.5", 0)});
    row("leading dot", ".5", "[NUM]", {num(".5", "0.5", 0)});
    row("leading dot in sentence", "take .5 mg", "take [NUM] mg", {num(".5", "0.5", 5)});
    row("leading dot after letter", "v.5", "v.[NUM]", {num("5", "5", 2)});
    row("full stop after number", "I am 5.", "I am [NUM].", {num("5", "5", 5)});
    row("dot then letter", "5.x", "[NUM].x", {num("5", "5", 0)});
    row("leading zeros", "007", "[NUM]", {num("007", "7", 0)});
    row("zero", "0", "[NUM]", {num("0", "0", 0)});
    row("docs example", "Revenue rose 12.5% to $1,234,567.50", "Revenue rose [NUM]% to $[NUM]",
        {num("12.5", "12.5", 13), num("1,234,567.50", "1234567.5", 23)});
    row("two numbers", "3 and 4", "[NUM] and [NUM]", {num("3", "3", 0), num("4", "4", 6)});

    // Thousands separators.
    row("thousands", "1,234,567.5", "[NUM]", {num("1,234,567.5", "1234567.5", 0)});
    row("thousands two-digit first group", "12,345", "[NUM]", {num("12,345", "12345", 0)});
    row("thousands three-digit first group", "123,456,789", "[NUM]", {num("123,456,789", "123456789", 0)});
    row("comma before two digits", "1,23", "[NUM],[NUM]", {num("1", "1", 0), num("23", "23", 2)});
    row("comma before four digits", "1,2345", "[NUM],[NUM]", {num("1", "1", 0), num("2345", "2345", 2)});
    row("first group of four", "1234,567", "[NUM],[NUM]", {num("1234", "1234", 0), num("567", "567", 5)});
    row("short last group", "1,234,56", "[NUM],[NUM]", {num("1,234", "1234", 0), num("56", "56", 6)});
    row("comma list", "1,2,3", "[NUM],[NUM],[NUM]", {num("1", "1", 0), num("2", "2", 2), num("3", "3", 4)});
    row("comma list with space", "1, 234", "[NUM], [NUM]", {num("1", "1", 0), num("234", "234", 3)});
    row("trailing comma", "1,234,", "[NUM],", {num("1,234", "1234", 0)});
    row("zero first group", "0,123", "[NUM]", {num("0,123", "123", 0)});
    row("decimal comma", "0,5", "[NUM],[NUM]", {num("0", "0", 0), num("5", "5", 2)});
    row("no grouping after point", "1.234,567", "[NUM],[NUM]",
        {num("1.234", "1.234", 0), num("567", "567", 6)});
    row("negative thousands", "-1,234", "[NUM]", {num("-1,234", "-1234", 0)});

    // Currency and percentages: the symbols stay text.
    row("currency", "$99.99", "$[NUM]", {num("99.99", "99.99", 1)});
    row("currency thousands", "costs $1,000.", "costs $[NUM].", {num("1,000", "1000", 7)});
    row("percent", "50%", "[NUM]%", {num("50", "50", 0)});
    row("percent decimal", "up 12.5% today", "up [NUM]% today", {num("12.5", "12.5", 3)});
    row("sign after currency", "$-5", "$-[NUM]", {num("5", "5", 2)});

    // Scientific notation.
    row("scientific negative exponent", "3.14e-2", "[NUM]", {num("3.14e-2", "0.0314", 0)});
    row("scientific capital E", "6E23", "[NUM]", {num("6E23", "600000000000000000000000", 0)});
    row("scientific plus exponent", "1e+5", "[NUM]", {num("1e+5", "100000", 0)});
    row("scientific leading dot", ".5e3", "[NUM]", {num(".5e3", "500", 0)});
    row("scientific thousands", "1,234e2", "[NUM]", {num("1,234e2", "123400", 0)});
    row("scientific negative", "-2.5E-3", "[NUM]", {num("-2.5E-3", "-0.0025", 0)});
    row("e without digits", "2e", "[NUM]e", {num("2", "2", 0)});
    row("e then letter", "2ex", "[NUM]ex", {num("2", "2", 0)});
    row("e sign without digits", "2e-x", "[NUM]e-x", {num("2", "2", 0)});
    row("second exponent", "1e5e5", "1e5e5", {}, {"1e5e5: digits inside a word"});
    row("exponent glued to a word", "5e10ab3", "5e10ab3", {}, {"5e10ab3: hexadecimal"});
    row("exponent then letters", "2e3f", "2e3f", {}, {"2e3f: digits inside a word"});
    row("dot after exponent", "1e5.5", "[NUM].[NUM]", {num("1e5", "100000", 0), num("5", "5", 4)});
    row("unicode minus in exponent",
        "1e\xE2\x88\x92"
        "5",
        "[NUM]e\xE2\x88\x92[NUM]", {num_u("1", "1", 0, 1, 0), num_u("5", "5", 3, 4, 5)});

    // Signs.
    row("minus at start", "-5", "[NUM]", {num("-5", "-5", 0)});
    row("plus at start", "+5", "[NUM]", {num("+5", "5", 0)});
    row("negative decimal", "-3.25", "[NUM]", {num("-3.25", "-3.25", 0)});
    row("negative zero", "-0", "[NUM]", {num("-0", "0", 0)});
    row("negative zero decimal", "-0.0", "[NUM]", {num("-0.0", "0", 0)});
    row("signed leading dot", "-.5", "[NUM]", {num("-.5", "-0.5", 0)});
    row("unicode minus",
        "\xE2\x88\x92"
        "5",
        "[NUM]",
        {num_u("\xE2\x88\x92"
               "5",
               "-5", 0, 2, 0)});
    row("unicode minus after space",
        "t = \xE2\x88\x92"
        "3.5",
        "t = [NUM]",
        {num_u("\xE2\x88\x92"
               "3.5",
               "-3.5", 4, 8, 4)});
    row("unicode minus after word",
        "a\xE2\x88\x92"
        "5",
        "a\xE2\x88\x92[NUM]", {num_u("5", "5", 2, 3, 4)});
    row("range", "3-5", "[NUM]-[NUM]", {num("3", "3", 0), num("5", "5", 2)});
    row("range plus", "3+5", "[NUM]+[NUM]", {num("3", "3", 0), num("5", "5", 2)});
    row("assignment", "x = -5", "x = [NUM]", {num("-5", "-5", 4)});
    row("hyphenated name", "COVID-19", "COVID-[NUM]", {num("19", "19", 6)});
    row("double minus", "--5", "--[NUM]", {num("5", "5", 2)});
    row("plus minus", "+-5", "+-[NUM]", {num("5", "5", 2)});
    row("double unicode minus",
        "\xE2\x88\x92\xE2\x88\x92"
        "5",
        "\xE2\x88\x92\xE2\x88\x92[NUM]", {num_u("5", "5", 2, 3, 6)});
    row("sign without digits", "a - b", "a - b", {});
    row("sign then space", "- 5", "- [NUM]", {num("5", "5", 2)});
    row("sign before dollar", "-$5", "-$[NUM]", {num("5", "5", 2)});
    row("after tab", "\t-1", "\t[NUM]", {num("-1", "-1", 1)});
    row("after newline", "a\n-1", "a\n[NUM]", {num("-1", "-1", 2)});
    row("after (", "(-1)", "([NUM])", {num("-1", "-1", 1)});
    row("after [", "[-1]", "[[NUM]]", {num("-1", "-1", 1)});
    row("after {", "{-1}", "{[NUM]}", {num("-1", "-1", 1)});
    row("after =", "x=-1", "x=[NUM]", {num("-1", "-1", 2)});
    row("after <", "x<-1", "x<[NUM]", {num("-1", "-1", 2)});
    row("after >", "x>+1", "x>[NUM]", {num("+1", "1", 2)});
    row("after :", "a:-1", "a:[NUM]", {num("-1", "-1", 2)});
    row("after ;", "a;-1", "a;[NUM]", {num("-1", "-1", 2)});
    row("after ,", "1,-1", "[NUM],[NUM]", {num("1", "1", 0), num("-1", "-1", 2)});
    row("after /", "1/-2", "[NUM]/[NUM]", {num("1", "1", 0), num("-2", "-2", 2)});
    row("after *", "2*-3", "[NUM]*[NUM]", {num("2", "2", 0), num("-3", "-3", 2)});
    row("after ^", "2^-3", "[NUM]^[NUM]", {num("2", "2", 0), num("-3", "-3", 2)});
    row("after ~", "~-3", "~[NUM]", {num("-3", "-3", 1)});
    row("after )", "(2)-3", "([NUM])-[NUM]", {num("2", "2", 1), num("3", "3", 4)});
    row("after %", "5%-3", "[NUM]%-[NUM]", {num("5", "5", 0), num("3", "3", 3)});

    // Numbers glued to words.
    row("glued both sides", "abc123xyz", "abc123xyz", {}, {"abc123xyz: digits inside a word"});
    row("glued both sides, hexadecimal", "abc123def", "abc123def", {}, {"abc123def: hexadecimal"});
    row("after a letter", "CO2 emissions", "CO2 emissions", {}, {"CO2: digits inside a word"});
    row("after an underscore", "x86_64 and 7", "x86_64 and [NUM]", {num("7", "7", 11)},
        {"x86_64: digits inside a word"});
    row("version with a letter", "v1.2 and 3", "v1.2 and [NUM]", {num("3", "3", 9)},
        {"v1.2: digits inside a word"});
    row("file name", "file2.txt", "file2.txt", {}, {"file2.txt: digits inside a word"});
    row("hash", "commit c65e6079fc9 ok", "commit c65e6079fc9 ok", {}, {"c65e6079fc9: hexadecimal"});
    row("hash from a digit", "8a3f2c1", "8a3f2c1", {}, {"8a3f2c1: hexadecimal"});
    row("hex digits then letters", "1234abcd", "1234abcd", {}, {"1234abcd: hexadecimal"});
    row("short hex word", "4738fa", "[NUM]fa", {num("4738", "4738", 0)});
    row("dimensions", "3x4 grid", "3x4 grid", {}, {"3x4: digits inside a word"});
    row("ordinal", "3rd", "[NUM]rd", {num("3", "3", 0)});
    row("ordinal in a sentence", "the 19th century", "the [NUM]th century", {num("19", "19", 4)});
    row("decade", "1990s", "[NUM]s", {num("1990", "1990", 0)});
    row("unit glued", "10km", "[NUM]km", {num("10", "10", 0)});
    row("decimal with a unit", "2.5kg.", "[NUM]kg.", {num("2.5", "2.5", 0)});
    row("hyphen then digits", "COVID-19", "COVID-[NUM]", {num("19", "19", 6)});
    row("abbreviation then number", "No.5", "No.[NUM]", {num("5", "5", 3)});
    row("figure", "Fig.3a", "Fig.[NUM]a", {num("3", "3", 4)});
    row("hex stays text", "0x1F", "0x1F", {}, {"0x1F: hexadecimal"});
    row("upper-case hash", "5E10AB3", "5E10AB3", {}, {"5E10AB3: hexadecimal"});
    row("fullwidth digit is text", "\xEF\xBC\x95", "\xEF\xBC\x95", {});

    // Dots: ellipses and more than one decimal point.
    row("ellipsis", "wait...5", "wait...[NUM]", {num("5", "5", 7)});
    row("double dot", "5..5", "[NUM]..[NUM]", {num("5", "5", 0), num("5", "5", 3)});
    row("version", "1.2.3", "1.2.3", {}, {"1.2.3: more than one decimal point"});
    row("version in sentence", "v1.2.3 is out", "v1.2.3 is out", {}, {"v1.2.3: digits inside a word"});
    row("date", "2024.01.05", "2024.01.05", {}, {"2024.01.05: more than one decimal point"});
    row("address", "192.168.0.1", "192.168.0.1", {}, {"192.168.0.1: more than one decimal point"});
    row("signed version", "-1.2.3", "-1.2.3", {}, {"-1.2.3: more than one decimal point"});
    row("leading dot version", ".5.6", ".5.6", {}, {".5.6: more than one decimal point"});
    row("grouped version", "1,234.5.6", "1,234.5.6", {}, {"1,234.5.6: more than one decimal point"});
    row("version then full stop", "1.2.3.", "1.2.3.", {}, {"1.2.3: more than one decimal point"});
    row("version then exponent", "1.2.3e5", "1.2.3e5", {}, {"1.2.3e5: more than one decimal point"});
    row("version with a suffix", "1.2.3rc1", "1.2.3rc1", {}, {"1.2.3rc1: more than one decimal point"});
    row("version then number", "1.2.3 and 4", "1.2.3 and [NUM]", {num("4", "4", 10)},
        {"1.2.3: more than one decimal point"});
    row("full stop then number", "1.2. 3", "[NUM]. [NUM]", {num("1.2", "1.2", 0), num("3", "3", 5)});

    // Out of range for Decimal.
    row("exponent out of range", "1e999999", "1e999999", {}, {"1e999999: exponent out of range"});
    row("exponent out of range in sentence", "x 1e999999 y 2", "x 1e999999 y [NUM]", {num("2", "2", 13)},
        {"1e999999: exponent out of range"});
    row("exponent just too far", "1e10000", "1e10000", {}, {"1e10000: more than 10000 digits"});
    row("exponent at the limit", "1e-9999", "[NUM]",
        {num("1e-9999", "0." + std::string(9998, '0') + "1", 0)});
    const std::string too_long(10001, '9');
    row("too many digits", too_long, too_long, {}, {std::string(60, '9') + "...: more than 10000 digits"});

    // Offsets with multi-byte and invalid UTF-8.
    row("two-byte char before", "\xC3\xA9 12", "\xC3\xA9 [NUM]", {num_u("12", "12", 2, 4, 3)});
    row("emoji before",
        "\xF0\x9F\x98\x80"
        "5",
        "\xF0\x9F\x98\x80[NUM]", {num_u("5", "5", 1, 2, 4)});
    row("invalid byte before",
        "\xFF"
        "12",
        "\xFF[NUM]", {num_u("12", "12", 1, 3, 1)});
    row("truncated sequence before",
        "\xE2\x88"
        "5",
        "\xE2\x88[NUM]", {num_u("5", "5", 2, 3, 2)});
    row("stray continuation bytes", "\x80\x80 7", "\x80\x80 [NUM]", {num_u("7", "7", 3, 4, 3)});
    row("overlong encoding",
        "\xC0\xAF"
        "1",
        "\xC0\xAF[NUM]", {num_u("1", "1", 2, 3, 2)});
    row("surrogate encoding",
        "\xED\xA0\x80"
        "1",
        "\xED\xA0\x80[NUM]", {num_u("1", "1", 3, 4, 3)});
    row("NUL byte",
        std::string("\0"
                    "9",
                    2),
        std::string("\0[NUM]", 6), {num("9", "9", 1)});
    row("unicode between numbers",
        "1\xE2\x80\x93"
        "2",
        "[NUM]\xE2\x80\x93[NUM]", {num_u("1", "1", 0, 1, 0), num_u("2", "2", 2, 3, 4)});
}

void TestNumberParser::parse() {
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, templ);
    QFETCH(Numbers, numbers);
    QFETCH(Warnings, warnings);

    const std::string text = bytes(input);
    const fone::ParsedText parsed = fone::parse_numbers(text);
    QCOMPARE(parsed.original, text);
    QCOMPARE(parsed.templ, bytes(templ));
    QCOMPARE(parsed.numbers.size(), numbers.size());
    for (std::size_t k = 0; k < numbers.size(); ++k) {
        const fone::ParsedNumber& got = parsed.numbers[k];
        const Expected& want = numbers[k];
        QCOMPARE(got.text, want.text);
        QCOMPARE(got.value.to_string(), want.value);
        QCOMPARE(got.value, fone::Decimal::parse(want.value));
        QCOMPARE(got.start, want.start);
        QCOMPARE(got.end, want.end);
        QCOMPARE(got.byte_start, want.byte_start);
        QCOMPARE(got.byte_end, want.byte_end);
        QCOMPARE(text.substr(got.byte_start, got.byte_end - got.byte_start), got.text);
    }
    QCOMPARE(parsed.warnings, warnings);
    QCOMPARE(fone::render(parsed), text);
}

void TestNumberParser::placeholder_in_text_throws_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::newRow("alone") << QByteArray("[NUM]");
    QTest::newRow("in sentence") << QByteArray("a [NUM] b 5");
    QTest::newRow("after a number") << QByteArray("5[NUM]");
}

void TestNumberParser::placeholder_in_text_throws() {
    QFETCH(QByteArray, input);
    try {
        (void)fone::parse_numbers(bytes(input));
        QFAIL("expected fone::NumberError");
    } catch (const fone::NumberError& e) {
        QVERIFY2(std::string(e.what()).find("already contains the placeholder [NUM]") != std::string::npos,
                 e.what());
    }
}

// Only the exact placeholder is reserved; look-alikes are ordinary text.
void TestNumberParser::placeholder_match_is_exact() {
    for (const std::string text : {"[num] 1", "[NUM 1]", "NUM] 1", "[ NUM] 1", "[NUM-1]"}) {
        const fone::ParsedText parsed = fone::parse_numbers(text);
        QCOMPARE(parsed.numbers.size(), std::size_t{1});
        QCOMPARE(fone::render(parsed), text);
    }
}

// Every single byte and every byte pair: no throw, no crash, original back.
void TestNumberParser::never_throws_on_bytes() {
    for (int a = 0; a < 256; ++a) {
        for (int b = 0; b < 256; ++b) {
            const std::string text{static_cast<char>(a), static_cast<char>(b), '1'};
            const fone::ParsedText parsed = fone::parse_numbers(text);
            QCOMPARE(fone::render(parsed), text);
            // The last digit ends a number, or a span kept as text (a word: "x1", "1a1").
            const bool number = !parsed.numbers.empty() && parsed.numbers.back().byte_end == 3;
            const bool word = !parsed.as_text.empty() && parsed.as_text.back().byte_end == 3;
            QVERIFY(number != word);
        }
    }
}

void TestNumberParser::render_canonical_uses_values_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("canonical");
    QTest::newRow("mixed") << QByteArray("1,234.50 and +5 and -0 and 007")
                           << QByteArray("1234.5 and 5 and 0 and 7");
    QTest::newRow("scientific") << QByteArray("3.14e-2, 1e+5") << QByteArray("0.0314, 100000");
    QTest::newRow("unicode minus") << QByteArray(
                                          "\xE2\x88\x92"
                                          ".5")
                                   << QByteArray("-0.5");
    QTest::newRow("text kept") << QByteArray("$99.99 1.2.3 50%") << QByteArray("$99.99 1.2.3 50%");
    QTest::newRow("no numbers") << QByteArray("none") << QByteArray("none");
}

void TestNumberParser::render_canonical_uses_values() {
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, canonical);
    QCOMPARE(fone::render_canonical(fone::parse_numbers(bytes(input))), bytes(canonical));
}

void TestNumberParser::render_template_fills_in_order() {
    QCOMPARE(fone::render_template("[NUM] + [NUM] = [NUM]", {"1", "2", "3"}), std::string("1 + 2 = 3"));
    QCOMPARE(fone::render_template("[NUM][NUM]", {"a", "b"}), std::string("ab"));
    QCOMPARE(fone::render_template("no numbers", {}), std::string("no numbers"));
    QCOMPARE(fone::render_template("", {}), std::string());
    // A replacement that itself looks like a placeholder is not filled again.
    QCOMPARE(fone::render_template("[NUM] [NUM]", {"[NUM]", "x"}), std::string("[NUM] x"));
}

void TestNumberParser::render_template_count_mismatch_throws_data() {
    QTest::addColumn<QByteArray>("templ");
    QTest::addColumn<int>("given");
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("too few") << QByteArray("[NUM] [NUM]") << 1
                             << QByteArray("template has 2 [NUM] placeholders but 1 numbers were given");
    QTest::newRow("too many") << QByteArray("[NUM]") << 2
                              << QByteArray("template has 1 [NUM] placeholders but 2 numbers were given");
    QTest::newRow("none expected") << QByteArray("text") << 1
                                   << QByteArray(
                                          "template has 0 [NUM] placeholders but 1 numbers were given");
}

void TestNumberParser::render_template_count_mismatch_throws() {
    QFETCH(QByteArray, templ);
    QFETCH(int, given);
    QFETCH(QByteArray, message);
    try {
        (void)fone::render_template(bytes(templ),
                                    std::vector<std::string>(static_cast<std::size_t>(given), "7"));
        QFAIL("expected fone::NumberError");
    } catch (const fone::NumberError& e) {
        QCOMPARE(std::string(e.what()), bytes(message));
    }
}

// Decimal::kMaxDigits digits still make a number; one more stays text.
void TestNumberParser::max_digits_boundary() {
    const std::string at_limit = "1" + std::string(fone::Decimal::kMaxDigits - 1, '0');
    const fone::ParsedText ok = fone::parse_numbers("n=" + at_limit);
    QCOMPARE(ok.templ, std::string("n=[NUM]"));
    QCOMPARE(ok.numbers.size(), std::size_t{1});
    QCOMPARE(ok.numbers[0].value.to_string(), at_limit);
    QCOMPARE(ok.numbers[0].end, std::size_t{2 + fone::Decimal::kMaxDigits});
    QVERIFY(ok.warnings.empty());

    const fone::ParsedText over = fone::parse_numbers("n=" + at_limit + "0");
    QCOMPARE(over.templ, "n=" + at_limit + "0");
    QVERIFY(over.numbers.empty());
    QCOMPARE(over.warnings.size(), std::size_t{1});

    // Leading zeros are not significant: Decimal counts only the digits that carry the value.
    const std::string padded = std::string(fone::Decimal::kMaxDigits, '0') + "7";
    const fone::ParsedText zeros = fone::parse_numbers(padded);
    QCOMPARE(zeros.numbers.size(), std::size_t{1});
    QCOMPARE(zeros.numbers[0].value.to_string(), std::string("7"));
    QCOMPARE(zeros.numbers[0].text, padded);
}

void TestNumberParser::long_digit_token_is_cut_in_warning() {
    const std::string version = std::string(100, '1') + ".2.3";
    const fone::ParsedText parsed = fone::parse_numbers(version);
    QCOMPARE(parsed.warnings.size(), std::size_t{1});
    QCOMPARE(parsed.warnings[0], std::string(60, '1') + "...: more than one decimal point");
    QCOMPARE(fone::render(parsed), version);
}

// Megabyte inputs of the shapes that make backtracking scanners quadratic or recursive ones overflow.
void TestNumberParser::large_inputs_are_linear() {
    std::string many;
    for (int k = 0; k < 100000; ++k)
        many += "-1,234.5 ";
    const fone::ParsedText numbers = fone::parse_numbers(many);
    QCOMPARE(numbers.numbers.size(), std::size_t{100000});
    QCOMPARE(numbers.numbers.back().value.to_string(), std::string("-1234.5"));
    QCOMPARE(numbers.numbers.back().start, std::size_t{99999 * 9});
    QCOMPARE(fone::render(numbers), many);

    std::string word(1000000, 'a');  // one long word with digits at its end: scanned back once
    word += "1";
    const fone::ParsedText glued = fone::parse_numbers(word + " 2");
    QCOMPARE(glued.as_text.size(), std::size_t{1});
    QCOMPARE(glued.numbers.size(), std::size_t{1});
    std::string words;
    for (int k = 0; k < 200000; ++k)
        words += "a1_b2 ";
    const fone::ParsedText identifiers = fone::parse_numbers(words);
    QCOMPARE(identifiers.as_text.size(), std::size_t{200000});
    QVERIFY(identifiers.numbers.empty());

    std::string dotted = "1";
    for (int k = 0; k < 500000; ++k)
        dotted += ".1";
    const fone::ParsedText run = fone::parse_numbers(dotted);
    QVERIFY(run.numbers.empty());
    QCOMPARE(run.warnings.size(), std::size_t{1});

    std::string commas = "1";
    for (int k = 0; k < 200000; ++k)
        commas += ",000";
    commas += "0";  // the last group has four digits: every comma before it still groups
    const fone::ParsedText grouped = fone::parse_numbers(commas);
    QCOMPARE(grouped.warnings.size(), std::size_t{1});  // 600,001 digits: more than kMaxDigits
    QCOMPARE(grouped.numbers.size(), std::size_t{1});
    QCOMPARE(grouped.numbers[0].text, std::string("0000"));
    QCOMPARE(fone::render(grouped), commas);

    const std::string dashes(1000000, '-');
    QVERIFY(fone::parse_numbers(dashes + "5").numbers[0].text == "5");
}

void TestNumberParser::limits_make_long_numbers_text() {
    // A run with 3 integer and 2 fractional slots: 1234 and 0.125 stay text, every other number is read.
    const fone::NumberLimits limits{3, 2};
    const fone::ParsedText p = fone::parse_numbers("999 and 1234, 0.12 and 0.125, -5", limits);
    QCOMPARE(p.templ, std::string("[NUM] and 1234, [NUM] and 0.125, [NUM]"));
    QCOMPARE(p.numbers.size(), std::size_t{3});
    QCOMPARE(p.as_text.size(), std::size_t{2});
    QCOMPARE(p.as_text[0].kind, fone::AsTextKind::beyond_slots);
    QCOMPARE(p.as_text[0].text, std::string("1234"));
    QCOMPARE(p.as_text[1].text, std::string("0.125"));
    QCOMPARE(p.warnings[0], std::string("1234: more digits than the slots hold (3 integer, 2 fractional)"));
    QCOMPARE(fone::render(p), p.original);
    // No limits: every number is a number.
    QCOMPARE(fone::parse_numbers(p.original).numbers.size(), std::size_t{5});
    // Leading zeros and trailing fractional zeros are not digits of the value.
    QCOMPARE(fone::parse_numbers("007 2.50", limits).numbers.size(), std::size_t{2});
    QVERIFY(limits.holds(fone::Decimal::parse("-999.99")));
    QVERIFY(!limits.holds(fone::Decimal::parse("1000")));
    QVERIFY(fone::NumberLimits{}.holds(fone::Decimal::parse("1e300")));
}

void TestNumberParser::as_text_spans_have_kinds() {
    const std::string text = "CO2 at 1.2.3, c65e6079fc9 and 1e999999 over 1234567";
    const fone::ParsedText p = fone::parse_numbers(text, {5, 0});
    QCOMPARE(p.as_text.size(), std::size_t{5});
    const fone::AsTextKind kinds[] = {fone::AsTextKind::in_word, fone::AsTextKind::dotted,
                                      fone::AsTextKind::hexadecimal, fone::AsTextKind::out_of_range,
                                      fone::AsTextKind::beyond_slots};
    const char* spans[] = {"CO2", "1.2.3", "c65e6079fc9", "1e999999", "1234567"};
    for (std::size_t k = 0; k < 5; ++k) {
        QCOMPARE(p.as_text[k].kind, kinds[k]);
        QCOMPARE(p.as_text[k].text, std::string(spans[k]));
        QCOMPARE(text.substr(p.as_text[k].byte_start, p.as_text[k].byte_end - p.as_text[k].byte_start),
                 std::string(spans[k]));
        QCOMPARE(p.warnings[k], std::string(spans[k]) + ": " + p.as_text[k].reason);
    }
    QCOMPARE(fone::as_text_kind_name(fone::AsTextKind::in_word), std::string("in a word"));
    QCOMPARE(fone::as_text_kind_name(fone::AsTextKind::beyond_slots), std::string("beyond the slots"));
}

QTEST_APPLESS_MAIN(TestNumberParser)
#include "test_number_parser.moc"
