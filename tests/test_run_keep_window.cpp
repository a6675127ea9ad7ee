// Keeping, comparing and sharing runs in the window (issue 43), offscreen at 1280x720 on runs made by hand
// (no training): the tags column and the tag: filter, the notes pane writing notes.json, "Compare settings"
// (differences first, equal rows folded, linked to the curves), Rename / Move to trash / Restore / Archive,
// Share as .fonerun and Open (also by dropping the file on the window), Export all metrics.
// With FONE_SHOTS_DIR set, it also writes the screenshots of docs/workbench.md there.
#include <QDropEvent>
#include <QHeaderView>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTreeWidget>
#include <QtTest>
#include <filesystem>

#include "confirm.h"
#include "curve_view.h"
#include "fone/io/safetensors.h"
#include "fone/store/run_notes.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "run_actions.h"
#include "run_catalog.h"
#include "run_notes_pane.h"
#include "run_table_model.h"
#include "settings_compare_view.h"
#include "window_options.h"
#include "workbench_window.h"

using namespace fone::gui;
using fone_test::window_options;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A finished run made by hand: a real config, two metrics records, a summary, a small checkpoint.
void make_run(fone::RunStore& store, const std::string& name, const json& changes, double exact_match) {
    json config = fone::TrainConfig().to_json();
    config.merge_patch(changes);
    const std::string dir = store.create_run(name, config);
    fone::write_status(dir, fone::kStatusFinished, "trained 5 epochs");
    std::string metrics;
    for (int step = 1; step <= 4; ++step)
        metrics += json{{"event", "eval"},
                        {"split", "test"},
                        {"step", step * 50},
                        {"epoch", step},
                        {"exact_match", exact_match * step / 4},
                        {"digit_accuracy", 0.5 + exact_match * step / 8}}
                       .dump() +
                   "\n";
    fone::write_file_atomic(dir + "/metrics.jsonl", metrics);
    fone::write_json_atomic(
        dir + "/summary.json",
        {{"final", {{"exact_match", exact_match}}}, {"best_exact_match", exact_match}, {"step", 200}});
    const std::vector<float> w = {1.0f, 2.0f, 3.0f, 4.0f};
    fone::safetensors::write(dir + "/checkpoint-best.safetensors",
                             {{"w", fone::safetensors::Dtype::F32, {2, 2}, w.data(), w.size() * 4}});
}

QStringList visible_names(WorkbenchWindow& w) {
    QStringList names;
    QAbstractItemModel* m = w.run_table()->model();
    for (int r = 0; r < m->rowCount(); ++r)
        names << m->index(r, RunTableModel::kName).data().toString();
    names.sort();
    return names;
}

void shoot(QWidget& w, const QString& name) {
    const QString dir = qEnvironmentVariable("FONE_SHOTS_DIR");
    if (dir.isEmpty()) return;
    QCoreApplication::processEvents();
    QVERIFY(w.grab().save(dir + "/" + name));
}

}  // namespace

class TestRunKeepWindow : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir tmp_;
    QString store() const { return tmp_.path() + "/runs"; }
    std::unique_ptr<WorkbenchWindow> w_;

  private Q_SLOTS:
    void initTestCase() {
        fone::RunStore s(store().toStdString());
        make_run(s, "dec-add-fone-51k", {{"train_size", 51200}}, 0.9925);
        make_run(s, "dec-add-fone-6k", {{"train_size", 6400}}, 0.61);
        make_run(s, "dec-add-fone-6k-lr5e-3", {{"train_size", 6400}, {"lr", 0.005}}, 0.7);
        fone::write_run_notes(
            store().toStdString() + "/dec-add-fone-51k",
            {"The baseline of figure 3: FoNE at the default size.\nSeed 42.", {"baseline", "fig3"}, ""});
        w_ = std::make_unique<WorkbenchWindow>(window_options(store(), "/bin/true"));
        w_->resize(1280, 720);
        w_->show();
        QTRY_VERIFY_WITH_TIMEOUT(w_->catalog()->is_loaded(), 10000);
        QTRY_COMPARE(w_->run_table()->model()->rowCount(), 3);
    }

    void tags_column_and_filter() {
        const int row = w_->catalog()->row_of("dec-add-fone-51k");
        const QModelIndex cell = w_->run_model()->index(row, RunTableModel::kTags);
        QCOMPARE(cell.data().toString(), QString("baseline fig3"));
        // Shown right after the run's name.
        QCOMPARE(w_->run_table()->horizontalHeader()->visualIndex(RunTableModel::kTags),
                 w_->run_table()->horizontalHeader()->visualIndex(RunTableModel::kName) + 1);
        w_->run_filter()->setText("tag:baseline");
        QCOMPARE(visible_names(*w_), QStringList{"dec-add-fone-51k"});
        w_->run_filter()->setText("fig3");
        QCOMPARE(visible_names(*w_), QStringList{"dec-add-fone-51k"});
        w_->run_filter()->setText("tag:fig");  // a tag term matches whole tags
        QCOMPARE(visible_names(*w_), QStringList());
        w_->run_filter()->clear();
        QCOMPARE(visible_names(*w_).size(), 3);
    }

    void notes_pane_reads_and_writes_notes_json() {
        w_->select_runs({"dec-add-fone-51k"});
        RunNotesPane* pane = w_->notes_pane();
        QCOMPARE(pane->text_edit()->toPlainText(),
                 QString("The baseline of figure 3: FoNE at the default size.\nSeed 42."));
        QCOMPARE(pane->tags_edit()->text(), QString("baseline fig3"));
        shoot(*w_, "window-notes-1280x720.png");
        pane->text_edit()->setPlainText("Rerun with 5 epochs: same curve.");
        pane->tags_edit()->setText("baseline, paper");
        QVERIFY(pane->dirty());
        QVERIFY(pane->save());
        const fone::RunNotes n = fone::read_run_notes(store().toStdString() + "/dec-add-fone-51k");
        QCOMPARE(n.text, std::string("Rerun with 5 epochs: same curve."));
        QCOMPARE(n.tags, (std::vector<std::string>{"baseline", "paper"}));
        QCOMPARE(w_->run_model()
                     ->index(w_->catalog()->row_of("dec-add-fone-51k"), RunTableModel::kTags)
                     .data()
                     .toString(),
                 QString("baseline paper"));
        // A bad tag is refused on the pane, and nothing is written.
        pane->tags_edit()->setText("ok " + QString(50, 'x'));
        QVERIFY(!pane->save());
        QVERIFY(pane->status_text().contains("at most 40"));
        QCOMPARE(fone::read_run_notes(store().toStdString() + "/dec-add-fone-51k").tags.size(),
                 std::size_t{2});
        // Switching runs saves what was typed (here: typed again, valid).
        pane->tags_edit()->setText("baseline paper fig3");
        pane->tags_edit()->textEdited("baseline paper fig3");
        w_->select_runs({"dec-add-fone-6k"});
        QCOMPARE(fone::read_run_notes(store().toStdString() + "/dec-add-fone-51k").tags.size(),
                 std::size_t{3});
        QVERIFY(pane->text_edit()->toPlainText().isEmpty());
        // Notes written elsewhere (fone runs note) reach the pane at the next poll.
        fone::write_run_notes(store().toStdString() + "/dec-add-fone-6k", {"from the terminal", {}, ""});
        QTRY_COMPARE_WITH_TIMEOUT(pane->text_edit()->toPlainText(), QString("from the terminal"), 5000);
    }

    void compare_settings_shows_differences_first() {
        w_->select_runs({"dec-add-fone-51k", "dec-add-fone-6k", "dec-add-fone-6k-lr5e-3"});
        SettingsCompareView* v = w_->settings_compare();
        const QStringList titles = v->group_titles();
        QCOMPARE(titles.size(), 4);
        QCOMPARE(titles[0], QString("Settings that differ (2)"));
        QVERIFY(titles[1].startsWith("Results that differ ("));
        QVERIFY(titles[2].startsWith("Equal settings ("));
        QStringList differing = v->group_rows(0);
        QCOMPARE(differing.size(), 2);
        QVERIFY(differing.contains("lr: 0.003 | 0.003 | 0.005"));
        QVERIFY(differing.contains("train_size: 51200 | 6400 | 6400"));
        QVERIFY(v->tree()->topLevelItem(0)->isExpanded());
        QVERIFY(!v->tree()->topLevelItem(2)->isExpanded());  // equal ones folded
        // Each run's column in its own colour (its curve's: run_colours.h); the hovered curve's run in bold.
        QCOMPARE(v->tree()->headerItem()->text(2), QString("■ dec-add-fone-6k"));
        QCOMPARE(v->tree()->headerItem()->foreground(2).color(),
                 w_->theme().series(w_->catalog()->colour_slot("dec-add-fone-6k")));
        Q_EMIT w_->curves()->runHovered("dec-add-fone-6k");
        QVERIFY(v->tree()->headerItem()->font(2).bold());
        QSignalSpy hovered(v, &SettingsCompareView::runHovered);
        Q_EMIT v->tree()->itemEntered(v->tree()->topLevelItem(0)->child(0), 3);
        QCOMPARE(hovered.last().first().toString(), QString("dec-add-fone-6k-lr5e-3"));
        w_->raise_view("compare-settings");
        shoot(*w_, "window-compare-settings-1280x720.png");
        w_->raise_view("curves");
    }

    void rename_trash_restore_archive() {
        RunActions* a = w_->run_actions();
        const int row = w_->catalog()->row_of("dec-add-fone-6k-lr5e-3");
        QCOMPARE(a->rename_row(row, "lr-5e-3"), QString());
        QTRY_VERIFY(w_->catalog()->row_of("lr-5e-3") >= 0);
        QVERIFY(fs::is_directory(store().toStdString() + "/lr-5e-3"));
        QCOMPARE(a->trash_rows({w_->catalog()->row_of("lr-5e-3")}), QString());
        QTRY_VERIFY(!visible_names(*w_).contains("lr-5e-3"));
        QVERIFY(a->last_message().contains("Restore from trash"));
        QCOMPARE(a->restore("lr-5e-3"), QString());
        QTRY_VERIFY(visible_names(*w_).contains("lr-5e-3"));
        set_confirm_answer([](const QString&, const QString&) { return true; });
        QCOMPARE(a->archive_row(w_->catalog()->row_of("lr-5e-3")), QString());
        set_confirm_answer({});
        QVERIFY(a->last_message().startsWith("Archived lr-5e-3: freed"));
        QVERIFY(fs::exists(store().toStdString() + "/lr-5e-3/archived.json"));
    }

    void share_open_and_drop_a_fonerun() {
        RunActions* a = w_->run_actions();
        const QString file = tmp_.path() + "/shared.fonerun";
        QCOMPARE(a->pack_row(w_->catalog()->row_of("dec-add-fone-51k"), file, false), QString());
        QSignalSpy opened(a, &RunActions::packOpened);
        a->open_pack(file);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
        QCOMPARE(opened.last().first().toString(), QString("dec-add-fone-51k-2"));  // the name was taken
        QTRY_VERIFY(visible_names(*w_).contains("dec-add-fone-51k-2"));
        QVERIFY(a->last_message().contains("as the run dec-add-fone-51k-2"));
        // Dropped on the window.
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(file)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(w_.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(w_.get(), &drop);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, 10000);
        QCOMPARE(opened.last().first().toString(), QString("dec-add-fone-51k-3"));
        // A damaged file: refused with its reason in the status bar, nothing added.
        const QString bad = tmp_.path() + "/bad.fonerun";
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a run");
        f.close();
        QSignalSpy refused(a, &RunActions::packRefused);
        a->open_pack(bad);
        QTRY_COMPARE_WITH_TIMEOUT(refused.count(), 1, 10000);
        QVERIFY(a->last_message().startsWith("Not opened: "));
    }

    void export_all_metrics() {
        const QString file = tmp_.path() + "/all.csv";
        QCOMPARE(w_->run_actions()->export_all_metrics(file), QString());
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray header = f.readLine();
        // The differing settings, then every record key in first-seen order (a record's keys come sorted, as
        // nlohmann's json keeps them).
        QVERIFY2(header.startsWith("run,config.lr,config.train_size,digit_accuracy,epoch,event,"),
                 header.constData());
        int rows = 0;
        while (!f.readLine().isEmpty())
            ++rows;
        QCOMPARE(rows, 5 * 4);  // five runs (two received), four records each
    }

    void cleanupTestCase() { w_.reset(); }
};

QTEST_MAIN(TestRunKeepWindow)
#include "test_run_keep_window.moc"
