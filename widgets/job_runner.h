// Training runs as child processes (`fone train ... --runs-dir DIR`), never in the window's process: the
// window never waits on training, and a run that crashes takes only its own process down. A queue keeps at
// most max_parallel children at once (single launches and sweep cells share it); with more than one, a run
// that does not choose its threads (--threads, --config) gets its share of the cores (threads_per_run).
//
// Cancel: SIGTERM (the run checkpoints and ends "stopped"), then SIGKILL after a grace period if it has not
// exited. A queued job is simply dropped.
#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>
#include <deque>

#include <nlohmann/json.hpp>

namespace fone::gui {

class JobRunner : public QObject {
    Q_OBJECT
  public:
    // cli: the `fone` executable (see default_cli_path); runs_dir: the store every child writes to.
    JobRunner(QString cli, QString runs_dir, QObject* parent = nullptr);
    ~JobRunner() override;  // stops every child (terminate, then kill) before returning

    // $FONE_CLI, else the `fone` next to this executable.
    static QString default_cli_path();

    // Queues `fone train <train_args> --runs-dir DIR`; returns the job id (> 0).
    int enqueue(const QStringList& train_args, const QString& label);
    // Queues `fone train --resume RUN_DIR --runs-dir DIR [--threads N]`.
    int enqueue_resume(const QString& run_dir, int threads = 0);
    void cancel(int job_id);
    void cancel_all();

    void set_max_parallel(int n);
    int max_parallel() const { return max_parallel_; }
    void set_grace_ms(int ms) { grace_ms_ = ms; }
    // A child with no output at all (stdout or stderr) for this long is stopped and reported failed
    // ("hung"); 0 turns the watchdog off. Default 15 minutes (`fone train` prints progress every 0.5 s).
    void set_stall_timeout_ms(int ms) { stall_ms_ = ms; }
    int running_count() const;
    int queued_count() const { return static_cast<int>(queue_.size()); }
    const QString& cli() const { return cli_; }
    const QString& runs_dir() const { return runs_dir_; }

  Q_SIGNALS:
    void jobQueued(int job_id, const QString& label);
    void jobStarted(int job_id);
    void runCreated(int job_id, const QString& run_dir);  // the child's "start" event
    void jobEvent(int job_id, const nlohmann::json& event);
    // status: finished / stopped / failed / cancelled (dropped from the queue); message: the run's own
    // message, or the tail of the child's stderr when it failed.
    void jobFinished(int job_id, const QString& status, const QString& message);
    void countsChanged();

  private:
    struct Job {
        int id = 0;
        QStringList args;
        QString label;
        QProcess* process = nullptr;
        QByteArray stdout_buffer, stderr_tail;
        nlohmann::json end_event;
        bool cancel_requested = false;
        bool stalled = false;       // stopped by the watchdog
        QElapsedTimer last_output;  // since the child last wrote anything
    };
    void check_stalls();
    void start_next();
    void start(Job& job);
    void read_stdout(int job_id);
    void read_stderr(int job_id);
    void on_finished(int job_id, int exit_code, QProcess::ExitStatus exit_status);
    QString stderr_tail(const Job& job) const;

    QString cli_, runs_dir_;
    int max_parallel_ = 1;
    int grace_ms_ = 10000;
    int stall_ms_;
    QTimer watchdog_;
    int next_id_ = 1;
    std::deque<int> queue_;
    QHash<int, Job> jobs_;
};

}  // namespace fone::gui
