// Text with numbers (issue 4): the generators' answers recomputed here with int64 arithmetic on the
// numbers the parser finds in their prompts, determinism and disjoint splits, the corpus readers and
// their errors, and the three tokenizer schemes: exact round trips, subword chunks and token counts
// worked out by hand.
#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/io/shown_text.h"
#include "fone/numbers/number_parser.h"
#include "fone/text/text_data.h"
#include "fone/text/text_tokenizer.h"

using fone::Decimal;
using fone::TextExample;
using fone::TextScheme;
using fone::TextTask;
using fone::TextTokenizer;

namespace {

// x·1000 as an integer, from the number's digit strings (every generated number has at most 3 decimals).
std::int64_t milli(const Decimal& d) {
    std::string frac = d.frac_digits();
    if (frac.size() > 3) throw std::runtime_error("more than 3 decimals: " + d.to_string());
    frac.resize(3, '0');
    const std::int64_t value = std::stoll((d.int_digits().empty() ? "0" : d.int_digits()) + frac);
    return d.negative() ? -value : value;
}

std::vector<std::int64_t> numbers_in(const std::string& text) {
    std::vector<std::int64_t> out;
    for (const auto& n : fone::parse_numbers(text).numbers)
        out.push_back(milli(n.value));
    return out;
}

bool contains(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

std::vector<TextExample> examples_of(TextTask task, std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<TextExample> out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(fone::generate_text_example(task, rng));
    return out;
}

// Every amount after '$' has no decimals or exactly two.
void check_money_format(const std::string& text) {
    for (std::size_t at = text.find('$'); at != std::string::npos; at = text.find('$', at + 1)) {
        std::size_t end = at + 1;
        while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) ||
                                     (text[end] == '.' && end + 1 < text.size() &&
                                      std::isdigit(static_cast<unsigned char>(text[end + 1])))))
            ++end;
        const std::string amount = text.substr(at + 1, end - at - 1);
        const auto dot = amount.find('.');
        QVERIFY2(dot == std::string::npos || amount.size() - dot - 1 == 2, text.c_str());
    }
}

struct Cell {
    std::string column, row;
};
// "Pears in Mar" -> {Pears, Mar}: column, preposition, row (all single words in the generator).
Cell cell_named(const std::string& words) {
    std::istringstream in(words);
    Cell c;
    std::string preposition;
    in >> c.column >> preposition >> c.row;
    return c;
}

struct ParsedTable {
    std::vector<std::string> columns;  // without the row-label column
    std::map<std::string, std::vector<std::int64_t>> rows;
    std::vector<std::string> row_order;
    std::int64_t at(const Cell& c) const {
        const auto col = std::find(columns.begin(), columns.end(), c.column) - columns.begin();
        return rows.at(c.row).at(static_cast<std::size_t>(col));
    }
};

std::vector<std::string> table_fields(const std::string& line) {
    std::vector<std::string> fields;
    std::istringstream in(line);
    for (std::string field; std::getline(in, field, '|');) {
        const auto b = field.find_first_not_of(' '), e = field.find_last_not_of(' ');
        if (b != std::string::npos) fields.push_back(field.substr(b, e - b + 1));
    }
    return fields;
}

ParsedTable parse_table(const std::string& table) {
    ParsedTable t;
    std::istringstream lines(table);
    std::string line;
    std::getline(lines, line);
    auto header = table_fields(line);
    t.columns.assign(header.begin() + 1, header.end());
    while (std::getline(lines, line)) {
        const auto fields = table_fields(line);
        t.row_order.push_back(fields[0]);
        for (std::size_t k = 1; k < fields.size(); ++k)
            t.rows[fields[0]].push_back(milli(Decimal::parse(fields[k])));
    }
    return t;
}

std::string between(const std::string& text, const std::string& from, const std::string& to) {
    const auto b = text.find(from) + from.size();
    return text.substr(b, text.find(to, b) - b);
}

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("fone_test_text_" + name)).string();
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

// One tokenizer for the round-trip tests, trained on all three tasks.
const TextTokenizer& shared_tokenizer() {
    static const TextTokenizer t = [] {
        std::vector<TextExample> corpus;
        for (const TextTask task : {TextTask::word_problems, TextTask::units, TextTask::tables}) {
            const auto s = fone::generate_text_splits(task, 600, 0, 0, 7);
            corpus.insert(corpus.end(), s.train.begin(), s.train.end());
        }
        return TextTokenizer::train(corpus, TextScheme::fone, {.vocab_size = 800});
    }();
    return t;
}

}  // namespace

class TestText : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void word_problem_answers() {
        int kinds[9] = {};
        for (const TextExample& e : examples_of(TextTask::word_problems, 3000, 1)) {
            const auto in = numbers_in(e.prompt), out = numbers_in(e.answer);
            QCOMPARE(out.size(), std::size_t{1});
            const std::int64_t answer = out[0];
            check_money_format(e.prompt);
            check_money_format(e.answer);
            // Amounts in milli-dollars: price·quantity needs a division by 1000 to stay in milli units.
            if (contains(e.prompt, "pays with a $")) {
                QCOMPARE(in.size(), std::size_t{3});
                QCOMPARE(answer, in[2] - in[0] * in[1] / 1000);
                QVERIFY(answer > 0);
                ++kinds[0];
            } else if (contains(e.prompt, "How much does one")) {
                QCOMPARE(in.size(), std::size_t{2});
                QCOMPARE(answer * in[1] / 1000, in[0]);
                ++kinds[1];
            } else if (contains(e.prompt, "in total?")) {
                QCOMPARE(in.size(), std::size_t{4});
                QCOMPARE(answer, in[0] * in[1] / 1000 + in[2] * in[3] / 1000);
                ++kinds[2];
            } else if (contains(e.prompt, "% off")) {
                QCOMPARE(in.size(), std::size_t{2});
                // "An apple costs", "A lamp costs": the article agrees with the item.
                QCOMPARE(e.prompt[1] == 'n',
                         std::string("aeiou").find(e.prompt[e.prompt.find(' ') + 1]) != std::string::npos);
                QCOMPARE(answer * 100, in[0] * (100 - in[1] / 1000));
                ++kinds[3];
            } else if (contains(e.prompt, "spend?")) {  // additive: two prices
                QCOMPARE(in.size(), std::size_t{2});
                QCOMPARE(answer, in[0] + in[1]);
                QCOMPARE(e.answer.substr(e.answer.size() - 1), std::string("."));
                ++kinds[6];
            } else if (contains(e.prompt, "is left?")) {  // additive: money left
                QCOMPARE(in.size(), std::size_t{2});
                QCOMPARE(answer, in[0] - in[1]);
                QVERIFY(answer > 0);
                ++kinds[7];
            } else if (contains(e.prompt, "weigh together?")) {  // additive: combined weight
                QCOMPARE(in.size(), std::size_t{2});
                QCOMPARE(answer, in[0] + in[1]);
                QVERIFY(contains(e.answer, " kg."));
                ++kinds[8];
            } else if (contains(e.prompt, "bags of")) {
                QCOMPARE(in.size(), std::size_t{2});
                QCOMPARE(answer, in[0] / 1000 * in[1]);
                QVERIFY(contains(e.answer, " kg of "));
                ++kinds[4];
            } else {
                QVERIFY(contains(e.prompt, "How much does"));
                QCOMPARE(in.size(), std::size_t{2});
                QCOMPARE(answer, in[0] / 1000 * in[1]);
                ++kinds[5];
            }
        }
        for (const int k : kinds)
            QVERIFY(k > 200);  // each of the 9 templates is drawn (about 333 each)
    }

    void unit_answers() {
        std::set<std::string> directions;
        for (const TextExample& e : examples_of(TextTask::units, 3000, 2)) {
            const auto in = numbers_in(e.prompt), out = numbers_in(e.answer);
            QCOMPARE(in.size(), std::size_t{1});
            QCOMPARE(out.size(), std::size_t{2});
            QCOMPARE(out[0], in[0]);
            const std::int64_t from = out[0], to = out[1];
            const std::string unit = between(e.answer, " ", " is");
            const std::string target = e.answer.substr(e.answer.rfind(' ') + 1);
            const std::string direction = unit + ">" + target.substr(0, target.size() - 1);
            directions.insert(direction);
            if (direction == "km>m" || direction == "kg>g" || direction == "L>mL") {
                QCOMPARE(to, from * 1000);
            } else if (direction == "m>km" || direction == "g>kg" || direction == "mL>L") {
                QCOMPARE(to * 1000, from);
            } else if (direction == "h>min") {
                QCOMPARE(to, from * 60);
            } else if (direction == "min>h") {
                QCOMPARE(to * 60, from);
            } else if (direction == "°C>°F") {
                QCOMPARE(5 * to, 9 * from + 160000);  // F = 9C/5 + 32, in milli-degrees
            } else if (direction == "°F>°C") {
                QCOMPARE(5 * from, 9 * to + 160000);
            } else {
                QFAIL(("unexpected conversion " + direction).c_str());
            }
        }
        QCOMPARE(directions.size(), std::size_t{10});
    }

    void table_answers() {
        int kinds[3] = {};
        for (const TextExample& e : examples_of(TextTask::tables, 2000, 3)) {
            const std::string table = fone::table_text(e);
            const ParsedTable t = parse_table(table);
            QVERIFY(t.row_order.size() >= 3 && t.row_order.size() <= 5);
            QVERIFY(t.columns.size() >= 2 && t.columns.size() <= 4);
            const std::string question = e.prompt.substr(e.prompt.rfind('\n') + 1);
            QCOMPARE(e.prompt, table + "\n" + question);
            const auto out = numbers_in(e.answer);
            QCOMPARE(out.size(), std::size_t{1});
            if (contains(question, "sum of the")) {
                const std::string column = between(question, "sum of the ", " column");
                std::int64_t sum = 0;
                for (const auto& row : t.row_order)
                    sum += t.at({column, row});
                QCOMPARE(out[0], sum);
                ++kinds[0];
            } else if (contains(question, "Which is larger: ")) {
                const Cell a = cell_named(between(question, "larger: ", " or ")),
                           b = cell_named(between(question, " or ", "?"));
                QVERIFY(t.at(a) != t.at(b));
                QCOMPARE(out[0], std::max(t.at(a), t.at(b)));
                const Cell named = cell_named(e.answer.substr(0, e.answer.find(" is larger")));
                QCOMPARE(t.at(named), out[0]);
                ++kinds[1];
            } else {
                const Cell a = cell_named(between(question, "What is ", " minus ")),
                           b = cell_named(between(question, " minus ", "?"));
                QVERIFY(a.row != b.row);
                QCOMPARE(out[0], t.at(a) - t.at(b));
                ++kinds[2];
            }
        }
        for (const int k : kinds)
            QVERIFY(k > 500);
    }

    void generated_text_is_written_by_the_rule() {
        for (const TextTask task : {TextTask::word_problems, TextTask::units, TextTask::tables})
            for (const TextExample& e : examples_of(task, 1000, 4)) {
                QCOMPARE(fone::write_numbers(e.prompt), e.prompt);
                QCOMPARE(fone::write_numbers(e.answer), e.answer);
            }
    }

    // A pretrained model's generation streams bytes: what is shown so far (complete_utf8) holds back a
    // character still being written and shows a byte that fits no character as U+FFFD, then goes on. By
    // hand: "é" is C3 A9, "€" is E2 82 AC; FF and a lone continuation byte 80 fit nothing.
    void generated_bytes_shown_as_they_come() {
        const std::string fffd = "\xEF\xBF\xBD";
        QCOMPARE(fone::complete_utf8("caf\xC3"), std::string("caf"));
        QCOMPARE(fone::complete_utf8("caf\xC3\xA9"), std::string("caf\xC3\xA9"));
        QCOMPARE(fone::complete_utf8("\xE2\x82"), std::string());
        QCOMPARE(fone::complete_utf8("\xE2\x82\xAC 5"), std::string("\xE2\x82\xAC 5"));
        QCOMPARE(fone::complete_utf8("a\xFF"
                                     "b"),
                 "a" + fffd + "b");
        QCOMPARE(fone::complete_utf8("a\x80"
                                     "b"),
                 "a" + fffd + "b");
        QCOMPARE(fone::complete_utf8("\xC3(x"), fffd + "(x");  // a character cut short, then text
        // Byte by byte, the shown text only grows, and ends as the whole text's.
        const std::string bytes = "1\xFF\xE2\x82\xAC\xC3\xA9\x80z";
        std::string shown;
        for (std::size_t n = 1; n <= bytes.size(); ++n) {
            const std::string now = fone::complete_utf8(bytes.substr(0, n));
            QVERIFY2(now.starts_with(shown), qPrintable(QString::number(n)));
            shown = now;
        }
        QCOMPARE(shown, "1" + fffd + "\xE2\x82\xAC\xC3\xA9" + fffd + "z");
    }

    // One UTF-8 check for the whole text folder (fone::valid_utf8), agreeing with nlohmann-json's (which the
    // corpus readers and the tokenizer used before) on the hard cases: overlong forms, surrogates, beyond
    // U+10FFFF, bytes that never occur, cut characters, and good 1- to 4-byte characters.
    void utf8_check_agrees_with_the_json_library() {
        const auto json_says = [](const std::string& s) {
            try {
                (void)nlohmann::json(s).dump();
                return true;
            } catch (const nlohmann::json::type_error&) {
                return false;
            }
        };
        const std::vector<std::pair<std::string, bool>> cases = {{"plain 42", true},
                                                                 {"\xC3\xA9", true},
                                                                 {"\xE2\x82\xAC", true},
                                                                 {"\xF0\x9F\x98\x80", true},
                                                                 {"\xF4\x8F\xBF\xBF", true},
                                                                 {"\xC0\x80", false},
                                                                 {"\xC1\xBF", false},
                                                                 {"\xE0\x80\x80", false},
                                                                 {"\xED\xA0\x80", false},
                                                                 {"\xF0\x80\x80\x80", false},
                                                                 {"\xF4\x90\x80\x80", false},
                                                                 {"\xF5\x80\x80\x80", false},
                                                                 {"\xFF", false},
                                                                 {"\x80", false},
                                                                 {"\xE2\x82", false},
                                                                 {"a\xC3", false}};
        for (const auto& [bytes, valid] : cases) {
            QCOMPARE(fone::valid_utf8(bytes), valid);
            QCOMPARE(json_says(bytes), valid);
        }
    }

    void write_number_rule() {
        QCOMPARE(fone::write_number(Decimal::parse("41.4"), "pays $"), std::string("41.40"));
        QCOMPARE(fone::write_number(Decimal::parse("41.4"), "pays "), std::string("41.4"));
        QCOMPARE(fone::write_number(Decimal::parse("20"), "a $"), std::string("20"));
        QCOMPARE(fone::write_number(Decimal::parse("0.125"), "$"), std::string("0.125"));
        QCOMPARE(fone::write_number(Decimal::parse("3.5"), "\xE2\x82\xAC"), std::string("3.50"));  // €
        QCOMPARE(fone::write_number(Decimal::parse("3.5"), "\xC2\xA3"), std::string("3.50"));      // £
        QCOMPARE(fone::write_numbers("costs $3.5, 1,000 g, 007 and -2.50 or +4"),
                 std::string("costs $3.50, 1000 g, 7 and -2.5 or 4"));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fone::write_numbers("a [NUM] b"));
    }

    void splits_are_seeded_and_disjoint() {
        for (const TextTask task : {TextTask::word_problems, TextTask::units, TextTask::tables}) {
            const auto a = fone::generate_text_splits(task, 2000, 300, 500, 11);
            const auto b = fone::generate_text_splits(task, 2000, 300, 500, 11);
            const auto c = fone::generate_text_splits(task, 2000, 300, 500, 12);
            const auto bigger = fone::generate_text_splits(task, 3000, 300, 500, 11);
            QCOMPARE(a.train.size(), std::size_t{2000});
            QCOMPARE(a.val.size(), std::size_t{300});
            QCOMPARE(a.test.size(), std::size_t{500});
            QVERIFY(a.train == b.train && a.val == b.val && a.test == b.test);
            QVERIFY(a.test != c.test);
            QVERIFY(a.test == bigger.test &&
                    a.val == bigger.val);  // test and val do not depend on train_size
            std::set<std::string> prompts;
            for (const auto* split : {&a.train, &a.val, &a.test})
                for (const TextExample& e : *split)
                    QVERIFY2(prompts.insert(e.prompt).second, e.prompt.c_str());
        }
        QCOMPARE(fone::text_task_name(fone::text_task_from_name("tables")), std::string("tables"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fone::text_task_from_name("poems"));
    }

    void word_problem_drills() {
        const auto plain = fone::generate_text_splits(TextTask::word_problems, 4000, 300, 500, 11);
        const auto drilled =
            fone::generate_text_splits(TextTask::word_problems, 4000, 300, 500, 11, 0.25);  // a quarter
        QVERIFY(plain.train ==
                fone::generate_text_splits(TextTask::word_problems, 4000, 300, 500, 11, 0).train);
        QVERIFY(drilled.test == plain.test && drilled.val == plain.val);  // drills in train only
        int kinds[3] = {};
        for (const TextExample& e : drilled.train) {
            if (!e.prompt.ends_with(" =")) continue;
            const auto in = numbers_in(e.prompt), out = numbers_in(e.answer);
            QCOMPARE(in.size(), std::size_t{2});
            QCOMPARE(out.size(), std::size_t{1});
            check_money_format(e.prompt);
            check_money_format(e.answer);
            // The operands of the template's sentences (milli units: $0.25 is 250), the answer exact.
            if (contains(e.prompt, " kg + ")) {  // combined weight
                QVERIFY(in[0] >= 50 && in[0] <= 99990 && in[1] >= 50 && in[1] <= 99990);
                QCOMPARE(out[0], in[0] + in[1]);
                QVERIFY(e.answer.ends_with(" kg"));
                ++kinds[2];
            } else if (contains(e.prompt, " - $")) {  // money left
                QVERIFY(in[0] >= 1000 && in[0] <= 999990 && in[1] >= 250 && in[1] < in[0]);
                QCOMPARE(out[0], in[0] - in[1]);
                QCOMPARE(e.answer[0], '$');
                ++kinds[1];
            } else {  // two prices
                QVERIFY2(contains(e.prompt, " + $"), e.prompt.c_str());
                QVERIFY(in[0] >= 250 && in[0] <= 499990 && in[1] >= 250 && in[1] <= 499990);
                QCOMPARE(out[0], in[0] + in[1]);
                QCOMPARE(e.answer[0], '$');
                ++kinds[0];
            }
        }
        const int drills = kinds[0] + kinds[1] + kinds[2];
        QVERIFY2(drills > 850 && drills < 1150, std::to_string(drills).c_str());  // about 1,000 of 4,000
        for (const int k : kinds)
            QVERIFY(k > 250);  // about 333 each
        for (const auto* split : {&drilled.val, &drilled.test})
            for (const TextExample& e : *split)
                QVERIFY(!e.prompt.ends_with(" ="));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 fone::generate_text_splits(TextTask::units, 100, 0, 10, 1, 0.25));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 fone::generate_text_splits(TextTask::word_problems, 100, 0, 10, 1, 0.95));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 fone::generate_text_splits(TextTask::word_problems, 100, 0, 10, 1, -0.1));
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            fone::generate_text_splits(TextTask::word_problems, 100, 0, 10, 1, std::nan("")));
    }

    void split_user_examples_keeps_prompts_together() {
        std::vector<TextExample> data;
        for (int i = 0; i < 50; ++i) {
            data.push_back({std::string("Q") + char('a' + i % 25), std::string("A ") + std::to_string(i)});
            data.push_back({"", std::string("document ") + std::to_string(i % 10)});  // 10 distinct documents
        }
        const auto s = fone::split_text_examples(data, 0, 5, 5, 3);
        std::map<std::string, int> split_of;
        int total = 0;
        for (int k = 0; k < 3; ++k)
            for (const TextExample& e : *std::array{&s.train, &s.val, &s.test}[k]) {
                const std::string key = e.prompt.empty() ? e.answer : e.prompt;
                QVERIFY(!split_of.contains(key) || split_of[key] == k);
                split_of[key] = k;
                ++total;
            }
        QCOMPARE(total, 60);                         // 50 question lines + 10 distinct documents
        QCOMPARE(split_of.size(), std::size_t{35});  // 25 prompts + 10 documents
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fone::split_text_examples(data, 0, 20, 20, 3));
    }

    void jsonl_round_trip_and_errors() {
        const std::string path = temp_path("ok.jsonl");
        const std::vector<TextExample> examples{{"Ana buys 12 pens at $3.45 each.", "She pays $41.40."},
                                                {"", "A document with \"quotes\", é and 5 numbers"}};
        fone::write_text_jsonl(path, examples);
        QVERIFY(fone::read_text_file(path) == examples);

        const std::vector<std::pair<std::string, std::string>> bad{
            {"{\"prompt\": \"a\", \"answer\": \"b\"}\nnot json\n", ":2: corrupt JSON"},
            {"[1, 2]\n", ":1: expected an object"},
            {"\n{\"prompt\": \"a\"}\n", ":2: missing field \"answer\""},
            {"{\"prompt\": 5, \"answer\": \"b\"}\n", ":1: field \"prompt\" is number, not a string"},
            {"{\"prompt\": \"a\", \"answer\": \"\"}\n", ":1: empty answer"},
            {"{\"prompt\": \"a [NUM]\", \"answer\": \"b\"}\n", ":1: prompt contains the placeholder"},
            {"{\"prompt\": \"a\", \"answer\": \"b\xff\"}\n", ":1: corrupt JSON"},
        };
        for (const auto& [content, message] : bad) {
            write_bytes(path, content);
            try {
                fone::read_text_jsonl(path);
                QFAIL(("no error for " + content).c_str());
            } catch (const fone::TextDataError& e) {
                QVERIFY2(std::string(e.what()).find(path + message) == 0, e.what());
            }
        }
        QVERIFY_THROWS_EXCEPTION(fone::TextDataError, fone::read_text_jsonl(temp_path("missing.jsonl")));
        std::filesystem::remove(path);
    }

    void plain_text_documents() {
        const std::string path = temp_path("docs.txt");
        write_bytes(path,
                    "\xEF\xBB\xBF"
                    "First line 1.5\r\n\n  \nSecond, with $3.45\n");
        const auto docs = fone::read_text_file(path);
        QCOMPARE(docs.size(), std::size_t{2});
        QVERIFY(docs[0] == (TextExample{"", "First line 1.5"}));
        QVERIFY(docs[1] == (TextExample{"", "Second, with $3.45"}));
        write_bytes(path, "fine\nbad \xC3\x28 byte\n");
        try {
            fone::read_text_documents(path);
            QFAIL("no error for invalid UTF-8");
        } catch (const fone::TextDataError& e) {
            QCOMPARE(std::string(e.what()), path + ":2: line is not valid UTF-8");
        }
        std::filesystem::remove(path);
    }

    void subword_chunks_by_hand() {
        using V = std::vector<std::string>;
        QCOMPARE(fone::subword_chunks("1234567.891"), (V{"123", "456", "7", ".", "891"}));
        QCOMPARE(fone::subword_chunks("-0.05"), (V{"-", "0", ".", "05"}));
        QCOMPARE(fone::subword_chunks("1000"), (V{"100", "0"}));
        QCOMPARE(fone::subword_chunks("10007"), (V{"100", "07"}));
        QCOMPARE(fone::subword_chunks("12.3456"), (V{"12", ".", "345", "6"}));
        QCOMPARE(fone::subword_chunks("999"), (V{"999"}));
    }

    void tokens_of_a_text_by_hand() {
        const TextTokenizer& base = shared_tokenizer();
        const int p = base.text_piece_count();
        const std::string text = "It costs $41.40 for 1234567.891 or 10007 units, -0.05 each.";
        const std::vector<Decimal> values{Decimal::parse("41.4"), Decimal::parse("1234567.891"),
                                          Decimal::parse("10007"), Decimal::parse("-0.05")};
        const std::vector<std::vector<std::string>> expected{
            {"[NUM]"}, {"4", "1", ".", "4", "0"}, {"41", ".", "40"}};
        for (const TextScheme scheme : fone::all_text_schemes()) {
            const TextTokenizer t = base.with_scheme(scheme);
            const auto e = t.encode(text);
            QVERIFY(e.numbers == values);
            QCOMPARE(e.number_spans.size(), std::size_t{4});
            std::vector<std::string> first;
            for (int i = e.number_spans[0].begin; i < e.number_spans[0].end; ++i)
                first.push_back(t.piece(e.ids[static_cast<std::size_t>(i)]));
            QCOMPARE(first, expected[static_cast<std::size_t>(scheme)]);
            // The written number is the concatenation of its tokens (digit, subword).
            if (scheme != TextScheme::fone) {
                std::vector<std::string> written;
                for (const auto& span : e.number_spans) {
                    std::string s;
                    for (int i = span.begin; i < span.end; ++i)
                        s += t.piece(e.ids[static_cast<std::size_t>(i)]);
                    written.push_back(s);
                }
                QCOMPARE(written, (std::vector<std::string>{"41.40", "1234567.891", "10007", "-0.05"}));
            }
            QCOMPARE(t.decode(e.ids, e.numbers), text);
        }
        // Layout: '.', '-', "0".."9", "00".."99", "000".."999" after the text pieces.
        const TextTokenizer sub = base.with_scheme(TextScheme::subword);
        QCOMPARE(sub.piece(p), std::string("."));
        QCOMPARE(sub.piece(p + 1), std::string("-"));
        QCOMPARE(sub.piece(p + 2 + 7), std::string("7"));
        QCOMPARE(sub.piece(p + 12 + 7), std::string("07"));
        QCOMPARE(sub.piece(p + 112 + 7), std::string("007"));
        QCOMPARE(sub.piece(p + 1111), std::string("999"));
        QCOMPARE(sub.vocab_size(), p + 1112);
        QCOMPARE(base.with_scheme(TextScheme::digit).vocab_size(), p + 12);
        QCOMPARE(base.vocab_size(), p);
        const auto e = sub.encode("x 10007 y 7 z 1007");
        std::vector<int> numbers;
        for (const int id : e.ids)
            if (sub.is_number_token(id)) numbers.push_back(id - p);
        QCOMPARE(numbers, (std::vector<int>{112 + 100, 12 + 7, 2 + 7, 112 + 100, 2 + 7}));
    }

    void round_trips_are_exact() {
        const TextTokenizer& base = shared_tokenizer();
        for (const TextTask task : {TextTask::word_problems, TextTask::units, TextTask::tables}) {
            const auto test = fone::generate_text_splits(task, 0, 0, 300, 99).test;  // unseen by training
            for (const TextScheme scheme : fone::all_text_schemes()) {
                const TextTokenizer t = base.with_scheme(scheme);
                for (const TextExample& ex : test) {
                    const auto e = t.encode(ex);
                    QCOMPARE(e.ids.size(), e.answer_mask.size());
                    for (const int id : e.ids)
                        QVERIFY(id >= 0 && id < t.vocab_size());
                    QCOMPARE(t.decode_example(e.ids, e.numbers), ex);
                    const auto prompt_only = t.encode(ex.prompt);
                    QCOMPARE(t.decode(prompt_only.ids, prompt_only.numbers), ex.prompt);
                    // [BOS] prompt [ANS] answer [EOS]: the mask covers the answer and [EOS] only.
                    const std::size_t answer_start = prompt_only.ids.size() + 2;
                    QCOMPARE(e.ids.front(), fone::text_token::kBos);
                    QCOMPARE(e.ids[answer_start - 1], fone::text_token::kAns);
                    QCOMPARE(e.ids.back(), fone::text_token::kEos);
                    for (std::size_t i = 0; i < e.ids.size(); ++i)
                        QCOMPARE(e.answer_mask[i], std::uint8_t(i >= answer_start ? 1 : 0));
                }
            }
        }
    }

    void round_trip_of_other_text() {
        const TextTokenizer& base = shared_tokenizer();
        const std::string odd = "Version 1.2.3 of 2024.01.05:\tnaïve 😀 {x}  ~ 日本 \x01 costs 12%";
        // U+2581 is SentencePiece's space mark; written literally it must come back as itself.
        const std::string mark = "\xE2\x96\x81",
                          marks = mark + "a" + mark + mark + " b " + mark + "$5" + mark;
        const std::string with_nul("x\0y 5", 5);
        for (const TextScheme scheme : fone::all_text_schemes()) {
            const TextTokenizer t = base.with_scheme(scheme);
            auto e = t.encode(odd);
            QCOMPARE(t.decode(e.ids, e.numbers), odd);  // digits kept as text go through byte pieces
            for (const std::string& text :
                 {marks, with_nul, std::string(" lead and trail "), std::string("")}) {
                e = t.encode(text);
                QCOMPARE(t.decode(e.ids, e.numbers), text);
            }
            e = t.encode("A $5.5 fee, 1,234 or 007 items");
            QCOMPARE(t.decode(e.ids, e.numbers), std::string("A $5.50 fee, 1234 or 7 items"));
            const auto doc = t.encode(TextExample{"", "Just 3 words"});
            QCOMPARE(doc.ids.front(), fone::text_token::kBos);
            QCOMPARE(std::count(doc.ids.begin(), doc.ids.end(), fone::text_token::kAns), 0);
            QCOMPARE(std::count(doc.answer_mask.begin(), doc.answer_mask.end(), 1),
                     static_cast<std::ptrdiff_t>(doc.ids.size() - 1));
            QCOMPARE(t.decode_example(doc.ids, doc.numbers), (TextExample{"", "Just 3 words"}));
        }
        // No text piece holds an ASCII digit: digits reach text only through the 256 byte pieces.
        for (int id = 6 + 256; id < base.text_piece_count(); ++id) {
            const std::string piece = base.piece(id);
            QVERIFY2(std::none_of(piece.begin(), piece.end(), [](char c) { return c >= '0' && c <= '9'; }),
                     piece.c_str());
        }
    }

    void counts_by_hand() {
        const TextTokenizer& base = shared_tokenizer();
        const std::vector<TextExample> corpus{
            {"Ana buys 12 pens at $3.45 each.", "She pays $41.40."},
            {"| Day | Rain |\n| Mon | 0.5 |\n| Tue | 120 |\nWhat?", "Mon."}};
        QCOMPARE(fone::table_text(corpus[1]), std::string("| Day | Rain |\n| Mon | 0.5 |\n| Tue | 120 |"));
        QCOMPARE(fone::table_text(corpus[0]), std::string());
        const auto fone_counts = fone::count_tokens(base, corpus);
        const auto digit = fone::count_tokens(base.with_scheme(TextScheme::digit), corpus);
        const auto subword = fone::count_tokens(base.with_scheme(TextScheme::subword), corpus);
        // Numbers: 12, 3.45, 41.40 and 0.5, 120.
        QCOMPARE(fone_counts.numbers, std::size_t{5});
        QCOMPARE(fone_counts.number_tokens, std::size_t{5});
        // digit: "12" 2, "3.45" 4, "41.40" 5, "0.5" 3, "120" 3.
        QCOMPARE(digit.number_tokens, std::size_t{17});
        // subword: 12 | 3 . 45 | 41 . 40 | 0 . 5 | 120.
        QCOMPARE(subword.number_tokens, std::size_t{11});
        QCOMPARE(digit.tokens - fone_counts.tokens, std::size_t{17 - 5});
        QCOMPARE(subword.tokens - fone_counts.tokens, std::size_t{11 - 5});
        QCOMPARE(digit.tokens_per_number(), 17.0 / 5.0);
        QCOMPARE(fone_counts.examples, std::size_t{2});
        QCOMPARE(fone_counts.tables, std::size_t{1});
        // The table alone: 2 numbers, digit writes 3 + 3 tokens for them.
        QCOMPARE(digit.table_tokens - fone_counts.table_tokens, std::size_t{6 - 2});
        QCOMPARE(fone_counts.tokens_per_example(), double(fone_counts.tokens) / 2.0);
    }

    void long_documents_train() {
        // One 120,000-byte document (over SentencePiece's sentence limit) still trains pieces from it.
        std::string doc;
        for (int i = 0; i < 10000; ++i)
            doc += "zebra ";
        doc += std::string(20000, 'q');  // a run without spaces is cut too
        const auto t = TextTokenizer::train({{"", doc}}, TextScheme::fone, {.vocab_size = 300});
        QVERIFY(t.encode(std::string("zebra")).ids.size() < 5);  // learned, not 5 byte or letter pieces
        const auto e = t.encode(doc);
        QCOMPARE(t.decode(e.ids, e.numbers), doc);
    }

    void save_load_and_determinism() {
        const auto corpus = fone::generate_text_splits(TextTask::units, 300, 0, 0, 5).train;
        const auto a = TextTokenizer::train(corpus, TextScheme::digit, {.vocab_size = 400});
        const auto b = TextTokenizer::train(corpus, TextScheme::digit, {.vocab_size = 400});
        QVERIFY(a.model_bytes() == b.model_bytes());
        const std::string path = temp_path("tok.model");
        a.save(path);
        const auto loaded = TextTokenizer::load(path, TextScheme::digit);
        QCOMPARE(loaded.encode(corpus[0]).ids, a.encode(corpus[0]).ids);
        write_bytes(path, "not a model");
        QVERIFY_THROWS_EXCEPTION(fone::TokenizerError, TextTokenizer::load(path, TextScheme::fone));
        std::filesystem::remove(path);
    }

    // What may come next in well-formed text: whole UTF-8 characters from byte pieces, and (fone) no
    // [NUM] right after a [NUM].
    void not_allowed_after_by_hand() {
        namespace tt = fone::text_token;
        const TextTokenizer& t = shared_tokenizer();
        const auto byte = [](int b) { return 6 + b; };
        const auto allowed = [&](const std::vector<int>& ids, int id) {
            return t.not_allowed_after(ids)[static_cast<std::size_t>(id)] == 0;
        };
        const std::vector<int> start;
        QCOMPARE(t.not_allowed_after(start).size(), static_cast<std::size_t>(t.vocab_size()));
        QVERIFY(allowed(start, byte('A')) && allowed(start, byte(0xC3)) && allowed(start, byte(0xF4)));
        QVERIFY(allowed(start, tt::kNum) && allowed(start, tt::kEos) && allowed(start, 262));
        for (const int b : {0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFF})  // never the start of a character
            QVERIFY(!allowed(start, byte(b)));
        // "é" is C3 A9; "▁" (U+2581) is E2 96 81: while a character is incomplete, only its next byte.
        QVERIFY(allowed({byte(0xC3)}, byte(0xA9)));
        QVERIFY(!allowed({byte(0xC3)}, byte('A')) && !allowed({byte(0xC3)}, tt::kEos) &&
                !allowed({byte(0xC3)}, 262) && !allowed({byte(0xC3)}, tt::kNum));
        QVERIFY(allowed({262, byte(0xE2), byte(0x96)}, byte(0x81)));
        QVERIFY(!allowed({byte(0xE2), byte(0x96)}, byte('x')));
        QVERIFY(allowed({byte(0xE2), byte(0x96), byte(0x81)}, 262));  // complete: anything may follow
        QVERIFY(!allowed({byte(0xE2), byte(0x96), byte(0x81)}, byte(0x81)));
        QVERIFY(allowed({byte(0xC3), byte(0xA9)}, byte(0xC3)) &&
                !allowed({byte(0xC3), byte(0xA9)}, byte(0xA9)));
        // Overlong forms and surrogates: E0 takes A0-BF first, ED 80-9F, F0 90-BF, F4 80-8F.
        QVERIFY(!allowed({byte(0xE0)}, byte(0x9F)) && allowed({byte(0xE0)}, byte(0xA0)));
        QVERIFY(allowed({byte(0xED)}, byte(0x9F)) && !allowed({byte(0xED)}, byte(0xA0)));
        QVERIFY(!allowed({byte(0xF0)}, byte(0x8F)) && allowed({byte(0xF0)}, byte(0x90)));
        QVERIFY(!allowed({byte(0xF4)}, byte(0x90)) && allowed({byte(0xF0), byte(0x90)}, byte(0x80)));
        QVERIFY(allowed({byte(0xF0), byte(0x90), byte(0x80)}, byte(0x80)));
        // fone: two values in a row would print as one number; digits follow digits in the digit scheme.
        QVERIFY(!allowed({262, tt::kNum}, tt::kNum) && allowed({262, tt::kNum}, 262));
        const TextTokenizer digit = t.with_scheme(TextScheme::digit);
        const int seven = digit.text_piece_count() + 9;
        QVERIFY(!digit.not_allowed_after({262, seven})[static_cast<std::size_t>(seven)]);
    }

    void bad_input_is_an_error() {
        const TextTokenizer& t = shared_tokenizer();
        QVERIFY_THROWS_EXCEPTION(fone::TokenizerError, t.encode(std::string("bad \xff byte")));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, t.encode(std::string("a [NUM] b")));
        const auto e = t.encode(std::string("pay $3.45 now"));
        QVERIFY_THROWS_EXCEPTION(fone::TokenizerError, t.decode(e.ids));  // the [NUM] has no value
        QVERIFY_THROWS_EXCEPTION(fone::TokenizerError,
                                 t.decode(e.ids, {Decimal::parse("1"), Decimal::parse("2")}));
        QVERIFY_THROWS_EXCEPTION(fone::TokenizerError, t.decode({t.vocab_size()}));
        QVERIFY_THROWS_EXCEPTION(fone::TokenizerError, t.piece(-1));
        QVERIFY_THROWS_EXCEPTION(fone::TokenizerError, TextTokenizer::train({}, TextScheme::fone));
        QVERIFY_THROWS_EXCEPTION(fone::TokenizerError,
                                 TextTokenizer::train({{"", "text"}}, TextScheme::fone, {.vocab_size = 10}));
        QVERIFY_THROWS_EXCEPTION(fone::TokenizerError, TextTokenizer::train({{"", "text"}}, TextScheme::fone,
                                                                            {.character_coverage = 0.0}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fone::text_scheme_from_name("bytes"));
        QCOMPARE(fone::text_scheme_name(fone::text_scheme_from_name("subword")), std::string("subword"));
    }
};

QTEST_APPLESS_MAIN(TestText)
#include "test_text.moc"
