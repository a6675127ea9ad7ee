#include "fone_call.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <algorithm>

namespace fone::gui {

using nlohmann::json;

QString default_fone_program() {
    const QString env = qEnvironmentVariable("FONE_CLI");
    if (!env.isEmpty()) return env;
    return QCoreApplication::applicationDirPath() + "/fone";
}

FoneCall::FoneCall(QString program, QObject* parent) : QObject(parent), program_(std::move(program)) {}

FoneCall::~FoneCall() {
    stop_process();
}

void FoneCall::stop_process() {
    ++generation_;
    if (timer_) {
        timer_->stop();
        timer_->deleteLater();
        timer_ = nullptr;
    }
    if (!process_) return;
    QProcess* p = process_;
    process_ = nullptr;
    p->disconnect(this);
    if (p->state() != QProcess::NotRunning) {
        p->kill();
        p->waitForFinished(2000);
    }
    p->deleteLater();
}

void FoneCall::cancel() {
    stop_process();
}

void FoneCall::start(const QStringList& args) {
    stop_process();
    const int generation = generation_;
    command_ = QFileInfo(program_).fileName() + " " + args.join(' ');
    process_ = new QProcess(this);
    process_->setProgram(program_);
    process_->setArguments(args);
    connect(process_, &QProcess::finished, this, [this, generation](int code, QProcess::ExitStatus status) {
        if (generation == generation_) finish(code, status);
    });
    connect(process_, &QProcess::errorOccurred, this, [this, generation](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart || generation != generation_) return;
        const QString why = process_->errorString();
        stop_process();
        Q_EMIT failed("cannot start " + program_ + " (" + why +
                      "): set FONE_CLI to the fone program, or put fone next to fone-workbench");
    });
    timer_ = new QTimer(this);
    timer_->setSingleShot(true);
    connect(timer_, &QTimer::timeout, this, [this, generation] {
        if (generation != generation_) return;
        stop_process();
        Q_EMIT failed(
            QStringLiteral("%1 took longer than %2 s and was stopped").arg(command_).arg(timeout_ms_ / 1000));
    });
    timer_->start(timeout_ms_);
    process_->start();
}

void FoneCall::finish(int exit_code, QProcess::ExitStatus status) {
    const QByteArray out = process_->readAllStandardOutput();
    const QByteArray err = process_->readAllStandardError();
    stop_process();
    json result;
    for (const QByteArray& line : out.split('\n')) {
        const json j = json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        if (!j.is_discarded() && j.is_object()) result = j;
    }
    if (status == QProcess::NormalExit && exit_code == 0 && result.is_object()) {
        Q_EMIT succeeded(result);
        return;
    }
    // The child's own message: "fone predict: error: ..." lines, without the prefix.
    QStringList messages;
    for (const QString& line : QString::fromUtf8(err).split('\n', Qt::SkipEmptyParts)) {
        const QString text = line.section('\r', -1).trimmed();
        const int at = text.indexOf(": error: ");
        if (at >= 0) messages << text.mid(at + 9);
    }
    if (messages.isEmpty()) {
        QStringList tail = QString::fromUtf8(err).split('\n', Qt::SkipEmptyParts);
        tail = tail.mid(std::max<qsizetype>(0, tail.size() - 4));
        messages << tail.join('\n').trimmed();
    }
    QString how = status == QProcess::CrashExit ? QStringLiteral("crashed")
                  : exit_code != 0              ? QStringLiteral("failed (exit status %1)").arg(exit_code)
                                                : QStringLiteral("gave no JSON answer");
    messages.removeAll(QString());
    Q_EMIT failed(messages.isEmpty() ? command_.section(' ', 0, 1) + " " + how : messages.join('\n'));
}

}  // namespace fone::gui
