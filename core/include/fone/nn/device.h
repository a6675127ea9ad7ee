// Where a model computes: the device a run asks for, and what this build's LibTorch offers.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fone {

// "cpu" or "cuda" for "auto"; throws std::invalid_argument for "cuda" in a build or on a machine without it.
std::string resolve_device(const std::string& requested);
bool cuda_available();
std::string torch_version();
// {"libtorch": "1.13.1", "cuda_build": "" (a CPU-only LibTorch) or "12.1", "cuda_available", "gpus"}.
nlohmann::json torch_build_info();

}  // namespace fone
