// The environment that LibTorch's threads read when they load: how OpenMP's waiting threads wait, and
// OpenBLAS's kernel (blas_kernel.h). Both are read once, when the library loads, so they must be in the
// environment the program starts with.
//
// LibTorch's intra-op threads and OpenBLAS's (Debian's openmp build) are one pool: libgomp's. A libgomp
// thread that waits at a barrier spins by default (GOMP_SPINCOUNT 300,000 polls) before it sleeps. When its
// partner has been descheduled by another process it spins away the CPU that the partner needs: on a 2-core
// machine with two busy neighbours a 2-thread run took 35 times the CPU and 30 times the wall time of a
// 1-thread run (issue 29). OMP_WAIT_POLICY=PASSIVE makes waiting threads sleep at once. `fone` loads libgomp
// before main() (Qt's libb2 needs it), so setting the variable in main() is too late for itself: it starts
// again, once, with the variable set (docs/training.md, "Threads on a shared machine").
//
// Sleeping at once has a price on an idle machine: every parallel region then wakes its partner with a
// system call, and a small model's 2-thread epoch took 2.8-3.0 s against 1.9 s with a short spin (10,000
// polls, bench/busy_threads.sh, 2026-11-27). So a lone `fone` that finds the machine idle when it starts
// spins briefly (kIdleSpinCount), and sleeps at once (PASSIVE) when other processes are busy; a neighbour
// that arrives later makes the run's ThreadAdapter take fewer threads, and one thread never waits.
#pragma once

#include <string>

namespace fone {

// The wait policy `fone` asks for when the user has chosen none and other processes are busy (and that the
// workbench gives the runs it starts, which share the cores).
constexpr const char* kYieldingWaitPolicy = "PASSIVE";
// GOMP_SPINCOUNT when the machine is idle at start: fastest of 1,000-300,000 on this 2-core machine's idle
// A/B, and 3-6 times less harm than 30,000-100,000 to a 2-thread run beside one busy process.
constexpr const char* kIdleSpinCount = "10000";

// The wait `fone` chooses for itself: {"GOMP_SPINCOUNT", kIdleSpinCount} when at least 2 CPUs are usable and
// other processes keep less than half a CPU busy, else {"OMP_WAIT_POLICY", kYieldingWaitPolicy}.
struct OpenMpWaitChoice {
    const char* variable;
    const char* value;
};
OpenMpWaitChoice openmp_wait_for_load(int usable_cpus, double others_busy);

// Sets OMP_WAIT_POLICY=PASSIVE in this process's environment when neither OMP_WAIT_POLICY nor
// GOMP_SPINCOUNT is set (a user's own setting always wins), and FONE_SET_OMP_WAIT_POLICY=PASSIVE to say that
// `fone` set it. Every process started afterwards inherits it (the workbench calls this first thing, so
// its `fone` children start with it). Returns whether it set it.
bool prefer_yielding_openmp_wait();

// Whether libgomp is loaded in this process (then it has read its environment already).
bool openmp_runtime_loaded();

// The wait policy this process's OpenMP threads run with, as the environment it started with says (what
// libgomp read), and who chose it: {"PASSIVE", "fone"}, {"GOMP_SPINCOUNT=10000", "fone"},
// {"ACTIVE", "environment"}, {"GOMP_SPINCOUNT=5000", "environment"} or {"default (spin, then sleep)",
// "libgomp"}.
struct OpenMpWait {
    std::string policy, set_by;
};
OpenMpWait openmp_wait();

// Call first thing in main() of a program that uses LibTorch, or before LibTorch is loaded: the wait for the
// machine's load now (openmp_wait_for_load over 0.05 s of /proc/stat, unless the user set OMP_WAIT_POLICY or
// GOMP_SPINCOUNT) and the better BLAS kernel (use_best_blas_kernel's choice).
// When either changed a variable that a library already loaded has read, executes the program again with
// the same arguments (/proc/self/cmdline), once: the second start finds both set. Returns normally
// otherwise, or if the re-execution fails (the run then goes on with the libraries' defaults).
void settle_thread_environment();

// Executes /proc/self/exe again with this process's arguments and its current environment. Returns only if
// that fails.
void restart_self();

}  // namespace fone
