// The typed suite (fone/tasks/typed_sums.h) scored by a run's model: one encoded batch per shape, exact
// match per shape. The training loop puts it in every eval event of an addition or subtraction run
// ("typed"); `fone eval --suite typed` reports it with details. Private to core/src/train/.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/tasks/typed_sums.h"
#include "schemes/scheme.h"

namespace fone {

struct TypedSuiteBatches {
    std::vector<SumShape> shapes;
    std::vector<std::vector<Example>> examples;  // per shape
    std::vector<Batch> batches;                  // per shape, on the CPU
};

// The task's suite, encoded by the scheme; empty for a task without typed sums.
TypedSuiteBatches encode_typed_suite(const NumberScheme& scheme, TaskKind task,
                                     std::size_t per_shape = kTypedSuitePerShape,
                                     std::uint64_t seed = kTypedSuiteSeed);

// {"round": exact match, "short": ..., ...}: the eval event's "typed" field.
nlohmann::json typed_exact_match(const NumberScheme& scheme, FoneTransformer& model,
                                 const TypedSuiteBatches& suite, const torch::Device& device);

}  // namespace fone
