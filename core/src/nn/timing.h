// Wall and CPU clocks of the training and evaluation code. Private to core/src/train/.
#pragma once

#include <chrono>
#include <ctime>

namespace fone {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU seconds used by this process so far (every thread). On a machine shared with other work, CPU
// time is the steadier measure of the work done: wall time also counts waiting for a core.
inline double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace fone
