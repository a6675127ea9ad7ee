// The store's rule for a run that is wanted trained (run_policy.h: one table for `fone sweep`, `fone
// reproduce`, the sweep designer and `fone train --resume`), and the sweep module (sweep.h): grids, cell
// names, shared options and the sweep file. Every run state is made by hand in a temporary store.
#include <unistd.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "fone/store/run_lock.h"
#include "fone/store/run_policy.h"
#include "fone/store/sweep.h"

namespace fs = std::filesystem;
using fone::RunAction;
using nlohmann::json;

namespace {

void spit(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::trunc) << text;
}

int dead_pid() {
    QProcess p;
    p.start(QStringLiteral("/bin/true"), {});
    if (!p.waitForStarted()) return -1;
    const int pid = static_cast<int>(p.processId());
    p.waitForFinished();
    return pid;
}

template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

// A run directory with a config, a status.json ({} for none) and optionally a checkpoint.
std::string make_run(const std::string& root, const std::string& name, const json& status, bool checkpoint,
                     const json& config = {{"task", "dec-add"}}) {
    const std::string dir = root + "/" + name;
    fs::create_directories(dir);
    spit(dir + "/config.json", config.dump());
    if (!status.empty()) spit(dir + "/status.json", status.dump());
    if (checkpoint) spit(dir + "/checkpoint-last.safetensors", "weights");
    return dir;
}

}  // namespace

class TestRunPolicy : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir tmp_;
    std::string root() const { return tmp_.path().toStdString(); }

    // The action for a run in each state, for a caller that wants it complete (plain and with retry) and
    // for `fone train --resume`.
    QStringList actions(const std::string& dir) const {
        fone::RunWish retry;
        retry.retry_failed = true;
        fone::RunWish resume;
        resume.goal = fone::RunGoal::resume;
        QStringList out;
        for (const fone::RunWish& w : {fone::RunWish{}, retry, resume})
            out << fone::run_action_name(fone::decide_run(dir, w).action);
        return out;
    }

  private Q_SLOTS:
    void every_state_has_one_action() {
        const std::string r = root();
        const std::string host = fone::host_name();
        const int me = static_cast<int>(::getpid());
        QCOMPARE(actions(r + "/absent"), QStringList({"start", "start", "refuse"}));
        QCOMPARE(actions(make_run(r, "done", {{"status", "finished"}}, true)),
                 QStringList({"reuse", "reuse", "refuse"}));
        // summary.json is written when the run ends: its "finished" stands when status.json is missing (or
        // says "running" for a dead process), not against a status.json that says otherwise.
        spit(make_run(r, "summarised", {}, false) + "/summary.json", R"({"status": "finished"})");
        QCOMPARE(actions(r + "/summarised"), QStringList({"reuse", "reuse", "refuse"}));
        spit(make_run(r, "overruled", {{"status", "failed"}}, true) + "/summary.json",
             R"({"status": "finished"})");
        QCOMPARE(actions(r + "/overruled"), QStringList({"leave", "retry", "resume"}));
        // Training: the run's lock is held (here by this test; on a shared filesystem another machine's lock
        // is seen the same way). A trainer holds it from before its run appears (RunStore::create_run).
        const std::string live_dir =
            make_run(r, "live", {{"status", "running"}, {"pid", me}, {"host", host}}, true);
        const fone::RunLock live_lock = fone::RunLock::acquire(live_dir);
        QCOMPARE(actions(live_dir), QStringList({"wait", "wait", "refuse"}));
        const std::string away_dir =
            make_run(r, "away", {{"status", "running"}, {"pid", 1}, {"host", "node-7"}}, true);
        const fone::RunLock away_lock = fone::RunLock::acquire(away_dir);
        QCOMPARE(actions(away_dir), QStringList({"elsewhere", "elsewhere", "resume"}));
        // Issue 33: without a lock file nobody trains the run, whatever status.json names: a live pid here
        // (before: "wait" for ever, and `sweep --resume` waited on it) or another host (before: "elsewhere",
        // left for ever). They are interrupted: resumed from their checkpoint.
        QCOMPARE(actions(make_run(r, "live-pid-no-lock", {{"status", "running"}, {"pid", me}, {"host", host}},
                                  true)),
                 QStringList({"resume", "resume", "resume"}));
        QCOMPARE(actions(make_run(r, "away-no-lock", {{"status", "running"}, {"pid", 1}, {"host", "node-7"}},
                                  true)),
                 QStringList({"resume", "resume", "resume"}));
        // Stopped or interrupted (a dead pid here): resumed from a checkpoint, else restarted.
        QCOMPARE(actions(make_run(r, "stopped", {{"status", "stopped"}}, true)),
                 QStringList({"resume", "resume", "resume"}));
        QCOMPARE(actions(make_run(r, "killed", {{"status", "running"}, {"pid", dead_pid()}, {"host", host}},
                                  false)),
                 QStringList({"restart", "restart", "restart"}));
        QCOMPARE(actions(make_run(r, "early", {}, false)), QStringList({"restart", "restart", "restart"}));
        // Failed: left (or retried) by a sweep, resumed by an explicit --resume.
        QCOMPARE(actions(make_run(r, "nan", {{"status", "failed"}}, true)),
                 QStringList({"leave", "retry", "resume"}));
        QCOMPARE(actions(make_run(r, "nan-early", {{"status", "failed"}}, false)),
                 QStringList({"leave", "retry", "restart"}));
        // Broken: nothing trained is restarted; with a checkpoint it is kept like a failed run.
        spit(make_run(r, "torn", {{"status", "stopped"}}, false) + "/config.json", "{\"task\": ");
        QCOMPARE(actions(r + "/torn"), QStringList({"restart", "restart", "restart"}));
        spit(make_run(r, "torn-trained", {{"status", "stopped"}}, true) + "/config.json", "{");
        QCOMPARE(actions(r + "/torn-trained"), QStringList({"leave", "retry", "resume"}));
        spit(r + "/a-file", "not a run");
        QCOMPARE(actions(r + "/a-file"), QStringList({"leave", "leave", "refuse"}));

        fone::RunWish resume;
        resume.goal = fone::RunGoal::resume;
        QCOMPARE(fone::decide_run(r + "/done", resume).reason, r + "/done has finished; nothing to resume");
        const fone::RunDecision away = fone::decide_run(r + "/away");
        QCOMPARE(away.reason, std::string("running on node-7"));
        QCOMPARE(away.status, std::string("running"));
        QCOMPARE(fone::decide_run(r + "/live").pid, me);
        QCOMPARE(fone::decide_run(r + "/absent").status, std::string("absent"));
    }

    // A caller that names the settings the run must have: a stored run made with others is refused,
    // whatever its state; name and threads never count, nor a setting the old config lacks at its default.
    void other_settings_are_refused() {
        const std::string r = root();
        fone::TrainConfig wanted;
        wanted.train_size = 400;
        wanted.name = "want";
        wanted.threads = 1;
        json stored = wanted.to_json();
        stored["name"] = "other-name";
        stored["threads"] = 8;
        stored.erase("text_loss");  // added to the engine later; the default
        QCOMPARE(fone::settings_difference(stored, wanted), std::string());
        stored["train_size"] = 999;
        QCOMPARE(fone::settings_difference(stored, wanted), std::string("\"train_size\": 999, wanted 400"));
        const std::string dir = make_run(r, "stale", {{"status", "finished"}}, true, stored);
        fone::RunWish wish;
        wish.settings = wanted;
        const fone::RunDecision d = fone::decide_run(dir, wish);
        QCOMPARE(fone::run_action_name(d.action), "refuse");
        QCOMPARE(d.reason, dir + " was trained with other settings (\"train_size\": 999, wanted 400)");
    }

    // Only a run without a checkpoint is deleted; a failed one is moved aside, never lost.
    void clearing_deletes_only_what_holds_nothing_trained() {
        const std::string r = root() + "/clear";
        const std::string early = make_run(r, "early", {}, false);
        QCOMPARE(fone::clear_run_dir(early, RunAction::restart), std::string());
        QVERIFY(!fs::exists(early));
        const std::string trained = make_run(r, "trained", {{"status", "stopped"}}, true);
        QVERIFY(error_of([&] { fone::clear_run_dir(trained, RunAction::restart); }).find("not deleted") !=
                std::string::npos);
        QVERIFY(fs::exists(trained + "/checkpoint-last.safetensors"));
        const std::string failed = make_run(r, "nan", {{"status", "failed"}}, true);
        QCOMPARE(fone::clear_run_dir(failed, RunAction::retry), r + "/nan.failed-1");
        make_run(r, "nan", {{"status", "failed"}}, true);
        QCOMPARE(fone::clear_run_dir(failed, RunAction::retry), r + "/nan.failed-2");
        QVERIFY(fs::exists(r + "/nan.failed-1/checkpoint-last.safetensors") && !fs::exists(failed));
    }

    void grids_expand_in_order_with_their_names() {
        fone::SweepGrid g;
        g.train_sizes = fone::parse_train_sizes("--train-sizes", "800:3200");
        QCOMPARE(g.train_sizes, (std::vector<std::uint64_t>{800, 1600, 3200}));
        g.seeds = fone::parse_seeds("--seeds", "1, 2");
        const auto points = fone::expand_sweep("s", g);
        QCOMPARE(int(points.size()), 6);
        QCOMPARE(points[0].run, std::string("s-n800-s1"));
        QCOMPARE(points[1].run, std::string("s-n800-s2"));  // seeds fastest
        QCOMPARE(points[5].train_args(), (std::vector<std::string>{"--train-size", "3200", "--seed", "2"}));
        // The designer's "default" level (no value) has no option and no name part; level 0 is "-l0".
        fone::SweepGrid d;
        d.size_levels = {std::nullopt, 0, 2};
        d.methods = {"fone"};
        QStringList names;
        for (const auto& p : fone::expand_sweep("g", d))
            names << QString::fromStdString(p.run);
        QCOMPARE(names, QStringList({"g-fone", "g-l0-fone", "g-l2-fone"}));
        QCOMPARE(d.to_json().dump(), std::string(R"({"methods":["fone"],"size_levels":[null,0,2]})"));
        const auto cells = fone::sweep_cells("g", d, {"--epochs", "2"});
        QCOMPARE(cells[2].args, (std::vector<std::string>{"--epochs", "2", "--size-level", "2", "--method",
                                                          "fone", "--name", "g-l2-fone"}));
        QCOMPARE(fone::doubling_sizes(5, 4).size(), std::size_t(0));
        QCOMPARE(fone::doubling_sizes(1, UINT64_MAX).size(), std::size_t(64));  // no overflow
    }

    void bad_axes_and_names_are_one_clear_error() {
        QCOMPARE(error_of([] { fone::parse_seeds("Seeds", "1,x"); }),
                 std::string("Seeds: 'x' is not a whole number"));
        QCOMPARE(error_of([] { fone::parse_seeds("--seeds", "1,1"); }),
                 std::string("--seeds: 1 is given twice"));
        QCOMPARE(error_of([] { fone::parse_seeds("--seeds", "1,,2"); }),
                 std::string("--seeds: empty item in '1,,2'"));
        QCOMPARE(error_of([] { fone::parse_train_sizes("--train-sizes", "800:400"); }),
                 std::string("--train-sizes: the range 800:400 goes down (A must be at most B)"));
        QCOMPARE(error_of([] { fone::parse_size_levels("--size-levels", "7"); }),
                 std::string("--size-levels: a size level is 1..6 (0: the custom shape), not 7"));
        QVERIFY(error_of([] {
                    fone::parse_methods("--methods", "nope");
                }).rfind("--methods: unknown method 'nope'", 0) == 0);
        fone::SweepGrid big;
        big.train_sizes.resize(101, 1);
        big.seeds.resize(100, 1);
        QCOMPARE(error_of([&] { fone::check_grid_size(big); }),
                 std::string("the grid has more than 10000 cells; split it into several sweeps"));
        big.seeds.resize(99);
        QCOMPARE(big.cell_count(), std::uint64_t(9999));
        QVERIFY(!fone::sweep_name_problem(".hidden").empty());
        QVERIFY(!fone::sweep_name_problem("a b").empty());
        QVERIFY(fone::sweep_name_problem("sweep-1.2_x").empty());
        fone::SweepGrid g;
        g.seeds = {1};
        QCOMPARE(error_of([&] {
                     fone::check_shared_args({"--seed", "3"}, g);
                 }),
                 std::string("--seed among the shared train options conflicts with the --seeds axis"));
        QCOMPARE(error_of([&] { fone::check_shared_args({"--name=x"}, g); }),
                 std::string("--name may not be among the shared train options: the sweep sets it"));
        QCOMPARE(error_of([&] { fone::expand_sweep(std::string(120, 'a'), g); }).substr(0, 10),
                 std::string("run name '"));
    }

    void the_sweep_file_round_trips_and_refuses_what_it_cannot_read() {
        const std::string r = root() + "/files";
        fs::create_directories(r);
        fone::SweepGrid g;
        g.seeds = {1, 2};
        fone::SweepFile f;
        f.sweep = std::string(1, 's');  // a 1-char literal trips GCC 12's -Wrestrict false positive
        f.created = "2026-11-22T04:15:02Z";
        f.grid = g.to_json();
        f.shared_args = {"--epochs", "1"};
        f.parallel = 2;
        f.logs = ".s.logs";
        f.cells = fone::sweep_cells("s", g, f.shared_args);
        const std::string path = fone::sweep_file_path(r, "s");
        QCOMPARE(path, r + "/s.sweep.json");
        QCOMPARE(fone::sweep_logs_dir(r, "s"), r + "/.s.logs");
        fone::write_sweep_file(path, f);
        const fone::SweepFile back = fone::read_sweep_file(path);
        QCOMPARE(back.to_json().dump(), f.to_json().dump());
        QCOMPARE(f.to_json()["format"].get<int>(), 1);

        spit(path, R"({"format": 2, "cells": [{"run": "a", "args": []}]})");
        QCOMPARE(error_of([&] { fone::read_sweep_file(path); }),
                 path + ": sweep file format 2 is newer than this fone reads (1)");
        spit(path, R"({"cells": [{"run": "a", "args": []}, {"run": "a", "args": []}]})");
        QCOMPARE(error_of([&] { fone::read_sweep_file(path); }),
                 path + ": not a sweep file (run 'a' appears twice)");
        spit(path, R"({"cells": [{"run": ".a", "args": []}]})");
        QCOMPARE(error_of([&] { fone::read_sweep_file(path); }),
                 path + ": not a sweep file (a cell without a valid \"run\")");
    }
};

QTEST_GUILESS_MAIN(TestRunPolicy)
#include "test_run_policy.moc"
