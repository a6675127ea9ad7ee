// The window on two screens at once (offscreen: a 1920 x 1080 desk and a 1280 x 720 projector beside it):
// a layout saved at the desk opens usable on the projector (and the desk's comes back at the desk), View >
// Reset layout returns to the default for the screen, a wheel turn over a field without the focus changes
// nothing (it scrolls the page), and the first view on the projector shows the whole Welcome: the demo's
// clocks with their probability bars, the race chart and its verdict line, legible, without dragging.
//
//   ctest --test-dir build -R test_window_layout --output-on-failure
#include <qcustomplot.h>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QMenuBar>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>

#include "analysis_views.h"
#include "hidden_view.h"
#include "launch_panel.h"
#include "plot_panel.h"
#include "run_catalog.h"
#include "welcome_view.h"
#include "wheel_guard.h"
#include "window_layout.h"
#include "workbench_window.h"

using namespace fone::gui;

namespace {

constexpr int kChildMs = 120000;  // a child `fone` on a busy 2-core machine

QScreen* screen_sized(int width) {
    for (QScreen* s : QGuiApplication::screens())
        if (s->geometry().width() == width) return s;
    return nullptr;
}

WorkbenchOptions options_on(const QString& dir, QScreen* screen, bool settings) {
    WorkbenchOptions o;
    o.runs_dir = dir;
    o.cli = QStringLiteral(FONE_BIN_DIR "/fone");
    o.use_settings = settings;
    o.screen = screen;
    return o;
}

// Settings of this test only, in a temporary folder.
void private_settings(const QTemporaryDir& dir) {
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path() + "/config");
    QCoreApplication::setOrganizationName("fone-workbench-window-layout-test");
}

QDockWidget* dock_of(WorkbenchWindow& w, const QString& name) {
    return w.findChild<QDockWidget*>("dock-" + name);
}

// Whether a widget is drawn whole: shown, and none of it clipped by its dock, scroll area or window.
bool drawn_whole(QWidget* w) {
    return w && w->isVisible() && w->visibleRegion().boundingRect() == w->rect();
}

QAction* menu_action(WorkbenchWindow& w, const QString& text) {
    for (QAction* menu : w.menuBar()->actions())
        if (menu->menu())
            for (QAction* a : menu->menu()->actions())
                if (a->text() == text) return a;
    return nullptr;
}

// A wheel turn over a widget, as the mouse gives it (one notch down).
void wheel_over(QWidget* w) {
    const QPointF at(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent event(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &event);
}

QVariant value_of(QWidget* w) {
    if (auto* combo = qobject_cast<QComboBox*>(w)) return combo->currentIndex();
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(w)) return spin->text();
    if (auto* slider = qobject_cast<QAbstractSlider*>(w)) return slider->value();
    return {};
}

}  // namespace

class TestWindowLayout : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first");
        QVERIFY2(screen_sized(1920) && screen_sized(1280), "the offscreen platform has both screens");
        register_analysis_views();
    }

    void a_layout_saved_at_the_desk_opens_usable_on_the_projector() {
        QTemporaryDir dir;
        private_settings(dir);
        QScreen* desk = screen_sized(1920);
        QScreen* projector = screen_sized(1280);
        int desk_launch_width = 0;
        {
            WorkbenchWindow w(options_on(dir.path() + "/runs", desk, true));
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QCOMPARE(w.window_layout()->current_class(), WindowLayout::screen_class(desk));
            // Prepared at the desk: a wide Launch column, the Data size figure in front.
            w.resizeDocks({dock_of(w, "launch")}, {500}, Qt::Horizontal);
            w.raise_view("data-size");
            QTest::qWait(50);
            desk_launch_width = dock_of(w, "launch")->width();
            // Wider than the desk's default (27% of 1400 px: 378), so that its return can be seen.
            QVERIFY2(desk_launch_width >= 420, qPrintable(QString::number(desk_launch_width)));
            w.close();
        }
        {
            // On the projector: its own default layout, on the screen, nothing needs sideways scrolling.
            WorkbenchWindow w(options_on(dir.path() + "/runs", projector, true));
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QTest::qWait(100);
            QVERIFY(projector->availableGeometry().contains(w.frameGeometry()));
            QVERIFY2(w.window_layout()->misfits().isEmpty(),
                     qPrintable(w.window_layout()->misfits().join("; ")));
            QVERIFY(dock_of(w, "launch")->width() < 400);
            for (const QString& name : w.view_names()) {
                w.raise_view(name);
                QTest::qWait(20);
                QVERIFY2(w.window_layout()->misfits().isEmpty(),
                         qPrintable(name + ": " + w.window_layout()->misfits().join("; ")));
            }
            w.close();
        }
        {
            // Back at the desk: the desk's layout is still there.
            WorkbenchWindow w(options_on(dir.path() + "/runs", desk, true));
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QTest::qWait(100);
            QVERIFY2(
                std::abs(dock_of(w, "launch")->width() - desk_launch_width) < 20,
                qPrintable(QString("%1 vs %2").arg(dock_of(w, "launch")->width()).arg(desk_launch_width)));
        }
    }

    void a_saved_layout_that_does_not_fit_is_not_restored() {
        // A layout saved for this screen that does not fit it (the Launch column squeezing the views to
        // less than they need; a later version's views may need more): the default comes back, saying why.
        QTemporaryDir dir;
        private_settings(dir);
        QScreen* projector = screen_sized(1280);
        QByteArray state, geometry;
        {
            WorkbenchWindow w(options_on(dir.path() + "/runs", projector, false));
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.resizeDocks({dock_of(w, "launch")}, {1150}, Qt::Horizontal);
            QTest::qWait(50);
            state = w.saveState();
            geometry = w.saveGeometry();
        }
        {
            QSettings s;
            s.beginGroup("workbench/layouts/" + WindowLayout::screen_class(projector));
            s.setValue("state", state);
            s.setValue("geometry", geometry);
        }
        WorkbenchWindow w(options_on(dir.path() + "/runs", projector, true));
        QSignalSpy replaced(w.window_layout(), &WindowLayout::layoutReplaced);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(150);
        qInfo() << "replaced:" << w.window_layout()->replaced_because();
        QVERIFY2(w.window_layout()->misfits().isEmpty(), qPrintable(w.window_layout()->misfits().join("; ")));
        QVERIFY(replaced.count() == 1 || dock_of(w, "launch")->width() > 1000);
    }

    // The default layout: on a window 800 px high or more the training plots sit below the views (Curves
    // visible beside the Welcome), on a shorter one they join the views' tabs; and a window laid out again
    // for the other size (what a screenshot does) gets the other arrangement, not tabs restored from the
    // first (splitting a dock that has tabs adds a tab instead: the split never happened before the fix).
    void tall_windows_put_the_training_plots_below_the_views() {
        QTemporaryDir dir;
        const auto below = [](WorkbenchWindow& w) {
            return !w.tabifiedDockWidgets(dock_of(w, "runs")).contains(dock_of(w, "curves")) &&
                   w.tabifiedDockWidgets(dock_of(w, "curves")).contains(dock_of(w, "compare"));
        };
        {
            WorkbenchWindow w(options_on(dir.path(), screen_sized(1920), false));
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(w.height() >= 800);
            QVERIFY(below(w));
            QTest::qWait(50);
            QVERIFY(!w.view("welcome")->visibleRegion().isEmpty());
            QVERIFY(!w.view("curves")->visibleRegion().isEmpty());
        }
        {
            WorkbenchWindow w(options_on(dir.path(), screen_sized(1280), false));
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(!below(w));
            QVERIFY(w.tabifiedDockWidgets(dock_of(w, "runs")).contains(dock_of(w, "curves")));
        }
        {
            WorkbenchWindow w(options_on(dir.path(), screen_sized(1280), false));
            w.lay_out_for({1920, 1080});
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(below(w));
        }
    }

    void reset_layout_returns_to_the_default() {
        QTemporaryDir dir;
        WorkbenchWindow w(options_on(dir.path(), screen_sized(1280), false));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QAction* reset = menu_action(w, "Reset layout");
        QVERIFY2(reset, "View > Reset layout");
        // Docks closed, floated and squeezed.
        dock_of(w, "curves")->close();
        dock_of(w, "sweep")->setFloating(true);
        w.resizeDocks({dock_of(w, "launch")}, {900}, Qt::Horizontal);
        QTest::qWait(50);
        reset->trigger();
        QTest::qWait(100);
        for (QDockWidget* dock : w.findChildren<QDockWidget*>()) {
            QVERIFY2(!dock->isHidden(), qPrintable(dock->objectName()));
            QVERIFY2(!dock->isFloating(), qPrintable(dock->objectName()));
        }
        QVERIFY(dock_of(w, "launch")->width() < 500);
        QVERIFY(!w.view("welcome")->visibleRegion().isEmpty());  // the view in front is the first view again
        QVERIFY2(w.window_layout()->misfits().isEmpty(), qPrintable(w.window_layout()->misfits().join("; ")));
    }

    void a_wheel_over_an_unfocused_field_changes_nothing() {
        // Every combo box, spin box and slider of every view: a wheel turn over it, without the focus,
        // leaves its value (Launch's Schedule, Welcome's "turn at" were changed by scrolling).
        QTemporaryDir dir;
        WorkbenchWindow w(options_on(dir.path(), screen_sized(1280), false));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        int fields = 0;
        QStringList changed, wheel_focus;
        for (const QString& name : w.view_names()) {
            w.raise_view(name);
            QTest::qWait(20);
            for (QWidget* field : w.view(name)->findChildren<QWidget*>()) {
                if (!wheel_changes_value(field) || !field->isVisible() || !field->isEnabled()) continue;
                ++fields;
                if ((field->focusPolicy() & Qt::WheelFocus) == Qt::WheelFocus)
                    wheel_focus << name + "/" + field->objectName();
                const QVariant before = value_of(field);
                wheel_over(field);
                if (value_of(field) != before)
                    changed << QStringLiteral("%1/%2 %3")
                                   .arg(name, field->objectName(), field->metaObject()->className());
            }
        }
        QVERIFY2(fields >= 10, qPrintable(QString::number(fields)));  // Launch alone has several
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join(", ")));
        QVERIFY2(wheel_focus.isEmpty(), qPrintable(wheel_focus.join(", ")));
        // The page scrolls instead: the Launch form's fields, taller than the dock at 720 px.
        w.raise_view("launch");
        QComboBox* schedule = w.launch_panel()->choice("schedule");
        auto* area = qobject_cast<QScrollArea*>(schedule->parentWidget()->parentWidget()->parentWidget());
        QVERIFY(area);
        area->verticalScrollBar()->setValue(0);
        const int schedule_index = schedule->currentIndex();
        wheel_over(schedule);
        QCOMPARE(schedule->currentIndex(), schedule_index);
        QVERIFY2(area->verticalScrollBar()->maximum() == 0 || area->verticalScrollBar()->value() > 0,
                 "the form scrolled");
        // With the focus, the wheel still sets the field.
        w.activateWindow();
        schedule->setFocus();
        if (schedule->hasFocus()) {
            wheel_over(schedule);
            QVERIFY(schedule->currentIndex() != schedule_index);
        }
    }

    void the_first_view_on_the_projector_shows_the_whole_welcome() {
        QTemporaryDir dir;
        WorkbenchWindow w(options_on(dir.path(), screen_sized(1280), false));
        auto* welcome = qobject_cast<WelcomeView*>(w.view("welcome"));
        QVERIFY(welcome);
        QSignalSpy predicted(welcome->demo(), &HiddenView::predicted);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY2(predicted.wait(kChildMs), qPrintable(welcome->demo()->status_text()));
        QTest::qWait(300);
        // In front, not scrolled: the page fits the room its dock gives it.
        auto* area = qobject_cast<QScrollArea*>(welcome->parentWidget()->parentWidget());
        QVERIFY(area);
        QCOMPARE(area->verticalScrollBar()->maximum(), 0);
        QCOMPARE(area->horizontalScrollBar()->maximum(), 0);
        QVERIFY(drawn_whole(welcome));
        // The clocks with their probability bars, the race chart, the verdict line under it.
        QCustomPlot* clocks = welcome->demo()->plot();
        QVERIFY(drawn_whole(clocks));
        int bars = 0;
        for (int i = 0; i < clocks->itemCount(); ++i)
            bars += qobject_cast<QCPItemRect*>(clocks->item(i)) != nullptr;
        QVERIFY2(bars >= 10, qPrintable(QString("%1 bars").arg(bars)));
        QVERIFY(drawn_whole(welcome->live_plot()));
        QLabel* verdict = welcome->findChild<QLabel*>("welcome-verdict");
        QVERIFY(verdict);
        QVERIFY(drawn_whole(verdict));
        QVERIFY(!verdict->text().isEmpty());
        // And legible: texts of 10 px at least, plot rectangles of 160 x 120.
        clocks->replot();
        welcome->live_plot()->plot()->replot();
        const QStringList problems = legibility_problems(welcome);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("\n")));
    }
};

// Two screens for the offscreen platform, before QApplication exists: a 1920 x 1080 desk and a 1280 x 720
// projector to its right.
int main(int argc, char** argv) {
    QTemporaryDir config_dir;
    const QString config = config_dir.filePath("screens.json");
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly)) return 2;
    file.write(R"({"screens": [
        {"name": "desk", "x": 0, "y": 0, "width": 1920, "height": 1080, "logicalDpi": 96, "logicalBaseDpi": 96},
        {"name": "projector", "x": 1920, "y": 0, "width": 1280, "height": 720, "logicalDpi": 96,
         "logicalBaseDpi": 96}]})");
    file.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toLocal8Bit());
    QApplication app(argc, argv);
    TestWindowLayout test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_window_layout.moc"
