// The sweep designer's time estimate (widgets/sweep_estimate.h) on runs made by hand, against figures worked
// out by hand: a cell costs its examples times the reference run's training seconds per example, plus its
// epochs times what the reference spent besides training per epoch (evaluations, checkpoints), which does
// not grow with the training set. bench_sweep_estimate checks it against real runs.
#include <QSignalSpy>
#include <QtTest>

#include "fone/io/json_files.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "run_catalog.h"
#include "sweep_estimate.h"

using namespace fone::gui;
using nlohmann::json;

namespace {

// A finished run with the given summary timings: config (the settings as `fone train` resolves them, so
// the model shape is a cell's), status and summary.json, nothing else.
void make_run(fone::RunStore& store, const std::string& name, const json& settings, const json& summary) {
    const json config = fone::resolve_train_config({fone::settings_object(settings, "a test run")}).to_json();
    const std::string dir = store.create_run(name, config);
    fone::write_status(dir, fone::kStatusFinished, "done");
    fone::write_json_atomic(dir + "/summary.json", summary);
}

json cell(const char* method, long long train_size, int epochs) {
    return {{"task", "dec-add"}, {"method", method}, {"train_size", train_size}, {"epochs", epochs}};
}

}  // namespace

class TestSweepEstimate : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void training_scales_with_examples_and_the_rest_with_epochs() {
        QTemporaryDir dir;
        fone::RunStore store(dir.path().toStdString());
        // 800 examples x 2 epochs in 8 s of training, 20 s in all: 0.005 s an example, 6 s an epoch besides.
        make_run(store, "ref-fone", cell("fone", 800, 2),
                 {{"elapsed_seconds", 20.0}, {"train_seconds", 8.0}, {"epoch", 2}});
        // An older summary without train_seconds: all of it per example (0.01 s), nothing per epoch.
        make_run(store, "ref-digit", cell("digit", 1000, 1), {{"elapsed_seconds", 10.0}, {"epoch", 1}});
        RunCatalog catalog;
        QSignalSpy loaded(&catalog, &RunCatalog::loaded);
        catalog.open(dir.path());
        QVERIFY(loaded.wait(30000));
        RunSpeeds speeds(&catalog);
        QTRY_VERIFY_WITH_TIMEOUT((speeds.update(), speeds.estimate(cell("digit", 1, 1)).seconds >= 0), 30000);
        QTRY_VERIFY_WITH_TIMEOUT((speeds.update(), speeds.estimate(cell("fone", 1, 1)).seconds >= 0), 30000);

        const CellEstimate big = speeds.estimate(cell("fone", 3200, 2));
        QCOMPARE(big.seconds, 6400 * 0.005 + 2 * 6.0);  // 44 s (dividing all 20 s by the examples: 80 s)
        QCOMPARE(big.basis, CellEstimate::Basis::measured);
        QCOMPARE(big.runs, 1);
        QCOMPARE(speeds.estimate(cell("fone", 1600, 3)).seconds, 4800 * 0.005 + 3 * 6.0);  // 42 s
        QCOMPARE(speeds.estimate(cell("digit", 3000, 2)).seconds, 6000 * 0.01);            // 60 s
        // No run of a method, no estimate: it says what it waits for.
        const CellEstimate none = speeds.estimate(cell("xval", 800, 2));
        QCOMPARE(none.seconds, -1.0);
        QVERIFY2(none.missing.contains("xval"), qPrintable(none.missing));
    }
};

QTEST_MAIN(TestSweepEstimate)
#include "test_sweep_estimate.moc"
