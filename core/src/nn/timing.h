// Wall and CPU clocks of the training, evaluation and generation code: the one seconds_since. Private to
// core/src/ (the torch folders).
#pragma once

#include <chrono>
#include <ctime>

#include "fone/platform/cpu_share.h"  // process_cpu_seconds

namespace fone {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace fone
