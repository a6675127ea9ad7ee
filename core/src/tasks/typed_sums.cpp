// Typed sums: the shapes' definitions and generators, the typed suite and the typed training split.
//
// Numbers are handled as integers scaled by 10^scale (dec-add: thousandths), so every test of a shape
// is integer arithmetic and every answer exact. An example's id is the rank of its unordered operand pair
// (pair_rank.h), the numbering the uniform draws of tasks.cpp use: a typed training split and the uniform
// test split of the same seed can never share an example.
#include "fone/tasks/typed_sums.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "fone/numbers/number_parser.h"
#include "fone/tasks/tasks.h"
#include "tasks/pair_rank.h"

namespace fone {
namespace {

constexpr std::array<std::pair<SumShape, std::string_view>, 9> kShapeNames{{
    {SumShape::round, "round"},
    {SumShape::short_numbers, "short"},
    {SumShape::one_decimal, "one_decimal"},
    {SumShape::carry, "carry"},
    {SumShape::equal, "equal"},
    {SumShape::zeros, "zeros"},
    {SumShape::mixed, "mixed"},
    {SumShape::uniform, "uniform"},
    {SumShape::edges, "edges"},
}};

// A task's operands as integers scaled by 10^scale.
struct SumTask {
    int scale = 0;          // decimals of the task
    std::int64_t max = 0;   // the largest operand, scaled
    int int_digits = 0;     // integer digits of the largest operand
    bool subtract = false;  // a - b with a >= b; else a + b
};

SumTask sum_task(TaskKind kind) {
    switch (kind) {
        case TaskKind::dec_add:
            return {3, 999999, 3, false};
        case TaskKind::int_add:
            return {0, 999999, 6, false};
        case TaskKind::sub:
            return {0, 99999, 5, true};
        default:
            throw std::invalid_argument("task " + task_name(kind) +
                                        " has no typed sums (they are for dec-add, int-add and sub)");
    }
}

std::int64_t pow10(int k) {
    std::int64_t p = 1;
    while (k-- > 0)
        p *= 10;
    return p;
}

int digit_count(std::int64_t x) {  // 0 has one digit
    int n = 1;
    for (; x >= 10; x /= 10)
        ++n;
    return n;
}

// The place of the last non-zero digit of x > 0 (0: the last digit of the scaled integer).
int last_place(std::int64_t x) {
    int p = 0;
    for (; x % 10 == 0; x /= 10)
        ++p;
    return p;
}

int significant_digits(std::int64_t x) {
    return x == 0 ? 0 : digit_count(x) - last_place(x);
}

// How x is written: integer digits (1 for a number below 1: "0.5") and decimals.
std::pair<int, int> written_lengths(const SumTask& t, std::int64_t x) {
    const std::int64_t unit = pow10(t.scale);
    return {digit_count(x / unit), x % unit == 0 ? 0 : t.scale - last_place(x)};
}

bool is_round(const SumTask& t, std::int64_t x) {
    return x > 0 && x % pow10(t.scale + 1) == 0 && significant_digits(x) <= 2;
}
bool is_short(const SumTask& t, std::int64_t x) {
    return x < 100 * pow10(t.scale) && significant_digits(x) <= 2;
}

bool is_power_of_ten(std::int64_t x) {
    return x > 0 && x == pow10(digit_count(x) - 1);
}
// Written with nines only: its integer part is 0 or all nines, its decimals all nines (0.999, 99.9, 9).
bool is_nines(const SumTask& t, std::int64_t x) {
    const std::int64_t unit = pow10(t.scale), whole = x / unit, frac = x % unit;
    const bool whole_nines = whole == 0 || is_power_of_ten(whole + 1);
    const bool frac_nines = frac == 0 || is_power_of_ten(frac / pow10(last_place(frac)) + 1);
    return x > 0 && whole_nines && frac_nines;
}
// The operands at the ends of the range: 0, the top (the largest and the 99 units below it), the nines.
constexpr std::int64_t kTopUnits = 99;
bool is_edge_operand(const SumTask& t, std::int64_t x) {
    return x == 0 || x >= t.max - kTopUnits || is_nines(t, x);
}

// 0 and every number written with nines only (dec-add: 0.9 .. 999.999, 15 of them), in order.
std::vector<std::int64_t> zero_and_nines(const SumTask& t) {
    std::vector<std::int64_t> out{0};
    for (int whole = 0; whole <= t.int_digits; ++whole)
        for (int decimals = 0; decimals <= t.scale; ++decimals)
            if (whole + decimals > 0)
                out.push_back((pow10(whole) - 1) * pow10(t.scale) +
                              (pow10(decimals) - 1) * pow10(t.scale - decimals));
    std::sort(out.begin(), out.end());
    return out;
}

// Every value d·10^p (d in 1..99, not a multiple of 10) from 10^first_place up to `below` (exclusive).
std::vector<std::int64_t> two_digit_values(int first_place, std::int64_t below) {
    std::vector<std::int64_t> out;
    for (int p = first_place; pow10(p) < below; ++p)
        for (std::int64_t d = 1; d <= 99; ++d)
            if (d % 10 != 0 && d * pow10(p) < below) out.push_back(d * pow10(p));
    std::sort(out.begin(), out.end());
    return out;
}

std::int64_t draw_between(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(random_below(rng, static_cast<std::uint64_t>(hi - lo + 1)));
}

// A number of exactly `int_len` integer digits (1: 0..9) and `decimals` decimals (the last one not 0).
std::int64_t draw_with_lengths(const SumTask& t, std::mt19937_64& rng, int int_len, int decimals) {
    const std::int64_t whole =
        int_len == 1 ? draw_between(rng, 0, 9) : draw_between(rng, pow10(int_len - 1), pow10(int_len) - 1);
    std::int64_t frac = 0;
    if (decimals > 0) frac = draw_between(rng, 0, pow10(decimals - 1) - 1) * 10 + draw_between(rng, 1, 9);
    return whole * pow10(t.scale) + frac * pow10(t.scale - decimals);
}

std::pair<int, int> draw_lengths(const SumTask& t, std::mt19937_64& rng) {
    return {static_cast<int>(draw_between(rng, 1, t.int_digits)),
            static_cast<int>(draw_between(rng, 0, t.scale))};
}

// The draws of one task: its value lists and the operand and pair generators of every shape.
class ShapeDraws {
  public:
    explicit ShapeDraws(TaskKind kind)
        : t_(sum_task(kind)),
          round_(two_digit_values(t_.scale + 1, t_.max + 1)),
          short_(two_digit_values(0, 100 * pow10(t_.scale))),
          nines_(zero_and_nines(t_)) {
        short_.insert(short_.begin(), 0);
    }
    const SumTask& task() const { return t_; }

    // The operands (x, y) as written: a + b in either order, a - b with a >= b.
    std::pair<std::int64_t, std::int64_t> draw(SumShape shape, std::mt19937_64& rng) const {
        switch (shape) {
            case SumShape::round:
                return arrange(pick(round_, rng), pick(round_, rng), rng);
            case SumShape::short_numbers:
                return arrange(pick(short_, rng), pick(short_, rng), rng);
            case SumShape::one_decimal:
                return arrange(one_decimal(rng), one_decimal(rng), rng);
            case SumShape::carry:
                return carry(rng);
            case SumShape::equal: {
                const std::int64_t x = typed_operand(rng);
                return {x, x};
            }
            case SumShape::zeros:
                return arrange(0, typed_operand(rng), rng);
            case SumShape::mixed:
                return mixed(rng);
            case SumShape::uniform: {
                const auto [a, b] = detail::unrank_pair(
                    random_below(rng, detail::pair_count(static_cast<std::uint64_t>(t_.max) + 1)));
                return arrange(static_cast<std::int64_t>(a), static_cast<std::int64_t>(b), rng);
            }
            case SumShape::edges:
                return edges(rng);
        }
        throw std::logic_error("ShapeDraws::draw: unknown shape");
    }

  private:
    static std::int64_t pick(const std::vector<std::int64_t>& values, std::mt19937_64& rng) {
        return values[random_below(rng, values.size())];
    }
    // Subtraction: the larger first. Addition: a coin decides the order.
    std::pair<std::int64_t, std::int64_t> arrange(std::int64_t x, std::int64_t y,
                                                  std::mt19937_64& rng) const {
        if (t_.subtract) return {std::max(x, y), std::min(x, y)};
        return random_below(rng, 2) ? std::pair{y, x} : std::pair{x, y};
    }
    std::int64_t one_decimal(std::mt19937_64& rng) const {
        return draw_with_lengths(t_, rng, static_cast<int>(draw_between(rng, 1, t_.int_digits)), 1);
    }
    // A number as people write one: a round number, a short one, or one whose integer digits and
    // decimals are drawn first, one chance in three each.
    std::int64_t typed_operand(std::mt19937_64& rng) const {
        switch (random_below(rng, 3)) {
            case 0:
                return pick(round_, rng);
            case 1:
                return pick(short_, rng);
            default: {
                const auto [len, dec] = draw_lengths(t_, rng);
                return draw_with_lengths(t_, rng, len, dec);
            }
        }
    }
    std::pair<std::int64_t, std::int64_t> mixed(std::mt19937_64& rng) const {
        for (;;) {
            const auto a = draw_lengths(t_, rng), b = draw_lengths(t_, rng);
            if (a == b) continue;
            return arrange(draw_with_lengths(t_, rng, a.first, a.second),
                           draw_with_lengths(t_, rng, b.first, b.second), rng);
        }
    }
    // x + y = z with z = d·10^P round and x = u·10^q, q < P (then y's last digit is at q too): the sum
    // carries into z's place. Subtraction writes it z - x = y.
    std::pair<std::int64_t, std::int64_t> carry(std::mt19937_64& rng) const {
        const std::int64_t limit = t_.subtract ? t_.max : 2 * t_.max;
        const int top = digit_count(limit) - 1;
        for (;;) {
            const int place = static_cast<int>(draw_between(rng, 1, top));
            const std::int64_t d = draw_between(rng, 1, 99);
            const std::int64_t z = d * pow10(place);
            if (d % 10 == 0 || z > limit) continue;
            const int q = static_cast<int>(draw_between(rng, 0, place - 1));
            const std::int64_t u_max = (z - 1) / pow10(q);
            const int len = static_cast<int>(draw_between(rng, 1, digit_count(u_max)));
            const std::int64_t u =
                len == 1 ? draw_between(rng, 1, 9) : draw_between(rng, pow10(len - 1), pow10(len) - 1);
            if (u > u_max || u % 10 == 0) continue;
            const std::int64_t x = u * pow10(q), y = z - x;
            if (t_.subtract) return {z, x};
            if (x > t_.max || y > t_.max) continue;
            return arrange(x, y, rng);
        }
    }

    // One chance in three each: two edge operands (999.999+999.999, 0+0, 999.95+0.999); an edge operand
    // and one as people write it (999.999+123.4: the carry ripples from the units into the thousands);
    // a sum that is a power of ten, every digit carrying (99.999+900.001, 999+1, 0.999+0.001).
    std::pair<std::int64_t, std::int64_t> edges(std::mt19937_64& rng) const {
        switch (random_below(rng, 3)) {
            case 0:
                return arrange(edge_operand(rng), edge_operand(rng), rng);
            case 1:
                return arrange(edge_operand(rng), typed_operand(rng), rng);
            default:
                return power_of_ten_sum(rng);
        }
    }
    // The largest operand one chance in four, one of the 99 units below it one in four, else 0 or nines:
    // the largest is what a visitor types first.
    std::int64_t edge_operand(std::mt19937_64& rng) const {
        switch (random_below(rng, 4)) {
            case 0:
                return t_.max;
            case 1:
                return t_.max - draw_between(rng, 1, kTopUnits);
            default:
                return pick(nines_, rng);
        }
    }
    // x + y = 10^P with x of a drawn length below it; subtraction writes it 10^P - x = y.
    std::pair<std::int64_t, std::int64_t> power_of_ten_sum(std::mt19937_64& rng) const {
        const std::int64_t limit = t_.subtract ? t_.max : 2 * t_.max;
        for (;;) {
            const std::int64_t z = pow10(static_cast<int>(draw_between(rng, 1, digit_count(limit) - 1)));
            const int len = static_cast<int>(draw_between(rng, 1, digit_count(z - 1)));
            const std::int64_t x =
                len == 1 ? draw_between(rng, 1, 9) : draw_between(rng, pow10(len - 1), pow10(len) - 1);
            if (x >= z || x > t_.max || z - x > t_.max) continue;
            if (t_.subtract) return {z, x};
            return arrange(x, z - x, rng);
        }
    }

    SumTask t_;
    std::vector<std::int64_t> round_, short_, nines_;
};

// x·10^scale of a number with at most `scale` decimals in [0, max]; nullopt for any other.
std::optional<std::int64_t> scaled(const SumTask& t, const Decimal& x) {
    if (x.negative() || x.frac_digit_count() > t.scale || x.int_digit_count() > t.int_digits)
        return std::nullopt;
    std::string frac = x.frac_digits();
    frac.resize(static_cast<std::size_t>(t.scale), '0');
    const std::string digits = x.int_digits() + frac;
    const std::int64_t v = digits.empty() ? 0 : std::stoll(digits);
    if (v > t.max) return std::nullopt;
    return v;
}

// The example's operands, scaled, when it is one of the task's sums (operator, range, order, answer).
std::optional<std::pair<std::int64_t, std::int64_t>> operands_of(const SumTask& t, const Example& e) {
    if (e.operands.size() != 2 || e.ops.size() != 1 || e.ops[0] != (t.subtract ? "-" : "+"))
        return std::nullopt;
    const auto x = scaled(t, e.operands[0]), y = scaled(t, e.operands[1]);
    if (!x || !y || (t.subtract && *x < *y)) return std::nullopt;
    return std::pair{*x, *y};
}

Example make_sum(const SumTask& t, std::int64_t x, std::int64_t y) {
    Example e;
    e.operands = {Decimal::from_scaled(x, t.scale), Decimal::from_scaled(y, t.scale)};
    e.ops = {t.subtract ? "-" : "+"};
    e.answer = Decimal::from_scaled(t.subtract ? x - y : x + y, t.scale);
    return e;
}

std::uint64_t pair_id(std::int64_t x, std::int64_t y) {
    return detail::rank_pair(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
}

std::string spelled(int n) {
    static constexpr std::array<const char*, 4> kWords{"no", "one", "two", "three"};
    return n >= 0 && n < static_cast<int>(kWords.size()) ? kWords[static_cast<std::size_t>(n)]
                                                         : std::to_string(n);
}

}  // namespace

std::string shape_name(SumShape shape) {
    for (const auto& [s, name] : kShapeNames)
        if (s == shape) return std::string(name);
    throw std::invalid_argument("shape_name: unknown shape");
}

std::optional<SumShape> shape_named(std::string_view name) {
    for (const auto& [s, n] : kShapeNames)
        if (n == name) return s;
    return std::nullopt;
}

bool has_typed_sums(TaskKind task) {
    return task == TaskKind::dec_add || task == TaskKind::int_add || task == TaskKind::sub;
}

std::vector<SumShape> task_shapes(TaskKind task) {
    std::vector<SumShape> out;
    if (!has_typed_sums(task)) return out;
    for (const auto& [s, name] : kShapeNames)
        if (s != SumShape::edges && (s != SumShape::one_decimal || sum_task(task).scale > 0))
            out.push_back(s);
    return out;
}

std::vector<SumShape> training_shapes(TaskKind task) {
    std::vector<SumShape> out = task_shapes(task);
    if (!out.empty()) out.push_back(SumShape::edges);
    return out;
}

std::string task_range_text(TaskKind task) {
    const SumTask t = sum_task(task);
    const std::string largest = Decimal::from_scaled(t.max, t.scale).to_string();
    if (t.scale > 0) return "numbers from 0 to " + largest + ", with up to " + spelled(t.scale) + " decimals";
    return "whole numbers from 0 to " + largest;
}

namespace {

// A decimal's digits as a whole number (0.25 -> 25), when it has at most 18 of them.
std::optional<std::uint64_t> digits_as_integer(const Decimal& x) {
    std::string digits;
    for (const char c : x.to_string())
        if (c >= '0' && c <= '9') digits += c;
    if (digits.empty() || digits.size() > 18) return std::nullopt;
    return std::stoull(digits);
}

// Whether a / b ends after finitely many decimals: a = A / 10^p and b = B / 10^q, so a / b = A 10^q / (B
// 10^p) ends exactly when B / gcd(A, B) has no prime factor but 2 and 5. Unknown (nullopt) past 18 digits.
std::optional<bool> division_ends(const Decimal& a, const Decimal& b) {
    const auto A = digits_as_integer(a), B = digits_as_integer(b);
    if (!A || !B || *B == 0) return std::nullopt;
    std::uint64_t rest = *B / std::gcd(*A, *B);
    for (const std::uint64_t p : {2u, 5u})
        while (rest % p == 0)
            rest /= p;
    return rest == 1;
}

// What a two-number prompt of another operation asks ("1/3 is a division ..."), so the answer to it is more
// than "type a sum": a division whose result never ends says so, since no digit slots could hold it.
std::string other_operation(const Decimal& a, Op op, const Decimal& b) {
    const std::string shown = a.to_string() + std::string(op_name(op)) + b.to_string();
    switch (op) {
        case Op::divide:
            if (b.is_zero()) return shown + " divides by zero. ";
            return shown + " is a division" +
                   (division_ends(a, b).value_or(true)
                        ? std::string(". ")
                        : std::string(": its decimals never end, so no number of digits holds it. "));
        case Op::minus:
            return shown + " is a subtraction. ";
        case Op::plus:
            return shown + " is an addition. ";
        case Op::times:
            return shown + " is a multiplication. ";
        default:
            return shown + " is not a sum. ";
    }
}

}  // namespace

std::string outside_task_range(TaskKind task, std::string_view prompt) {
    const SumTask t = sum_task(task);
    const std::string op = t.subtract ? "-" : "+";
    const std::string largest = Decimal::from_scaled(t.max, t.scale).to_string();
    const std::string ask = "This model " + std::string(t.subtract ? "subtracts" : "adds") + " " +
                            task_range_text(task) + ": type a sum such as " +
                            (t.subtract    ? "1000-1="
                             : t.scale > 0 ? "0.5+0.25="
                                           : "500+500=");
    std::vector<PromptTerm> terms;
    try {
        terms = parse_prompt(prompt);
    } catch (const std::exception&) {
        return ask + ".";
    }
    if (!terms.empty() && terms.back().kind == PromptTerm::Kind::equals) terms.pop_back();
    const bool sum_shaped = terms.size() == 3 && terms[0].kind == PromptTerm::Kind::number &&
                            terms[1].kind == PromptTerm::Kind::op &&
                            terms[2].kind == PromptTerm::Kind::number;
    if (!sum_shaped) return ask + ".";
    if (op_name(terms[1].op) != op)
        return other_operation(terms[0].number, terms[1].op, terms[2].number) + ask + ".";
    for (const std::size_t i : {std::size_t{0}, std::size_t{2}}) {
        const Decimal& x = terms[i].number;
        const std::string shown = x.to_string();
        if (x.negative()) return shown + " is below 0. " + ask + ".";
        if (x.frac_digit_count() > t.scale)
            return t.scale == 0 ? shown + " is not a whole number. " + ask + "."
                                : shown + " has " + spelled(x.frac_digit_count()) + " decimals, more than " +
                                      spelled(t.scale) + ". " + ask + ".";
        if (!scaled(t, x)) return shown + " is larger than " + largest + ". " + ask + ".";
    }
    if (t.subtract && terms[0].number < terms[2].number) return "The answer would be below 0. " + ask + ".";
    return "";
}

// Measured on dec-add (docs/training.md): with a third uniform sums the paper's test split lagged behind the
// typed shapes; from 51,200 half reaches 99% on both, from 6,400 half plateaus at 98.75% and three
// quarters reach 99%.
std::map<std::string, double> default_shape_weights(TaskKind task, std::size_t train_size) {
    std::map<std::string, double> w;
    const std::vector<SumShape> shapes = task_shapes(task);
    const double uniform_per_other = train_size >= 25600 ? 1.0 : 3.0;
    for (const SumShape s : shapes)
        w[shape_name(s)] =
            s == SumShape::uniform ? uniform_per_other * static_cast<double>(shapes.size() - 1) : 1.0;
    return w;
}

std::map<std::string, double> parse_shape_weights(std::string_view text) {
    std::map<std::string, double> out;
    std::stringstream in{std::string(text)};
    for (std::string part; std::getline(in, part, ',');) {
        const auto eq = part.find('=');
        std::size_t used = 0;
        double w = 0;
        try {
            if (eq == std::string::npos) throw std::invalid_argument(part);
            w = std::stod(part.substr(eq + 1), &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (eq == std::string::npos || eq == 0 || used == 0 || used != part.size() - eq - 1)
            throw std::invalid_argument(
                "sampling weights are SHAPE=WEIGHT separated by commas "
                "(round=0.2,uniform=0.5), not '" +
                part + "'");
        out[part.substr(0, eq)] = w;
    }
    if (out.empty()) throw std::invalid_argument("sampling weights: none given");
    return out;
}

void validate_shape_weights(TaskKind task, const std::map<std::string, double>& weights) {
    if (weights.empty()) return;
    const std::vector<SumShape> shapes = training_shapes(task);
    std::string known;
    for (const SumShape s : shapes)
        known += (known.empty() ? "" : ", ") + shape_name(s);
    double total = 0;
    for (const auto& [name, w] : weights) {
        const auto s = shape_named(name);
        if (!s || std::find(shapes.begin(), shapes.end(), *s) == shapes.end())
            throw std::invalid_argument("sampling_weights: task " + task_name(task) + " has no shape '" +
                                        name + "' (its shapes: " + known + ")");
        if (!std::isfinite(w) || w < 0)
            throw std::invalid_argument("sampling_weights: the weight of " + name + " must be a number >= 0");
        total += w;
    }
    if (!(total > 0)) throw std::invalid_argument("sampling_weights: at least one weight must be above 0");
}

bool has_shape(TaskKind task, const Example& example, SumShape shape) {
    if (!has_typed_sums(task)) return false;
    const SumTask t = sum_task(task);
    const auto xy = operands_of(t, example);
    if (!xy) return false;
    const auto [a, b] = *xy;
    switch (shape) {
        case SumShape::round:
            return is_round(t, a) && is_round(t, b);
        case SumShape::short_numbers:
            return is_short(t, a) && is_short(t, b);
        case SumShape::one_decimal:
            return t.scale > 0 && written_lengths(t, a).second == 1 && written_lengths(t, b).second == 1;
        case SumShape::carry: {
            // x + y = z; a - b = c is b + c = a.
            const std::int64_t x = t.subtract ? b : a, y = t.subtract ? a - b : b, z = t.subtract ? a : a + b;
            return x > 0 && y > 0 && last_place(z) > std::max(last_place(x), last_place(y));
        }
        case SumShape::equal:
            return a == b;
        case SumShape::zeros:
            return a == 0 || b == 0;
        case SumShape::mixed:
            return written_lengths(t, a) != written_lengths(t, b);
        case SumShape::uniform:
            return true;
        case SumShape::edges: {
            const std::int64_t z = t.subtract ? a : a + b;
            return is_edge_operand(t, a) || is_edge_operand(t, b) || is_power_of_ten(z);
        }
    }
    return false;
}

Example draw_shape(TaskKind task, SumShape shape, std::mt19937_64& rng) {
    const ShapeDraws draws(task);
    const auto [x, y] = draws.draw(shape, rng);
    return make_sum(draws.task(), x, y);
}

std::uint64_t sum_id(TaskKind task, const Example& example) {
    const auto xy = operands_of(sum_task(task), example);
    if (!xy)
        throw std::invalid_argument("sum_id: '" + example.line() + "' is not a sum of task " +
                                    task_name(task));
    return pair_id(xy->first, xy->second);
}

TypedSuite typed_suite(TaskKind task, std::size_t per_shape, std::uint64_t seed) {
    const ShapeDraws draws(task);
    TypedSuite suite;
    std::size_t index = 0;
    for (const SumShape shape : task_shapes(task)) {
        std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + ++index);
        std::unordered_set<std::uint64_t> seen;
        std::vector<Example> examples;
        const std::size_t max_draws = 1000 * per_shape + 100000;
        for (std::size_t drawn = 0; examples.size() < per_shape; ++drawn) {
            if (drawn == max_draws)
                throw std::invalid_argument("the typed suite of " + task_name(task) + " found only " +
                                            std::to_string(examples.size()) + " distinct '" +
                                            shape_name(shape) + "' sums, not " + std::to_string(per_shape));
            const auto [x, y] = draws.draw(shape, rng);
            if (seen.insert(pair_id(x, y)).second) examples.push_back(make_sum(draws.task(), x, y));
        }
        suite.shapes.emplace_back(shape, std::move(examples));
    }
    return suite;
}

std::vector<Example> draw_typed_training(const TaskOptions& task, std::size_t count, std::mt19937_64& rng,
                                         std::unordered_set<std::uint64_t>& used) {
    const ShapeDraws draws(task.kind);
    const auto weights =
        task.sampling_weights.empty() ? default_shape_weights(task.kind, count) : task.sampling_weights;
    validate_shape_weights(task.kind, weights);
    std::vector<SumShape> shapes;
    std::vector<double> w;
    for (const SumShape s : training_shapes(task.kind)) {  // edges last: without it, the draws of before
        const auto it = weights.find(shape_name(s));
        if (it != weights.end() && it->second > 0) {
            shapes.push_back(s);
            w.push_back(it->second);
        }
    }
    std::unordered_set<std::uint64_t> held_out;  // the default typed suite
    for (const auto& [shape, examples] : typed_suite(task.kind).shapes)
        for (const Example& e : examples)
            held_out.insert(sum_id(task.kind, e));
    constexpr int kTries = 1000;
    std::vector<Example> out;
    out.reserve(count);
    while (out.size() < count) {
        double total = 0;
        for (const double x : w)
            total += x;
        if (!(total > 0))
            throw std::invalid_argument("task " + task_name(task.kind) +
                                        ": the typed mixture ran out of distinct "
                                        "examples after " +
                                        std::to_string(out.size()) + " of " + std::to_string(count) +
                                        " (give the uniform shape a weight)");
        // A shape with probability proportional to its weight: a 53-bit uniform from the raw engine.
        const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53 * total;
        std::size_t k = 0;
        for (double below = 0; k < w.size(); ++k)
            if (w[k] > 0 && u < (below += w[k])) break;
        while (k == w.size() || w[k] == 0)  // rounding put u past the last weight: the last one left
            --k;
        bool drawn = false;
        for (int tries = 0; tries < kTries && !drawn; ++tries) {
            const auto [x, y] = draws.draw(shapes[k], rng);
            const std::uint64_t id = pair_id(x, y);
            if (held_out.count(id) || !used.insert(id).second) continue;
            out.push_back(make_sum(draws.task(), x, y));
            drawn = true;
        }
        if (!drawn) w[k] = 0;  // this shape has run out: the others take its share
    }
    return out;
}

}  // namespace fone
