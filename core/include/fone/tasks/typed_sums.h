// Sums with the shapes people type (issue 14): "500+500", "0.5+0.25", "999.999+0.001", "123.4+5". The
// paper's uniform sampling of 6-digit decimals almost never draws a round number, a short one or a sum
// that lands on a round number, and a model trained on it gets such sums wrong. Here each kind of sum is a
// shape with a definition (has_shape) and a generator (draw_shape), for the addition and subtraction tasks
// (dec-add, int-add, sub). Two things are made of them:
//   - the typed training mixture: `fone train --sampling typed` (the default for those tasks) draws each
//     training example from one shape, picked with the weights of --sampling-weights; the test and
//     validation splits stay the paper's uniform ones (the same examples as --sampling uniform);
//   - the typed suite: a fixed, seeded set of examples of every shape (typed_suite), which `fone eval
//     --suite typed` and the eval events of training runs score shape by shape. Typed training sets never
//     contain an example of the default suite, so the suite measures sums the model has not seen.
// Definitions, with examples, in docs/training.md ("Typed sums"). Operands of an addition come in either
// order (people type 100+23 as well as 23+100); a subtraction has a >= b. Everything is drawn with
// random_below on one std::mt19937_64, so a seed gives the same sums everywhere.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "fone/tasks/expression.h"

namespace fone {

enum class TaskKind;
struct TaskOptions;

// The shapes. With x + y = z the addition an example states (for a - b = c: b + c = a):
//   round        both operands whole numbers of at least 10 with at most two significant digits
//                (500+500, 250+250, 30+700)
//   short        both operands below 100 with at most two significant digits (0.5+0.25, 7+12, 3.5+0.05)
//   one_decimal  both operands with exactly one decimal (123.4+5.6); dec-add only
//   carry        z is a round number at a coarser place than x and y: its last non-zero digit lies above
//                theirs, so the sum carries into it (999.999+0.001, 0.5+0.5, 250+250, 1000-1)
//   equal        the two operands are equal (500+500, 0.5+0.5, 7-7)
//   zeros        an operand is 0 (0+123.4, 250-0)
//   mixed        the operands differ in shape: integer digits written or decimals (123.4+5, 100+23)
//   uniform      the paper's sampling: operands uniform over the task's values
//   edges        the ends of the range: an operand is 0, the largest operand or within 99 units of it
//                (999.900..999.999), or written with nines only (9, 99.9, 0.999); or z is a power of ten
//                (0.01, 1, 1000): the sums a visitor types to test the limit (999.999+999.999, 0+0,
//                99.999+900.001, 999+1). Off unless --sampling-weights names it (the demo model's recipe
//                does), so the default mixture, its data and the typed suite are those of before.
enum class SumShape { round, short_numbers, one_decimal, carry, equal, zeros, mixed, uniform, edges };

// "round", "short", "one_decimal", "carry", "equal", "zeros", "mixed", "uniform", "edges".
std::string shape_name(SumShape shape);
std::optional<SumShape> shape_named(std::string_view name);

// dec-add, int-add and sub.
bool has_typed_sums(TaskKind task);
// The task's shapes of the typed suite and the default mixture, in the order above (one_decimal only for
// dec-add, never edges); empty for other tasks.
std::vector<SumShape> task_shapes(TaskKind task);
// The shapes --sampling-weights may name: task_shapes, then edges.
std::vector<SumShape> training_shapes(TaskKind task);
// The task's range in plain words: "two numbers from 0 to 999.999, with up to three decimals".
std::string task_range_text(TaskKind task);

// Why a prompt is not a sum that a model of the task has learned, as one friendly sentence for someone
// trying the model ("" when it is such a sum): anything but "a+b=" ("a-b=" with a >= b for sub), a
// number below 0 or above the task's largest operand, more decimals than the task has.
std::string outside_task_range(TaskKind task, std::string_view prompt);

// The default training mixture of a task for a training split of train_size examples, shape name -> weight:
// uniform sums half of it from 25,600 examples, three quarters below, the other shapes sharing the rest
// equally (docs/training.md, "Typed sums", says how it was chosen).
std::map<std::string, double> default_shape_weights(TaskKind task, std::size_t train_size);
// "round=0.2,short=0.1" -> {round: 0.2, short: 0.1}. Throws std::invalid_argument naming the bad part.
std::map<std::string, double> parse_shape_weights(std::string_view text);
// Throws std::invalid_argument for a shape the task does not have, a weight that is negative or not
// finite, or weights that are all zero (empty weights are the default mixture, and valid).
void validate_shape_weights(TaskKind task, const std::map<std::string, double>& weights);

// Whether an example of the task has the shape (the definitions above, checked on its numbers).
bool has_shape(TaskKind task, const Example& example, SumShape shape);
// One example of the shape: operands inside the task's range, the answer exact.
Example draw_shape(TaskKind task, SumShape shape, std::mt19937_64& rng);

// The typed suite: per_shape distinct examples of every shape of the task, drawn from `seed`, each shape
// from a stream of its own (a shape's examples do not depend on the other shapes). Throws
// std::invalid_argument when a shape has fewer distinct examples than asked for.
inline constexpr std::uint64_t kTypedSuiteSeed = 1414;
inline constexpr std::size_t kTypedSuitePerShape = 500;
struct TypedSuite {
    std::vector<std::pair<SumShape, std::vector<Example>>> shapes;
};
TypedSuite typed_suite(TaskKind task, std::size_t per_shape = kTypedSuitePerShape,
                       std::uint64_t seed = kTypedSuiteSeed);

// The id of an example among the task's examples, a+b and b+a being one: what typed training and the
// splits use to keep examples apart.
std::uint64_t sum_id(TaskKind task, const Example& example);

// The typed training split (generate_splits calls it after drawing the uniform test and val splits):
// `count` examples, each from a shape picked with the task's weights (task.sampling_weights, else the
// default), none whose id is in `used` (the ids of the drawn ones are added) nor in the default typed
// suite. A shape whose examples run out (1,000 draws in a row already taken) hands its share to the
// others; throws std::invalid_argument when every shape has run out.
std::vector<Example> draw_typed_training(const TaskOptions& task, std::size_t count, std::mt19937_64& rng,
                                         std::unordered_set<std::uint64_t>& used);

}  // namespace fone
