// Every kind of run `fone train` has, launched from the window alone on a fresh store (the Launch panel's
// Kind of run, its corpus picker and model-folder box), and the views that look at them picked from the
// store: two text runs on the bundled Factbook sample (FoNE and digit-wise) compared in Token loss, a
// fone-adapter run on the tiny test Llama asked in FoNE adapter, and a run on two processes. The runs are
// the one-block models of the quick tests, a few seconds each.
//
//   ctest --test-dir build -R test_launch_kinds --output-on-failure
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "adapter_view.h"
#include "analysis_views.h"
#include "fone/store/methods.h"
#include "job_runner.h"
#include "launch_fields.h"
#include "launch_kinds.h"
#include "launch_panel.h"
#include "run_catalog.h"
#include "run_picker.h"
#include "sweep_designer.h"
#include "token_loss_view.h"
#include "window_options.h"
#include "workbench_window.h"

using namespace fone::gui;
using fone_test::window_options;

namespace {

constexpr int kRunMs = 240000;    // a tiny run on a busy 2-core machine
constexpr int kChildMs = 120000;  // a `fone` child of a view
const char* const kTinyLlama = FONE_SOURCE_DIR "/tests/golden/pretrained/llama";

// The one-block model of the quick tests (tests/one_block_model.h) in the form's Custom shape.
void one_block_model(LaunchPanel* panel, int hidden = 32) {
    panel->choice("model")->setCurrentText("Custom");
    panel->field("hidden")->setText(QString::number(hidden));
    panel->field("layers")->setText("1");
    panel->field("heads")->setText("2");
    panel->field("kv_heads")->setText("1");
    panel->field("intermediate")->setText(QString::number(2 * hidden));
}

// Launches what the form says and waits for the run to finish; its row.
int launch_and_wait(WorkbenchWindow& w, const QString& name) {
    LaunchPanel* panel = w.launch_panel();
    panel->field("name")->setText(name);
    if (!panel->is_valid()) {
        qWarning() << panel->problems_text();
        return -1;
    }
    panel->launch();
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < kRunMs) {
        QTest::qWait(200);
        const int row = w.catalog()->row_of(name);
        if (row < 0) continue;
        const QString status = w.catalog()->at(row).status;
        if (status == "finished") return row;
        if (status == "failed" || status == "broken") {
            qWarning() << name << status << w.catalog()->at(row).message;
            return -1;
        }
    }
    return -1;
}

void text_run_on_the_sample(LaunchPanel* panel, const QString& method) {
    panel->set_kind(LaunchKind::text);
    panel->choice("task")->setCurrentText("text");
    QCOMPARE(panel->corpus()->path(), bundled_factbook_sample());  // the first text run starts there
    QVERIFY2(panel->corpus()->description().contains("countries"),
             qPrintable(panel->corpus()->description()));
    panel->choice("method")->setCurrentText(method);
    one_block_model(panel);
    panel->field("epochs")->setText("1");
    panel->field("batch")->setText("8");
    panel->field("text_context")->setText("64");
    panel->field("text_vocab_size")->setText("400");  // the sample has 338 characters
    panel->field("threads")->setText("1");
}

}  // namespace

class TestLaunchKinds : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first");
        QVERIFY2(!bundled_factbook_sample().isEmpty(), "tests/data/factbook-sample");
        register_analysis_views();
    }

    void the_form_shows_the_fields_of_its_kind() {
        LaunchPanel panel;
        // Arithmetic: no corpus, no folder, every arithmetic method but the adapter.
        QVERIFY(!panel.field_shown("data") && !panel.field_shown("init_from"));
        QVERIFY(panel.field_shown("model") && panel.field_shown("target_acc"));
        QVERIFY(!panel.field_shown("text_context"));
        QVERIFY(panel.choice("method")->findText("fone-adapter") < 0);
        // Text: a corpus, the text settings, text methods only.
        panel.set_kind(LaunchKind::text);
        panel.choice("task")->setCurrentText("text");
        QVERIFY(panel.field_shown("data") && panel.field_shown("text_context"));
        QVERIFY(!panel.field_shown("target_acc") && !panel.field_shown("init_from"));
        QVERIFY(panel.choice("method")->findText("abacus") < 0);
        QVERIFY(panel.choice("method")->findText("fone-adapter") < 0);
        QVERIFY2(panel.resolved_text().startsWith("Will train: a language model"),
                 qPrintable(panel.resolved_text()));
        // Pretrained, text: the folder and fone-adapter alone; no model size (the folder's shape).
        panel.set_kind(LaunchKind::pretrained);
        panel.choice("task")->setCurrentText("text");
        QCOMPARE(panel.choice("method")->count(), 1);
        QCOMPARE(panel.choice("method")->currentText(), QString("fone-adapter"));
        QVERIFY(panel.field_shown("init_from") && panel.field_shown("align_steps") &&
                !panel.field_shown("model"));
        QVERIFY(!panel.settings().contains("size_level"));
        // A folder that is not there is said at the field, and the run waits.
        panel.model_folder()->set_path("/nonexistent/model");
        QTRY_COMPARE(panel.field_problem("init_from"), QString("no such folder"));
        QVERIFY(!panel.is_valid());
        // The sweep greys out what does not apply (arithmetic methods for the adapter's text).
        RunCatalog catalog;
        SweepDesigner sweep(&panel, &catalog);
        sweep.update_summary();
        QVERIFY(!sweep.set_method_checked("nonexistent", true));
        int enabled = 0;
        for (QCheckBox* box : sweep.findChildren<QCheckBox*>())
            enabled += box->isEnabled() && fone::find_number_method(box->text().toStdString()) != nullptr;
        QCOMPARE(enabled, 1);
    }

    void presets_of_every_kind_resolve() {
        // The Launch menu's text and adapter entries (experiments/recipes/launch.json) fill the form with
        // paths that exist; the fone reproduce text experiments follow them.
        LaunchPanel panel;
        const QStringList titles = panel.preset_titles();
        QVERIFY(titles.contains("Text: the bundled Factbook sample, FoNE, a minute"));
        QVERIFY(titles.contains("FoNE adapter: the tiny test Llama on the Factbook sample"));
        QVERIFY2(titles.filter("fone reproduce text-factbook (quick)").size() == 5,
                 qPrintable(titles.join("\n")));
        panel.apply_preset("Text: the bundled Factbook sample, FoNE, a minute");
        QCOMPARE(panel.kind(), LaunchKind::text);
        QCOMPARE(panel.corpus()->path(), bundled_factbook_sample());
        QVERIFY2(panel.is_valid(), qPrintable(panel.problems_text()));
        panel.apply_preset("fone reproduce text-factbook (quick): bittokens-s1");
        QVERIFY2(panel.is_valid(), qPrintable(panel.problems_text()));
        // What the form has no field for goes with it, as the recipe has it.
        QCOMPARE(panel.settings().value("bittokens_reciprocal", true), false);
        QVERIFY(LaunchPanel::train_args(panel.settings()).contains("--no-bittokens-reciprocal"));
        QVERIFY(LaunchPanel::train_args(panel.settings()).contains("--context"));
        QVERIFY2(panel.resolved_text().contains("From the preset: "), qPrintable(panel.resolved_text()));
    }

    void the_window_launches_text_runs_and_compares_them_in_token_loss() {
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        for (const QString& method : {QString("fone"), QString("digit")}) {
            text_run_on_the_sample(w.launch_panel(), method);
            QVERIFY2(launch_and_wait(w, "sample-" + method) >= 0, qPrintable(method));
        }
        auto* view = qobject_cast<TokenLossView*>(w.view("token-loss"));
        QVERIFY(view);
        QSignalSpy compared(view, &TokenLossView::compared);
        w.raise_view("token-loss");
        // The pickers list the two text runs and nothing else (the arithmetic demo model is not one).
        auto* a = view->findChildren<RunPicker*>().value(0);
        QVERIFY(a);
        QTRY_COMPARE(a->count(), 2);
        view->set_run("sample-fone");
        view->set_against("sample-digit");
        view->compare();
        QVERIFY2(compared.count() > 0 || compared.wait(kChildMs), qPrintable(view->status_text()));
        QVERIFY(view->comparison().has_value());
        QTRY_VERIFY2(view->provenance_text().contains("sample-fone"), qPrintable(view->provenance_text()));
        QVERIFY2(view->provenance_text().contains("checkpoint"), qPrintable(view->provenance_text()));
    }

    void the_window_launches_an_adapter_run_and_asks_it() {
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        LaunchPanel* panel = w.launch_panel();
        panel->set_kind(LaunchKind::pretrained);
        panel->choice("task")->setCurrentText("text");
        panel->model_folder()->set_path(kTinyLlama);
        // The box says what it found there (a `fone model inspect` child).
        QTRY_VERIFY2_WITH_TIMEOUT(panel->model_folder()->description().contains("number pieces"),
                                  qPrintable(panel->model_folder()->description()), kChildMs);
        QVERIFY2(panel->model_folder()->description().contains("llama, 2 layers, hidden 32"),
                 qPrintable(panel->model_folder()->description()));
        QCOMPARE(panel->model_folder()->found()["number_pieces"].toInt(), 34);
        QCOMPARE(panel->corpus()->path(), bundled_factbook_sample());
        QCOMPARE(panel->choice("method")->currentText(), QString("fone-adapter"));
        panel->field("epochs")->setText("1");
        panel->field("batch")->setText("4");
        panel->field("lr")->setText("0.01");
        panel->field("text_context")->setText("64");
        panel->field("train_size")->setText("2");
        panel->field("threads")->setText("1");
        QVERIFY2(panel->resolved_text().contains("the FoNE adapter on llama"),
                 qPrintable(panel->resolved_text()));
        QVERIFY2(launch_and_wait(w, "adapter-tiny") >= 0, "the adapter run");
        auto* view = qobject_cast<AdapterView*>(w.view("adapter"));
        QVERIFY(view);
        QSignalSpy answered(view, &AdapterView::answered);
        w.raise_view("adapter");
        // Its picker holds the adapter run (and nothing that is not one), chosen by itself.
        QTRY_COMPARE(view->run_picker()->count(), 1);
        QTRY_VERIFY(view->run().endsWith("adapter-tiny"));
        QVERIFY2(answered.count() > 0 || answered.wait(kChildMs), qPrintable(view->status_text()));
        QVERIFY(!view->pieces().empty());
        QVERIFY2(view->provenance_text().contains("adapter-tiny") &&
                     view->provenance_text().contains("checkpoint"),
                 qPrintable(view->provenance_text()));
    }

    void the_window_launches_a_run_on_two_processes() {
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY_WITH_TIMEOUT(w.cuda_checked(),
                                 kChildMs);  // `fone --version` says whether --nproc is there
        LaunchPanel* panel = w.launch_panel();
        if (!panel->field_shown("processes")) QSKIP("this build of fone has no --nproc (c10d and Gloo)");
        one_block_model(panel);
        panel->field("train_size")->setText("400");
        panel->field("test_size")->setText("50");
        panel->field("epochs")->setText("1");
        panel->field("threads")->setText("2");
        panel->processes()->setValue(2);
        int processes = 0;
        connect(w.jobs(), &JobRunner::jobEvent, this, [&processes](int, const nlohmann::json& e) {
            if (e.value("event", std::string()) == "start" && e.contains("data_parallel"))
                processes = e["data_parallel"].value("processes", 0);
        });
        QVERIFY(launch_and_wait(w, "two-processes") >= 0);
        QCOMPARE(processes, 2);  // the run's start event
    }
};

QTEST_MAIN(TestLaunchKinds)
#include "test_launch_kinds.moc"
