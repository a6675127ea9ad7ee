#include "fone/platform/cpu_share.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "fone/platform/cpu.h"

namespace fone {

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& file) {
    std::ifstream in(file);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// "cpu12 1 2 3 4 5 6 7 8 9 10": the CPU's number (-1 for the "cpu" total and other lines) and its counters.
bool parse_cpu_line(const std::string& line, int& cpu, CpuTimes& times) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9') return false;
    std::istringstream in(line.substr(3));
    unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    in >> cpu >> user >> nice >> system >> idle;
    if (!in) return false;
    in >> iowait >> irq >> softirq >> steal;  // absent on old kernels: 0
    times.busy = user + nice + system + irq + softirq + steal;
    times.niced = nice;
    times.total = times.busy + idle + iowait;
    return true;
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r'))
        s.pop_back();
    return s;
}

std::optional<double> smaller(std::optional<double> a, std::optional<double> b) {
    if (!a) return b;
    if (!b) return a;
    return std::min(*a, *b);
}

// The quota of `dir` and of every folder above it up to `top`, the smallest; `read` reads one folder's.
template <class ReadQuota>
std::optional<double> smallest_up_to(fs::path dir, const fs::path& top, ReadQuota read) {
    std::optional<double> quota = read(dir);
    while (dir.string().size() > top.string().size()) {
        dir = dir.parent_path();
        quota = smaller(quota, read(dir));
    }
    return quota;
}

std::optional<double> v2_quota(const fs::path& dir) {
    if (!fs::exists(dir / "cpu.max")) return std::nullopt;
    return parse_cpu_max(read_text(dir / "cpu.max"));
}

std::optional<double> v1_quota(const fs::path& dir) {
    if (!fs::exists(dir / "cpu.cfs_quota_us")) return std::nullopt;
    return parse_cfs_quota(read_text(dir / "cpu.cfs_quota_us"), read_text(dir / "cpu.cfs_period_us"));
}

// The cgroup's folder under `mount` for `path` ("/user.slice/x"): the deepest existing one (in a container
// without its own cgroup namespace the host's path is not there, and the mount is the container's cgroup).
fs::path cgroup_dir(const fs::path& mount, const std::string& path) {
    fs::path dir = mount;
    for (const fs::path& part : fs::path(path).relative_path())
        if (!part.empty() && part != "." && part != "..") dir /= part;
    std::error_code ec;
    while (dir.string().size() > mount.string().size() && !fs::is_directory(dir, ec))
        dir = dir.parent_path();
    return dir;
}

}  // namespace

CpuTimes parse_proc_stat(const std::string& text, const std::vector<int>& cpus) {
    CpuTimes sum;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        int cpu = -1;
        CpuTimes t;
        if (!parse_cpu_line(line, cpu, t)) continue;
        if (!cpus.empty() && std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) continue;
        sum.busy += t.busy;
        sum.niced += t.niced;
        sum.total += t.total;
    }
    return sum;
}

double others_busy_cpus(const CpuTimes& before, const CpuTimes& after, int cpus, double own_cpu_seconds,
                        double wall_seconds) {
    if (after.total <= before.total || wall_seconds <= 0 || after.busy < before.busy ||
        after.niced < before.niced)
        return 0.0;
    const double niced = static_cast<double>(after.niced - before.niced);
    const double busy = static_cast<double>(after.busy - before.busy) - niced * (1.0 - kNicedBusyWeight);
    const double busy_share = busy / static_cast<double>(after.total - before.total);
    const double others = busy_share * cpus - own_cpu_seconds / wall_seconds;
    return std::clamp(others, 0.0, static_cast<double>(cpus));
}

std::optional<double> parse_cpu_max(const std::string& text) {
    std::istringstream in(text);
    std::string quota;
    double period = 0;
    if (!(in >> quota >> period) || quota == "max" || period <= 0) return std::nullopt;
    try {
        const double q = std::stod(quota);
        return q > 0 ? std::optional<double>(q / period) : std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<double> parse_cfs_quota(const std::string& quota_us, const std::string& period_us) {
    try {
        const double q = std::stod(trimmed(quota_us)), p = std::stod(trimmed(period_us));
        return q > 0 && p > 0 ? std::optional<double>(q / p) : std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<double> cgroup_cpu_quota(const std::string& proc_cgroup_text, const std::string& cgroup_root) {
    const fs::path root(cgroup_root);
    std::optional<double> quota;
    std::istringstream in(proc_cgroup_text);
    for (std::string line; std::getline(in, line);) {
        // "0::/path" (v2) or "4:cpu,cpuacct:/path" (v1)
        const auto first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
        const std::string path = trimmed(line.substr(second + 1));
        if (controllers == ",,") {
            const fs::path mount = fs::exists(root / "unified") ? root / "unified" : root;
            quota = smaller(quota, smallest_up_to(cgroup_dir(mount, path), mount, v2_quota));
        } else if (controllers.find(",cpu,") != std::string::npos) {
            for (const char* name : {"cpu,cpuacct", "cpuacct,cpu", "cpu"}) {
                const fs::path mount = root / name;
                if (!fs::is_directory(mount)) continue;
                quota = smaller(quota, smallest_up_to(cgroup_dir(mount, path), mount, v1_quota));
                break;
            }
        }
    }
    return quota;
}

std::optional<double> this_process_cpu_quota() {
    return cgroup_cpu_quota(read_text("/proc/self/cgroup"), "/sys/fs/cgroup");
}

std::vector<int> affinity_cpus() {
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set)) cpus.push_back(c);
    return cpus;
}

int usable_cpus(int affinity, std::optional<double> quota) {
    int n = std::max(1, affinity);
    if (quota) n = std::min(n, static_cast<int>(std::floor(*quota + 1e-9)));
    return std::max(1, n);
}

int threads_for_free_cpus(int usable, double others_busy) {
    const int free = static_cast<int>(std::floor(usable - std::max(0.0, others_busy) + 0.25));
    return std::clamp(free, 1, std::max(1, usable));
}

double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

CpuLoadMeter::CpuLoadMeter()
    : cpus_(affinity_cpus()),
      times_(parse_proc_stat(read_text("/proc/stat"), cpus_)),
      own_cpu_(process_cpu_seconds()),
      when_(std::chrono::steady_clock::now()) {}

double CpuLoadMeter::seconds_since_reading() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - when_).count();
}

double CpuLoadMeter::others_busy(double min_seconds) {
    if (const double wait = min_seconds - seconds_since_reading(); wait > 0)
        std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    const CpuTimes now = parse_proc_stat(read_text("/proc/stat"), cpus_);
    const double own = process_cpu_seconds(), wall = seconds_since_reading();
    const int cpus = cpus_.empty() ? available_cores() : static_cast<int>(cpus_.size());
    const double others = others_busy_cpus(times_, now, cpus, own - own_cpu_, wall);
    times_ = now, own_cpu_ = own, when_ = std::chrono::steady_clock::now();
    return others;
}

std::string CpuShare::reason() const {
    char text[256], q[48] = "no cgroup quota";
    if (quota) std::snprintf(q, sizeof q, "cgroup quota %.3g CPU%s", *quota, *quota == 1.0 ? "" : "s");
    std::snprintf(text, sizeof text,
                  "%d CPU%s usable (affinity %d, %s), other processes kept %.1f busy over %.1f s", usable,
                  usable == 1 ? "" : "s", affinity, q, others_busy, window_seconds);
    return text;
}

CpuShare measure_cpu_share(CpuLoadMeter& meter, double min_seconds) {
    CpuShare s;
    s.affinity = available_cores();
    s.quota = this_process_cpu_quota();
    s.usable = usable_cpus(s.affinity, s.quota);
    s.window_seconds = std::max(min_seconds, meter.seconds_since_reading());
    s.others_busy = meter.others_busy(min_seconds);
    s.threads = threads_for_free_cpus(s.usable, s.others_busy);
    return s;
}

}  // namespace fone
