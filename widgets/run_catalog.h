// The workbench's view of the run store: every run's settings, state and summary, and (loaded only when a
// view asks) its metric series. The store is read off the GUI thread when the window opens; afterwards a
// timer follows the runs that are training (status.json, new lines of metrics.jsonl) and picks up new run
// directories, so runs started elsewhere (`fone train` in a terminal, `fone sweep`) appear too.
//
// Launches that have not made their run yet (queued, starting, or failed before the run existed) are
// entries too, keyed by job id, so the table shows them and their error.
#pragma once

#include <QDateTime>
#include <QFutureWatcher>
#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QVector>
#include <algorithm>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_colours.h"

namespace fone::gui {

// The status of a launch's row whose run turned up as its own row first (hidden in the table).
inline constexpr const char* kRetired = "retired";

// The metric series of one run, in file order (steps only grow, so every series is sorted by step).
struct RunSeries {
    // progress events
    QVector<double> loss_step, loss_epoch, loss_time, loss;
    // eval events of the test split
    QVector<double> eval_step, eval_epoch, eval_time, exact_match, digit_accuracy;
    // The typed suite's lowest shape (fone/tasks/typed_sums.h); NaN for events without one.
    QVector<double> typed_lowest;
    void clear() { *this = RunSeries(); }
};

struct RunEntry {
    QString name;  // run directory name; "" for a launch that has not made its run
    QString dir;
    QString status;  // running, finished, stopped, failed, interrupted, broken, queued, starting
    QString message;
    QString host;
    int pid = 0;
    QDateTime status_time;    // status.json's modification time when last read (invalid: none)
    qint64 status_size = -1;  // and its size: two writes in one millisecond still differ in size
    int job_id = 0;           // the workbench job training it (0: none)
    QString label;            // for a job without a run yet: what it will train

    QStringList tags;      // notes.json's tags (fone/store/run_notes.h)
    QString notes;         // and its text
    QDateTime notes_time;  // notes.json's modification time when last read (invalid: none)
    qint64 notes_size = -1;

    nlohmann::json config;        // config.json
    nlohmann::json summary;       // summary.json ({} until it ends)
    QString task, method, shape;  // shape: "level 3" or "h128 L2"
    double train_size = 0, size_level = 0, seed = 0, epochs = 0, lr = 0, batch = 0;
    double params = 0;  // from summary or the start event (0: unknown)

    // Progress: from status.json, the last progress event, or the summary.
    double step = 0, total_steps = 0, epoch = 0, elapsed_seconds = 0, eta_seconds = -1;
    double exact_match = -1, best_exact_match = -1, digit_accuracy = -1;  // -1: none yet

    RunSeries series;
    bool series_loaded = false;
    bool series_loading = false;  // being read in a worker thread
    qint64 metrics_offset = 0;    // bytes of metrics.jsonl already read

    // Steps done of all steps; before any progress line is read, epochs done (status.json) of all epochs;
    // 1 for a finished run (one that reached its target exact match early is done too: "finished · 65%"
    // read as a run still missing a third); -1 for a broken run (its files cannot be trusted to say).
    double progress() const {
        if (status == "broken") return -1;
        if (status == "finished") return 1;
        if (total_steps > 0) return step / total_steps;
        return epochs > 0 ? std::min(1.0, epoch / epochs) : 0;
    }
    bool can_resume() const { return status == "interrupted" || status == "stopped"; }
    bool is_active() const { return status == "running" || status == "queued" || status == "starting"; }
    QString display_name() const { return name.isEmpty() ? label : name; }
};

// Reads a run's directory (config, status, summary) into an entry. Never throws: a broken run is an entry
// with status "broken" and the reason.
RunEntry read_run_entry(const QString& dir);
// Fills the derived columns (task, method, shape, sizes, summary figures) from entry.config/summary.
void fill_from_config(RunEntry& entry);
// Reads new complete lines of metrics.jsonl from entry.metrics_offset on (a cut-short last line waits for
// the next call). Returns the number of new records.
int read_new_metrics(RunEntry& entry);
// The same for bytes already read: applies every complete line, sets consumed to the bytes used (up to
// and including the last newline). The metrics fuzzer's entry point for the workbench side.
int apply_metrics_bytes(RunEntry& entry, const QByteArray& bytes, qsizetype& consumed);
// Applies one progress/eval event (from metrics.jsonl or a child's stdout) to the entry and its series.
void apply_event(RunEntry& entry, const nlohmann::json& event);

class RunCatalog : public QObject {
    Q_OBJECT
  public:
    explicit RunCatalog(QObject* parent = nullptr);
    ~RunCatalog() override;

    // Reads the store at root in a worker thread; loaded() when done. Creates the root if needed.
    void open(const QString& root);
    const QString& root() const { return root_; }
    bool is_loaded() const { return loaded_; }

    int size() const { return static_cast<int>(runs_.size()); }
    const RunEntry& at(int row) const { return runs_[static_cast<std::size_t>(row)]; }
    int row_of(const QString& name) const;  // -1 if absent
    int row_of_job(int job_id) const;

    // Starts reading the metric series of a run in a worker thread if it is not loaded yet; seriesChanged
    // follows when it is there (later points come by polling).
    void ensure_series(int row);
    // Follows the files of every run: a run whose status.json changed (any run, not only running ones: a
    // run seen before its trainer wrote its first status reads "interrupted" until then), new metrics of
    // running runs, new run directories, and deleted ones (their rows are retired). Called by the timer.
    void poll();
    // Why the store cannot be written to ("read-only: …"), else "". Known once open() is called.
    const QString& write_problem() const { return write_problem_; }
    // Takes a row out of the list (retired: row numbers never shift). A run's folder stays on disk and is
    // not picked up again by the scan while this catalog lives.
    void remove_row(int row);
    // Deletes a run's folder and retires its row; "" on success, else why not (a training run is refused).
    QString delete_run(int row);
    // Rereads a run's notes and tags now (after the notes pane or a menu action wrote them); rowChanged.
    void reload_notes(int row);
    // Looks for new and vanished run folders now, not at the next poll (after a rename, trash or unpack).
    void rescan();
    // Runs of the store shown in the table (retired rows and launches that never made a run left out).
    int store_run_count() const;
    void set_poll_interval_ms(int ms) { timer_.setInterval(ms); }

    // The runs selected in the table (by name): every view colours a run by its slot (run_colours.h).
    // coloursChanged when a slot changed.
    void set_selected(const QStringList& names);
    int colour_slot(const QString& name) const { return colours_.slot(name); }

    // Jobs of the workbench (JobRunner): queued before their run exists, bound to it once it does.
    int add_job(int job_id, const QString& label);
    void set_job_status(int job_id, const QString& status, const QString& message = {});
    void bind_job(int job_id, const QString& run_dir);
    void job_event(int job_id, const nlohmann::json& event);
    void finish_job(int job_id, const QString& status, const QString& message);

  Q_SIGNALS:
    void loaded();
    // Before and after rows are added (an item model forwards them as begin/end pairs). Rows are never
    // removed, so a row number stays valid for the catalog's life.
    void rowsAboutToBeInserted(int first, int last);
    void rowsInserted(int first, int last);
    void rowChanged(int row);
    void seriesChanged(int row);  // new points in a loaded series
    void coloursChanged();

  private:
    void on_loaded();
    void on_series_read(int row, RunEntry snapshot);
    void refresh_row(int row);
    bool status_file_changed(const RunEntry& e) const;
    bool notes_file_changed(const RunEntry& e) const;
    void scan_for_new_runs();
    void retire_deleted_runs();
    void insert_entry(RunEntry entry);

    QString root_;
    QString write_problem_;
    std::vector<RunEntry> runs_;
    QHash<QString, int> row_by_name_;
    RunColours colours_;
    bool loaded_ = false;
    QTimer timer_;
    int scan_countdown_ = 0;
    QFutureWatcher<std::vector<RunEntry>> watcher_;
};

// Reading JSON that a file or a child process gave, without trusting its types: j[key] when j is an object
// and the value has the type asked for, else the fallback (nlohmann's value() throws on a wrong type, and
// an exception out of a Qt slot ends the program).
double json_number(const nlohmann::json& j, const char* key, double fallback);
std::string json_string(const nlohmann::json& j, const char* key, const std::string& fallback = {});

// A store the window cannot write to: why ("read-only: …"), else "".
QString store_write_problem(const QString& root);

// Readable numbers for tables and labels.
QString format_count(double n);    // 51200 -> "51,200", 4720000 -> "4.72M"
QString format_seconds(double s);  // 75 -> "1:15", 3725 -> "1:02:05", -1 -> ""
QString format_percent(double f);  // 0.9925 -> "99.25%", -1 -> ""

}  // namespace fone::gui
