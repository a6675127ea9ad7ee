// Speed of a config's model outside any run (bench/, `fone bench`): training throughput and inference
// latency. Arithmetic tasks only: a text run reports its speeds in its own events.
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "fone/store/train_config.h"

namespace fone {

// Training throughput of a config's model on its task, outside any run: `steps` optimiser steps after
// `warmup_steps` untimed ones. {"examples_per_second", "flops_per_example", "gflops_per_second",
// "seconds", and the time split into "batching_seconds", "forward_seconds", "backward_seconds",
// "optimizer_seconds"}.
nlohmann::json measure_training_throughput(TrainConfig config, int steps, int warmup_steps = 3);

// Inference speed of a config's (untrained) model: {"single_latency_ms" (one prompt, one forward pass,
// median of `repeats`), "eval_examples_per_second" (batched evaluation of `eval_examples`)}.
nlohmann::json measure_inference_speed(TrainConfig config, int repeats = 50,
                                       std::size_t eval_examples = 20000);

}  // namespace fone
