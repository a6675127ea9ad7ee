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
#include "fone/text/text_scaling.h"

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

    // What stays text, by kind, counted by hand; with a run's slots, the numbers beyond them too.
    void report_counts_what_stays_text_by_kind() {
        const std::vector<fone::TextExample> docs = {{"", "CO2 at 1.2.3 and c65e6079fc9, then 1e999999"},
                                                     {"", "x86_64: 1234 and 0.25 and 7"}};
        fone::CorpusReport r = fone::corpus_report(docs);
        QCOMPARE(r.numbers, std::size_t(3));  // 1234, 0.25, 7
        QCOMPARE(r.as_text, (std::map<std::string, std::size_t>{
                                {"dotted", 1}, {"hexadecimal", 1}, {"in a word", 2}, {"out of range", 1}}));
        QCOMPARE(r.as_text_examples.at("in a word"), (std::vector<std::string>{"CO2", "x86_64"}));
        QCOMPARE(r.not_read, std::size_t(5));
        r = fone::corpus_report(docs, {3, 1});  // 1234 has 4 integer digits, 0.25 two fractional ones
        QCOMPARE(r.numbers, std::size_t(1));
        QCOMPARE(r.as_text.at("beyond the slots"), std::size_t(2));
        QCOMPARE(r.as_text_examples.at("beyond the slots"), (std::vector<std::string>{"1234", "0.25"}));
        const nlohmann::json j = fone::corpus_report_json(r);
        QCOMPARE(j["as_text"]["beyond the slots"]["count"].get<int>(), 2);
        QCOMPARE(j["not_read"].get<int>(), 7);
    }

    // The slots that hold the most numbers when all of them do not fit, worked out by hand: A has 20 integer
    // digits, B (twice) 21 fractional ones, C (three times) one of each. 20 + 21 > 40: holding A leaves at
    // most 20 fractional slots (A and C: 4 numbers), holding B leaves 19 integer ones (B and C: 5).
    void slots_hold_the_most_numbers() {
        fone::TextSplits s;
        const std::string a = "1" + std::string(19, '2'), b = "0." + std::string(20, '3') + "4";
        s.train = {{"", "A " + a + ", B " + b + ", C 1.5"}, {"", "C 2.5 and 3.5"}};
        s.test = {{"", "B " + b}};
        fone::TextSlots t = fone::choose_text_slots(s, -1, -1, 40);
        QCOMPARE(t.int_digits, 1);
        QCOMPARE(t.frac_digits, 21);
        QCOMPARE(t.numbers, std::size_t(6));
        QCOMPARE(t.held, std::size_t(5));
        QCOMPARE(t.longest_int + t.longest_frac, 21);
        t = fone::choose_text_slots(s, 20, -1, 40);  // the integer slots given: the rest of 40, shrunk
        QCOMPARE(t.int_digits, 20);
        QCOMPARE(t.frac_digits, 1);
        QCOMPARE(t.held, std::size_t(4));
        t = fone::choose_text_slots(s, -1, -1, 41);  // everything fits: the longest of each
        QCOMPARE(t.int_digits, 20);
        QCOMPARE(t.frac_digits, 21);
        QCOMPARE(t.held, std::size_t(6));
    }

    void paragraphs_and_hashed_splits() {
        QTemporaryDir dir;
        const fs::path file = fs::path(dir.path().toStdString()) / "p.txt";
        write_all(file,
                  "\xEF\xBB\xBF"
                  "a 1\nb 2\n\n \n\nc 3\r\n");  // a byte-order mark, CRLF, blank lines
        const auto docs = fone::read_text_paragraphs(file.string());
        QCOMPARE(docs.size(), std::size_t(2));
        QCOMPARE(docs[0].answer, std::string("a 1\nb 2"));
        QCOMPARE(docs[1].answer, std::string("c 3"));
        std::vector<fone::TextExample> many;
        for (int i = 0; i < 200; ++i)
            many.push_back({"", "document " + std::to_string(i)});
        const fone::TextSplits s = fone::hashed_splits(many);
        QCOMPARE(s.train.size() + s.val.size() + s.test.size(), std::size_t(200));
        QVERIFY(s.test.size() > 5 && s.val.size() > 5 && s.train.size() > 120);
        // A document's split is its own: the same with any other documents around it.
        const fone::TextSplits alone = fone::hashed_splits({s.test[0]});
        QCOMPARE(alone.test.size(), std::size_t(1));
    }

    // The ratio, seed by seed, by hand: seed 1 100 / 200 = 0.5, seed 2 120 / 100 = 1.2.
    void perplexity_ratios_by_seed() {
        const std::vector<fone::ScalingRun> runs = {
            {"c", "s1", "fone", 1, 1000, 100},   {"c", "s1", "digit", 1, 1000, 200},
            {"c", "s1", "fone", 2, 1000, 120},   {"c", "s1", "digit", 2, 1000, 100},
            {"c", "s1", "subword", 1, 1000, 50}, {"c", "s2", "fone", 1, 4000, 90},  // no digit run: left out
            {"d", "s1", "digit", 1, 1000, 80},   {"d", "s1", "fone", 1, 1000, 60}};
        const auto lines = fone::perplexity_ratios(runs);
        QCOMPARE(lines.size(), std::size_t(2));
        QCOMPARE(lines[0].corpus, std::string("c"));
        QCOMPARE(lines[0].points.size(), std::size_t(1));
        const fone::RatioPoint& p = lines[0].points[0];
        QCOMPARE(p.seeds, 2);
        QCOMPARE(p.params, 1000.0);
        QVERIFY(std::abs(p.mean - 0.85) < 1e-12 && p.low == 0.5 && std::abs(p.high - 1.2) < 1e-12);
        QCOMPARE(lines[1].points[0].mean, 0.75);
        QCOMPARE(fone::perplexity_ratios(runs, "subword", "digit")[0].points[0].mean, 0.25);
        const auto& published = fone::published_ratios();
        QCOMPARE(published.size(), std::size_t(2));
        QVERIFY(std::abs(published[0].ratio - 46.856 / 55.922) < 1e-12);  // below 1: FoNE's lower
        QVERIFY(std::abs(published[1].ratio - 72.1 / 50.9) < 1e-12);      // above 1
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
