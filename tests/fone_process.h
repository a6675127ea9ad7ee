// Test support: run the built `fone` as a user does and read its JSON lines and files. Header-only, shared
// by the tests that drive the command line (test_cli, test_engine, test_sweep, test_text_train).
#pragma once

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QStringList>

namespace fone_test {

struct Result {
    int code = -1;  // -1: crashed, -2: timed out (and killed)
    QByteArray out, err;
};

// env: "NAME=VALUE" entries over this process's environment ("NAME=" removes NAME).
inline Result run_fone(const QStringList& args, const QByteArray& input = {}, int timeout_ms = 300000,
                       const QStringList& env = {}) {
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const QString& kv : env) {
        const QString name = kv.section('=', 0, 0), value = kv.section('=', 1);
        if (value.isEmpty())
            e.remove(name);
        else
            e.insert(name, value);
    }
    p.setProcessEnvironment(e);
    p.start(QStringLiteral(FONE_BIN_DIR "/fone"), args);
    p.waitForStarted();
    if (!input.isEmpty()) p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(timeout_ms)) {
        p.kill();
        p.waitForFinished();
        return {-2, p.readAllStandardOutput(), p.readAllStandardError()};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

// One object per non-blank line.
inline QList<QJsonObject> json_lines(const QByteArray& out) {
    QList<QJsonObject> objs;
    for (const QByteArray& line : out.split('\n'))
        if (!line.trimmed().isEmpty()) objs << QJsonDocument::fromJson(line).object();
    return objs;
}

// The first JSON line, or an empty object (so that a missing line fails a comparison, not the binary).
inline QJsonObject first_line(const QByteArray& out) {
    const auto lines = json_lines(out);
    return lines.isEmpty() ? QJsonObject() : lines.first();
}

// A JSON file's object (a run's config.json, status.json, ...), or an empty object when it cannot be read.
inline QJsonObject read_json(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

}  // namespace fone_test
