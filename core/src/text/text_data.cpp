// Generators of text with numbers, the number-writing rule and the corpus readers. Every random choice
// goes through random_below() (tasks.h) on one std::mt19937_64, so a seed gives the same text with
// every standard library. Amounts of money are integers of cents and other fractional values integers
// scaled by a power of ten (Decimal::from_scaled), so every answer is exact and no division is needed.
#include "fone/text/text_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

#include "fone/io/file_read.h"
#include "fone/io/json_bounded.h"
#include "fone/io/json_files.h"
#include "fone/io/shown_text.h"
#include "fone/numbers/number_parser.h"
#include "fone/tasks/tasks.h"

namespace fone {
namespace {

// ---- draws ---------------------------------------------------------------------------------------

std::int64_t draw_between(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(random_below(rng, static_cast<std::uint64_t>(hi - lo + 1)));
}

template <typename T, std::size_t N>
const T& pick(std::mt19937_64& rng, const std::array<T, N>& options) {
    return options[random_below(rng, N)];
}

// ---- words ---------------------------------------------------------------------------------------

struct Person {
    const char* name;
    const char* pronoun;  // "she" / "he"
};
constexpr std::array<Person, 20> kPeople{
    {{"Ana", "she"},  {"Ben", "he"},    {"Carla", "she"}, {"David", "he"}, {"Elif", "she"},
     {"Farid", "he"}, {"Grace", "she"}, {"Hiro", "he"},   {"Ines", "she"}, {"Jonas", "he"},
     {"Kemi", "she"}, {"Luis", "he"},   {"Mira", "she"},  {"Noah", "he"},  {"Olga", "she"},
     {"Pavel", "he"}, {"Rosa", "she"},  {"Sami", "he"},   {"Tara", "she"}, {"Umar", "he"}}};

struct Item {
    const char* one;
    const char* many;
};
constexpr std::array<Item, 15> kItems{{{"pen", "pens"},
                                       {"notebook", "notebooks"},
                                       {"apple", "apples"},
                                       {"ticket", "tickets"},
                                       {"mug", "mugs"},
                                       {"candle", "candles"},
                                       {"bottle of juice", "bottles of juice"},
                                       {"loaf of bread", "loaves of bread"},
                                       {"box of tea", "boxes of tea"},
                                       {"pencil", "pencils"},
                                       {"towel", "towels"},
                                       {"plant", "plants"},
                                       {"book", "books"},
                                       {"lamp", "lamps"},
                                       {"sandwich", "sandwiches"}}};

constexpr std::array<const char*, 6> kGoods{"rice", "flour", "sugar", "potatoes", "coffee", "oats"};

std::string capitalized(std::string word) {
    if (!word.empty() && word[0] >= 'a' && word[0] <= 'z') word[0] = static_cast<char>(word[0] - 'a' + 'A');
    return word;
}

std::string money(const Decimal& amount) {
    std::string out = "$";
    out += write_number(amount, "$");
    return out;
}
std::string money_cents(std::int64_t cents) {
    return money(Decimal::from_scaled(cents, 2));
}
std::string plain(const Decimal& value) {
    return write_number(value, "");
}
std::string plain(std::int64_t value) {
    return plain(Decimal::from_int(value));
}

// ---- word problems ---------------------------------------------------------------------------------

TextExample total_cost(std::mt19937_64& rng) {
    const Person& p = pick(rng, kPeople);
    const Item& item = pick(rng, kItems);
    const std::int64_t quantity = draw_between(rng, 2, 20), cents = draw_between(rng, 25, 4999);
    return {std::string(p.name) + " buys " + plain(quantity) + " " + item.many + " at " + money_cents(cents) +
                " each. How much does " + p.pronoun + " pay?",
            capitalized(p.pronoun) + " pays " + money_cents(quantity * cents) + "."};
}

TextExample change_from_note(std::mt19937_64& rng) {
    const Person& p = pick(rng, kPeople);
    const Item& item = pick(rng, kItems);
    const std::int64_t quantity = draw_between(rng, 2, 9), cents = draw_between(rng, 25, 1000);
    const std::int64_t total = quantity * cents;  // at most $90
    constexpr std::array<std::int64_t, 5> kNotes{5, 10, 20, 50, 100};
    std::vector<std::int64_t> notes;
    for (const std::int64_t note : kNotes)
        if (note * 100 > total) notes.push_back(note);
    const std::int64_t note = notes[random_below(rng, notes.size())];
    return {std::string(p.name) + " buys " + plain(quantity) + " " + item.many + " at " + money_cents(cents) +
                " each and pays with a " + money_cents(note * 100) + " note. How much change does " +
                p.pronoun + " get?",
            capitalized(p.pronoun) + " gets " + money_cents(note * 100 - total) + " in change."};
}

TextExample unit_price(std::mt19937_64& rng) {
    const Person& p = pick(rng, kPeople);
    const Item& item = pick(rng, kItems);
    const std::int64_t quantity = draw_between(rng, 2, 20), cents = draw_between(rng, 25, 4999);
    return {std::string(p.name) + " pays " + money_cents(quantity * cents) + " for " + plain(quantity) + " " +
                item.many + ". How much does one " + item.one + " cost?",
            "One " + std::string(item.one) + " costs " + money_cents(cents) + "."};
}

TextExample two_purchases(std::mt19937_64& rng) {
    const Person& p = pick(rng, kPeople);
    const std::size_t first = random_below(rng, kItems.size());
    const std::size_t second = (first + 1 + random_below(rng, kItems.size() - 1)) % kItems.size();
    const std::int64_t q1 = draw_between(rng, 2, 12), c1 = draw_between(rng, 25, 2999);
    const std::int64_t q2 = draw_between(rng, 2, 12), c2 = draw_between(rng, 25, 2999);
    return {std::string(p.name) + " buys " + plain(q1) + " " + kItems[first].many + " at " + money_cents(c1) +
                " each and " + plain(q2) + " " + kItems[second].many + " at " + money_cents(c2) +
                " each. How much does " + p.pronoun + " pay in total?",
            capitalized(p.pronoun) + " pays " + money_cents(q1 * c1 + q2 * c2) + " in total."};
}

// "a pen", "an apple".
std::string with_article(const char* noun) {
    return (std::string("aeiou").find(noun[0]) != std::string::npos ? "an " : "a ") + std::string(noun);
}

TextExample percent_off(std::mt19937_64& rng) {
    const Item& item = pick(rng, kItems);
    constexpr std::array<std::int64_t, 7> kPercents{10, 20, 25, 30, 40, 50, 75};
    const std::int64_t percent = pick(rng, kPercents);
    // price · (100 − r) / 100 is a whole number of cents when the price is a multiple of this step.
    const std::int64_t step = 100 / std::gcd<std::int64_t>(100, 100 - percent);
    const std::int64_t cents = step * draw_between(rng, 1, 9999 / step);
    return {capitalized(with_article(item.one)) + " costs " + money_cents(cents) + ". The shop takes " +
                plain(percent) + "% off. What is the new price?",
            "The new price is " + money_cents(cents * (100 - percent) / 100) + "."};
}

TextExample bags_by_weight(std::mt19937_64& rng) {
    const Person& p = pick(rng, kPeople);
    const std::string goods = pick(rng, kGoods);
    const std::int64_t bags = draw_between(rng, 2, 15), tenths = draw_between(rng, 5, 50);
    return {std::string(p.name) + " buys " + plain(bags) + " bags of " + goods + ". Each bag holds " +
                plain(Decimal::from_scaled(tenths, 1)) + " kg. How many kilograms of " + goods + " does " +
                p.pronoun + " buy?",
            capitalized(p.pronoun) + " buys " + plain(Decimal::from_scaled(bags * tenths, 1)) + " kg of " +
                goods + "."};
}

// The additive templates: one addition or subtraction of the numbers in the prompt, nothing else (the
// arithmetic FoNE learns best, paper section 4). Their operands are drawn here, once for the templates
// and their drills.
std::pair<std::int64_t, std::int64_t> two_prices_cents(std::mt19937_64& rng) {
    const std::int64_t c1 = draw_between(rng, 25, 49999), c2 = draw_between(rng, 25, 49999);
    return {c1, c2};
}
std::pair<std::int64_t, std::int64_t> money_left_cents(std::mt19937_64& rng) {  // has, spends
    const std::int64_t has = draw_between(rng, 100, 99999), spends = draw_between(rng, 25, has - 1);
    return {has, spends};
}
std::pair<std::int64_t, std::int64_t> combined_weight_hundredths(std::mt19937_64& rng) {  // of a kg
    const std::int64_t w1 = draw_between(rng, 5, 9999), w2 = draw_between(rng, 5, 9999);
    return {w1, w2};
}

TextExample two_prices(std::mt19937_64& rng) {
    const Person& p = pick(rng, kPeople);
    const std::size_t first = random_below(rng, kItems.size());
    const std::size_t second = (first + 1 + random_below(rng, kItems.size() - 1)) % kItems.size();
    const auto [c1, c2] = two_prices_cents(rng);
    return {std::string(p.name) + " buys " + with_article(kItems[first].one) + " for " + money_cents(c1) +
                " and " + with_article(kItems[second].one) + " for " + money_cents(c2) + ". How much does " +
                p.pronoun + " spend?",
            capitalized(p.pronoun) + " spends " + money_cents(c1 + c2) + "."};
}

TextExample money_left(std::mt19937_64& rng) {
    const Person& p = pick(rng, kPeople);
    const Item& item = pick(rng, kItems);
    const auto [has, spends] = money_left_cents(rng);
    return {std::string(p.name) + " has " + money_cents(has) + " and spends " + money_cents(spends) + " on " +
                with_article(item.one) + ". How much money is left?",
            capitalized(p.pronoun) + " has " + money_cents(has - spends) + " left."};
}

TextExample combined_weight(std::mt19937_64& rng) {
    const std::size_t first = random_below(rng, kGoods.size());
    const std::size_t second = (first + 1 + random_below(rng, kGoods.size() - 1)) % kGoods.size();
    const auto [w1, w2] = combined_weight_hundredths(rng);
    return {std::string("A sack of ") + kGoods[first] + " weighs " + plain(Decimal::from_scaled(w1, 2)) +
                " kg and a sack of " + kGoods[second] + " weighs " + plain(Decimal::from_scaled(w2, 2)) +
                " kg. How much do they weigh together?",
            "Together they weigh " + plain(Decimal::from_scaled(w1 + w2, 2)) + " kg."};
}

// A drill: the operands of an additive template as a bare sum, written as in the template's sentences
// ("$452.34 - $65.26 =" -> "$387.08", "3.22 kg + 55.79 kg =" -> "59.01 kg"). Inside sentences the
// subtraction's low digits are learnt late or never; from bare sums they are learnt at once and carry
// over to the sentences (docs/text.md, "Drills").
TextExample additive_drill(std::mt19937_64& rng) {
    switch (random_below(rng, 3)) {
        case 0: {
            const auto [c1, c2] = two_prices_cents(rng);
            return {money_cents(c1) + " + " + money_cents(c2) + " =", money_cents(c1 + c2)};
        }
        case 1: {
            const auto [has, spends] = money_left_cents(rng);
            return {money_cents(has) + " - " + money_cents(spends) + " =", money_cents(has - spends)};
        }
        default: {
            const auto [w1, w2] = combined_weight_hundredths(rng);
            const auto kg = [](std::int64_t hundredths) {
                return plain(Decimal::from_scaled(hundredths, 2)) + " kg";
            };
            return {kg(w1) + " + " + kg(w2) + " =", kg(w1 + w2)};
        }
    }
}

TextExample word_problem(std::mt19937_64& rng) {
    switch (random_below(rng, 9)) {
        case 0:
            return total_cost(rng);
        case 1:
            return change_from_note(rng);
        case 2:
            return unit_price(rng);
        case 3:
            return two_purchases(rng);
        case 4:
            return percent_off(rng);
        case 5:
            return bags_by_weight(rng);
        case 6:
            return two_prices(rng);
        case 7:
            return money_left(rng);
        default:
            return combined_weight(rng);
    }
}

// ---- unit conversions ------------------------------------------------------------------------------

struct Conversion {
    const char* big;         // "km"
    const char* big_name;    // "kilometres"
    const char* small;       // "m"
    const char* small_name;  // "metres"
};
constexpr std::array<Conversion, 3> kMetric{{{"km", "kilometres", "m", "metres"},
                                             {"kg", "kilograms", "g", "grams"},
                                             {"L", "litres", "mL", "millilitres"}}};

TextExample conversion(const Decimal& from, const std::string& from_unit, const std::string& to_name,
                       const Decimal& to, const std::string& to_unit) {
    return {"Convert " + plain(from) + " " + from_unit + " to " + to_name + ".",
            plain(from) + " " + from_unit + " is " + plain(to) + " " + to_unit + "."};
}

TextExample unit_conversion(std::mt19937_64& rng) {
    switch (random_below(rng, 5)) {
        case 0:
        case 1:
        case 2: {  // metric, either way: the small unit is a whole number, the big one has 3 decimals
            const Conversion& c = pick(rng, kMetric);
            const std::int64_t small = draw_between(rng, 1, 99999);
            const Decimal big = Decimal::from_scaled(small, 3);
            if (random_below(rng, 2) == 0)
                return conversion(big, c.big, c.small_name, Decimal::from_int(small), c.small);
            return conversion(Decimal::from_int(small), c.small, c.big_name, big, c.big);
        }
        case 3: {  // hours and minutes: 3 min = 0.05 h
            const std::int64_t steps = draw_between(rng, 1, 400);
            const Decimal hours = Decimal::from_scaled(5 * steps, 2), minutes = Decimal::from_int(3 * steps);
            if (random_below(rng, 2) == 0) return conversion(hours, "h", "minutes", minutes, "min");
            return conversion(minutes, "min", "hours", hours, "h");
        }
        default: {  // °C and °F: a whole °C gives °F = 1.8·C + 32 with at most one decimal
            const std::int64_t celsius = draw_between(rng, -40, 150);
            const Decimal c = Decimal::from_int(celsius), f = Decimal::from_scaled(18 * celsius + 320, 1);
            if (random_below(rng, 2) == 0) return conversion(c, "°C", "degrees Fahrenheit", f, "°F");
            return conversion(f, "°F", "degrees Celsius", c, "°C");
        }
    }
}

// ---- tables ------------------------------------------------------------------------------------------

struct RowLabels {
    const char* header;
    const char* preposition;  // "Pears in Mar", "Pears on Tue", "Pears at North"
    std::array<const char*, 7> labels;
};
constexpr std::array<RowLabels, 3> kRowLabels{
    {{"Month", "in", {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul"}},
     {"Day", "on", {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}},
     {"Store", "at", {"North", "South", "East", "West", "Centre", "Harbour", "Airport"}}}};
constexpr std::array<const char*, 10> kColumns{"Apples", "Pears", "Plums", "Sales", "Visitors",
                                               "Cost",   "Stock", "Rain",  "Price", "Weight"};

struct Table {
    std::string preposition;
    std::vector<std::string> rows, columns;
    std::vector<std::vector<Decimal>> cells;  // [row][column]
};

Table draw_table(std::mt19937_64& rng) {
    Table t;
    const RowLabels& labels = pick(rng, kRowLabels);
    t.preposition = labels.preposition;
    const std::size_t rows = 3 + random_below(rng, 3), columns = 2 + random_below(rng, 3);
    const std::size_t first_row = random_below(rng, labels.labels.size() - rows + 1);
    t.rows.assign(labels.labels.begin() + first_row, labels.labels.begin() + first_row + rows);
    t.columns.push_back(labels.header);
    std::vector<std::size_t> order(kColumns.size());
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t c = 0; c < columns; ++c) {  // a partial Fisher–Yates draw of distinct column names
        std::swap(order[c], order[c + random_below(rng, order.size() - c)]);
        t.columns.push_back(kColumns[order[c]]);
    }
    t.cells.assign(rows, std::vector<Decimal>(columns));
    for (std::size_t c = 0; c < columns; ++c) {
        const int decimals = static_cast<int>(random_below(rng, 3));
        std::int64_t scale = 1;
        for (int d = 0; d < decimals; ++d)
            scale *= 10;
        for (std::size_t r = 0; r < rows; ++r)
            t.cells[r][c] = Decimal::from_scaled(draw_between(rng, 1, 1000 * scale - 1), decimals);
    }
    return t;
}

std::string render_table(const Table& t) {
    std::string out = "|";
    for (const auto& name : t.columns)
        out += " " + name + " |";
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        out += "\n| " + t.rows[r] + " |";
        for (const Decimal& cell : t.cells[r]) {
            out += ' ';
            out += plain(cell);
            out += " |";
        }
    }
    return out;
}

TextExample table_question(std::mt19937_64& rng) {
    const Table t = draw_table(rng);
    const std::string table = render_table(t) + "\n";
    const std::size_t rows = t.rows.size(), columns = t.cells[0].size();
    const auto column_name = [&](std::size_t c) { return t.columns[c + 1]; };
    const auto cell_name = [&](std::size_t r, std::size_t c) {
        return column_name(c) + " " + t.preposition + " " + t.rows[r];
    };
    switch (random_below(rng, 3)) {
        case 0: {
            const std::size_t c = random_below(rng, columns);
            Decimal sum;
            for (std::size_t r = 0; r < rows; ++r)
                sum = sum + t.cells[r][c];
            return {table + "What is the sum of the " + column_name(c) + " column?",
                    "The sum of the " + column_name(c) + " column is " + plain(sum) + "."};
        }
        case 1: {
            // Two different cells with different values; redrawn until they differ (cells are drawn from
            // 999+ values, so a tie is rare, and two cells of one column cannot all be equal forever).
            std::size_t r1 = 0, c1 = 0, r2 = 0, c2 = 0;
            do {
                r1 = random_below(rng, rows), c1 = random_below(rng, columns);
                r2 = random_below(rng, rows), c2 = random_below(rng, columns);
            } while (t.cells[r1][c1] == t.cells[r2][c2]);
            const bool first = t.cells[r1][c1] > t.cells[r2][c2];
            const std::size_t rw = first ? r1 : r2, cw = first ? c1 : c2;
            return {table + "Which is larger: " + cell_name(r1, c1) + " or " + cell_name(r2, c2) + "?",
                    cell_name(rw, cw) + " is larger: " + plain(t.cells[rw][cw]) + "."};
        }
        default: {
            const std::size_t c = random_below(rng, columns), r1 = random_below(rng, rows);
            const std::size_t r2 = (r1 + 1 + random_below(rng, rows - 1)) % rows;
            const std::string a = cell_name(r1, c), b = cell_name(r2, c);
            return {table + "What is " + a + " minus " + b + "?",
                    a + " minus " + b + " is " + plain(t.cells[r1][c] - t.cells[r2][c]) + "."};
        }
    }
}

// ---- files ---------------------------------------------------------------------------------------------

std::string where(const std::string& path, std::size_t line) {
    return path + ":" + std::to_string(line) + ": ";
}

void check_text(const std::string& path, std::size_t line, const std::string& text, const char* field) {
    if (!valid_utf8(text)) throw TextDataError(where(path, line) + field + " is not valid UTF-8");
    if (text.find(kNumPlaceholder) != std::string::npos)
        throw TextDataError(where(path, line) + field + " contains the placeholder " +
                            std::string(kNumPlaceholder) + ", which marks numbers");
}

// Lines of a text file without their '\n' or "\r\n", a leading byte-order mark removed, with numbers.
template <typename OnLine>
void for_each_line(const std::string& path, OnLine on_line) {
    const FileRead file = read_regular_file(path, kMaxDataFileBytes);
    if (!file.ok()) throw TextDataError(file.error);
    std::size_t number = 0;
    for (std::size_t pos = 0; pos < file.text.size();) {
        ++number;
        const std::size_t nl = std::min(file.text.find('\n', pos), file.text.size());
        std::string line = file.text.substr(pos, nl - pos);
        pos = nl + 1;
        if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        on_line(number, line);
    }
}

bool is_blank(const std::string& line) {
    return line.find_first_not_of(" \t") == std::string::npos;
}

std::string json_string_field(const nlohmann::json& object, const char* field, const std::string& at) {
    const auto it = object.find(field);
    if (it == object.end()) throw TextDataError(at + "missing field \"" + field + "\"");
    if (!it->is_string())
        throw TextDataError(at + "field \"" + field + "\" is " + it->type_name() + ", not a string");
    return it->get<std::string>();
}

}  // namespace

// ---- public ------------------------------------------------------------------------------------------

std::string text_task_name(TextTask task) {
    switch (task) {
        case TextTask::word_problems:
            return "word-problems";
        case TextTask::units:
            return "units";
        case TextTask::tables:
            return "tables";
    }
    return "?";
}

std::vector<std::string> text_task_names() {
    return {"word-problems", "units", "tables"};
}

std::vector<std::string> text_task_names_for_training() {
    std::vector<std::string> names{"text"};
    for (std::string& name : text_task_names())
        names.push_back(std::move(name));
    return names;
}

bool is_text_training_task(const std::string& name) {
    const auto names = text_task_names_for_training();
    return std::find(names.begin(), names.end(), name) != names.end();
}

std::string drills_problem(std::string_view task, double drills) {
    if (!(drills >= 0 && drills <= kMaxDrills))
        return "the share of drills must be in [0, " + std::to_string(kMaxDrills) + "]";
    if (drills > 0 && task != "word-problems")
        return "only the word-problems task has drills (bare sums of its additive templates); the " +
               std::string(task) + " task has none (drills 0)";
    return "";
}

bool is_text_task_name(std::string_view name) {
    const auto names = text_task_names();
    return std::find(names.begin(), names.end(), name) != names.end();
}

TextTask text_task_from_name(std::string_view name) {
    for (const TextTask task : {TextTask::word_problems, TextTask::units, TextTask::tables})
        if (text_task_name(task) == name) return task;
    throw std::invalid_argument("unknown text task '" + std::string(name) +
                                "' (word-problems, units, tables)");
}

std::string write_number(const Decimal& value, std::string_view text_before) {
    std::string text = value.to_string();
    const bool after_currency = text_before.ends_with("$") || text_before.ends_with("\xE2\x82\xAC") /* € */ ||
                                text_before.ends_with("\xC2\xA3") /* £ */;
    if (after_currency && value.frac_digit_count() == 1) text += '0';
    return text;
}

std::string write_numbers(std::string_view text, const NumberLimits& limits) {
    const ParsedText parsed = parse_numbers(text, limits);
    std::string out;
    std::size_t copied = 0, k = 0;
    for (auto at = parsed.templ.find(kNumPlaceholder); at != std::string::npos;
         at = parsed.templ.find(kNumPlaceholder, copied)) {
        out.append(parsed.templ, copied, at - copied);
        out += write_number(parsed.numbers[k++].value, out);
        copied = at + kNumPlaceholder.size();
    }
    out.append(parsed.templ, copied);
    return out;
}

TextExample generate_text_example(TextTask task, std::mt19937_64& rng) {
    switch (task) {
        case TextTask::word_problems:
            return word_problem(rng);
        case TextTask::units:
            return unit_conversion(rng);
        case TextTask::tables:
            return table_question(rng);
    }
    throw std::invalid_argument("unknown text task");
}

TextSplits generate_text_splits(TextTask task, std::size_t train_size, std::size_t val_size,
                                std::size_t test_size, std::uint64_t seed, double drills) {
    if (const std::string why = drills_problem(text_task_name(task), drills); !why.empty())
        throw std::invalid_argument("drills: " + why);
    // A drill where a draw out of 10,000 falls below the share: integers, the same on every platform.
    const auto drill_draws = static_cast<std::uint64_t>(std::llround(drills * 10000));
    std::mt19937_64 rng(seed);
    std::unordered_set<std::string> prompts;
    TextSplits s;
    for (auto [split, size] : {std::pair{&s.test, test_size}, {&s.val, val_size}, {&s.train, train_size}}) {
        split->reserve(size);
        std::size_t repeats = 0;
        const bool drilled = split == &s.train && drill_draws > 0;
        while (split->size() < size) {
            TextExample e = drilled && random_below(rng, 10000) < drill_draws
                                ? additive_drill(rng)
                                : generate_text_example(task, rng);
            if (prompts.insert(e.prompt).second) {
                split->push_back(std::move(e));
            } else if (++repeats > 1000 + 10 * (train_size + val_size + test_size)) {
                throw std::invalid_argument("the " + text_task_name(task) + " task made only " +
                                            std::to_string(prompts.size()) + " distinct prompts; " +
                                            std::to_string(train_size + val_size + test_size) +
                                            " were asked for");
            }
        }
    }
    return s;
}

TextSplits split_text_examples(const std::vector<TextExample>& examples, std::size_t train_size,
                               std::size_t val_size, std::size_t test_size, std::uint64_t seed) {
    // Groups of examples by prompt (a document by its text), in order of first appearance.
    std::vector<std::vector<TextExample>> groups;
    std::unordered_map<std::string, std::size_t> group_of;
    std::unordered_set<std::string> seen;
    for (const TextExample& e : examples) {
        if (!seen.insert(e.prompt + '\0' + e.answer).second) continue;
        const std::string& key = e.prompt.empty() ? e.answer : e.prompt;
        const auto [it, added] = group_of.emplace(key, groups.size());
        if (added) groups.emplace_back();
        groups[it->second].push_back(e);
    }
    if (groups.size() < val_size + test_size + 1)
        throw std::invalid_argument("the data has " + std::to_string(groups.size()) +
                                    " distinct prompts; test and validation need " +
                                    std::to_string(val_size + test_size) + " and training at least 1");
    std::mt19937_64 rng(seed);
    for (std::size_t i = groups.size(); i > 1; --i)
        std::swap(groups[i - 1], groups[random_below(rng, i)]);
    TextSplits s;
    std::size_t g = 0;
    for (auto [split, size] : {std::pair{&s.test, test_size}, {&s.val, val_size}})
        for (std::size_t k = 0; k < size; ++k, ++g)
            split->insert(split->end(), groups[g].begin(), groups[g].end());
    for (; g < groups.size() && (train_size == 0 || s.train.size() < train_size); ++g)
        s.train.insert(s.train.end(), groups[g].begin(), groups[g].end());
    if (train_size != 0 && s.train.size() > train_size) s.train.resize(train_size);
    return s;
}

std::string table_text(const TextExample& example) {
    std::string out;
    std::istringstream lines(example.prompt);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] != '|') continue;
        if (!out.empty()) out += '\n';
        out += line;
    }
    return out;
}

std::vector<TextExample> read_text_jsonl(const std::string& path) {
    std::vector<TextExample> examples;
    for_each_line(path, [&](std::size_t number, const std::string& line) {
        if (is_blank(line)) return;
        const std::string at = where(path, number);
        nlohmann::json j;
        std::string error;  // "<at>: corrupt JSON ..." or "nests deeper than ..."; at ends with ": "
        if (!parse_json_bounded(line, at.substr(0, at.size() - 2), j, &error)) throw TextDataError(error);
        if (!j.is_object()) throw TextDataError(at + "expected an object {\"prompt\": ..., \"answer\": ...}");
        TextExample e{json_string_field(j, "prompt", at), json_string_field(j, "answer", at)};
        if (e.answer.empty()) throw TextDataError(at + "empty answer");
        check_text(path, number, e.prompt, "prompt");
        check_text(path, number, e.answer, "answer");
        examples.push_back(std::move(e));
    });
    return examples;
}

std::vector<TextExample> read_text_documents(const std::string& path) {
    std::vector<TextExample> examples;
    for_each_line(path, [&](std::size_t number, const std::string& line) {
        if (is_blank(line)) return;
        check_text(path, number, line, "line");
        examples.push_back({"", line});
    });
    return examples;
}

std::vector<TextExample> read_text_paragraphs(const std::string& path) {
    std::vector<TextExample> examples;
    std::string paragraph;
    const auto close = [&] {
        if (!paragraph.empty()) examples.push_back({"", std::move(paragraph)});
        paragraph.clear();
    };
    for_each_line(path, [&](std::size_t number, const std::string& line) {
        if (is_blank(line)) return close();
        check_text(path, number, line, "line");
        paragraph += (paragraph.empty() ? "" : "\n") + line;
    });
    close();
    return examples;
}

std::vector<TextExample> read_text_file(const std::string& path) {
    return path.ends_with(".jsonl") ? read_text_jsonl(path) : read_text_documents(path);
}

void write_text_jsonl(const std::string& path, const std::vector<TextExample>& examples) {
    std::string content;
    for (const TextExample& e : examples)
        content += nlohmann::json{{"prompt", e.prompt}, {"answer", e.answer}}.dump() + '\n';
    write_file_atomic(path, content);
}

}  // namespace fone
