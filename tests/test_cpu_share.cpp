// What share of the CPUs a run can use (fone/platform/cpu_share.h) from fixture files of /proc/stat and
// cgroup trees (tests/golden/cpu_share/, values worked out by hand below), and how a run's threads adapt
// to a simulated machine (fone/platform/thread_adapter.h).
#include <QtTest>

#include <fstream>
#include <functional>
#include <sstream>

#include "fone/platform/cpu.h"
#include "fone/platform/cpu_share.h"
#include "fone/platform/thread_adapter.h"
#include "fone/platform/thread_environment.h"

namespace {

const std::string kFixtures = FONE_SOURCE_DIR "/tests/golden/cpu_share/";

std::string fixture(const std::string& name) {
    std::ifstream in(kFixtures + name);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A simulated machine: the seconds per example that `threads` threads take at time t, and the CPUs that
// other processes keep busy then.
struct Machine {
    std::function<double(double t, int threads)> per_example;
    std::function<double(double t)> others;
};

struct Trace {
    std::vector<fone::ThreadChange> changes;
    std::vector<double> change_times;
    double seconds_on[3] = {0, 0, 0};  // time spent at 1 and 2 threads
};

// Steps of 256 examples from `t0` to `t1` through the adapter, a decision at each window's end.
Trace simulate(fone::ThreadAdapter& a, const Machine& m, double t0, double t1) {
    Trace trace;
    for (double t = t0; t < t1;) {
        const double step = 256 * m.per_example(t, a.threads());
        trace.seconds_on[a.threads()] += step;
        t += step;
        if (!a.add_step(256, step)) continue;
        if (auto c = a.decide(m.others(t), t)) {
            trace.changes.push_back(*c);
            trace.change_times.push_back(t);
        }
    }
    return trace;
}

}  // namespace

class TestCpuShare : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    // cpu0: busy = user 1000 + nice 50 + system 200 + softirq 10 + steal 40 = 1300, total = 1300 + idle 5000
    // + iowait 100 = 6400; cpu1: busy 2000 + 300 = 2300, total 2300 + 4000 + 50 = 6350.
    void proc_stat_sums_the_chosen_cpus() {
        const fone::CpuTimes t = fone::parse_proc_stat(fixture("proc_stat_before"), {0, 1});
        QCOMPARE(t.busy, 3600ull);
        QCOMPARE(t.niced, 50ull);  // cpu0's nice column
        QCOMPARE(t.total, 12750ull);
        // Every cpuN line (not the "cpu" total): cpu2 adds 0 busy, 1000 idle.
        const fone::CpuTimes all = fone::parse_proc_stat(fixture("proc_stat_before"), {});
        QCOMPARE(all.busy, 3600ull);
        QCOMPARE(all.total, 13750ull);
        // An old kernel's four columns (cpu3 10 20 30 40): busy 60, total 100.
        const fone::CpuTimes old = fone::parse_proc_stat(fixture("proc_stat_after"), {3});
        QCOMPARE(old.busy, 60ull);
        QCOMPARE(old.total, 100ull);
        QCOMPARE(fone::parse_proc_stat("garbage\ncpuX 1 2\n", {}).total, 0ull);
    }

    // Over one second: cpu0 busy 1370 - 1300 = 70 of 100, cpu1 2400 - 2300 = 100 of 100, so 170 / 200 of 2
    // CPUs = 1.7 CPUs busy; this process used 0.5 CPU s in the 1 s, so others kept 1.2 CPUs busy. cpu2 (not
    // this process's) went from idle to busy and must not count.
    void others_busy_is_the_busy_share_less_our_own() {
        const fone::CpuTimes before = fone::parse_proc_stat(fixture("proc_stat_before"), {0, 1});
        const fone::CpuTimes after = fone::parse_proc_stat(fixture("proc_stat_after"), {0, 1});
        QCOMPARE(after.busy, 3770ull);
        QCOMPARE(after.total, 12950ull);
        QVERIFY(std::abs(fone::others_busy_cpus(before, after, 2, 0.5, 1.0) - 1.2) < 1e-12);
        // Our own time above the busy time (rounding of jiffies) is never a negative load; no time: none.
        QCOMPARE(fone::others_busy_cpus(before, after, 2, 3.0, 1.0), 0.0);
        QCOMPARE(fone::others_busy_cpus(after, after, 2, 0.0, 1.0), 0.0);
        // Niced time counts a quarter: 200 of 200 jiffies busy on 2 CPUs, 100 of them niced, is 100 + 25 =
        // 125 of 200, 1.25 CPUs.
        QVERIFY(std::abs(fone::others_busy_cpus({0, 0, 0}, {200, 100, 200}, 2, 0.0, 1.0) - 1.25) < 1e-12);
        // That load leaves 2 - 1.2 = 0.8 CPU: under three quarters of one, so 1 thread (floor(0.8 + 0.25) =
        // 1).
        QCOMPARE(fone::threads_for_free_cpus(2, 1.2), 1);
    }

    void threads_take_the_cpus_that_are_three_quarters_free() {
        QCOMPARE(fone::threads_for_free_cpus(2, 0.0), 2);
        QCOMPARE(fone::threads_for_free_cpus(2, 0.25), 2);  // floor(2 - 0.25 + 0.25) = 2
        QCOMPARE(fone::threads_for_free_cpus(2, 0.3), 1);   // floor(1.95)
        QCOMPARE(fone::threads_for_free_cpus(2, 1.0), 1);
        QCOMPARE(fone::threads_for_free_cpus(2, 2.0), 1);  // never 0
        QCOMPARE(fone::threads_for_free_cpus(8, 2.5), 5);  // floor(5.75)
        QCOMPARE(fone::threads_for_free_cpus(4, -1.0), 4);
        QCOMPARE(fone::threads_for_free_cpus(1, 0.0), 1);
    }

    // The wait at start: a short spin only with 2 CPUs or more and less than half a CPU busy elsewhere (an
    // idle machine); sleeping at once otherwise (a 2-thread run beside one busy process spun 3-20 times
    // slower with 10,000-300,000 polls, bench/busy_threads.sh).
    void waiting_threads_spin_briefly_only_on_an_idle_machine() {
        const auto is_spin = [](fone::OpenMpWaitChoice c) {
            return std::string(c.variable) == "GOMP_SPINCOUNT" && std::string(c.value) == "10000";
        };
        const auto is_passive = [](fone::OpenMpWaitChoice c) {
            return std::string(c.variable) == "OMP_WAIT_POLICY" && std::string(c.value) == "PASSIVE";
        };
        QVERIFY(is_spin(fone::openmp_wait_for_load(2, 0.0)));
        QVERIFY(is_spin(fone::openmp_wait_for_load(2, 0.49)));
        QVERIFY(is_spin(fone::openmp_wait_for_load(64, 0.3)));
        QVERIFY(is_passive(fone::openmp_wait_for_load(2, 0.5)));
        QVERIFY(is_passive(fone::openmp_wait_for_load(2, 1.7)));
        QVERIFY(
            is_passive(fone::openmp_wait_for_load(1, 0.0)));  // one CPU: a partner always waits for a slice
    }

    void quotas_cap_the_usable_cpus_rounded_down() {
        QCOMPARE(fone::usable_cpus(2, std::nullopt), 2);
        QCOMPARE(fone::usable_cpus(2, 1.0), 1);
        QCOMPARE(fone::usable_cpus(4, 1.5), 1);
        QCOMPARE(fone::usable_cpus(4, 2.0), 2);
        QCOMPARE(fone::usable_cpus(2, 0.5), 1);
        QCOMPARE(fone::usable_cpus(2, 8.0), 2);
        QCOMPARE(fone::usable_cpus(0, std::nullopt), 1);
    }

    void cpu_max_and_cfs_quota_read_as_cpus() {
        QVERIFY(!fone::parse_cpu_max("max 100000\n"));
        QCOMPARE(fone::parse_cpu_max("150000 100000\n").value_or(-1), 1.5);
        QCOMPARE(fone::parse_cpu_max("50000 100000").value_or(-1), 0.5);
        QVERIFY(!fone::parse_cpu_max("garbage"));
        QVERIFY(!fone::parse_cpu_max(""));
        QVERIFY(!fone::parse_cfs_quota("-1\n", "100000\n"));
        QCOMPARE(fone::parse_cfs_quota("200000\n", "100000\n").value_or(-1), 2.0);
        QCOMPARE(fone::parse_cfs_quota("25000", "100000").value_or(-1), 0.25);
        QVERIFY(!fone::parse_cfs_quota("x", "100000"));
    }

    // The smallest quota on the way up from the process's cgroup (v2: cpu.max; v1: cpu,cpuacct's cfs files).
    void cgroup_quota_is_the_smallest_up_the_tree() {
        const std::string v2 = kFixtures + "v2", v1 = kFixtures + "v1";
        // job.scope: max (none); user.slice above it: 3 CPUs.
        QCOMPARE(fone::cgroup_cpu_quota("0::/user.slice/job.scope\n", v2).value_or(-1), 3.0);
        // A scope that is not in the tree (a container without its own cgroup namespace): its nearest folder.
        QCOMPARE(fone::cgroup_cpu_quota("0::/user.slice/gone.scope\n", v2).value_or(-1), 3.0);
        QCOMPARE(fone::cgroup_cpu_quota("0::/tight\n", v2).value_or(-1), 0.5);
        QVERIFY(!fone::cgroup_cpu_quota("0::/\n", v2));
        // v1: slurm/job1 2 CPUs, slurm unlimited; the v2 line of a hybrid system finds no cpu.max.
        QCOMPARE(fone::cgroup_cpu_quota("12:cpu,cpuacct:/slurm/job1\n0::/\n", v1).value_or(-1), 2.0);
        QVERIFY(!fone::cgroup_cpu_quota("12:cpu,cpuacct:/slurm\n", v1));
        QVERIFY(!fone::cgroup_cpu_quota("5:memory:/slurm/job1\n", v1));  // not the cpu controller
        QVERIFY(!fone::cgroup_cpu_quota("garbage", v1));
    }

    // This machine, read live: the affinity's CPUs are the cores, and a load is a number of those CPUs.
    void this_machine_reads_within_bounds() {
        QCOMPARE(static_cast<int>(fone::affinity_cpus().size()), fone::available_cores());
        fone::CpuLoadMeter meter;
        const fone::CpuShare s = fone::measure_cpu_share(meter, 0.05);
        QVERIFY(s.others_busy >= 0 && s.others_busy <= s.affinity);
        QVERIFY(s.threads >= 1 && s.threads <= s.usable && s.usable <= s.affinity);
        QVERIFY(s.window_seconds >= 0.05);
        QVERIFY2(s.reason().find("CPUs usable (affinity") != std::string::npos, s.reason().c_str());
    }

    // An idle 2-CPU machine where 2 threads are faster (10 us/example against 14): the run stays on 2, and
    // tries 1 only now and then (5 s in, then 30, 60, 120 s ... after each confirmation), each time for one
    // window.
    void idle_machine_keeps_every_thread_and_explores_rarely() {
        fone::ThreadAdapter a(2, 2);
        const Machine idle{[](double, int n) { return n == 2 ? 10e-6 : 14e-6; }, [](double) { return 0.0; }};
        const Trace tr = simulate(a, idle, 0, 300);
        QCOMPARE(a.threads(), 2);
        QVERIFY(tr.seconds_on[1] < 0.02 * 300);  // a few windows of about a second
        QVERIFY2(tr.changes.size() >= 6 && tr.changes.size() <= 10,
                 QByteArray::number(int(tr.changes.size())));
        QCOMPARE(tr.changes[0].to, 1);
        QVERIFY(tr.changes[0].reason.find("trying 1 thread") != std::string::npos);
        QVERIFY(tr.change_times[0] < 8);
        QCOMPARE(tr.changes[1].to, 2);
        QVERIFY2(tr.changes[1].reason.find("2 threads measured faster") != std::string::npos,
                 tr.changes[1].reason.c_str());
        // The tries grow further apart: about 30 s after the first one's return, then about 60 s.
        QVERIFY(tr.change_times[2] - tr.change_times[1] > 28);
        QVERIFY(tr.change_times[4] - tr.change_times[3] > 58);
    }

    // A neighbour arrives at 100 s (others keep 1 CPU busy; 2 threads become 10 times slower, 1 thread 20
    // us/example) and leaves at 300 s.
    void a_neighbour_takes_a_thread_and_gives_it_back() {
        fone::ThreadAdapter a(2, 2);
        const auto busy = [](double t) { return t >= 100 && t < 300; };
        const Machine m{[busy](double t, int n) {
                            if (busy(t)) return n == 2 ? 200e-6 : 20e-6;
                            return n == 2 ? 10e-6 : 14e-6;
                        },
                        [busy](double t) { return busy(t) ? 1.0 : 0.05; }};
        simulate(a, m, 0, 99);
        QCOMPARE(a.threads(), 2);
        const Trace arrive = simulate(a, m, 99, 110);
        QCOMPARE(a.threads(), 1);
        QVERIFY(!arrive.changes.empty());
        QVERIFY2(arrive.changes[0].reason.find("other processes keep 1.0 of 2 CPUs busy: trying 1 thread") !=
                     std::string::npos,
                 arrive.changes[0].reason.c_str());
        QVERIFY(arrive.change_times[0] < 103);  // within a window or two of the arrival
        const Trace stay = simulate(a, m, 110, 299);
        QCOMPARE(a.threads(), 1);
        QVERIFY(stay.seconds_on[2] < 0.05 * 189);  // only brief tries of 2 threads
        const Trace leave = simulate(a, m, 299, 320);
        QCOMPARE(a.threads(), 2);
        QVERIFY(!leave.changes.empty() && leave.change_times[0] < 303);
    }

    // A neighbour whose load the meter sees but that does not slow 2 threads down (a process at nice 19):
    // the measurement overrules the load, within one try.
    void measured_speed_overrules_the_load() {
        fone::ThreadAdapter a(2, 2);
        const Machine m{[](double, int n) { return n == 2 ? 10e-6 : 18e-6; }, [](double) { return 0.9; }};
        const Trace tr = simulate(a, m, 0, 120);
        QCOMPARE(a.threads(), 2);
        QVERIFY(tr.seconds_on[1] < 0.05 * 120);
    }

    // The first step after a change pays for the new team (threads woken or started): it is not measured.
    void the_first_step_after_a_change_is_not_measured() {
        fone::ThreadAdapterSettings s;
        s.window_steps = 2, s.window_seconds = 0;
        fone::ThreadAdapter a(2, 2, s);
        QVERIFY(!a.add_step(100, 1e-3));
        QVERIFY(a.add_step(100, 1e-3));
        const auto c = a.decide(1.0, 1.0);  // load 1 CPU: try 1 thread
        QVERIFY(c && c->to == 1 && c->from == 2);
        QVERIFY(!a.add_step(100, 10.0));  // skipped
        QVERIFY(!a.add_step(100, 0.5e-3));
        QVERIFY(a.add_step(100, 0.5e-3));
        QVERIFY(!a.decide(1.0, 2.0));  // 1 thread at 5 us/example beats 2 at 10: stays
        QCOMPARE(a.seconds_per_example()[1], 0.5e-3 / 100);
        QCOMPARE(a.seconds_per_example()[2], 1e-3 / 100);
    }

    void one_cpu_never_changes() {
        fone::ThreadAdapter a(1, 1);
        const Machine m{[](double, int) { return 10e-6; }, [](double) { return 1.5; }};
        const Trace tr = simulate(a, m, 0, 100);
        QVERIFY(tr.changes.empty());
        QCOMPARE(a.threads(), 1);
    }
};

QTEST_GUILESS_MAIN(TestCpuShare)
#include "test_cpu_share.moc"
