// The workbench's speed figures (issue "The workbench window", section Speed), offscreen:
//   1. start-up with 2,000 runs in the store: time from main() to the window shown (first frame painted),
//      and to the store read and listed in the table;
//   2. 20 running runs × 5,000 points updating live: every replot's time (QCustomPlot's own measure), and
//      the longest stall of the event loop, measured by a 5 ms timer probe (the gap between two firings
//      minus 5 ms), while a writer thread appends 10 points per run every 100 ms to their metrics.jsonl.
//
//   build/bin/bench_workbench [--runs 2000] [--live-runs 20] [--points 5000] [--seconds 6] [--keep-store DIR]
// The stores are made in a temporary folder with run_store.h (the same files `fone train` writes);
// --keep-store DIR writes the 2,000-run store there and keeps it (reused when it exists), e.g. to time the
// whole program: `time build/bin/fone-workbench --screenshot /tmp/x.png --runs-dir DIR`.
#include <unistd.h>

#include <qcustomplot.h>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "curve_view.h"
#include "fone/store/run_store.h"
#include "run_catalog.h"
#include "workbench_window.h"

using namespace fone::gui;
using nlohmann::json;

namespace {

QElapsedTimer g_since_main;

json progress(int step, int total) {
    return {{"event", "progress"},
            {"step", step},
            {"total_steps", total},
            {"epoch", step / 1000.0},
            {"loss", 3.0 / (1.0 + step * 0.01)},
            {"elapsed_seconds", step * 0.05},
            {"eta_seconds", 100.0}};
}

// A store of n finished runs: config, status, summary and 20 metric lines each.
void make_finished_store(const std::string& root, int n) {
    fone::RunStore store(root);
    for (int i = 0; i < n; ++i) {
        const json config = {{"task", "dec-add"},       {"method", "fone"}, {"train_size", 800 << (i % 7)},
                             {"size_level", 1 + i % 3}, {"seed", i % 5},    {"epochs", 4}};
        std::string name = "r";
        name += std::to_string(i);  // (GCC 12 warns, wrongly, on "r" + std::to_string(i))
        const std::string dir = store.create_run(name, config);
        fone::write_json_atomic(dir + "/status.json",
                                {{"status", "finished"}, {"pid", 1}, {"host", "elsewhere"}});
        fone::write_json_atomic(dir + "/summary.json",
                                {{"best_exact_match", 0.5},
                                 {"params", 100000 * (1 + i % 3)},
                                 {"epoch", 4},
                                 {"train_seconds", 10.0},
                                 {"final", {{"exact_match", 0.5}, {"digit_accuracy", 0.9}}}});
        std::string lines;
        for (int s = 1; s <= 20; ++s)
            lines += progress(s * 10, 200).dump() + "\n";
        fone::write_file_atomic(dir + "/metrics.jsonl", lines);
    }
}

// Runs marked running by this process (alive, here), each with `points` progress lines.
std::vector<std::string> make_live_store(const std::string& root, int runs, int points) {
    fone::RunStore store(root);
    std::vector<std::string> dirs;
    for (int i = 0; i < runs; ++i) {
        const std::string dir =
            store.create_run("live" + std::to_string(i), {{"task", "dec-add"}, {"method", "fone"}});
        fone::write_json_atomic(dir + "/status.json",
                                {{"status", "running"}, {"pid", int(getpid())}, {"host", fone::host_name()}});
        std::string lines;
        for (int s = 1; s <= points; ++s)
            lines += progress(s, 1000000).dump() + "\n";
        fone::write_file_atomic(dir + "/metrics.jsonl", lines);
        dirs.push_back(dir);
    }
    return dirs;
}

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(q * (v.size() - 1) + 0.5))];
}

std::string arg_text(int argc, char** argv, const char* name) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == name) return argv[i + 1];
    return {};
}

int arg_int(int argc, char** argv, const char* name, int fallback) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == name) return std::atoi(argv[i + 1]);
    return fallback;
}

}  // namespace

int main(int argc, char** argv) {
    g_since_main.start();
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    const int n_runs = arg_int(argc, argv, "--runs", 2000);
    const int live_runs = arg_int(argc, argv, "--live-runs", 20);
    const int points = arg_int(argc, argv, "--points", 5000);
    const int seconds = arg_int(argc, argv, "--seconds", 6);

    QTemporaryDir tmp;
    const std::string keep = arg_text(argc, argv, "--keep-store");
    const std::string big = keep.empty() ? tmp.path().toStdString() + "/big" : keep;
    const std::string live = tmp.path().toStdString() + "/live";
    QElapsedTimer clock;
    clock.start();
    if (keep.empty() || !QDir(QString::fromStdString(keep)).exists()) make_finished_store(big, n_runs);
    const auto live_dirs = make_live_store(live, live_runs, points);
    std::printf("stores written in %.1f s (%d finished runs; %d running runs x %d points)\n",
                clock.elapsed() / 1000.0, n_runs, live_runs, points);

    // 1. Start-up with the big store (QApplication and the window, as fone-workbench's main does them).
    const qint64 before_app = g_since_main.elapsed();
    g_since_main.restart();
    QApplication app(argc, argv);
    WorkbenchOptions options;
    options.runs_dir = QString::fromStdString(big);
    options.use_settings = false;
    double shown_ms = 0, loaded_ms = 0;
    {
        WorkbenchWindow window(options);
        window.resize(1400, 900);
        window.show();
        QApplication::processEvents();  // the first frame is painted here (offscreen backing store)
        shown_ms = g_since_main.nsecsElapsed() / 1e6;
        QEventLoop wait;
        QObject::connect(window.catalog(), &RunCatalog::loaded, &wait, &QEventLoop::quit);
        if (!window.catalog()->is_loaded()) wait.exec();
        QApplication::processEvents();
        loaded_ms = g_since_main.nsecsElapsed() / 1e6;
        std::printf(
            "start-up with %d runs: window shown %.0f ms after QApplication, store listed (%d rows) %.0f ms "
            "after (making the stores took %lld ms before, not counted)\n",
            n_runs, shown_ms, window.run_table()->model()->rowCount(), loaded_ms, before_app);
        // The window asks `fone --version` whether CUDA is there (LibTorch loading: CPU time in another
        // process). Let it finish so that it does not compete with the next measurements.
        while (!window.cuda_checked())
            QApplication::processEvents(QEventLoop::AllEvents, 20);
        std::printf("the fone --version probe ended %.0f ms after QApplication\n",
                    g_since_main.nsecsElapsed() / 1e6);
    }

    // 2. Live curves.
    options.runs_dir = QString::fromStdString(live);
    WorkbenchWindow window(options);
    window.resize(1400, 900);
    window.show();
    QEventLoop wait;
    QObject::connect(window.catalog(), &RunCatalog::loaded, &wait, &QEventLoop::quit);
    if (!window.catalog()->is_loaded()) wait.exec();
    window.catalog()->set_poll_interval_ms(250);
    QStringList names;
    for (int i = 0; i < live_runs; ++i)
        names << QStringLiteral("live%1").arg(i);
    std::vector<double> replots;
    QObject::connect(window.curves()->plot(), &QCustomPlot::afterReplot, &app,
                     [&] { replots.push_back(window.curves()->last_replot_ms()); });
    // The timer probe runs from here on: the selection (series read in worker threads) and the live updates.
    QElapsedTimer probe_clock;
    probe_clock.start();
    double max_gap = 0;
    std::vector<double> gaps;
    QTimer probe;
    probe.setInterval(5);
    probe.setTimerType(Qt::PreciseTimer);
    qint64 last = probe_clock.nsecsElapsed();
    QObject::connect(&probe, &QTimer::timeout, &app, [&] {
        const qint64 now = probe_clock.nsecsElapsed();
        const double gap = (now - last) / 1e6;
        last = now;
        gaps.push_back(gap);
        max_gap = std::max(max_gap, gap);
    });
    probe.start();
    clock.restart();
    window.curves()->set_metric(CurveMetric::loss);
    window.select_runs(names);
    const double select_ms = clock.nsecsElapsed() / 1e6;
    {
        QEventLoop until_drawn;  // the window's own event loop, as in use
        QObject::connect(window.catalog(), &RunCatalog::seriesChanged, &until_drawn, [&] {
            if (window.curves()->point_count() >= live_runs * points) until_drawn.quit();
        });
        QTimer::singleShot(60000, &until_drawn, &QEventLoop::quit);
        until_drawn.exec();
    }
    const double first_draw_ms = clock.nsecsElapsed() / 1e6;
    const double load_max_gap = max_gap;
    const double load_max_replot = percentile(replots, 1.0);
    replots.clear();
    std::printf(
        "selecting %d runs: the call returns in %.0f ms; all %d points read (worker threads) and drawn "
        "after %.0f ms; longest event-loop gap meanwhile %.1f ms, longest replot %.1f ms\n",
        live_runs, select_ms, window.curves()->point_count(), first_draw_ms, load_max_gap, load_max_replot);
    max_gap = 0;
    gaps.clear();

    std::atomic<bool> stop{false};
    std::thread writer([&] {
        int step = points;
        while (!stop) {
            for (int k = 0; k < 10; ++k) {
                ++step;
                for (const std::string& dir : live_dirs)
                    fone::append_jsonl(dir + "/metrics.jsonl", progress(step, 1000000));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    });
    QTimer::singleShot(seconds * 1000, &app, &QApplication::quit);
    app.exec();
    stop = true;
    writer.join();
    std::printf(
        "live: %zu replots of %d curves (%d points at the end): replot median %.1f ms, p95 %.1f ms, max %.1f "
        "ms\n",
        replots.size(), live_runs, window.curves()->point_count(), percentile(replots, 0.5),
        percentile(replots, 0.95), percentile(replots, 1.0));
    std::printf(
        "event loop: 5 ms probe, longest gap %.1f ms (a stall of %.1f ms), p99 gap %.1f ms, over %d s\n",
        max_gap, std::max(0.0, max_gap - 5), percentile(gaps, 0.99), seconds);
    return 0;
}
