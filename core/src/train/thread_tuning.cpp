#include "train/thread_tuning.h"

#include "nn/device_setup.h"
#include "nn/timing.h"

namespace fone {

void ThreadTuning::start(const ThreadChoice& choice, bool on_cpu) {
    if (!choice.automatic || !on_cpu || choice.usable < 2) return;
    adapter_.emplace(choice.usable, choice.threads);
    meter_.emplace();
    start_ = std::chrono::steady_clock::now();
}

std::optional<nlohmann::json> ThreadTuning::after_step(int64_t examples, double seconds) {
    if (!adapter_ || !adapter_->add_step(examples, seconds)) return std::nullopt;
    const double others = meter_->others_busy(0.0);
    const double now = seconds_since(start_);
    const auto change = adapter_->decide(others, now);
    if (!change) return std::nullopt;
    apply_threads(change->to);
    nlohmann::json measured = nlohmann::json::object();
    const std::vector<double> per_example = adapter_->seconds_per_example();
    for (std::size_t k = 1; k < per_example.size(); ++k)
        if (per_example[k] > 0) measured[std::to_string(k)] = per_example[k];
    return nlohmann::json{{"event", "threads"},         {"threads", change->to},
                          {"previous", change->from},   {"reason", change->reason},
                          {"others_busy_cpus", others}, {"seconds_per_example", measured}};
}

}  // namespace fone
