// Listing a run store of 2,000 runs, 100 of them damaged (tests/reliability/store_fixture.h): the run
// store's list() (what `fone runs list` and the workbench's first read do), the `fone runs list` command
// as a user runs it, and the workbench catalog's load (off the GUI thread) to its loaded() signal.
// Median and range of 5 repetitions, with a warm page cache (the first, cold read is printed apart).
//   build/bin/bench_store [RUNS]
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "fone/store/run_store.h"
#include "run_catalog.h"
#include "store_fixture.h"

namespace {

struct Stats {
    double median, min, max;
};

Stats stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
}

void print(const char* what, const Stats& s) {
    std::printf("%-44s median %8.1f ms  (min %.1f, max %.1f)\n", what, s.median, s.min, s.max);
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int runs = argc > 1 ? std::atoi(argv[1]) : 2000;
    QTemporaryDir dir;
    const std::string root = (dir.path() + "/runs").toStdString();
    QElapsedTimer t;
    t.start();
    const auto damaged = fone_test::make_store(root, runs);
    std::printf("store: %d runs, %zu damaged, written in %lld ms\n", runs, damaged.size(), t.elapsed());

    std::vector<double> list_ms, cli_ms, catalog_ms;
    std::size_t broken = 0;
    for (int rep = 0; rep < 6; ++rep) {
        t.restart();
        const auto infos = fone::RunStore(root, false).list();
        const double ms = t.nsecsElapsed() / 1e6;
        broken = std::count_if(infos.begin(), infos.end(),
                               [](const fone::RunInfo& i) { return i.status == "broken"; });
        if (rep == 0)
            std::printf("%-44s %8.1f ms (first read)\n", "RunStore::list()", ms);
        else
            list_ms.push_back(ms);
    }
    print("RunStore::list()", stats(list_ms));
    const QString fone = QCoreApplication::applicationDirPath() + "/fone";
    for (int rep = 0; rep < 5; ++rep) {
        QProcess p;
        t.restart();
        p.start(fone, {"runs", "list", "--runs-dir", QString::fromStdString(root)});
        p.waitForFinished(120000);
        cli_ms.push_back(t.nsecsElapsed() / 1e6);
        if (p.exitCode() != 0) {
            std::fprintf(stderr, "fone runs list failed: %s\n", p.readAllStandardError().constData());
            return 1;
        }
    }
    print("fone runs list (process, table)", stats(cli_ms));
    for (int rep = 0; rep < 5; ++rep) {
        fone::gui::RunCatalog catalog;
        QSignalSpy loaded(&catalog, &fone::gui::RunCatalog::loaded);
        t.restart();
        catalog.open(QString::fromStdString(root));
        if (!loaded.wait(120000)) return 1;
        catalog_ms.push_back(t.nsecsElapsed() / 1e6);
    }
    print("workbench RunCatalog::open() to loaded()", stats(catalog_ms));
    std::printf("broken runs listed: %zu (with the file and the reason in their message)\n", broken);
    return 0;
}
