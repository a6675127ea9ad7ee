// The window as people meet it, on a small screen: offscreen with a 1280 x 720 screen (a projector, a small
// laptop; FONE_TEST_SCREEN=WxH for another), the whole window is on the screen, no view needs more room than
// its dock has, a saved geometry from a larger screen is not restored, long numbers do not widen the window,
// presenter mode fills the screen and steps with the keys (and its screenshot at 2x has the size asked for),
// the Playground shows five lines of tokens per scheme and every digit's column, the spectrum's progress text
// stays on one line, and exported figures keep the screen's shape (circles round) with the answer line.
//
//   ctest --test-dir build -R test_layout --output-on-failure
#include <qcustomplot.h>
#include <QApplication>
#include <QDockWidget>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include "analysis_views.h"
#include "circles_view.h"
#include "hidden_view.h"
#include "launch_panel.h"
#include "playground_view.h"
#include "plot_panel.h"
#include "presenter_view.h"
#include "run_catalog.h"
#include "run_picker.h"
#include "run_table_model.h"
#include "spectrum_view.h"
#include "window_options.h"
#include "workbench_window.h"

using namespace fone::gui;
using fone_test::window_options;

namespace {

constexpr int kChildMs = 120000;  // a child `fone` on a busy 2-core machine

QRect available() {
    return QGuiApplication::primaryScreen()->availableGeometry();
}

// Whether a widget lies inside the window's visible rectangle.
bool inside_window(QWidget* w, QWidget* window) {
    const QRect r(w->mapTo(window, QPoint(0, 0)), w->size());
    return window->rect().contains(r);
}

// The scroll area a dock keeps its view in, and whether the view fits it without scrolling.
QString view_overflow(WorkbenchWindow& w, const QString& name) {
    QWidget* view = w.view(name);
    auto* area = qobject_cast<QScrollArea*>(view->parentWidget()->parentWidget());
    if (!area) return "no scroll area";
    const QSize have = area->viewport()->size();
    QSize need = view->minimumSizeHint();
    // A view of wrapped text needs its height at the width it has.
    if (view->hasHeightForWidth())
        need.setHeight(std::max(need.height(), view->heightForWidth(have.width())));
    // Width only: a figure that needs more height than its dock has scrolls (the legibility rule, which
    // every_view_is_legible checks) rather than shrink unreadable; nothing needs sideways scrolling.
    if (need.width() > have.width())
        return QStringLiteral("%1 needs %2x%3, has %4x%5")
            .arg(name)
            .arg(need.width())
            .arg(need.height())
            .arg(have.width())
            .arg(have.height());
    return {};
}

}  // namespace

class TestLayout : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first");
        register_analysis_views();
        qInfo() << "screen" << available();
    }

    void the_window_fits_the_screen() {
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(w.catalog()->is_loaded() || loaded.wait(10000));
        QTest::qWait(200);
        const QRect screen = available();
        QVERIFY2(screen.contains(w.frameGeometry()),
                 qPrintable(QString("window %1,%2 %3x%4 on a %5x%6 screen")
                                .arg(w.frameGeometry().x())
                                .arg(w.frameGeometry().y())
                                .arg(w.frameGeometry().width())
                                .arg(w.frameGeometry().height())
                                .arg(screen.width())
                                .arg(screen.height())));
        QVERIFY(w.minimumSizeHint().width() <= screen.width());
        QVERIFY(w.minimumSizeHint().height() <= screen.height());
        // What must be reachable: the Launch button, the status bar.
        QPushButton* launch = nullptr;
        for (QPushButton* b : w.launch_panel()->findChildren<QPushButton*>())
            if (b->text() == "Launch run") launch = b;
        QVERIFY(launch && launch->isVisible());
        QVERIFY(inside_window(launch, &w));
        // ... and what it will train, read before launching: not scrolled away below the fields.
        QLabel* will_train = nullptr;
        for (QLabel* l : w.launch_panel()->findChildren<QLabel*>())
            if (l->text().startsWith("Will train")) will_train = l;
        QVERIFY(will_train && will_train->isVisible());
        QVERIFY(inside_window(will_train, &w));
        QCOMPARE(will_train->visibleRegion().boundingRect().size(), will_train->size());
        QVERIFY(inside_window(w.statusBar(), &w));
        // The runs table shows what a run reached (exact match) without scrolling sideways.
        w.raise_view("runs");
        QTest::qWait(50);
        QTableView* table = w.run_table();
        const int right = table->columnViewportPosition(RunTableModel::kExactMatch) +
                          table->columnWidth(RunTableModel::kExactMatch);
        QVERIFY2(right <= table->viewport()->width(),
                 qPrintable(
                     QString("exact match ends at %1 of %2 px").arg(right).arg(table->viewport()->width())));
        // Every view, brought to the front of its dock, fits the room it gets: nothing clipped, no scrolling.
        QStringList overflows;
        for (const QString& name : w.view_names()) {
            w.raise_view(name);
            QTest::qWait(30);
            if (const QString o = view_overflow(w, name); !o.isEmpty()) overflows << o;
        }
        QVERIFY2(overflows.isEmpty(), qPrintable(overflows.join("; ")));
    }

    // The legibility rule (docs/workbench.md) measured on the drawn widgets of every view in front of its
    // dock: no text below kMinTextPixels, no plot rectangle below kMinPlotRectHeight x kMinPlotRectWidth.
    // Run at 1280x720, at 1920x1080 (test_layout_1920x1080) and at 2x (test_layout_hidpi).
    void every_view_is_legible() {
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy loaded(w.catalog(), &RunCatalog::loaded);
        QVERIFY(w.catalog()->is_loaded() || loaded.wait(10000));
        QStringList problems;
        int plots = 0;
        for (const QString& name : w.view_names()) {
            w.raise_view(name);
            QTest::qWait(80);
            for (QCustomPlot* p : w.view(name)->findChildren<QCustomPlot*>()) {
                if (!p->isVisible()) continue;
                p->replot();  // the axis rectangles are laid out at a replot
                ++plots;
            }
            for (const QString& p : legibility_problems(w.view(name)))
                problems << name + ": " + p;
        }
        QVERIFY(plots >= 5);  // it measured the figures, not only the texts
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("\n")));
    }

    void saved_geometry_from_a_larger_screen_is_not_restored() {
        QTemporaryDir dir;
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path() + "/config");
        QCoreApplication::setOrganizationName("fone-workbench-layout-test");
        WorkbenchOptions o = window_options(dir.path() + "/runs");
        o.use_settings = true;
        {
            WorkbenchWindow w(o);
            w.show();
            w.setGeometry(0, 0, 2400, 1500);  // as saved on a large monitor
            w.close();
        }
        WorkbenchWindow again(o);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QVERIFY(available().contains(again.frameGeometry()));
    }

    void long_numbers_do_not_widen_the_window() {
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const int width = w.width();
        auto* circles = qobject_cast<CirclesView*>(w.view("circles"));
        QVERIFY(circles);
        w.raise_view("circles");
        for (const QString& number : {QString(20, '7'), QString(69, '3')}) {
            QVERIFY(circles->set_number(number));
            QTest::qWait(50);
            QCOMPARE(w.width(), width);
            QVERIFY(w.minimumSizeHint().width() <= available().width());
            QVERIFY2(view_overflow(w, "circles").isEmpty(), qPrintable(view_overflow(w, "circles")));
        }
    }

    void the_spectrum_of_a_run_fits_a_short_window() {
        // Many layers (a heatmap and a probe table of many rows) still fit the dock without scrolling.
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* spectrum = qobject_cast<SpectrumView*>(w.view("spectrum"));
        w.raise_view("spectrum");
        QSignalSpy done(spectrum, &SpectrumView::finished);
        spectrum->set_numbers(400);
        spectrum->compute();
        QVERIFY(done.wait(60000));
        QTest::qWait(100);
        QVERIFY(spectrum->minimumSizeHint().height() < 500);
        // The progress bar's text on one line, inside the bar.
        auto* bar = spectrum->findChild<QProgressBar*>();
        QVERIFY(bar);
        QVERIFY2(spectrum->progress_text().contains("100%"), qPrintable(spectrum->progress_text()));
        QVERIFY2(
            bar->fontMetrics().horizontalAdvance(spectrum->progress_text()) < bar->contentsRect().width(),
            qPrintable(spectrum->progress_text()));
        QVERIFY2(view_overflow(w, "spectrum").isEmpty(), qPrintable(view_overflow(w, "spectrum")));
    }

    void the_playground_shows_its_tokens_and_every_digit() {
        // In the window as it opens on this screen: five lines of tokens per scheme, the demo model's answer
        // with all ten digits' columns in sight, and the view not scrolling.
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* playground = qobject_cast<PlaygroundView*>(w.view("playground"));
        QVERIFY(playground);
        QSignalSpy predicted(playground, &PlaygroundView::predicted);
        w.raise_view("playground");
        QVERIFY2(predicted.wait(kChildMs), qPrintable(playground->status_text()));
        QTest::qWait(100);
        for (fone::TextScheme scheme :
             {fone::TextScheme::fone, fone::TextScheme::digit, fone::TextScheme::subword}) {
            QTextBrowser* pane = playground->token_pane(scheme);
            QFont bold = pane->font();
            bold.setBold(true);
            const int lines = pane->viewport()->height() / QFontMetrics(bold).lineSpacing();
            QVERIFY2(lines >= 5,
                     qPrintable(QString("%1: %2 lines").arg(playground->token_heading(scheme)).arg(lines)));
        }
        QTableWidget* table = playground->probabilities();
        QCOMPARE(table->columnCount(), 10);
        QVERIFY(table->isVisible());
        const int right =
            table->horizontalHeader()->sectionViewportPosition(9) + table->horizontalHeader()->sectionSize(9);
        QVERIFY2(right <= table->viewport()->width(),
                 qPrintable(QString("digit 9 ends at %1 of %2").arg(right).arg(table->viewport()->width())));
        QVERIFY(table->horizontalHeader()->sectionViewportPosition(0) >= 0);
        QVERIFY2(view_overflow(w, "playground").isEmpty(), qPrintable(view_overflow(w, "playground")));
    }

    void a_presenter_screenshot_at_2x_has_the_asked_size() {
        // --size is in the window's own pixels; at QT_SCALE_FACTOR=2 the PNG has twice as many each way. (The
        // offscreen platform used to put presenter mode back to its full-screen size, clamped to its screen.)
        QTemporaryDir dir;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert("QT_SCALE_FACTOR", "2");
        for (const QStringList& what : {QStringList{"--presenter", "--set", "step=1"}, QStringList{}}) {
            const QString png = dir.filePath(what.isEmpty() ? "window.png" : "presenter.png");
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(
                QStringLiteral(FONE_BIN_DIR "/fone-workbench"),
                QStringList{"--screenshot", png, "--size", "700x450", "--runs-dir", dir.filePath("runs")} +
                    what);
            QVERIFY(p.waitForFinished(kChildMs));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
            const QImage image(png);
            QCOMPARE(image.size(), QSize(1400, 900));
        }
    }

    void presenter_mode_fills_the_screen_and_steps_with_keys() {
        QTemporaryDir dir;
        WorkbenchWindow w(window_options(dir.path()));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.set_presenting(true));
        auto* presenter = qobject_cast<PresenterView*>(w.presenter());
        QVERIFY(presenter);
        QVERIFY(QTest::qWaitForWindowExposed(presenter));
        QTRY_COMPARE(presenter->geometry(), QGuiApplication::primaryScreen()->geometry());
        QCOMPARE(presenter->step(), 1);
        QCOMPARE(presenter->heading(), QString("Every number is one token"));
        // Step two asks the demo model, and its clocks fill the page.
        QSignalSpy predicted(presenter->clocks(), &HiddenView::predicted);
        QTest::keyClick(presenter, Qt::Key_Right);
        QCOMPARE(presenter->step(), 2);
        QVERIFY2(predicted.wait(kChildMs), qPrintable(presenter->clocks()->status_text()));
        QVERIFY2(presenter->clocks()->answer_line().contains("777.777"),
                 qPrintable(presenter->clocks()->answer_line()));
        QVERIFY(presenter->clocks()->plot()->width() > available().width() / 2);
        QTest::keyClick(presenter, Qt::Key_Right);
        QTest::keyClick(presenter, Qt::Key_Right);
        QCOMPARE(presenter->step(), 4);
        QTest::keyClick(presenter, Qt::Key_Right);  // the last step stays
        QCOMPARE(presenter->step(), 4);
        QTest::keyClick(presenter, Qt::Key_Left);
        QCOMPARE(presenter->step(), 3);
        QTest::keyClick(presenter, Qt::Key_Escape);
        QTRY_VERIFY(!w.presenting());
        QVERIFY(w.isVisible());
    }

    void an_exported_figure_is_the_picture_on_screen() {
        // The demo model's clocks, exported: the shape of the plot on screen (circles round), its answer
        // line.
        QTemporaryDir dir;
        RunCatalog catalog;
        catalog.open(dir.path());
        HiddenView view(&catalog);
        view.set_program(FONE_BIN_DIR "/fone");
        QVERIFY(view.set_run(demo_model_dir()));
        view.set_prompt("123.456+654.321=");
        view.resize(900, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy predicted(&view, &HiddenView::predicted);
        view.predict();
        QVERIFY2(predicted.wait(kChildMs), qPrintable(view.status_text()));
        QCustomPlot* plot = view.plot();
        plot->replot();
        QString footer;
        for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
            if (auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i))) footer = t->text();
        QVERIFY2(footer.contains("The model answers 777.777"), qPrintable(footer));
        const QString png = dir.filePath("clocks.png");
        QString error;
        QVERIFY2(view.panel()->export_to(png, &error), qPrintable(error));
        const QImage image(png);
        QVERIFY(!image.isNull());
        const double screen_ratio = double(plot->width()) / plot->height();
        const double file_ratio = double(image.width()) / image.height();
        QVERIFY2(std::abs(file_ratio - screen_ratio) < 0.01,
                 qPrintable(QString("%1 vs %2").arg(file_ratio).arg(screen_ratio)));
        QVERIFY(image.width() >= 1600);
        // Round: one unit is as many pixels across as up.
        const double per_x = plot->xAxis->coordToPixel(1) - plot->xAxis->coordToPixel(0);
        const double per_y = plot->yAxis->coordToPixel(0) - plot->yAxis->coordToPixel(1);
        QVERIFY2(std::abs(per_x - per_y) < 0.01 * per_x,
                 qPrintable(QString("%1 vs %2").arg(per_x).arg(per_y)));
    }
};

// A screen of FONE_TEST_SCREEN (default 1280x720) for the offscreen platform, before QApplication exists.
int main(int argc, char** argv) {
    const QByteArray size =
        qgetenv("FONE_TEST_SCREEN").isEmpty() ? QByteArray("1280x720") : qgetenv("FONE_TEST_SCREEN");
    QTemporaryDir config_dir;
    const QString config = config_dir.filePath("screen.json");
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly)) return 2;
    file.write(
        "{\"screens\": [{\"name\": \"test\", \"x\": 0, \"y\": 0, \"width\": " + size.split('x').value(0) +
        ", \"height\": " + size.split('x').value(1) + ", \"logicalDpi\": 96, \"logicalBaseDpi\": 96}]}");
    file.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toLocal8Bit());
    QApplication app(argc, argv);
    TestLayout test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_layout.moc"
