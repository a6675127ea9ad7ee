#include "fone/platform/thread_adapter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fone/platform/cpu_share.h"

namespace fone {

namespace {

constexpr double kExploreGrowth = 2.0;
constexpr double kExploreLongest = 8.0;  // times explore_seconds

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string threads_text(int n) {
    return std::to_string(n) + (n == 1 ? " thread" : " threads");
}

}  // namespace

ThreadAdapter::ThreadAdapter(int usable, int start, ThreadAdapterSettings settings)
    : settings_(settings),
      usable_(std::max(1, usable)),
      threads_(std::clamp(start, 1, std::max(1, usable))),
      measured_(static_cast<std::size_t>(std::max(1, usable)) + 1),
      explore_every_(settings.first_explore_seconds) {}

bool ThreadAdapter::add_step(int64_t examples, double seconds) {
    if (skip_next_) {
        skip_next_ = false;
        return false;
    }
    if (examples <= 0 || !(seconds >= 0)) return false;
    window_.push_back(seconds / static_cast<double>(examples));
    window_seconds_ += seconds;
    return static_cast<int>(window_.size()) >= settings_.window_steps &&
           window_seconds_ >= settings_.window_seconds;
}

std::vector<double> ThreadAdapter::seconds_per_example() const {
    std::vector<double> out(measured_.size(), 0.0);
    for (std::size_t k = 1; k < measured_.size(); ++k)
        if (measured_[k].valid) out[k] = measured_[k].per_example;
    return out;
}

void ThreadAdapter::forget_stale(double others_busy, double now) {
    for (std::size_t k = 1; k < measured_.size(); ++k) {
        Measure& m = measured_[k];
        if (static_cast<int>(k) == threads_ || !m.valid) continue;
        if (now - m.when > settings_.memory_seconds ||
            std::fabs(m.others_busy - others_busy) > settings_.load_change)
            m.valid = false;
    }
}

std::optional<ThreadChange> ThreadAdapter::change_to(int to, std::string reason, double now) {
    ThreadChange c{threads_, to, std::move(reason)};
    threads_ = to;
    skip_next_ = true;
    window_.clear();
    window_seconds_ = 0.0;
    settled_since_ = now;
    return c;
}

// A neighbour of the current count that has no recent measurement, once the count has been kept a while.
std::optional<ThreadChange> ThreadAdapter::explore(double now) {
    if (now - settled_since_ < explore_every_) return std::nullopt;
    int to = 0;
    if (threads_ < usable_ && !measured_[threads_ + 1].valid)
        to = threads_ + 1;
    else if (threads_ > 1 && !measured_[threads_ - 1].valid)
        to = threads_ - 1;
    if (to == 0) return std::nullopt;
    probed_from_ = threads_;
    return change_to(to,
                     "trying " + threads_text(to) + " after " +
                         std::to_string(std::lround(now - settled_since_)) + " s on " +
                         std::to_string(threads_),
                     now);
}

std::optional<ThreadChange> ThreadAdapter::decide(double others_busy, double now) {
    if (window_.empty()) return std::nullopt;
    const double per_example = median(window_);
    window_.clear();
    window_seconds_ = 0.0;
    if (settled_since_ < 0) settled_since_ = now;
    measured_[threads_] = {per_example, others_busy, now, true};
    forget_stale(others_busy, now);
    const int probed_from = probed_from_;
    probed_from_ = 0;

    int best = threads_;
    for (std::size_t k = 1; k < measured_.size(); ++k)
        if (measured_[k].valid && measured_[k].per_example < measured_[best].per_example)
            best = static_cast<int>(k);
    if (best != threads_ && measured_[best].per_example < per_example * (1.0 - settings_.margin)) {
        // A try that the count it came from beats: that count is right, look again later than before.
        const double longer = std::max(settings_.explore_seconds, explore_every_ * kExploreGrowth);
        explore_every_ = best == probed_from ? std::min(longer, settings_.explore_seconds * kExploreLongest)
                                             : settings_.explore_seconds;
        char why[160];
        std::snprintf(why, sizeof why, "%s measured faster: %.3g µs per example against %.3g on %d",
                      threads_text(best).c_str(), 1e6 * measured_[best].per_example, 1e6 * per_example,
                      threads_);
        return change_to(best, why, now);
    }
    const int suggested = threads_for_free_cpus(usable_, others_busy);
    if (suggested != threads_ && !measured_[suggested].valid) {
        explore_every_ = settings_.explore_seconds;
        char why[160];
        std::snprintf(why, sizeof why, "other processes keep %.1f of %d CPUs busy: trying %s", others_busy,
                      usable_, threads_text(suggested).c_str());
        return change_to(suggested, why, now);
    }
    return explore(now);
}

}  // namespace fone
