// The sweep designer's time estimate against what the runs then take (issue 42: it said 3:45 for a sweep
// that took 14:24, digit-wise cells scaled from FoNE runs). On a fresh store: one finished run per method
// to go by (the reference runs), then the estimate of every cell of a sweep over training-set sizes and
// methods by the window's own estimator (widgets/sweep_estimate.h, as the Sweep dock and the Launch panel
// say it), then each cell trained as the window's queue trains it (a `fone train` child, one at a time) and
// timed: wall time of the child, and its CPU time (user + sys). Prints the load average before and after:
// the machine is shared, so say it with the figures.
//
//   build/bin/bench_sweep_estimate [--methods fone,digit] [--reference 800] [--sizes 1600,3200,6400]
//                                  [--epochs 2] [--keep DIR]
#include <sys/resource.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <cstdio>

#include "run_catalog.h"
#include "sweep_estimate.h"

namespace {

using nlohmann::json;

QString load_average() {
    QFile f("/proc/loadavg");
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).section(' ', 0, 2) : QString("?");
}

double children_cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

json cell(const QString& method, long long size, int epochs, const QString& name) {
    return {{"task", "dec-add"},  {"method", method.toStdString()},
            {"train_size", size}, {"test_size", 500},
            {"epochs", epochs},   {"threads", 1},
            {"seed", 1},          {"name", name.toStdString()}};
}

// Trains one run as the window's queue does; its wall seconds (and adds its CPU seconds), or -1.
double train(const QString& fone, const QString& store, const json& settings, double* cpu) {
    QStringList args{"train", "--runs-dir", store};
    for (auto it = settings.begin(); it != settings.end(); ++it)
        args << "--" + QString::fromStdString(it.key()).replace('_', '-')
             << QString::fromStdString(it->is_string() ? it->get<std::string>() : it->dump());
    QProcess p;
    p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    const double cpu_before = children_cpu_seconds();
    QElapsedTimer t;
    t.start();
    p.start(fone, args);
    if (!p.waitForFinished(-1) || p.exitCode() != 0) return -1;
    *cpu += children_cpu_seconds() - cpu_before;
    return t.elapsed() / 1000.0;
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOptions({{"methods", "methods", "LIST", "fone,digit"},
                       {"reference", "training-set size of the reference runs", "N", "800"},
                       {"sizes", "the sweep's training-set sizes", "LIST", "1600,3200,6400"},
                       {"epochs", "epochs of every run", "N", "2"},
                       {"keep", "keep the store in DIR", "DIR"}});
    parser.process(app);
    const QString fone = QCoreApplication::applicationDirPath() + "/fone";
    QTemporaryDir tmp;
    const QString store = parser.isSet("keep") ? parser.value("keep") : tmp.path() + "/runs";
    const int epochs = parser.value("epochs").toInt();
    const QStringList methods = parser.value("methods").split(',');
    std::printf("machine: %s; load average before: %s\n", qPrintable(QSysInfo::prettyProductName()),
                qPrintable(load_average()));

    double cpu = 0;
    for (const QString& m : methods) {
        const double s =
            train(fone, store, cell(m, parser.value("reference").toLongLong(), epochs, "ref-" + m), &cpu);
        std::printf("reference run %-8s %s examples: %.1f s\n", qPrintable(m),
                    qPrintable(parser.value("reference")), s);
        if (s < 0) return 1;
    }
    fone::gui::RunCatalog catalog;
    QSignalSpy loaded(&catalog, &fone::gui::RunCatalog::loaded);
    catalog.open(store);
    if (!loaded.wait(60000)) return 1;
    // The catalog reads summaries after the folder list: wait until every reference run shows its summary
    // (an estimate made before that has no run to go by).
    const auto summaries = [&] {
        int n = 0;
        for (int r = 0; r < catalog.size(); ++r)
            n += catalog.at(r).status == "finished" && catalog.at(r).summary.is_object();
        return n;
    };
    QElapsedTimer waited;
    waited.start();
    while (summaries() < methods.size() && waited.elapsed() < 60000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 100);
    if (summaries() < methods.size()) {
        std::printf("the catalog shows %d of %d reference runs finished with a summary\n", summaries(),
                    int(methods.size()));
        return 1;
    }
    fone::gui::RunSpeeds speeds(&catalog);
    speeds.update();

    std::printf("\n%-22s %10s %10s %10s %10s %8s\n", "cell", "estimate", "low", "high", "actual", "act/est");
    double est = 0, low = 0, high = 0, actual = 0, cell_cpu = 0;
    for (const QString& m : methods)
        for (const QString& size : parser.value("sizes").split(',')) {
            const QString name = "sweep-n" + size + "-" + m;
            const json settings = cell(m, size.toLongLong(), epochs, name);
            const fone::gui::CellEstimate e = speeds.estimate(settings);
            if (e.seconds < 0)
                std::printf("%s: no estimate (waiting for %s)\n", qPrintable(name), qPrintable(e.missing));
            const double s = train(fone, store, settings, &cell_cpu);
            if (s < 0) return 1;
            std::printf("%-22s %10.1f %10.1f %10.1f %10.1f %8.2f\n", qPrintable(name), e.seconds, e.low,
                        e.high, s, s / e.seconds);
            est += e.seconds;
            low += e.low;
            high += e.high;
            actual += s;
        }
    std::printf("%-22s %10.1f %10.1f %10.1f %10.1f %8.2f\n", "sweep", est, low, high, actual, actual / est);
    std::printf(
        "\nthe sweep's runs: %.1f s wall, %.1f s CPU (user+sys) of their children; reference runs %.1f s "
        "CPU\n",
        actual, cell_cpu, cpu);
    std::printf("load average after: %s\n", qPrintable(load_average()));
    return 0;
}
