// The task generators, task_spec and the file task's split.
//
// Determinism: every random choice goes through random_below() on one std::mt19937_64 seeded with the
// caller's seed, so results are the same with every compiler and standard library.
//
// Uniqueness and stability: the splits are drawn in the order test, val, train from one random stream,
// so the test split depends only on the seed and test_size, and a larger train_size only appends to
// train.
//   - Uniform tasks (dec-add, int-add, sub, mul3, mod-add, classify) number their distinct examples
//     0..D-1 (a+b with a <= b counted once) and draw ranks with a sparse Fisher–Yates shuffle: exactly
//     uniform sampling without replacement, no retries, and memory proportional to the examples drawn,
//     even when almost the whole domain is asked for (mul3 has 500,500 examples).
//   - Stratified tasks (mul4, long-add) draw candidates from their distribution; each example belongs
//     to the test, val or train region of the domain by a seeded hash, and each split keeps only the
//     candidates of its own region that it has not drawn yet (see draw_stratified).
#include "fone/tasks/tasks.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "fone/tasks/typed_sums.h"
#include "tasks/line_text.h"
#include "tasks/pair_rank.h"

namespace fone {
namespace {

constexpr std::array<std::pair<TaskKind, std::string_view>, 11> kTaskNames{{
    {TaskKind::dec_add, "dec-add"},
    {TaskKind::int_add, "int-add"},
    {TaskKind::sub, "sub"},
    {TaskKind::mul3, "mul3"},
    {TaskKind::mul4, "mul4"},
    {TaskKind::classify, "classify"},
    {TaskKind::mod_add, "mod-add"},
    {TaskKind::long_add, "long-add"},
    {TaskKind::file, "file"},
    {TaskKind::div, "div"},
    {TaskKind::compare, "compare"},
}};

using detail::kU64Max;

// ---- Domains -------------------------------------------------------------------------------------

using detail::pair_count;
using detail::unrank_pair;

constexpr std::uint64_t kClassifyValues = 1001;  // integers 0..1000
constexpr std::uint64_t kDivQuotients = 100000;  // div: quotients 0.00..999.99, scaled by 100
constexpr std::uint64_t kDivDivisors = 999;      // div: divisors 1..999

std::uint64_t choose2(std::uint64_t c) {
    return c * (c - 1) / 2;
}
std::uint64_t choose3(std::uint64_t c) {
    return c * (c - 1) * (c - 2) / 6;
}

// Largest c in [lo, hi] with f(c) <= r, for f increasing and f(lo) <= r.
template <class F>
std::uint64_t largest_at_most(std::uint64_t lo, std::uint64_t hi, std::uint64_t r, F f) {
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo + 1) / 2;
        if (f(mid) <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

// Sorted triples n1 <= n2 <= n3 in [0, 1000] are the 3-combinations c1 < c2 < c3 of [0, 1003) via
// c = (n1, n2 + 1, n3 + 2), ranked in the combinatorial number system: r = C(c3,3) + C(c2,2) + C(c1,1).
std::array<std::int64_t, 3> unrank_triple(std::uint64_t r) {
    const std::uint64_t c3 = largest_at_most(2, kClassifyValues + 1, r, choose3);
    r -= choose3(c3);
    const std::uint64_t c2 = largest_at_most(1, c3 - 1, r, choose2);
    r -= choose2(c2);
    const std::uint64_t c1 = r;
    return {static_cast<std::int64_t>(c1), static_cast<std::int64_t>(c2) - 1,
            static_cast<std::int64_t>(c3) - 2};
}

// Sampling without replacement from [0, n): Fisher–Yates where only the moved entries are stored, in a
// flat open-addressing table (a node-based std::unordered_map is three times slower here, all cache
// misses and frees). Position i is never read after step i, so entries are never erased: step i adds at
// most one entry, and `expected` steps fit a table of twice that size.
class SparseShuffle {
  public:
    SparseShuffle(std::uint64_t n, std::size_t expected) : n_(n) {
        std::size_t size = 16;
        int bits = 4;
        while (size < 2 * expected + 2) {
            size *= 2;
            ++bits;
        }
        slots_.assign(size, Slot{kEmpty, 0});
        mask_ = size - 1;
        shift_ = 64 - bits;
    }
    std::uint64_t next(std::mt19937_64& rng) {
        const std::uint64_t i = i_++;
        const std::uint64_t j = i + random_below(rng, n_ - i);
        Slot& sj = slot(j);
        const std::uint64_t value = sj.key == kEmpty ? j : sj.value;
        if (j != i) {
            const Slot& si = slot(i);
            const std::uint64_t vi = si.key == kEmpty ? i : si.value;
            sj.key = j;  // slot(i) did not move: the table never grows or erases
            sj.value = vi;
        }
        return value;
    }

  private:
    static constexpr std::uint64_t kEmpty = std::numeric_limits<std::uint64_t>::max();
    struct Slot {
        std::uint64_t key, value;
    };
    // The slot holding k, or the empty slot where k would go.
    Slot& slot(std::uint64_t k) {
        // Fibonacci hashing: the top bits of k times 2^64/φ.
        for (std::size_t p = static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ull) >> shift_);;
             p = (p + 1) & mask_)
            if (slots_[p].key == k || slots_[p].key == kEmpty) return slots_[p];
    }
    std::uint64_t n_;
    std::uint64_t i_ = 0;
    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    int shift_ = 60;
};

Example make_example(std::vector<Decimal> operands, std::vector<std::string> ops, Decimal answer) {
    Example e;
    e.operands = std::move(operands);
    e.ops = std::move(ops);
    e.answer = std::move(answer);
    return e;
}

Example binary(std::int64_t a, std::int64_t b, const char* op, std::int64_t answer) {
    return make_example({Decimal::from_int(a), Decimal::from_int(b)}, {op}, Decimal::from_int(answer));
}

// The uniform tasks: example number `rank` of the domain.
Example uniform_example(const TaskOptions& task, std::uint64_t rank) {
    switch (task.kind) {
        case TaskKind::dec_add: {
            const auto [a, b] = unrank_pair(rank);
            const auto ia = static_cast<std::int64_t>(a), ib = static_cast<std::int64_t>(b);
            return make_example({Decimal::from_scaled(ia, 3), Decimal::from_scaled(ib, 3)}, {"+"},
                                Decimal::from_scaled(ia + ib, 3));
        }
        case TaskKind::int_add: {
            const auto [a, b] = unrank_pair(rank);
            const auto ia = static_cast<std::int64_t>(a), ib = static_cast<std::int64_t>(b);
            return binary(ia, ib, "+", ia + ib);
        }
        case TaskKind::sub: {
            const auto [small, large] = unrank_pair(rank);
            const auto ia = static_cast<std::int64_t>(large), ib = static_cast<std::int64_t>(small);
            return binary(ia, ib, "-", ia - ib);
        }
        case TaskKind::mul3: {
            const auto [a, b] = unrank_pair(rank);
            const auto ia = static_cast<std::int64_t>(a), ib = static_cast<std::int64_t>(b);
            return binary(ia, ib, "*", ia * ib);
        }
        case TaskKind::mod_add: {
            const auto [a, b] = unrank_pair(rank);
            const auto ia = static_cast<std::int64_t>(a), ib = static_cast<std::int64_t>(b);
            const std::int64_t p = task.modulus;
            return make_example({Decimal::from_int(ia), Decimal::from_int(ib), Decimal::from_int(p)},
                                {"+", "mod"}, Decimal::from_int((ia + ib) % p));
        }
        case TaskKind::div: {
            // Quotient first (BitTokens' generate_floatXX_division): q = Q/100, b, then a = q·b exactly.
            const auto q = static_cast<std::int64_t>(rank / kDivDivisors);
            const auto b = static_cast<std::int64_t>(1 + rank % kDivDivisors);
            return make_example({Decimal::from_scaled(q * b, 2), Decimal::from_int(b)}, {"/"},
                                Decimal::from_scaled(q, 2));
        }
        case TaskKind::classify: {
            const auto n = unrank_triple(rank);
            return make_example({Decimal::from_int(n[0]), Decimal::from_int(n[1]), Decimal::from_int(n[2])},
                                {",", ","},
                                Decimal::from_int(classify_label(n[0], n[1], n[2], task.classify_d)));
        }
        default:
            throw std::logic_error("uniform_example: not a uniform task");
    }
}

// ---- mul4 ----------------------------------------------------------------------------------------
// Stratified by the product's number of digits. Uniform operands would make almost every product 7 or
// 8 digits long (products below 10^4 have probability about 0.1%), so the model would never see small
// products. Instead: draw the digit count k of the product uniformly from 1..8, i.e. the range
// [10^(k-1), 10^k - 1] ([0, 9] for k = 1, capped at 9999² for k = 8); draw x uniformly among the
// operands that can reach that range (ceil(lo/9999) <= x <= min(9999, hi)); draw y uniformly among the
// values 0..9999 that put x·y in the range; the example is (min, max). Every x in that interval has such
// a y (x itself or a multiple lies in the range), so nothing is rejected except duplicates. Duplicates
// are redrawn from the start, so a digit count whose pairs run out hands its share to the others: the
// distinct pairs a <= b per digit count 1..8 are 10,013 (mostly 0·b), 228, 3,301, 43,329, 343,745,
// 2,407,451, 13,710,958 and 33,485,975. So 2,000 examples hold about 1/8 of each digit count from 3 up;
// in the paper's million (seed 1) each split has about 0.9% zero products, 0.4% other products below
// 1000, 3.4% with 4 digits, 15% with 5 and 25-27% each with 6, 7 and 8 digits. Each split draws only
// from its own region of the pairs (see draw_stratified), so small products spread over the splits in
// proportion and not to the test split first.

constexpr std::int64_t kMul4Max = 9999;

std::uint64_t pair_key(std::int64_t a, std::int64_t b) {
    return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint64_t>(b);
}

std::uint64_t draw_mul4(std::mt19937_64& rng) {
    for (;;) {
        const int k = 1 + static_cast<int>(random_below(rng, 8));
        std::int64_t lo = 0, hi = 9;
        if (k > 1) {
            lo = 1;
            for (int i = 1; i < k; ++i)
                lo *= 10;
            hi = std::min<std::int64_t>(lo * 10 - 1, kMul4Max * kMul4Max);
        }
        const std::int64_t x_lo = (lo + kMul4Max - 1) / kMul4Max;
        const std::int64_t x_hi = std::min(kMul4Max, hi);
        const std::int64_t x =
            x_lo + static_cast<std::int64_t>(random_below(rng, static_cast<std::uint64_t>(x_hi - x_lo + 1)));
        std::int64_t y_lo = 0, y_hi = kMul4Max;
        if (x > 0) {
            y_lo = (lo + x - 1) / x;
            y_hi = std::min(kMul4Max, hi / x);
        }
        if (y_lo > y_hi) continue;  // cannot happen (see above); kept as a guard
        const std::int64_t y =
            y_lo + static_cast<std::int64_t>(random_below(rng, static_cast<std::uint64_t>(y_hi - y_lo + 1)));
        return pair_key(std::min(x, y), std::max(x, y));
    }
}

Example mul4_example(std::uint64_t key) {
    const auto a = static_cast<std::int64_t>(key >> 32), b = static_cast<std::int64_t>(key & 0xffffffffu);
    return binary(a, b, "*", a * b);
}

// ---- long-add ------------------------------------------------------------------------------------

// Appends `count` uniform decimal digits, 18 per draw.
void append_digits(std::mt19937_64& rng, std::string& s, int count) {
    while (count > 0) {
        const int chunk = std::min(count, 18);
        std::uint64_t range = 1;
        for (int i = 0; i < chunk; ++i)
            range *= 10;
        std::uint64_t v = random_below(rng, range);
        const std::size_t start = s.size();
        s.append(static_cast<std::size_t>(chunk), '0');
        for (std::size_t i = s.size(); i-- > start;) {
            s[i] = static_cast<char>('0' + v % 10);
            v /= 10;
        }
        count -= chunk;
    }
}

// A number whose length is uniform in 1..max_len, then its digits uniform (no leading zero).
std::string draw_digits(std::mt19937_64& rng, int max_len) {
    const int len = 1 + static_cast<int>(random_below(rng, static_cast<std::uint64_t>(max_len)));
    std::string s;
    s.reserve(static_cast<std::size_t>(len));
    if (len == 1) {
        append_digits(rng, s, 1);
    } else {
        s += static_cast<char>('1' + random_below(rng, 9));
        append_digits(rng, s, len - 1);
    }
    return s;
}

bool digits_less(const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
}

// ---- compare -------------------------------------------------------------------------------------
// Two different numbers 0..999.999 written with six digits (three after the point), sharing their first
// k digits, k uniform in 0..5: the (k+1)-th digit differs and the rest are uniform. Uniform pairs would
// nearly always differ in the first digit; BitTokens' MinMax lists draw numbers around a common mean with
// spreads down to the last significant digit. The example is (a, b) in a random order; its id is the
// unordered pair, so b max a and a max b are one example.

constexpr int kCompareDigits = 6;
constexpr std::int64_t kCompareValues = 1000000;  // 0..999.999, scaled by 1000

std::pair<std::pair<std::int64_t, std::int64_t>, std::uint64_t> draw_compare(std::mt19937_64& rng) {
    const auto a = static_cast<std::int64_t>(random_below(rng, kCompareValues));
    const int k = static_cast<int>(random_below(rng, kCompareDigits));  // digits shared
    std::int64_t unit = kCompareValues;                                 // 10^(6-k): the shared prefix's step
    for (int i = 0; i < k; ++i)
        unit /= 10;
    const std::int64_t place = unit / 10, a_digit = (a / place) % 10;
    std::int64_t digit = static_cast<std::int64_t>(random_below(rng, 9));
    if (digit >= a_digit) ++digit;  // any digit but a's
    const std::int64_t rest = static_cast<std::int64_t>(random_below(rng, static_cast<std::uint64_t>(place)));
    const std::int64_t b = (a / unit) * unit + digit * place + rest;
    const bool swap = random_below(rng, 2) == 1;
    return {swap ? std::pair{b, a} : std::pair{a, b}, pair_key(std::min(a, b), std::max(a, b))};
}

Example compare_example(std::pair<std::int64_t, std::int64_t> ab) {
    const Decimal a = Decimal::from_scaled(ab.first, 3), b = Decimal::from_scaled(ab.second, 3);
    return make_example({a, b}, {"max"}, std::max(a, b));
}

// ---- Helpers -------------------------------------------------------------------------------------

std::size_t checked_total(std::size_t train, std::size_t val, std::size_t test) {
    const std::size_t max = std::numeric_limits<std::size_t>::max();
    if (val > max - test || train > max - test - val)
        throw std::invalid_argument("generate_splits: the split sizes overflow");
    return train + val + test;
}

// Routes the i-th example drawn (i = 0, 1, ...) to test, then val, then train.
struct SplitFiller {
    Splits splits;
    std::size_t test_size, val_size, total;
    std::size_t count = 0;
    void add(Example e) {
        std::vector<Example>& dst = count < test_size              ? splits.test
                                    : count < test_size + val_size ? splits.val
                                                                   : splits.train;
        dst.push_back(std::move(e));
        ++count;
    }
};

// ---- Stratified draws (mul4, long-add) -----------------------------------------------------------
// A stratified draw is not uniform, and sampling without replacement from a non-uniform distribution
// gives the first draws the most likely examples: drawn test-first, the test split would take every
// example of a small stratum (mul4 has only 228 pairs with a 2-digit product) and train would see none.
// So every example of the domain belongs to one split's region, by a seeded hash of the example: 20%
// test, 8% val, 72% train (the reference's split of one pool, done per example). Each split draws from
// the task's distribution, keeps only candidates in its own region and redraws duplicates. The splits
// are then disjoint by construction and identically distributed, and the test split still depends only
// on the seed and test_size. A split can hold at most its region's share of a small domain (long-add
// with long_digits = 1 has 55 pairs: about 11 for test).

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// FNV-1a: a portable string hash (std::hash differs between standard libraries).
std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 0xCBF29CE484222325ull) {
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001B3ull;
    }
    return h;
}

constexpr std::array<std::string_view, 3> kSplitNames{"test", "val", "train"};

// 0 test, 1 val, 2 train.
int region_of(std::uint64_t example_hash, std::uint64_t seed) {
    const std::uint64_t r = splitmix64(example_hash ^ splitmix64(seed)) % 25;
    return r < 5 ? 0 : r < 7 ? 1 : 2;
}

// draw(rng) -> {candidate, 64-bit id}; build(candidate) -> Example. Equal examples must have equal ids;
// distinct examples should have distinct ids (a collision only makes a split skip that example).
template <class Draw, class Build>
void draw_stratified(const TaskOptions& task, SplitFiller& out, std::uint64_t domain, std::uint64_t seed,
                     std::mt19937_64& rng, Draw draw, Build build) {
    std::unordered_set<std::uint64_t> seen;
    const std::array<std::size_t, 3> sizes{out.test_size, out.val_size,
                                           out.total - out.test_size - out.val_size};
    seen.reserve(out.total);
    for (int split = 0; split < 3; ++split) {
        const std::size_t want = sizes[static_cast<std::size_t>(split)];
        // Expected draws per example: 5 for test, 12.5 for val, 1.4 for train, more once the split's
        // region of a stratum runs low. Give up (instead of looping for hours) far beyond that.
        const std::uint64_t max_draws = 100 * static_cast<std::uint64_t>(want) + 10'000'000;
        std::size_t got = 0;
        for (std::uint64_t draws = 0; got < want; ++draws) {
            if (draws == max_draws)
                throw std::invalid_argument(
                    "task " + task_name(task.kind) + ": found only " + std::to_string(got) + " distinct " +
                    std::string(kSplitNames[static_cast<std::size_t>(split)]) + " examples of the " +
                    std::to_string(want) + " asked for in " + std::to_string(max_draws) +
                    " draws; the task has " + std::to_string(domain) +
                    " examples, about 20% of them for test, 8% for val and 72% for train");
            auto [candidate, id] = draw(rng);
            if (region_of(id, seed) != split || !seen.insert(id).second) continue;
            out.add(build(std::move(candidate)));
            ++got;
        }
    }
}

// The id of long-add example a+b: a 64-bit hash of its text "a+b" (only the region and the duplicate
// check use it; a collision among the 2^64 values only skips an example).
std::uint64_t long_add_id(const std::string& a, const std::string& b) {
    return fnv1a(b, fnv1a("+", fnv1a(a)));
}

// long-add with up to 3 digits has at most 500,500 examples: count each split's region exactly and fail
// at once, with the numbers, instead of after millions of draws.
void check_small_long_add(const TaskOptions& task, const SplitFiller& out, std::uint64_t seed) {
    int limit = 1;
    for (int i = 0; i < task.long_digits; ++i)
        limit *= 10;
    std::array<std::size_t, 3> capacity{0, 0, 0};
    for (int b = 0; b < limit; ++b)
        for (int a = 0; a <= b; ++a)
            ++capacity[static_cast<std::size_t>(
                region_of(long_add_id(std::to_string(a), std::to_string(b)), seed))];
    const std::array<std::size_t, 3> sizes{out.test_size, out.val_size,
                                           out.total - out.test_size - out.val_size};
    for (std::size_t split = 0; split < 3; ++split)
        if (sizes[split] > capacity[split])
            throw std::invalid_argument(
                "task long-add with long_digits=" + std::to_string(task.long_digits) + " has " +
                std::to_string(capacity[split]) + " examples for " + std::string(kSplitNames[split]) +
                " with this seed, but " + std::to_string(sizes[split]) +
                " were asked for (each split gets a fixed share of the examples: about 20% test, 8% val, "
                "72% train)");
}

}  // namespace

// ---- Names, options ------------------------------------------------------------------------------

std::string task_name(TaskKind kind) {
    for (const auto& [k, name] : kTaskNames)
        if (k == kind) return std::string(name);
    throw std::invalid_argument("task_name: unknown task kind " + std::to_string(static_cast<int>(kind)));
}

TaskKind task_from_name(std::string_view name) {
    for (const auto& [k, n] : kTaskNames)
        if (n == name) return k;
    std::string valid;
    for (const auto& [k, n] : kTaskNames)
        valid += (valid.empty() ? "" : ", ") + std::string(n);
    throw std::invalid_argument("unknown task " + quote_text(name) + "; valid tasks: " + valid);
}

std::vector<std::string> task_names() {
    std::vector<std::string> names;
    for (const auto& [k, n] : kTaskNames)
        names.emplace_back(n);
    return names;
}

void validate_task(const TaskOptions& task) {
    switch (task.kind) {
        case TaskKind::mod_add:
            if (task.modulus < 2)
                throw std::invalid_argument("modulus must be at least 2, not " +
                                            std::to_string(task.modulus));
            break;
        case TaskKind::long_add:
            if (task.long_digits < 1 || task.long_digits > Decimal::kMaxDigits - 1)
                throw std::invalid_argument("long_digits must be in 1.." +
                                            std::to_string(Decimal::kMaxDigits - 1) + ", not " +
                                            std::to_string(task.long_digits));
            break;
        case TaskKind::file:
            if (task.data_file.empty()) throw std::invalid_argument("the file task needs a data file");
            break;
        default:
            break;
    }
    task_name(task.kind);  // throws for a kind outside the enum
    if (task.sampling != "uniform" && task.sampling != "typed")
        throw std::invalid_argument("sampling must be uniform or typed, not '" + task.sampling + "'");
    if (task.sampling == "typed" && !has_typed_sums(task.kind))
        throw std::invalid_argument("sampling typed is for dec-add, int-add and sub; task " +
                                    task_name(task.kind) + " samples uniformly");
    if (task.sampling == "typed") validate_shape_weights(task.kind, task.sampling_weights);
}

std::uint64_t task_domain_size(const TaskOptions& task) {
    validate_task(task);
    switch (task.kind) {
        case TaskKind::dec_add:
        case TaskKind::int_add:
            return pair_count(1000000);
        case TaskKind::sub:
            return pair_count(100000);
        case TaskKind::mul3:
            return pair_count(1000);
        case TaskKind::mul4:
            return pair_count(10000);
        case TaskKind::classify:
            return choose3(kClassifyValues + 2);
        case TaskKind::mod_add:
            return pair_count(static_cast<std::uint64_t>(task.modulus));
        case TaskKind::long_add: {
            // All integers with 1..long_digits digits: 10^long_digits of them.
            if (task.long_digits >= 19) return kU64Max;
            std::uint64_t n = 1;
            for (int i = 0; i < task.long_digits; ++i)
                n *= 10;
            return pair_count(n);
        }
        case TaskKind::file:
            return 0;
        case TaskKind::div:
            return kDivQuotients * kDivDivisors;
        case TaskKind::compare:
            return pair_count(kCompareValues) - kCompareValues;  // unordered pairs of different values
    }
    return 0;
}

int classify_label(std::int64_t n1, std::int64_t n2, std::int64_t n3, int d) {
    // 1.5·n1 − 2·n2 + 0.5·n3 − d > 0, times 2 to stay in integers.
    return 3 * n1 - 4 * n2 + n3 - 2 * static_cast<std::int64_t>(d) > 0 ? 1 : 0;
}

std::uint64_t random_below(std::mt19937_64& rng, std::uint64_t n) {
    if (n == 0) throw std::invalid_argument("random_below: n must be at least 1");
    // Values below 2^64 mod n would make the low residues more likely: reject them. At most half of
    // the outputs are rejected, usually far fewer.
    const std::uint64_t threshold = (0 - n) % n;
    for (;;) {
        const std::uint64_t x = rng();
        if (x >= threshold) return x % n;
    }
}

// ---- Generators ----------------------------------------------------------------------------------

Splits generate_splits(const TaskOptions& task, std::size_t train_size, std::size_t val_size,
                       std::size_t test_size, std::uint64_t seed) {
    validate_task(task);
    if (task.kind == TaskKind::file)
        return split_dataset(read_dataset_file(task.data_file), train_size, val_size, test_size, seed);

    const std::size_t total = checked_total(train_size, val_size, test_size);
    const std::uint64_t domain = task_domain_size(task);
    if (total > domain)
        throw std::invalid_argument("task " + task_name(task.kind) + " has only " + std::to_string(domain) +
                                    " distinct examples, but " + std::to_string(total) +
                                    " were asked for (train " + std::to_string(train_size) + " + val " +
                                    std::to_string(val_size) + " + test " + std::to_string(test_size) + ")");

    std::mt19937_64 rng(seed);
    SplitFiller out{{}, test_size, val_size, total};
    out.splits.test.reserve(test_size);
    out.splits.val.reserve(val_size);
    out.splits.train.reserve(train_size);

    if (task.kind == TaskKind::mul4) {
        draw_stratified(
            task, out, domain, seed, rng,
            [](std::mt19937_64& r) {
                const std::uint64_t key = draw_mul4(r);
                return std::pair{key, key};
            },
            mul4_example);
        return std::move(out.splits);
    }
    if (task.kind == TaskKind::compare) {
        draw_stratified(task, out, domain, seed, rng, draw_compare, compare_example);
        return std::move(out.splits);
    }
    if (task.kind == TaskKind::long_add) {
        if (task.long_digits <= 3) check_small_long_add(task, out, seed);
        draw_stratified(
            task, out, domain, seed, rng,
            [&](std::mt19937_64& r) {
                std::string a = draw_digits(r, task.long_digits);
                std::string b = draw_digits(r, task.long_digits);
                if (digits_less(b, a)) std::swap(a, b);
                const std::uint64_t id = long_add_id(a, b);
                return std::pair{std::pair{std::move(a), std::move(b)}, id};
            },
            [](std::pair<std::string, std::string> ab) {
                Decimal a = Decimal::from_digits(false, ab.first, "");
                Decimal b = Decimal::from_digits(false, ab.second, "");
                Decimal sum = a + b;
                return make_example({std::move(a), std::move(b)}, {"+"}, std::move(sum));
            });
        return std::move(out.splits);
    }

    if (task.sampling == "typed") {
        // Test and val as the paper draws them, then train from the typed mixture.
        SparseShuffle ranks(domain, test_size + val_size);
        std::unordered_set<std::uint64_t> used;
        used.reserve(total);
        while (out.count < test_size + val_size) {
            const std::uint64_t rank = ranks.next(rng);
            used.insert(rank);
            out.add(uniform_example(task, rank));
        }
        out.splits.train = draw_typed_training(task, train_size, rng, used);
        return std::move(out.splits);
    }
    SparseShuffle ranks(domain, total);
    while (out.count < total)
        out.add(uniform_example(task, ranks.next(rng)));
    return std::move(out.splits);
}

// ---- task_spec -----------------------------------------------------------------------------------

FoneSpec task_spec(const TaskOptions& task, const std::vector<const std::vector<Example>*>& data) {
    FoneSpec spec;
    spec.base = 10;
    spec.multipliers.clear();
    spec.sign_feature = false;
    spec.frac_digits = 0;
    switch (task.kind) {
        case TaskKind::dec_add:
            spec.int_digits = 4;  // 999.999 + 999.999 = 1999.998
            spec.frac_digits = 3;
            break;
        case TaskKind::int_add:
            spec.int_digits = 7;  // 999999 + 999999 = 1999998
            break;
        case TaskKind::sub:
            spec.int_digits = 5;  // 99999
            break;
        case TaskKind::mul3:
            spec.int_digits = 6;  // 999² = 998001
            break;
        case TaskKind::mul4:
            spec.int_digits = 8;  // 9999² = 99980001
            break;
        case TaskKind::classify:
            spec.int_digits = 4;  // 1000
            break;
        case TaskKind::mod_add:
            validate_task(task);
            spec.int_digits = static_cast<int>(std::to_string(task.modulus).size());  // the operand p
            break;
        case TaskKind::long_add:
            validate_task(task);
            spec.int_digits = task.long_digits + 1;  // the carry
            break;
        case TaskKind::div:
            spec.int_digits = 6;  // the dividend 999.99 · 999 = 998990.01
            spec.frac_digits = 2;
            break;
        case TaskKind::compare:
            spec.int_digits = 3;  // 999.999
            spec.frac_digits = 3;
            break;
        case TaskKind::file: {
            int m = 1, n = 0;
            bool negative = false;
            auto cover = [&](const Decimal& x) {
                m = std::max(m, x.int_digit_count());
                n = std::max(n, x.frac_digit_count());
                negative = negative || x.negative();
            };
            for (const auto* examples : data) {
                if (!examples) continue;
                for (const Example& e : *examples) {
                    for (const Decimal& x : e.operands)
                        cover(x);
                    cover(e.answer);
                }
            }
            spec.int_digits = m;
            spec.frac_digits = n;
            spec.sign_feature = negative;
            break;
        }
    }
    return spec;
}

std::vector<Op> task_extra_ops(const TaskOptions& task, const Splits& data) {
    if (task.kind == TaskKind::div) return {Op::divide};
    if (task.kind == TaskKind::compare) return {Op::max};
    if (task.kind != TaskKind::file) return {};
    std::vector<Op> used;
    for (const auto* split : {&data.train, &data.val, &data.test})
        for (const Example& e : *split)
            for (const std::string& name : e.ops)
                if (const auto op = op_named(name);
                    op && std::find(kBaseOps.begin(), kBaseOps.end(), *op) == kBaseOps.end() &&
                    std::find(used.begin(), used.end(), *op) == used.end())
                    used.push_back(*op);
    std::sort(used.begin(), used.end());
    return used;
}

// ---- File task ------------------------------------------------------------------------------------

Splits split_dataset(std::vector<Example> examples, std::size_t train_size, std::size_t val_size,
                     std::size_t test_size, std::uint64_t seed) {
    // Merge identical examples, keeping the first.
    const std::size_t given = examples.size();
    {
        std::unordered_set<std::string> seen;
        seen.reserve(examples.size());
        std::size_t kept = 0;
        for (std::size_t i = 0; i < examples.size(); ++i)
            if (seen.insert(examples[i].line()).second) {
                if (kept != i) examples[kept] = std::move(examples[i]);
                ++kept;
            }
        examples.resize(kept);
    }
    const std::size_t n = examples.size();
    if (val_size > n || test_size > n || val_size + test_size >= n) {
        std::string merged;
        if (given != n) merged = " (" + std::to_string(given - n) + " duplicate examples merged)";
        throw std::invalid_argument("the dataset has " + std::to_string(n) + " distinct examples" + merged +
                                    "; val " + std::to_string(val_size) + " + test " +
                                    std::to_string(test_size) + " + at least 1 train needs more");
    }
    std::mt19937_64 rng(seed);
    for (std::size_t i = n - 1; i > 0; --i) {
        const auto j = static_cast<std::size_t>(random_below(rng, i + 1));
        if (j != i) std::swap(examples[i], examples[j]);
    }
    Splits s;
    auto take = [&](std::size_t from, std::size_t count) {
        return std::vector<Example>(
            std::make_move_iterator(examples.begin() + static_cast<std::ptrdiff_t>(from)),
            std::make_move_iterator(examples.begin() + static_cast<std::ptrdiff_t>(from + count)));
    };
    const std::size_t rest = n - test_size - val_size;
    s.test = take(0, test_size);
    s.val = take(test_size, val_size);
    s.train = take(test_size + val_size, train_size == 0 ? rest : std::min(train_size, rest));
    return s;
}

}  // namespace fone
