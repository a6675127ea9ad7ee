#include "train/typed_eval.h"

namespace fone {

TypedSuiteBatches encode_typed_suite(const NumberScheme& scheme, TaskKind task, std::size_t per_shape,
                                     std::uint64_t seed) {
    TypedSuiteBatches out;
    if (!has_typed_sums(task)) return out;
    for (auto& [shape, examples] : typed_suite(task, per_shape, seed).shapes) {
        out.shapes.push_back(shape);
        out.batches.push_back(scheme.encode(examples));
        out.examples.push_back(std::move(examples));
    }
    return out;
}

nlohmann::json typed_exact_match(const NumberScheme& scheme, FoneTransformer& model,
                                 const TypedSuiteBatches& suite, const torch::Device& device) {
    nlohmann::json out = nlohmann::json::object();
    for (std::size_t i = 0; i < suite.shapes.size(); ++i)
        out[shape_name(suite.shapes[i])] = scheme.evaluate(model, suite.batches[i], device)["exact_match"];
    return out;
}

}  // namespace fone
