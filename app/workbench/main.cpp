// fone-workbench: the FoNE Workbench window.
//
//   fone-workbench [--runs-dir DIR] [--theme light|dark] [--presenter] [FILE.fonerun...]
//       FILE.fonerun: a run someone shared (fone runs pack), unpacked into the store and selected
//   fone-workbench --screenshot FILE.png [--view NAME | --presenter] [--runs-dir DIR] [--size 1400x900]
//                  [--theme dark] [--set KEY=VALUE ...]
//       renders the window (or one named view, or presenter mode) offscreen at a fixed size once the store is
//       read and the view has finished its work (its `busy` property), writes the PNG and exits 0 (the
//       README's pictures come from this). --size is in the window's own pixels: at QT_SCALE_FACTOR=2 the
//       PNG has twice as many each way. --set sets a property of the view (or of presenter mode) first:
//       --set run=NAME --set source=run --set layer=2; --presenter --set step=2.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QPixmap>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

#include "fone/platform/thread_environment.h"
#include "fone/store/run_store.h"
#include "run_actions.h"
#include "run_catalog.h"
#include "run_table_model.h"
#include "workbench_window.h"
#ifdef FONE_WITH_ANALYSIS_VIEWS
#include "analysis_views.h"
#endif

namespace {

constexpr int kSettleMs = 700;  // lets the throttled replots and the table's layout finish before the grab
constexpr int kBusyLimitMs = 300000;  // a view still busy after this is shot as it is

bool wants_screenshot(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (QByteArray(argv[i]) == "--screenshot" || QByteArray(argv[i]).startsWith("--screenshot="))
            return true;
    return false;
}

// The offscreen platform for a screenshot, on a screen of the picture's size (its default screen is 800 ×
// 600): the window lays itself out once, for a screen like the one the picture shows, as it would on a real
// one (laid out for 800 × 600 and then again for 1920 × 1080, its docks kept tabs of the first arrangement
// and the view raised lost its place in front). At QT_SCALE_FACTOR other than 1 the default screen is kept.
QByteArray screenshot_platform(int argc, char** argv, const QString& config_file) {
    QByteArray size = "1400x900";
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if (a == "--size" && i + 1 < argc) size = argv[i + 1];
        if (a.startsWith("--size=")) size = a.mid(7);
    }
    const QList<QByteArray> wh = size.split('x');
    const int w = wh.value(0).toInt(), h = wh.value(1).toInt();
    const QByteArray scale = qgetenv("QT_SCALE_FACTOR");
    if (wh.size() != 2 || w < 200 || h < 150 || w > 8000 || h > 8000 || (!scale.isEmpty() && scale != "1"))
        return "offscreen";
    QFile file(config_file);
    if (!file.open(QIODevice::WriteOnly)) return "offscreen";
    file.write(QStringLiteral("{\"screens\": [{\"name\": \"shot\", \"x\": 0, \"y\": 0, \"width\": %1, "
                              "\"height\": %2, \"logicalDpi\": 96, \"logicalBaseDpi\": 96}]}")
                   .arg(w)
                   .arg(h)
                   .toUtf8());
    return "offscreen:configfile=" + config_file.toLocal8Bit();
}

int fail(const QString& message) {
    std::fprintf(stderr, "fone-workbench: %s\n", qPrintable(message));
    return 2;
}

// The command line's options, in the order --help lists them.
struct CommandLine {
    QCommandLineOption runs_dir{QStringLiteral("runs-dir"),
                                "Run store (default: $FONE_RUNS_DIR or ~/.local/share/...)", "DIR"};
    QCommandLineOption screenshot{QStringLiteral("screenshot"), "Write a PNG of the window and exit",
                                  "FILE.png"};
    QCommandLineOption view{QStringLiteral("view"), "With --screenshot: only this view", "NAME"};
    QCommandLineOption size{QStringLiteral("size"),
                            "With --screenshot: window size in the window's own pixels (the PNG has "
                            "QT_SCALE_FACTOR times as many "
                            "each way: --size 1400x900 at 2x is a 2800x1800 picture)",
                            "WxH", "1400x900"};
    QCommandLineOption theme{QStringLiteral("theme"), "light or dark", "NAME"};
    QCommandLineOption set{
        QStringLiteral("set"),
        "With --view (or --raise: its first view): set a property of the view first (e.g. run=NAME, "
        "source=run, layer=2; launch: kind=text, recipe=TITLE)",
        "KEY=VALUE"};
    QCommandLineOption raise{QStringLiteral("raise"),
                             "With --screenshot: bring these views to the front of their tabs (e.g. runs)",
                             "NAME"};
    QCommandLineOption presenter{
        QStringLiteral("presenter"),
        "Open in presenter mode: the welcome story full screen in large type (Right/Left step, Esc returns "
        "to the workbench); with --screenshot, a picture of it (--set step=1..4)"};

    QList<QCommandLineOption> all() const {
        return {runs_dir, screenshot, view, size, theme, set, raise, presenter};
    }
};

// What --screenshot asked for, once checked.
struct Shot {
    QString file;
    int width = 0, height = 0;
    bool presenter = false;
    QWidget* shown = nullptr;   // the view (or presenter mode) to shoot; null: the whole window
    QWidget* set_on = nullptr;  // the view --set sets: the one shot, or the first raised in a window picture
    QList<std::pair<QByteArray, QString>> settings;  // --set, applied once the store is read
};

int run_interactive(QApplication& app, const QCommandLineParser& parser, const CommandLine& cli,
                    const fone::gui::WorkbenchOptions& options) {
    if (parser.isSet(cli.view)) return fail("--view needs --screenshot FILE.png");
    if (parser.isSet(cli.set)) return fail("--set needs --screenshot FILE.png and --view NAME");
    if (parser.isSet(cli.raise)) return fail("--raise needs --screenshot FILE.png");
    fone::gui::WorkbenchWindow window(options);
    window.show();
    if (parser.isSet(cli.presenter) && !window.set_presenting(true))
        return fail("this build has no presenter mode (it needs the analysis views)");
    // Runs someone sent (a .fonerun opened from the file manager): unpacked into the store, checked.
    for (const QString& file : parser.positionalArguments())
        window.run_actions()->open_pack(file);
    return app.exec();
}

// Whether what is being shot is still computing (a child process, a worker): the view asked for, or (the
// whole window) every view in sight.
bool still_busy(const fone::gui::WorkbenchWindow& window, QWidget* shown) {
    if (shown) return shown->property("busy").toBool();
    bool busy = false;
    for (const QString& name : window.view_names())
        if (QWidget* w = window.view(name); w && w->isVisible() && w->property("busy").toBool()) busy = true;
    return busy;
}

// Through a temporary file renamed into place, so that a failed write leaves no half-written PNG behind.
bool save_png(const QPixmap& pixmap, const QString& file) {
    const QString tmp = QFileInfo(file).absolutePath() + "/." + QFileInfo(file).fileName() + ".tmp.png";
    if (!pixmap.isNull() && pixmap.save(tmp, "PNG") &&
        std::rename(tmp.toLocal8Bit().constData(),
                    QFileInfo(file).absoluteFilePath().toLocal8Bit().constData()) == 0)
        return true;
    QFile::remove(tmp);
    return false;
}

// Once the store is read and the view has settled, grabs the picture, writes it and quits; the exit status.
int shoot_when_ready(QApplication& app, fone::gui::WorkbenchWindow& window, const Shot& shot) {
    int status = 0, resizes = 0;
    auto grab = [&] {
        // Running and interrupted runs first, then a selection whose curves show something.
        window.run_table()->sortByColumn(fone::gui::RunTableModel::kStatus, Qt::DescendingOrder);
        window.select_example_runs(6);
        for (const auto& [key, value] : shot.settings)
            shot.set_on->setProperty(key.constData(), value);
        auto* clock = new QElapsedTimer;
        clock->start();
        auto* poll = new QTimer(&app);
        QObject::connect(poll, &QTimer::timeout, &app, [&, poll, clock] {
            if (clock->elapsed() < kSettleMs) return;
            // Presenter mode opened full screen; a platform may put back its full-screen geometry after
            // our resize (offscreen at QT_SCALE_FACTOR=2 did, clamped to its screen): the asked size again.
            if (shot.presenter && shot.shown->size() != QSize(shot.width, shot.height) && resizes++ < 5) {
                shot.shown->resize(shot.width, shot.height);
                clock->restart();
                return;
            }
            if (still_busy(window, shot.shown) && clock->elapsed() < kBusyLimitMs) return;
            poll->stop();
            delete clock;
            QTimer::singleShot(
                !shot.shown || shot.shown->metaObject()->indexOfProperty("busy") >= 0 ? kSettleMs / 2 : 0,
                &app, [&] {
                    const QPixmap pixmap = shot.presenter ? shot.shown->grab() : window.grab();
                    if (!save_png(pixmap, shot.file)) status = fail("cannot write " + shot.file);
                    app.quit();
                });
        });
        poll->start(50);
    };
    if (window.catalog()->is_loaded())
        grab();
    else
        QObject::connect(window.catalog(), &fone::gui::RunCatalog::loaded, &app, grab);
    app.exec();
    return status;
}

int run_screenshot(QApplication& app, const QCommandLineParser& parser, const CommandLine& cli,
                   fone::gui::WorkbenchOptions options) {
    Shot shot;
    shot.file = parser.value(cli.screenshot);
    shot.presenter = parser.isSet(cli.presenter);
    if (shot.presenter && parser.isSet(cli.view)) return fail("--presenter and --view: choose one");

    if (QFileInfo(shot.file).suffix().toLower() != "png")
        return fail("--screenshot writes a .png file, not '" + shot.file + "'");
    const QStringList wh = parser.value(cli.size).split('x');
    shot.width = wh.value(0).toInt();
    shot.height = wh.value(1).toInt();
    if (wh.size() != 2 || shot.width < 200 || shot.height < 150 || shot.width > 8000 || shot.height > 8000)
        return fail("--size takes WIDTHxHEIGHT, e.g. 1400x900");
    options.use_settings = false;  // the same picture on every machine
    fone::gui::WorkbenchWindow window(options);
    window.lay_out_for({shot.width, shot.height});  // the default layout of a window of that size
    const QString view = parser.value(cli.view);
    if (parser.isSet(cli.view) && !window.show_only_view(view))
        return fail("no view '" + view + "' (views: " + window.view_names().join(", ") + ")");
    for (const QString& name : parser.values(cli.raise))
        if (!window.raise_view(name))
            return fail("no view '" + name + "' (views: " + window.view_names().join(", ") + ")");
    shot.shown = parser.isSet(cli.view) ? window.view(view) : nullptr;
    if (shot.presenter) {
        if (!window.set_presenting(true))
            return fail("this build has no presenter mode (it needs the analysis views)");
        shot.shown = window.presenter();
        shot.shown->showNormal();
        shot.shown->resize(shot.width, shot.height);
    }
    shot.set_on = shot.shown                ? shot.shown
                  : parser.isSet(cli.raise) ? window.view(parser.values(cli.raise).first())
                                            : nullptr;
    if (parser.isSet(cli.set) && !shot.set_on)
        return fail("--set needs --view NAME, --raise NAME (its first view) or --presenter");
    // Properties of the view (Q_PROPERTY), set once the store is read so that run names resolve.
    for (const QString& kv : parser.values(cli.set)) {
        const qsizetype eq = kv.indexOf('=');
        if (eq <= 0) return fail("--set takes KEY=VALUE, not '" + kv + "'");
        const QByteArray key = kv.left(eq).toUtf8();
        if (shot.set_on->metaObject()->indexOfProperty(key.constData()) < 0)
            return fail((shot.presenter
                             ? QString("presenter mode")
                             : "view '" + (view.isEmpty() ? parser.values(cli.raise).first() : view) + "'") +
                        " has no setting '" + QString::fromUtf8(key) + "'");
        shot.settings.push_back({key, kv.mid(eq + 1)});
    }
    window.resize(shot.width, shot.height);
    window.show();
    return shoot_when_ready(app, window, shot);
}

}  // namespace

int main(int argc, char** argv) {
    // The `fone` runs this window starts inherit a yielding OpenMP wait policy (unless the user chose one),
    // so they start with it and need not start themselves again (fone/platform/thread_environment.h).
    fone::prefer_yielding_openmp_wait();
    // A screenshot needs no display: render offscreen unless the caller chose a platform.
    QTemporaryDir screen_dir;  // the screen's description lives until the platform has read it
    if (wants_screenshot(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", screenshot_platform(argc, argv, screen_dir.filePath("screen.json")));
    QApplication app(argc, argv);
    QApplication::setOrganizationName("fone-workbench");
    QApplication::setApplicationName("fone-workbench");
    QApplication::setApplicationVersion(PROJECT_VERSION_TEXT);
#ifdef FONE_WITH_ANALYSIS_VIEWS
    fone::gui::register_analysis_views();
#endif

    QCommandLineParser parser;
    parser.setApplicationDescription("FoNE Workbench: launch, watch and compare training runs");
    parser.addHelpOption();
    parser.addVersionOption();
    const CommandLine cli;
    parser.addOptions(cli.all());
    parser.addPositionalArgument("files", "Runs to open: .fonerun files someone shared (fone runs pack)",
                                 "[FILE.fonerun...]");
    parser.process(app);

    fone::gui::WorkbenchOptions options;
    options.runs_dir = parser.value(cli.runs_dir);
    options.theme = parser.value(cli.theme);
    if (!options.theme.isEmpty() && options.theme != "light" && options.theme != "dark")
        return fail("--theme takes light or dark, not '" + options.theme + "'");
    if (parser.value(cli.screenshot).isEmpty()) return run_interactive(app, parser, cli, options);
    return run_screenshot(app, parser, cli, options);
}
