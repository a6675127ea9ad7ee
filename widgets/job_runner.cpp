#include "job_runner.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>

#include "fone/platform/cpu.h"

namespace fone::gui {

using nlohmann::json;

namespace {
constexpr qsizetype kStderrKeep = 8192;
constexpr int kTailLines = 12;
// A child that prints megabytes without a newline is not speaking JSON lines: the line is dropped (its
// start kept for the failure message) rather than held in memory without bound.
constexpr qsizetype kMaxLine = 1 << 20;
constexpr int kDefaultStallMs = 15 * 60 * 1000;  // `fone train` prints progress every 0.5 s

std::string string_field(const json& j, const char* key, const std::string& fallback = {}) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

void keep_tail(QByteArray& tail) {
    if (tail.size() > kStderrKeep) tail = tail.right(kStderrKeep);
}

// Children that each take every core only fight (their OpenMP threads spin while the others hold the
// cores): a run that does not choose its threads gets its share of the cores when several may run at once.
QStringList with_thread_share(QStringList args, int max_parallel) {
    const auto names = [&args](const QString& option) {
        return std::any_of(args.begin(), args.end(),
                           [&](const QString& a) { return a == option || a.startsWith(option + "="); });
    };
    if (max_parallel > 1 && !names("--threads") && !names("--config"))
        args << "--threads" << QString::number(threads_per_run(max_parallel));
    return args;
}
}  // namespace

JobRunner::JobRunner(QString cli, QString runs_dir, QObject* parent)
    : QObject(parent), cli_(std::move(cli)), runs_dir_(std::move(runs_dir)), stall_ms_(kDefaultStallMs) {
    // A hung child (no output at all for stall_ms) is stopped and shown as failed; the queue goes on.
    watchdog_.setInterval(1000);
    connect(&watchdog_, &QTimer::timeout, this, &JobRunner::check_stalls);
    watchdog_.start();
}

void JobRunner::check_stalls() {
    if (stall_ms_ <= 0) return;
    for (Job& job : jobs_) {
        if (!job.process || job.stalled || job.cancel_requested || !job.last_output.isValid()) continue;
        if (job.last_output.elapsed() < stall_ms_) continue;
        job.stalled = true;
        job.stderr_tail += QStringLiteral("no output from the run for %1 s: stopped as hung\n")
                               .arg(stall_ms_ / 1000.0, 0, 'g', 3)
                               .toUtf8();
        QProcess* process = job.process;
        process->terminate();
        QTimer::singleShot(std::min(grace_ms_, 5000), process, [process] {
            if (process->state() != QProcess::NotRunning) process->kill();
        });
    }
}

JobRunner::~JobRunner() {
    // Every child gets SIGTERM at once (each checkpoints, ends "stopped" and can be resumed), then each
    // gets what is left of the grace period before SIGKILL.
    queue_.clear();
    for (Job& job : jobs_)
        if (job.process) {
            job.process->disconnect(this);
            job.process->terminate();
        }
    QElapsedTimer clock;
    clock.start();
    for (Job& job : jobs_)
        if (job.process &&
            !job.process->waitForFinished(std::max<int>(1, grace_ms_ - int(clock.elapsed())))) {
            job.process->kill();
            job.process->waitForFinished(2000);
        }
}

QString JobRunner::default_cli_path() {
    const QString env = qEnvironmentVariable("FONE_CLI");
    if (!env.isEmpty()) return env;
    return QCoreApplication::applicationDirPath() + "/fone";
}

int JobRunner::enqueue(const QStringList& train_args, const QString& label) {
    Job job;
    job.id = next_id_++;
    job.args = QStringList{"train"} + train_args + QStringList{"--runs-dir", runs_dir_};
    job.label = label;
    jobs_.insert(job.id, job);
    queue_.push_back(job.id);
    Q_EMIT jobQueued(job.id, label);
    start_next();
    Q_EMIT countsChanged();
    return job.id;
}

int JobRunner::enqueue_resume(const QString& run_dir, int threads) {
    QStringList args{"--resume", run_dir};
    if (threads > 0) args << "--threads" << QString::number(threads);
    return enqueue(args, "resume " + run_dir.section('/', -1));
}

void JobRunner::set_max_parallel(int n) {
    max_parallel_ = std::max(1, n);
    start_next();
}

int JobRunner::running_count() const {
    int n = 0;
    for (const Job& job : jobs_)
        if (job.process) ++n;
    return n;
}

void JobRunner::start_next() {
    while (!queue_.empty() && running_count() < max_parallel_) {
        const int id = queue_.front();
        queue_.pop_front();
        start(jobs_[id]);
    }
}

void JobRunner::start(Job& job) {
    const int id = job.id;
    job.process = new QProcess(this);
    job.process->setProgram(cli_);
    job.process->setArguments(with_thread_share(job.args, max_parallel_));
    connect(job.process, &QProcess::readyReadStandardOutput, this, [this, id] { read_stdout(id); });
    connect(job.process, &QProcess::readyReadStandardError, this, [this, id] { read_stderr(id); });
    connect(job.process, &QProcess::finished, this,
            [this, id](int code, QProcess::ExitStatus status) { on_finished(id, code, status); });
    connect(job.process, &QProcess::errorOccurred, this, [this, id](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart) return;
        Job& j = jobs_[id];
        j.stderr_tail += ("cannot start " + cli_ + ": " + j.process->errorString()).toUtf8();
        on_finished(id, -1, QProcess::CrashExit);
    });
    job.last_output.start();
    job.process->start();
    Q_EMIT jobStarted(id);
}

void JobRunner::read_stdout(int job_id) {
    auto it = jobs_.find(job_id);
    if (it == jobs_.end() || !it->process) return;
    Job& job = *it;
    const QByteArray bytes = job.process->readAllStandardOutput();
    if (!bytes.isEmpty()) job.last_output.start();
    job.stdout_buffer += bytes;
    qsizetype nl;
    while ((nl = job.stdout_buffer.indexOf('\n')) >= 0) {
        const QByteArray line = job.stdout_buffer.left(nl);
        job.stdout_buffer.remove(0, nl + 1);
        const json ev = json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        // Not an event (garbage, or JSON of another shape): kept for the failure message, never trusted.
        if (ev.is_discarded() || !ev.is_object() || !ev.contains("event") || !ev["event"].is_string()) {
            job.stderr_tail += "stdout: " + line.left(512) + "\n";
            keep_tail(job.stderr_tail);
            continue;
        }
        const std::string kind = ev["event"].get<std::string>();
        if (kind == "start" && ev.contains("dir") && ev["dir"].is_string())
            Q_EMIT runCreated(job_id, QString::fromStdString(ev["dir"].get<std::string>()));
        if (kind == "end") job.end_event = ev;
        Q_EMIT jobEvent(job_id, ev);
        if (!jobs_.contains(job_id)) return;  // a slot may have cancelled it
    }
    if (job.stdout_buffer.size() > kMaxLine) {
        job.stderr_tail += "stdout: " + job.stdout_buffer.left(512) + "... (a line of over 1 MiB, dropped)\n";
        keep_tail(job.stderr_tail);
        job.stdout_buffer.clear();
    }
}

void JobRunner::read_stderr(int job_id) {
    auto it = jobs_.find(job_id);
    if (it == jobs_.end() || !it->process) return;
    Job& job = *it;
    const QByteArray bytes = job.process->readAllStandardError();
    if (!bytes.isEmpty()) job.last_output.start();
    job.stderr_tail += bytes;
    keep_tail(job.stderr_tail);
}

QString JobRunner::stderr_tail(const Job& job) const {
    // Progress bars redraw with \r: keep what was last shown on each line.
    QStringList lines;
    for (const QString& line : QString::fromUtf8(job.stderr_tail).split('\n', Qt::SkipEmptyParts))
        lines << line.section('\r', -1).trimmed();
    lines.removeAll(QString());
    return lines.mid(std::max<qsizetype>(0, lines.size() - kTailLines)).join('\n');
}

void JobRunner::on_finished(int job_id, int exit_code, QProcess::ExitStatus exit_status) {
    auto it = jobs_.find(job_id);
    if (it == jobs_.end() || !it->process) return;
    Job& job = *it;
    read_stdout(job_id);
    read_stderr(job_id);
    QString status, message;
    const std::string end_status = string_field(job.end_event, "status");
    if (job.stalled) {
        status = "failed";
        message = "fone train hung" + (stderr_tail(job).isEmpty() ? QString() : ":\n" + stderr_tail(job));
    } else if (end_status == "finished" || end_status == "stopped" || end_status == "failed") {
        status = QString::fromStdString(end_status);
        message = QString::fromStdString(string_field(job.end_event, "message"));
        // "finished" from a child that then crashed or exited non-zero is not a finished run.
        if (status == "finished" && (exit_status != QProcess::NormalExit || exit_code != 0)) {
            status = "failed";
            message = QStringLiteral("fone train said finished, then %1")
                          .arg(exit_status == QProcess::CrashExit
                                   ? QStringLiteral("crashed")
                                   : QStringLiteral("exited with status %1").arg(exit_code));
        }
        if (status == "failed" && !stderr_tail(job).isEmpty()) message += "\n" + stderr_tail(job);
    } else if (job.cancel_requested) {
        status = "stopped";
        message = exit_status == QProcess::CrashExit ? "killed after the grace period" : "stopped";
    } else {
        status = "failed";
        const QString how = exit_status == QProcess::CrashExit
                                ? QStringLiteral("crashed")
                                : QStringLiteral("exited with status %1").arg(exit_code);
        message = "fone train " + how + (stderr_tail(job).isEmpty() ? QString() : ":\n" + stderr_tail(job));
    }
    job.process->deleteLater();
    jobs_.erase(it);
    Q_EMIT jobFinished(job_id, status, message);
    start_next();
    Q_EMIT countsChanged();
}

void JobRunner::cancel(int job_id) {
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return;
    if (!it->process) {  // still queued
        queue_.erase(std::remove(queue_.begin(), queue_.end(), job_id), queue_.end());
        jobs_.erase(it);
        Q_EMIT jobFinished(job_id, "cancelled", "removed from the queue");
        Q_EMIT countsChanged();
        return;
    }
    it->cancel_requested = true;
    QProcess* process = it->process;
    process->terminate();  // the run checkpoints and ends "stopped"
    QTimer::singleShot(grace_ms_, process, [process] {
        if (process->state() != QProcess::NotRunning) process->kill();
    });
}

void JobRunner::cancel_all() {
    const std::deque<int> queued = queue_;
    for (int id : queued)
        cancel(id);
    for (int id : jobs_.keys())
        cancel(id);
}

}  // namespace fone::gui
