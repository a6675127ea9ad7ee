// Representation snapshots and the timeline (issue 17) against values worked out by hand: half precision
// bit patterns, a snapshot file written and read back, thinning, and a planted period-10 cosine that grows
// over three steps (its key period and the step it emerged).
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>

#include "fone/analysis/snapshot_file.h"
#include "fone/analysis/timeline.h"
#include "fone/io/safetensors.h"
#include "fone/store/run_store.h"

using fone::Decimal;
namespace fa = fone::analysis;
namespace fs = std::filesystem;

namespace {

// A snapshot file of `numbers` x 2 dims, one layer, values in half precision bits.
void write_snapshot_file(const std::string& path, std::int64_t step, const std::vector<std::uint16_t>& halves,
                         const std::string& numbers, const std::string& format = fone::kSnapshotFormat) {
    const std::int64_t n = static_cast<std::int64_t>(halves.size() / 2);
    fone::safetensors::write(
        path, {{"layer.0", fone::safetensors::Dtype::F16, {n, 2}, halves.data(), halves.size() * 2}},
        {{"format", format},
         {"step", std::to_string(step)},
         {"epoch", "0.5"},
         {"exact_match", "0.25"},
         {"source", "hidden_states"},
         {"numbers", numbers}});
}

}  // namespace

class TestTimeline : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void half_precision() {
        QCOMPARE(fone::half_to_float(0x3C00), 1.0f);
        QCOMPARE(fone::half_to_float(0xC000), -2.0f);
        QCOMPARE(fone::half_to_float(0x3555), 0.333251953125f);        // 1/3 rounded to 10 bits
        QCOMPARE(fone::half_to_float(0x7BFF), 65504.0f);               // the largest half
        QCOMPARE(fone::half_to_float(0x0001), std::ldexp(1.0f, -24));  // the smallest subnormal
        QCOMPARE(fone::half_to_float(0x7C00), std::numeric_limits<float>::infinity());
        QVERIFY(std::signbit(fone::half_to_float(0x8000)));
    }

    void snapshot_round_trip_and_listing() {
        QTemporaryDir run;
        const std::string dir = (fs::path(run.path().toStdString()) / fone::kSnapshotsDir).string();
        fs::create_directories(dir);
        QVERIFY(fone::list_snapshots(run.path().toStdString()).empty());  // a run without snapshots
        write_snapshot_file(dir + "/" + fone::snapshot_file_name(100), 100, {0x3C00, 0xC000, 0x0000, 0x3555},
                            "0,1");
        write_snapshot_file(dir + "/" + fone::snapshot_file_name(20), 20, {0x3C00, 0x3C00, 0x3C00, 0x3C00},
                            "0,1");
        std::ofstream(dir + "/notes.txt") << "not a snapshot";
        const auto files = fone::list_snapshots(run.path().toStdString());
        QCOMPARE(files.size(), std::size_t(2));
        QCOMPARE(files[0].step, std::int64_t(20));  // by step, not by name order of writing
        QCOMPARE(fs::path(files[1].path).filename().string(), std::string("step-00000100.safetensors"));
        const fone::Snapshot s = fone::read_snapshot(files[1].path);
        QCOMPARE(s.step, std::int64_t(100));
        QCOMPARE(s.epoch, 0.5);
        QCOMPARE(s.exact_match, 0.25);
        QCOMPARE(s.numbers, (std::vector<Decimal>{Decimal::from_int(0), Decimal::from_int(1)}));
        QCOMPARE(s.dims, std::int64_t(2));
        QCOMPARE(s.layers.size(), std::size_t(1));
        QCOMPARE(s.layers[0], (std::vector<float>{1.0f, -2.0f, 0.0f, 0.333251953125f}));
        // Another safetensors file is not a snapshot: one clear error naming it.
        write_snapshot_file(dir + "/other.safetensors", 1, {0, 0}, "0", "something-else");
        QVERIFY_THROWS_EXCEPTION(fone::RunError, fone::read_snapshot(dir + "/other.safetensors"));
    }

    void thinning_keeps_the_first_and_the_newest() {
        QTemporaryDir run;
        const std::string dir = (fs::path(run.path().toStdString()) / fone::kSnapshotsDir).string();
        fs::create_directories(dir);
        for (int step = 1; step <= 7; ++step)
            write_snapshot_file(dir + "/" + fone::snapshot_file_name(step), step, {0, 0}, "0");
        fone::thin_snapshots(run.path().toStdString(), 8);  // under the bound: nothing removed
        QCOMPARE(fone::list_snapshots(run.path().toStdString()).size(), std::size_t(7));
        fone::thin_snapshots(run.path().toStdString(), 4);
        std::vector<std::int64_t> left;
        for (const auto& f : fone::list_snapshots(run.path().toStdString()))
            left.push_back(f.step);
        QCOMPARE(left, (std::vector<std::int64_t>{1, 3, 5, 7}));
    }

    // 100 numbers; layer 0 is a·cos(2π n/10) with a = 0, 0.2, 1 at steps 10, 20, 30; layer 1 a period-25
    // cosine from the start. Period 10 is layer 0's key period and emerged at step 30 (0.2 < half of 1).
    void planted_period_emerges() {
        std::vector<fa::StepRepresentations> steps;
        const double amplitude[] = {0.0, 0.2, 1.0};
        for (int s = 0; s < 3; ++s) {
            Eigen::MatrixXd l0(100, 1), l1(100, 1);
            for (int n = 0; n < 100; ++n) {
                l0(n, 0) = amplitude[s] * std::cos(2 * std::numbers::pi * n / 10);
                l1(n, 0) = std::cos(2 * std::numbers::pi * n / 25);
            }
            steps.push_back({10 * (s + 1), {l0, l1}});
        }
        const fa::Timeline t = fa::spectrum_timeline(steps);
        QCOMPARE(t.steps, (std::vector<std::int64_t>{10, 20, 30}));
        QCOMPARE(t.key_periods.size(), std::size_t(2));
        QCOMPARE(t.key_periods[0].size(), std::size_t(1));
        QCOMPARE(t.key_periods[0][0].k, 10);
        QCOMPARE(t.key_periods[0][0].period, 10.0);
        QCOMPARE(t.key_periods[0][0].emerged_at, std::int64_t(30));
        QCOMPARE(t.key_periods[1][0].period, 25.0);
        QCOMPARE(t.key_periods[1][0].emerged_at, std::int64_t(10));
        const std::vector<double> p10 = fa::period_over_time(t, 0, 10.0);
        QVERIFY(p10[0] < 1e-9 && std::abs(p10[2] / p10[1] - 5.0) < 1e-9);  // grows with the amplitude
        const QStringList csv = QString::fromStdString(fa::timeline_csv(t, {"input", "block 1"})).split('\n');
        QCOMPARE(csv[0], QString("step,layer,k,period,magnitude"));
        QVERIFY(csv[1].startsWith("10,input,1,100,"));
        // Snapshots that probe other numbers do not make one timeline.
        steps[1].layers[0] = Eigen::MatrixXd::Zero(50, 1);
        steps[1].layers[1] = Eigen::MatrixXd::Zero(50, 1);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fa::spectrum_timeline(steps));
    }
};

QTEST_APPLESS_MAIN(TestTimeline)
#include "test_timeline.moc"
