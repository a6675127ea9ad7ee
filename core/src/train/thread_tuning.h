// The trainer's hook for adapting its threads while it trains (fone/platform/thread_adapter.h): a run whose
// threads were chosen automatically (--threads 0), on the CPU, with more than one CPU to use. Kept apart from
// the training loop, which calls it once a step. Private to core/src/train/.
#pragma once

#include <chrono>
#include <optional>

#include <nlohmann/json.hpp>

#include "fone/nn/device.h"
#include "fone/platform/cpu_share.h"
#include "fone/platform/thread_adapter.h"

namespace fone {

class ThreadTuning {
  public:
    ThreadTuning() = default;
    // Adapts only when `choice` was automatic, `on_cpu` and more than one CPU is usable.
    void start(const ThreadChoice& choice, bool on_cpu);
    // After each training step of `examples` examples in `seconds`: when the threads changed (LibTorch's and
    // OpenBLAS's already set), the event that says so: {"event": "threads", "threads", "previous", "reason",
    // "others_busy_cpus", "seconds_per_example": {"1": ..., "2": ...}}.
    std::optional<nlohmann::json> after_step(int64_t examples, double seconds);

  private:
    std::optional<ThreadAdapter> adapter_;
    std::optional<CpuLoadMeter> meter_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace fone
