// Where a model computes: the device a run asks for, and what this build's LibTorch offers.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fone {

// "cpu" or "cuda" for "auto"; throws std::invalid_argument for "cuda" in a build or on a machine without it.
std::string resolve_device(const std::string& requested);
bool cuda_available();
std::string torch_version();
// How many CPU threads a computation runs on, and why.
struct ThreadChoice {
    int threads = 1;
    bool automatic = false;  // chosen from the machine (--threads 0), not given
    int usable = 1;          // CPUs this process may use (affinity, cgroup quota)
    std::string reason;      // "--threads 2" or "auto: 1 thread; 2 CPUs usable (affinity 2, ...)"
};
// `requested` threads when > 0; else the CPUs free now (measure_cpu_share, fone/platform/cpu_share.h): the
// other processes' load is measured since LibTorch's commands were loaded, over at least `min_seconds`.
ThreadChoice choose_threads(int requested, double min_seconds = 0.05);

// {"libtorch": "1.13.1", "cuda_build": "" (a CPU-only LibTorch) or "12.1", "cuda_available", "gpus"}.
nlohmann::json torch_build_info();

}  // namespace fone
