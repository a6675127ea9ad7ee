// Replay (fone/analysis/replay.h, plots/replay_frames.h, replay_animation.h) on runs whose
// snapshots are written by hand: the scrubber's steps, the nearest snapshot at or before a step, the probes
// of a planted sinusoidal code, a frame for every step, a GIF that giflib reads back with one image per step,
// and the `fone analyse replay` command end to end.
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "fone/analysis/replay.h"
#include "fone/io/safetensors.h"
#include "fone/store/run_store.h"
#include "replay_animation.h"
#include "replay_frames.h"
#ifdef FONE_WITH_GIF
#include <gif_lib.h>
#endif
#ifdef FONE_WITH_VIEWS
#include "replay_view.h"
#endif

namespace fa = fone::analysis;
namespace fs = std::filesystem;

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

// float to IEEE half, rounded to nearest (normal numbers and zero: all these tests need).
std::uint16_t to_half(float f) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000);
    if (std::abs(f) < 6.2e-5f) return sign;
    const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
    const std::uint32_t mantissa = (bits & 0x7FFFFF) + 0x1000;  // round to 10 bits
    return static_cast<std::uint16_t>(sign | ((exponent + (mantissa >> 23)) << 10) |
                                      ((mantissa >> 13) & 0x3FF));
}

// A run folder with config.json, an eval record per snapshot, and snapshots whose layers are functions of x.
void write_run(const std::string& dir, const std::string& method, int count,
               const std::vector<std::int64_t>& steps,
               const std::vector<std::function<std::vector<float>(int)>>& layers) {
    fs::create_directories(dir + "/snapshots");
    std::ofstream(dir + "/config.json") << R"({"method": ")" << method << R"("})";
    std::ofstream metrics(dir + "/metrics.jsonl");
    std::string numbers;
    for (int i = 0; i < count; ++i)
        numbers.append(i ? "," : "").append(std::to_string(i));
    for (const std::int64_t step : steps) {
        metrics << R"({"event": "eval", "step": )" << step
                << R"(, "exact_match": 0.5, "digit_accuracy": 0.75})"
                << "\n";
        std::vector<std::vector<std::uint16_t>> halves(layers.size());
        std::vector<fone::safetensors::TensorData> tensors;
        std::int64_t dims = 0;
        for (std::size_t l = 0; l < layers.size(); ++l) {
            for (int i = 0; i < count; ++i) {
                const std::vector<float> row = layers[l](i);
                dims = static_cast<std::int64_t>(row.size());
                for (float v : row)
                    halves[l].push_back(to_half(v));
            }
            tensors.push_back({"layer." + std::to_string(l),
                               fone::safetensors::Dtype::F16,
                               {count, dims},
                               halves[l].data(),
                               halves[l].size() * 2});
        }
        fone::safetensors::write(dir + "/snapshots/" + fone::snapshot_file_name(step), tensors,
                                 {{"format", fone::kSnapshotFormat},
                                  {"step", std::to_string(step)},
                                  {"epoch", "1"},
                                  {"exact_match", "0.5"},
                                  {"source", "hidden_states"},
                                  {"numbers", numbers}});
    }
}

// cos/sin of 2πx/T for T = 10, 100, 1000: the sinusoidal probe's own code.
std::vector<float> sinusoidal_code(int x) {
    std::vector<float> row;
    for (double t : {10.0, 100.0, 1000.0}) {
        row.push_back(static_cast<float>(std::cos(kTwoPi * x / t)));
        row.push_back(static_cast<float>(std::sin(kTwoPi * x / t)));
    }
    return row;
}

// Two pseudo-random columns and four zeros (every layer of a snapshot has the same width).
std::vector<float> noise(int x) {
    return {static_cast<float>(std::sin(x * 12.9898) * 0.5),
            static_cast<float>(std::cos(x * 78.233) * 0.5),
            0,
            0,
            0,
            0};
}

}  // namespace

class TestReplay : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        root_ = dir_.path().toStdString();
        write_run(root_ + "/fone-run", "fone", 200, {10, 30}, {noise, sinusoidal_code});
        write_run(root_ + "/digit-run", "digit", 10, {20}, {noise});
        fs::create_directories(root_ + "/old-run");
        std::ofstream(root_ + "/old-run/config.json") << R"({"method": "fone"})";
    }

    void steps_and_nearest_snapshot() {
        const fa::ReplayRun a = fa::open_replay_run(root_ + "/fone-run");
        const fa::ReplayRun b = fa::open_replay_run(root_ + "/digit-run");
        QCOMPARE(a.name, std::string("fone-run"));
        QCOMPARE(a.method, std::string("fone"));
        QCOMPARE(a.eval_steps, (std::vector<std::int64_t>{10, 30}));
        QCOMPARE(a.digit_accuracy, (std::vector<double>{0.75, 0.75}));
        QCOMPARE(fa::replay_steps({a, b}), (std::vector<std::int64_t>{10, 20, 30}));
        QCOMPARE(fa::snapshot_at(a, 9), -1);
        QCOMPARE(fa::snapshot_at(a, 10), 0);
        QCOMPARE(fa::snapshot_at(a, 20), 0);  // nearest at or before, never after
        QCOMPARE(fa::snapshot_at(a, 30), 1);
        QCOMPARE(fa::snapshot_at(a, 1000), 1);
        QCOMPARE(fa::snapshot_at(b, 10), -1);
        QVERIFY_THROWS_EXCEPTION(fone::RunError, fa::open_replay_run(root_ + "/old-run"));
    }

    void snapshot_analyses() {
        const fa::ReplayRun a = fa::open_replay_run(root_ + "/fone-run");
        const fa::ReplayState s = fa::analyse_snapshot(fone::read_snapshot(a.snapshots[1].path));
        QCOMPARE(s.step, std::int64_t{30});
        QCOMPARE(s.layer_names, (std::vector<std::string>{"input", "block 1"}));
        QCOMPARE(s.digits.places, (std::vector<int>{2, 1, 0}));
        // Layer 1 is the sinusoidal code itself (in half precision): x, its units and x mod 10 read exactly.
        QCOMPARE(s.sinusoidal[1], 1.0);
        QCOMPARE(s.linear_mod10[1], 1.0);
        QCOMPARE(s.digits.results[1][2].accuracy, 1.0);
        QVERIFY(s.sinusoidal[0] < 0.1);  // two noise columns cannot name 200 numbers
        QCOMPARE(s.pca.projection.cols(), Eigen::Index{2});
        // The digit-wise snapshot's 10 numbers are too few for a probe: spectrum and PCA only.
        const fa::ReplayRun b = fa::open_replay_run(root_ + "/digit-run");
        const fa::ReplayState d = fa::analyse_snapshot(fone::read_snapshot(b.snapshots[0].path));
        QVERIFY(d.digits.places.empty());
        QCOMPARE(d.spectra.magnitude.rows(), Eigen::Index{1});
    }

    void frames_for_every_step_and_a_gif() {
        const std::vector<fa::ReplayRun> runs = {fa::open_replay_run(root_ + "/fone-run"),
                                                 fa::open_replay_run(root_ + "/digit-run")};
        fone::plots::ReplayCache cache;
        const fone::plots::ReplayFrameStyle style{.width = 1000, .row_height = 250};
        const auto paths = fone::plots::write_replay_frames(runs, root_ + "/out/frames", cache, style);
        QCOMPARE(paths.size(), std::size_t{3});
        std::vector<QImage> frames;
        for (const char* name : {"frame-00000010.png", "frame-00000020.png", "frame-00000030.png"}) {
            const QImage image(QString::fromStdString(root_ + "/out/frames/" + name));
            QCOMPARE(image.size(), QSize(1000, 34 + 2 * 250));
            frames.push_back(image);
        }
        // The frames differ from step to step (the marker moves, the snapshots change).
        QVERIFY(frames[0] != frames[2]);
        const std::string gif = root_ + "/out/replay.gif";
        if (!fone::plots::gif_supported()) {
            QVERIFY_THROWS_EXCEPTION(std::runtime_error, fone::plots::write_gif(frames, gif));
            QSKIP("this build has no giflib: the GIF is an error that says so");
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, fone::plots::write_gif({}, gif));
        fone::plots::write_gif(frames, gif, 40);
#ifdef FONE_WITH_GIF
        int error = 0;
        GifFileType* read = DGifOpenFileName(gif.c_str(), &error);
        QVERIFY(read);
        QCOMPARE(DGifSlurp(read), GIF_OK);
        QCOMPARE(read->ImageCount, 3);
        QCOMPARE(read->SWidth, 1000);
        QCOMPARE(read->SHeight, 534);
        GraphicsControlBlock control;
        QCOMPARE(DGifSavedExtensionToGCB(read, 2, &control), GIF_OK);
        QCOMPARE(control.DelayTime, 40);
        DGifCloseFile(read, &error);
#endif
        QVERIFY(!fs::exists(gif + ".tmp"));
    }

    // The fewest lines whose narrowest panel keeps kMinReplayPanelWidth (240): one line from 1,500 pixels
    // (the curves take 0.16 of a line), two from 840 (0.16 of 0.56), else five.
    void frames_fit_their_width() {
        using fone::plots::fitted_replay_style;
        QCOMPARE(fitted_replay_style(1800).lines, 1);
        QCOMPARE(fitted_replay_style(1500).lines, 1);
        QCOMPARE(fitted_replay_style(1499).lines, 2);
        QCOMPARE(fitted_replay_style(900).lines, 2);
        QCOMPARE(fitted_replay_style(839).lines, 5);
        QCOMPARE(fitted_replay_style(1800).row_height, 360);
        QCOMPARE(fitted_replay_style(900).row_height, 320);
        QCOMPARE(fone::plots::narrowest_replay_panel(fitted_replay_style(900)), 257);  // 900 * 0.16 / 0.56
        QCOMPARE(fone::plots::narrowest_replay_panel({.width = 1800, .row_height = 360, .lines = 1}), 288);
        // A frame of two lines a run: twice the height, the same width.
        std::vector<fa::ReplayRun> runs{fa::open_replay_run(root_ + "/fone-run")};
        fone::plots::ReplayCache cache;
        const QImage wrapped = fone::plots::draw_replay_frame(runs, 30, cache, fitted_replay_style(900));
        QCOMPARE(wrapped.size(), QSize(900, 34 + 2 * 320));
    }

    void command_writes_frames_and_gif() {
        QProcess fone;
        const QString out = QString::fromStdString(root_ + "/cli");
        QStringList args = {"analyse", "replay",
                            "--run",   QString::fromStdString(root_ + "/fone-run"),
                            "--run",   QString::fromStdString(root_ + "/digit-run"),
                            "--out",   out,
                            "--width", "1000"};
        if (fone::plots::gif_supported()) args << "--gif";
        fone.start(QStringLiteral(FONE_BIN_DIR "/fone"), args);
        QVERIFY(fone.waitForFinished(120000));
        QCOMPARE(fone.exitCode(), 0);
        const QJsonObject j = QJsonDocument::fromJson(fone.readAllStandardOutput()).object();
        QCOMPARE(j["frames"].toInt(), 3);
        QCOMPARE(j["steps"].toVariant().toList().size(), 3);
        for (const char* name : {"frame-00000010.png", "frame-00000020.png", "frame-00000030.png"})
            QVERIFY(QImage(out + "/frames/" + name).width() == 1000);
        if (fone::plots::gif_supported()) QVERIFY(QFileInfo(out + "/replay.gif").size() > 1000);
        // A run without snapshots: one line that says why, nothing written.
        fone.start(
            QStringLiteral(FONE_BIN_DIR "/fone"),
            {"analyse", "replay", "--run", QString::fromStdString(root_ + "/old-run"), "--out", out + "2"});
        QVERIFY(fone.waitForFinished(60000));
        QVERIFY(fone.exitCode() != 0);
        QVERIFY(fone.readAllStandardError().contains("no representation snapshots"));
        QVERIFY(!QFileInfo::exists(out + "2/frames"));
    }

#ifdef FONE_WITH_VIEWS
    void the_view_scrubs_both_runs_together() {
        // The run pickers list runs with a model: give the hand-written runs a (never opened) checkpoint.
        for (const char* run : {"/fone-run", "/digit-run"})
            std::ofstream(root_ + run + "/" + fone::kLastCheckpoint) << "";
        fone::gui::ReplayView v(nullptr);
        v.resize(1000, 700);  // a Replay dock at 1280 x 720
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.set_run(QString::fromStdString(root_ + "/fone-run"));
        v.set_other(QString::fromStdString(root_ + "/digit-run"));
        QCOMPARE(v.steps(), (std::vector<std::int64_t>{10, 20, 30}));
        v.set_step(25);
        QCOMPARE(v.step(), 20);  // the nearest step at or before
        // Drawn as wide as the view and shown at its own size: nothing scaled down, every panel at least
        // kMinReplayPanelWidth wide, so each run's panels take two lines (curves, spectrum, PCA; clocks,
        // probes).
        QVERIFY(v.frame().width() > 900 && v.frame().width() <= 1000);
        QCOMPARE(v.shown_size(), v.frame().size());
        QCOMPARE(v.frame().height(), 34 + 2 * 2 * 320);
        QVERIFY(fone::plots::narrowest_replay_panel(fone::plots::fitted_replay_style(v.frame().width())) >=
                fone::plots::kMinReplayPanelWidth);
        const QImage at20 = v.frame();
        v.set_step(30);
        QCOMPARE(v.step(), 30);
        QVERIFY(v.frame() != at20);
        // The same run in both pickers: one row.
        v.set_other(QString::fromStdString(root_ + "/fone-run"));
        QCOMPARE(v.steps(), (std::vector<std::int64_t>{10, 30}));
        QCOMPARE(v.step(), 30);  // kept
        QCOMPARE(v.frame().height(), 34 + 2 * 320);
        // A wide view: the five panels on one line, redrawn once the resize settles.
        v.resize(1900, 700);
        QTRY_VERIFY(v.frame().width() > 1800);
        QCOMPARE(v.frame().height(), 34 + 360);
        QCOMPARE(v.shown_size(), v.frame().size());
        // A run without snapshots in both pickers: no frame, and its message once, not once per picker.
        std::ofstream(root_ + "/old-run/" + fone::kLastCheckpoint) << "";
        v.set_run(QString::fromStdString(root_ + "/old-run"));
        v.set_other(QString::fromStdString(root_ + "/old-run"));
        QVERIFY(v.steps().empty());
        QVERIFY(v.frame().isNull());
        QCOMPARE(v.status_text().count("old-run"), 1);
    }
#endif

  private:
    QTemporaryDir dir_;
    std::string root_;
};

QTEST_MAIN(TestReplay)
#include "test_replay.moc"
