// What share of the CPUs a process can really use: the CPUs it may run on (affinity), a cgroup CPU quota
// (containers, Slurm, systemd limits), and how busy other processes keep those CPUs (/proc/stat). A lone
// `fone train` sizes its threads from this (docs/training.md, "Threads on a shared machine"). The parsers
// take text, so tests feed them fixture files.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace fone {

// Jiffy counters of /proc/stat, summed over some CPUs.
struct CpuTimes {
    unsigned long long busy = 0;   // user + nice + system + irq + softirq + steal (guest is inside user)
    unsigned long long niced = 0;  // nice: the part of busy that processes of lower priority (nice > 0) used
    unsigned long long total = 0;  // busy + idle + iowait
};

// How much of a CPU that a niced process keeps busy counts as taken. The scheduler gives a thread of nice 0
// three times the share of a nice-5 process (weights 1024 and 335), 9 times a nice-10 one's: a thread of ours
// beside a niced build gets most of the CPU. Counted at a quarter, the share a nice-5 process keeps.
constexpr double kNicedBusyWeight = 0.25;

// The "cpuN" lines of a /proc/stat text for the CPUs in `cpus` (every "cpuN" line when `cpus` is empty).
// Lines it cannot read are skipped.
CpuTimes parse_proc_stat(const std::string& text, const std::vector<int>& cpus);

// CPUs kept busy by other processes between two readings of the same `cpus` CPUs: the busy share of their
// time (niced time at kNicedBusyWeight) times their number, less this process's own CPU seconds over the wall
// seconds between the readings (a `fone` run at nice 0). Never below 0; 0 when no time passed.
double others_busy_cpus(const CpuTimes& before, const CpuTimes& after, int cpus, double own_cpu_seconds,
                        double wall_seconds);

// A cgroup v2 cpu.max ("150000 100000": 1.5 CPUs; "max 100000": no quota). nullopt for no quota or text
// it cannot read.
std::optional<double> parse_cpu_max(const std::string& text);
// A cgroup v1 quota from cpu.cfs_quota_us and cpu.cfs_period_us (quota -1: none).
std::optional<double> parse_cfs_quota(const std::string& quota_us, const std::string& period_us);

// The CPU quota on a process, in CPUs: the smallest quota of its cgroup and the cgroups above it, found
// from its /proc/PID/cgroup text under `cgroup_root` (/sys/fs/cgroup: v2's cpu.max, v1's
// cpu,cpuacct/ or cpu/ cpu.cfs_quota_us). nullopt: no quota.
std::optional<double> cgroup_cpu_quota(const std::string& proc_cgroup_text, const std::string& cgroup_root);

// This process's quota (cgroup_cpu_quota of /proc/self/cgroup under /sys/fs/cgroup).
std::optional<double> this_process_cpu_quota();

// The CPUs this process may run on (sched_getaffinity): their numbers, as /proc/stat names them.
std::vector<int> affinity_cpus();

// CPUs a process may use: its affinity's count, capped by a quota (rounded down: threads over a quota are
// throttled together, each barrier waiting for the next period). At least 1.
int usable_cpus(int affinity, std::optional<double> quota);

// Threads worth running on `usable` CPUs when other processes keep `others_busy` CPUs of them busy: one per
// CPU that is at least three quarters free (floor(usable - others_busy + 0.25)), 1 to `usable`. A thread
// on a CPU that another process holds waits a time slice at every barrier, so a doubtful CPU is not taken;
// the run's measurements (ThreadAdapter) take it back when it is faster.
int threads_for_free_cpus(int usable, double others_busy);

// Other processes' load on this process's CPUs between readings.
class CpuLoadMeter {
  public:
    CpuLoadMeter();  // the first reading: now
    // CPUs kept busy by other processes since the last reading (waiting first until `min_seconds` have passed
    // since it, when fewer have: /proc/stat counts in 10 ms steps), and a new reading.
    double others_busy(double min_seconds = 0.1);
    double seconds_since_reading() const;

  private:
    std::vector<int> cpus_;
    CpuTimes times_;
    double own_cpu_ = 0.0;
    std::chrono::steady_clock::time_point when_;
};

// The machine as a run that does not choose its threads sees it, and the threads it takes.
struct CpuShare {
    int affinity = 1;
    std::optional<double> quota;  // cgroup CPU quota in CPUs
    int usable = 1;
    double others_busy = 0.0;  // CPUs, measured over window_seconds
    double window_seconds = 0.0;
    int threads = 1;
    // "2 CPUs usable (affinity 2, no cgroup quota), other processes kept 0.1 busy over 0.6 s"
    std::string reason() const;
};

// Reads this process's affinity, its cgroup quota, and the others' load from `meter` (over at least
// `min_seconds` since its last reading).
CpuShare measure_cpu_share(CpuLoadMeter& meter, double min_seconds);

// CPU seconds used by this process so far (every thread). On a machine shared with other work, CPU time is
// the steadier measure of the work done: wall time also counts waiting for a core.
double process_cpu_seconds();

}  // namespace fone
