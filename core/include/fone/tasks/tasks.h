// The paper's tasks (section 4.1, appendices B, E, F) as seeded generators with disjoint splits, and the
// file task that splits a user's dataset file. Examples and their written form: expression.h; the files:
// dataset_file.h.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fone/numbers/decimal.h"
#include "fone/numbers/fourier.h"
#include "fone/tasks/dataset_file.h"
#include "fone/tasks/expression.h"

namespace fone {

enum class TaskKind {
    dec_add,   // 6-digit decimal addition: operands 0..999.999 with up to 3 decimals, a <= b
    int_add,   // 6-digit integer addition: operands 0..999999, a <= b
    sub,       // 5-digit integer subtraction: operands 0..99999, a >= b
    mul3,      // 3-digit integer multiplication: operands 0..999, a <= b
    mul4,      // 4-digit integer multiplication: operands 0..9999, a <= b, stratified by product size
    classify,  // three sorted integers in [0, 1000]: 1 if 1.5·n1 − 2·n2 + 0.5·n3 − d > 0 else 0
    mod_add,   // (a + b) mod p for a <= b in [0, p)
    long_add,  // integer addition of up to long_digits-digit operands (lengths drawn uniformly), a <= b
    file,      // examples read from a dataset file
    // Issue 19, the operations of BitTokens' table that we lacked (docs/peers.md):
    div,      // a/b = q, built quotient first as BitTokens does: q = 0.00..999.99 (two places), b = 1..999,
              // a = q·b, so every quotient is exact
    compare,  // a max b = the larger: two different numbers 0..999.999 (three places) that share their
              // first k of six digits, k drawn uniformly from 0..5 (BitTokens' MinMax draws close numbers)
};

// "dec-add", "int-add", "sub", "mul3", "mul4", "classify", "mod-add", "long-add", "file", "div", "compare".
std::string task_name(TaskKind kind);
// Throws std::invalid_argument listing the valid names.
TaskKind task_from_name(std::string_view name);
std::vector<std::string> task_names();

struct TaskOptions {
    TaskKind kind = TaskKind::dec_add;
    int modulus = 97;       // mod-add
    int classify_d = 10;    // classify: the paper's d = 10 and d = −190
    int long_digits = 60;   // long-add: longest operand
    std::string data_file;  // file: the dataset file (see read_dataset_file)
    // How the training split is drawn (dec-add, int-add, sub; typed_sums.h): "uniform" (the paper's
    // sampling) or "typed" (the mixture of shapes people type, with these weights per shape; empty: the
    // task's default mixture). The test and validation splits are uniform either way.
    std::string sampling = "uniform";
    std::map<std::string, double> sampling_weights;
};

// Throws std::invalid_argument naming the option for options that make no sense: modulus < 2,
// long_digits outside 1..Decimal::kMaxDigits-1, a file task without a data file, a sampling other than
// uniform or typed, typed sampling for a task without typed sums, bad sampling weights.
void validate_task(const TaskOptions& task);

// Number of distinct examples the task can generate (a+b and b+a counted once), saturated at
// UINT64_MAX; 0 for the file task.
std::uint64_t task_domain_size(const TaskOptions& task);

// The classify label: 1 if 1.5·n1 − 2·n2 + 0.5·n3 − d > 0 else 0, computed exactly in integers as
// 3·n1 − 4·n2 + n3 − 2·d > 0.
int classify_label(std::int64_t n1, std::int64_t n2, std::int64_t n3, int d);

// Uniform integer in [0, n) (n >= 1) by rejection on the raw 64-bit output, so the same seed gives the
// same numbers with every standard library (std::uniform_int_distribution does not).
std::uint64_t random_below(std::mt19937_64& rng, std::uint64_t n);

struct Splits {
    std::vector<Example> train, val, test;
};

// Seeded and deterministic: the same options, sizes and seed give the same examples on every machine.
// No example appears twice, in a split or across splits (for commutative operations a+b and b+a are the
// same example: a <= b; a max b and b max a too, written in either order). Throws std::invalid_argument
// when the task's domain has fewer distinct examples than asked for (mod-add with a small modulus), naming
// both counts.
//
// The test split is drawn first, then val, then train, so a larger train_size never changes the test or
// validation examples of the same seed. dec-add, int-add, sub, mul3, mod-add, classify and div draw
// uniformly from their distinct examples without replacement; with task.sampling "typed", dec-add, int-add
// and sub draw test and val so (the same examples as "uniform") and train from the typed mixture
// (draw_typed_training in typed_sums.h: no example of test, val or the typed suite). mul4 draws the product's
// digit count uniformly (see tasks.cpp), long-add each operand's length and compare the length of the prefix
// its two numbers share; there a seeded hash gives every example of the domain to one split (20% test, 8%
// val, 72% train), so that the splits stay identically distributed when a small stratum runs out, and a
// split holds at most its share of a small domain. For the file task this reads task.data_file and calls
// split_dataset.
Splits generate_splits(const TaskOptions& task, std::size_t train_size, std::size_t val_size,
                       std::size_t test_size, std::uint64_t seed);

// The operators beyond kBaseOps that the task's examples use, in Op order (div: divide, compare: max; a
// file task: those its examples hold): the words a number model adds to its vocabulary for the task.
std::vector<Op> task_extra_ops(const TaskOptions& task, const Splits& data);

// The FoNE digit slots the task needs for every operand and answer: m integer and n fractional digits.
// For file tasks, computed from the examples given.
FoneSpec task_spec(const TaskOptions& task, const std::vector<const std::vector<Example>*>& data = {});

// Reads "file" task data: the whole file, split into train/val/test by a seeded shuffle (the test and
// validation sizes are taken first; train gets the rest, capped at train_size when it is non-zero).
// Identical examples are merged first (the first one kept, without a warning), so that one line never
// lands in two splits. Throws std::invalid_argument when fewer than val_size + test_size + 1 distinct
// examples remain.
Splits split_dataset(std::vector<Example> examples, std::size_t train_size, std::size_t val_size,
                     std::size_t test_size, std::uint64_t seed);

}  // namespace fone
