// Adapting a running training's threads to the machine: when more threads are not faster (a neighbour
// arrived), fewer; more again when the machine frees up. Plain logic over measurements: the trainer feeds it
// step times and the other processes' load (CpuLoadMeter) and applies what it decides (docs/training.md,
// "Threads on a shared machine").
//
// Each window (at least `window_seconds` of training and `window_steps` steps) measures the current thread
// count's seconds per example (the median step's: a step cut short by the machine does not decide). Then:
//   1. a count measured recently, under about the same load, that was clearly faster (by `margin`) is taken;
//   2. else the count the load suggests (threads_for_free_cpus) is tried when it has no such measurement;
//   3. else, after `explore_seconds` on one count (`first_explore_seconds` for the first), its neighbour is
//      tried once (the interval doubling, up to 8 times, while the tries confirm the count).
// A measurement is forgotten after `memory_seconds`, or when the others' load has changed by `load_change`
// CPUs since it was taken: it says nothing about the machine as it is now.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fone {

struct ThreadAdapterSettings {
    double window_seconds = 1.0;
    int window_steps = 5;
    double margin = 0.10;
    double memory_seconds = 60.0;
    double load_change = 0.5;
    double explore_seconds = 30.0;
    // The first try comes sooner: the load at the start (what the first count was chosen from) is only a
    // guess at how fast the threads will be, and a short run has no 30 s to spare.
    double first_explore_seconds = 5.0;
};

struct ThreadChange {
    int from = 0, to = 0;
    std::string reason;  // "other processes keep 1.0 CPUs busy: trying 1 thread"
};

class ThreadAdapter {
  public:
    // Threads from 1 to `usable`, starting at `start`.
    ThreadAdapter(int usable, int start, ThreadAdapterSettings settings = {});

    // A training step of `examples` examples in `seconds` on the current threads. True when a window is
    // complete: then call decide().
    bool add_step(int64_t examples, double seconds);
    // At a window's end: the CPUs other processes kept busy over it and the time now (seconds from any fixed
    // origin). The change to make, if any (the caller applies it: threads() is already the new count).
    std::optional<ThreadChange> decide(double others_busy, double now);

    int threads() const { return threads_; }
    // The last window's seconds per example for each thread count still remembered (index: threads; 0: none).
    std::vector<double> seconds_per_example() const;

  private:
    struct Measure {
        double per_example = 0.0, others_busy = 0.0, when = 0.0;
        bool valid = false;
    };
    ThreadAdapterSettings settings_;
    int usable_, threads_;
    std::vector<Measure> measured_;  // index: threads
    std::vector<double> window_;     // seconds per example of this window's steps
    double window_seconds_ = 0.0;
    bool skip_next_ = false;     // the first step after a change pays for the team's change
    double settled_since_ = -1;  // when the current count was taken (-1: not yet known)
    double explore_every_ = 0.0;
    int probed_from_ = 0;  // a neighbour being tried: the count it was tried from (0: none)

    void forget_stale(double others_busy, double now);
    std::optional<ThreadChange> change_to(int to, std::string reason, double now);
    std::optional<ThreadChange> explore(double now);
};

}  // namespace fone
