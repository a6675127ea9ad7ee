// Commands that read well as a table print one on a terminal and JSON with --json or when stdout is a pipe
// (issue 28): `fone reproduce --list`, `fone analyse circles`, `fone train --dry-run`. The terminal is a real
// pseudo-terminal (forkpty), as a user's shell gives; the pipe is QProcess's, as a script's.
#include <QDir>
#include <QJsonArray>
#include <QtTest>

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "fone_process.h"

using namespace fone_test;

namespace {

// `fone ARGS` with stdin, stdout and stderr on a pseudo-terminal: its exit code and all it wrote ("\r\n"
// made "\n"; the terminal's line discipline adds the "\r").
Result run_on_terminal(const QStringList& args) {
    std::vector<QByteArray> owned{QByteArray(FONE_BIN_DIR "/fone")};
    for (const QString& a : args)
        owned.push_back(a.toUtf8());
    std::vector<char*> argv;
    for (QByteArray& a : owned)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    int master = -1;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
    if (pid < 0) return {};
    if (pid == 0) {
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    Result r;
    char buffer[4096];
    for (ssize_t n; (n = ::read(master, buffer, sizeof buffer)) > 0;)  // EIO once the child has gone
        r.out.append(buffer, static_cast<int>(n));
    ::close(master);
    int status = 0;
    ::waitpid(pid, &status, 0);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out.replace("\r\n", "\n");
    return r;
}

bool is_json_line(const QByteArray& line) {
    return line.startsWith('{') && !QJsonDocument::fromJson(line).isNull();
}

}  // namespace

class TestTerminalOutput : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() { QVERIFY2(QFile::exists(FONE_BIN_DIR "/fone"), "build the fone target first"); }

    // The experiments, one name and title a line with their presets' run counts; JSON lines otherwise.
    void reproduce_list() {
        const Result piped = run_fone({"reproduce", "--list"});
        QVERIFY2(piped.code == 0, piped.err.constData());
        const QList<QJsonObject> experiments = json_lines(piped.out);
        QVERIFY(experiments.size() >= 6);
        const Result table = run_on_terminal({"reproduce", "--list"});
        QVERIFY2(table.code == 0, table.out.constData());
        QVERIFY2(!is_json_line(table.out.split('\n').first()), table.out.constData());
        for (const QJsonObject& e : experiments) {
            const QString name = e["experiment"].toString(), title = e["title"].toString();
            QVERIFY2(table.out.contains((name + "  ").toUtf8()) && table.out.contains(title.toUtf8()),
                     qPrintable(name));
            const QJsonObject first = e["presets"].toArray().first().toObject();
            const QString preset = first["preset"].toString() + " " + QString::number(first["runs"].toInt()) +
                                   (first["runs"].toInt() == 1 ? " run" : " runs");
            QVERIFY2(table.out.contains(preset.toUtf8()), qPrintable(name + ": " + preset));
        }
        QVERIFY(table.out.contains(QByteArray::number(experiments.size()) + " experiments."));
        // --json on a terminal: the piped lines.
        const Result asked = run_on_terminal({"reproduce", "--list", "--json"});
        QCOMPARE(asked.out, piped.out);
        const Result stray = run_fone({"reproduce", "efficiency", "--json"});
        QCOMPARE(stray.code, 1);
        QVERIFY2(stray.err.contains("--json goes with --list"), stray.err.constData());
    }

    // 4.17 with m = 1, n = 2: periods 0.1, 1, 10 (smallest first); the hands at 4.17 mod T / T turns.
    void analyse_circles() {
        const Result piped = run_fone({"analyse", "circles", "4.17"});
        QVERIFY2(piped.code == 0, piped.err.constData());
        QCOMPARE(first_line(piped.out)["number"].toString(), QString("4.17"));
        const Result table = run_on_terminal({"analyse", "circles", "4.17"});
        QVERIFY2(table.code == 0, table.out.constData());
        const QList<QByteArray> lines = table.out.split('\n');
        QVERIFY2(lines.size() >= 5 && lines[0].startsWith("Unit circles of 4.17 (base 10)"),
                 table.out.constData());
        // x mod 0.1 = 0.07: 0.7 turns, 252°, the hundredths digit 7; x mod 1 = 0.17: 61.2°, the tenths 1;
        // x mod 10 = 4.17: 150.12°, the units 4.
        const QStringList want[] = {
            {"0.1", "0.07", "252.0°", "7"}, {"1", "0.17", "61.2°", "1"}, {"10", "4.17", "150.1°", "4"}};
        for (int i = 0; i < 3; ++i) {
            const QStringList cells = QString::fromUtf8(lines[2 + i]).split(' ', Qt::SkipEmptyParts);
            QCOMPARE(cells, want[i]);
        }
        QCOMPARE(run_on_terminal({"analyse", "circles", "4.17", "--json"}).out.trimmed(),
                 piped.out.trimmed());
    }

    // The dry run's table (the rule these follow) and its JSON.
    void train_dry_run() {
        const Result table = run_on_terminal({"train", "--task", "dec-add", "--dry-run"});
        QVERIFY2(table.code == 0, table.out.constData());
        QVERIFY2(table.out.contains("key  ") && table.out.contains("\nlr ") && !table.out.startsWith("{"),
                 table.out.constData());
        const Result piped = run_fone({"train", "--task", "dec-add", "--dry-run"});
        QVERIFY(first_line(piped.out).contains("config"));
    }
};

QTEST_GUILESS_MAIN(TestTerminalOutput)
#include "test_terminal_output.moc"
