// Real corpora (issue 30): the World Factbook reader against an independent Python rendering of the
// committed sample (tests/golden/make_factbook_golden.py), markup stripping and entities by hand, the
// split by country (FNV-1a 64 worked out in Python), the corpus report counted by hand, and bad input:
// a file that is not JSON, invalid UTF-8, an empty country, a 10 MB field, a 400-digit number.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "fone/text/corpus.h"

namespace fs = std::filesystem;

namespace {

const std::string kSample = std::string(FONE_SOURCE_DIR) + "/tests/data/factbook-sample";

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// The message of the TextDataError that `read` throws ("" when it throws none).
template <typename F>
std::string error_of(F read) {
    try {
        read();
    } catch (const fone::TextDataError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

class TestCorpus : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void markup_is_stripped() {
        QCOMPARE(fone::strip_markup("<p>a&nbsp;b</p>"), std::string("a b"));
        QCOMPARE(fone::strip_markup("<b>note:</b> data in 2021 dollars"),
                 std::string("note: data in 2021 dollars"));
        QCOMPARE(fone::strip_markup("line one<br><br>line two"), std::string("line one line two"));
        QCOMPARE(fone::strip_markup("&lt;1% (2023 est.)"), std::string("<1% (2023 est.)"));
        QCOMPARE(fone::strip_markup("< 5 and 3 > 2"), std::string("< 5 and 3 > 2"));  // not tags
        QCOMPARE(fone::strip_markup("Bogot&aacute; &amp; S&#227;o Paulo &#x41;"),
                 std::string("Bogotá & São Paulo A"));
        QCOMPARE(fone::strip_markup("x &unknown; &#0; &#xD800; y"),
                 std::string("x &unknown; &#0; &#xD800; y"));
        QCOMPARE(fone::strip_markup("  a \t\n b  "), std::string("a b"));
        QCOMPARE(fone::strip_markup("(2019 est.)<!--EndFragment -->"), std::string("(2019 est.)"));
    }

    // Each sample country rendered as the Python reference renders it, byte for byte.
    void sample_matches_the_reference() {
        const fone::FactbookCorpus corpus = fone::read_factbook(kSample);
        QCOMPARE(corpus.documents.size(), std::size_t(5));
        QVERIFY(corpus.skipped.empty());
        const std::vector<std::string> codes = {"bv", "hm", "in", "ip", "jn"};  // sorted by code
        for (std::size_t i = 0; i < codes.size(); ++i) {
            const fone::FactbookDocument& d = corpus.documents[i];
            QCOMPARE(d.code, codes[i]);
            const std::string want =
                read_all(std::string(FONE_SOURCE_DIR) + "/tests/golden/factbook-" + d.code + ".txt");
            QVERIFY2(!want.empty(), d.code.c_str());
            QCOMPARE(d.text, want);
        }
        QCOMPARE(corpus.documents[2].name, std::string("India"));
        QCOMPARE(corpus.documents[2].region, std::string("south-asia"));
        // The examples, as lines of India's document.
        const std::string& india = corpus.documents[2].text;
        QVERIFY(india.find("\nGeography: Area: total: 3,287,263 sq km\n") != std::string::npos);
        QVERIFY(india.find("\nGeography: Geographic coordinates: 20 00 N, 77 00 E\n") != std::string::npos);
        QVERIFY(india.find("\nPeople and Society: Age structure: 15-64 years: 68.7% (male 500,568,593/female "
                           "467,593,781)\n") != std::string::npos);
    }

    // FNV-1a 64 of the code, mod 10 (worked out in Python): 0 test, 1 val, else train.
    void split_is_by_country() {
        QCOMPARE(fone::factbook_split("bv"), std::string("train"));
        QCOMPARE(fone::factbook_split("hm"), std::string("test"));
        QCOMPARE(fone::factbook_split("in"), std::string("train"));
        QCOMPARE(fone::factbook_split("ip"), std::string("train"));
        QCOMPARE(fone::factbook_split("jn"), std::string("val"));
        QCOMPARE(fone::factbook_split("ja"), std::string("test"));  // Japan: one of the 28 test countries
        const fone::TextSplits s = fone::factbook_splits(fone::read_factbook(kSample));
        QCOMPARE(s.train.size(), std::size_t(3));
        QCOMPARE(s.val.size(), std::size_t(1));
        QCOMPARE(s.test.size(), std::size_t(1));
        QVERIFY(s.test[0].prompt.empty());
        QVERIFY(s.test[0].answer.rfind("Heard Island and McDonald Islands\n", 0) == 0);
    }

    // Counted by hand.
    void report_counts() {
        const std::vector<fone::TextExample> docs = {
            {"", "Area: 3,287,263 sq km; 20 00 N\ngrowth -0.5% in 2024"}, {"", "version 1.2.3 of 10.25"}};
        const fone::CorpusReport r = fone::corpus_report(docs);
        QCOMPARE(r.documents, std::size_t(2));
        QCOMPARE(r.words, std::size_t(7 + 4 + 4));
        // 3287263 (7 digits), 20 (2), 00 = 0 (no digits), -0.5 (1), 2024 (4), 10.25 (4)
        QCOMPARE(r.numbers, std::size_t(6));
        QCOMPARE(r.digit_lengths, (std::map<int, std::size_t>{{0, 1}, {1, 1}, {2, 1}, {4, 2}, {7, 1}}));
        QCOMPARE(r.signs.at("negative"), std::size_t(1));
        QCOMPARE(r.largest, std::string("3287263"));
        QCOMPARE(r.most_int_digits, 7);
        QCOMPARE(r.most_frac_digits, 2);
        QCOMPARE(r.not_read, std::size_t(1));
        QCOMPARE(r.not_read_reasons.at("more than one decimal point"), std::size_t(1));
        QCOMPARE(r.not_read_examples.at(0), std::string("1.2.3: more than one decimal point"));
    }

    void bad_folders_are_one_line_errors() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const auto one_line = [](const std::string& e) {
            return !e.empty() && e.find('\n') == std::string::npos;
        };
        std::string e = error_of([&] { fone::read_factbook((root / "missing").string()); });
        QVERIFY2(one_line(e) && e.find("not a folder") != std::string::npos, e.c_str());
        fs::create_directories(root / "empty");
        e = error_of([&] { fone::read_factbook((root / "empty").string()); });
        QVERIFY2(one_line(e) && e.find("no .json file") != std::string::npos, e.c_str());

        write_all(root / "notjson" / "r" / "xx.json", "this is not JSON\n{");
        e = error_of([&] { fone::read_factbook((root / "notjson").string()); });
        QVERIFY2(one_line(e) && e.find("xx.json: not JSON") != std::string::npos, e.c_str());

        write_all(root / "utf8" / "r" / "xx.json",
                  "{\"Geography\": {\"Area\": {\"text\": \"5 sq km \xFF\xFE\"}}}");
        e = error_of([&] { fone::read_factbook((root / "utf8").string()); });
        QVERIFY2(one_line(e) && e.find("xx.json: not JSON") != std::string::npos, e.c_str());

        // Issue 44: 20,000 levels of nesting (100 KB) crashed the reader (the unbounded parser, then a
        // recursive renderer); an unterminated 10 MB string became a 10 MB error line.
        write_all(root / "deep" / "r" / "xx.json",
                  "{\"A\": " + std::string(20000, '[') + "\"5 km\"" + std::string(20000, ']') + "}");
        e = error_of([&] { fone::read_factbook((root / "deep").string()); });
        QVERIFY2(one_line(e) && e.find("nests deeper than 64 levels") != std::string::npos, e.c_str());
        e = error_of([&] {
            fone::render_factbook_fields("{\"a\": " + std::string(20000, '[') + std::string(20000, ']') + "}",
                                         "given");
        });
        QVERIFY2(e.find("given: not JSON (nests deeper") != std::string::npos, e.c_str());
        write_all(root / "unterminated" / "r" / "xx.json", "{\"A\": \"" + std::string(10u << 20, 'x'));
        e = error_of([&] { fone::read_factbook((root / "unterminated").string()); });
        QVERIFY2(one_line(e) && e.size() < 1000 && e.find("xx.json: not JSON") != std::string::npos,
                 qPrintable(QString::number(e.size())));

        write_all(root / "array" / "r" / "xx.json", "[1, 2, 3]");
        e = error_of([&] { fone::read_factbook((root / "array").string()); });
        QVERIFY2(one_line(e) && e.find("xx.json: not a Factbook country") != std::string::npos, e.c_str());

        write_all(root / "placeholder" / "r" / "xx.json", "{\"A\": {\"text\": \"a [NUM] b\"}}");
        e = error_of([&] { fone::read_factbook((root / "placeholder").string()); });
        QVERIFY2(one_line(e) && e.find("[NUM]") != std::string::npos, e.c_str());
    }

    // An empty country is a documented skip; a 10 MB field and a 400-digit number are read (the 400
    // digits are the report's to show, and a run's to refuse: text_scheme's kMaxTextNumberDigits).
    void odd_countries_are_read_or_skipped() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        write_all(root / "r" / "aa.json", "{}");
        write_all(root / "r" / "ab.json", "{\"Intro\": {\"text\": \"<p> </p>\", \"note\": \"\"}}");
        const std::string long_field(10u << 20, 'x');
        write_all(root / "r" / "ac.json", "{\"Intro\": {\"text\": \"" + long_field + "\"}}");
        const std::string digits400 = "1" + std::string(399, '7');
        write_all(root / "r" / "ad.json",
                  "{\"Economy\": {\"Debt\": {\"text\": \"$" + digits400 + " (2024 est.)\"}}}");
        const fone::FactbookCorpus c = fone::read_factbook(root.string());
        QCOMPARE(c.skipped.size(), std::size_t(2));
        QVERIFY(c.skipped[0].file.ends_with("aa.json") && c.skipped[0].reason == "no field text");
        QVERIFY(c.skipped[1].file.ends_with("ab.json"));
        QCOMPARE(c.documents.size(), std::size_t(2));
        QCOMPARE(c.documents[0].text, "ac\nIntro: " + long_field);
        QCOMPARE(c.documents[1].text, "ad\nEconomy: Debt: $" + digits400 + " (2024 est.)");
        const fone::CorpusReport r = fone::corpus_report({{"", c.documents[1].text}});
        QCOMPARE(r.digit_lengths.at(400), std::size_t(1));
        QCOMPARE(r.largest, digits400);
    }
};

QTEST_GUILESS_MAIN(TestCorpus)
#include "test_corpus.moc"
