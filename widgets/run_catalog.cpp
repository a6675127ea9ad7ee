#include "run_catalog.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QSet>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

#include "fone/io/file_read.h"
#include "fone/store/run_lock.h"
#include "fone/store/run_notes.h"
#include "fone/store/run_store.h"

namespace fone::gui {

using nlohmann::json;

namespace {

constexpr int kPollMs = 1000;
constexpr int kScanEveryPolls = 2;  // new run directories: every other poll

double number_or(const json& j, const char* key, double fallback) {
    return json_number(j, key, fallback);
}

QString text_of(const json& v) {
    if (v.is_string()) return QString::fromStdString(v.get<std::string>());
    if (v.is_number_integer()) return QString::number(v.get<long long>());
    if (v.is_number()) return QString::number(v.get<double>());
    return {};
}

double config_number(const json& config, const char* key) {
    const json v = config_value(config, key);
    return v.is_number() ? v.get<double>() : 0.0;
}

QString shape_of(const json& config) {
    const int level = static_cast<int>(config_number(config, "size_level"));
    if (level > 0) return QStringLiteral("level %1").arg(level);
    const json model = config_value(config, "model");
    if (!model.is_object()) return {};
    return QStringLiteral("h%1 L%2").arg(number_or(model, "hidden", 0)).arg(number_or(model, "layers", 0));
}

// What the store says of a run: status, config, summary and status.json's host, pid, step and epoch.
void fill_from_info(RunEntry& e, const RunInfo& info) {
    e.status = QString::fromStdString(info.status);
    e.message = QString::fromStdString(info.message);
    e.config = info.config;
    e.summary = info.summary;
    e.host = text_of(info.last_status.value("host", json()));
    e.pid = static_cast<int>(number_or(info.last_status, "pid", 0));
    e.step = number_or(info.last_status, "step", 0);
    e.epoch = number_or(info.last_status, "epoch", 0);
    // Steps of all steps, as the live progress said it (a stopped run read again showed whole epochs of
    // all epochs instead: 20% where it had said 23%); runs written before status.json had it: epochs.
    e.total_steps = number_or(info.last_status, "total_steps", 0);
    e.tags.clear();
    for (const std::string& t : info.tags)
        e.tags << QString::fromStdString(t);
    e.notes = QString::fromStdString(info.notes);
}

// notes.json's time and size, taken before it is read (as status.json's).
void stamp_notes_file(RunEntry& e) {
    const QFileInfo notes(e.dir + "/" + fone::kNotesFile);
    e.notes_time = notes.exists() ? notes.lastModified() : QDateTime();
    e.notes_size = notes.exists() ? notes.size() : -1;
}

// status.json's time and size, taken before it is read: a write after the stamp is read at the next poll.
void stamp_status_file(RunEntry& e) {
    const QFileInfo status(e.dir + "/" + fone::kStatusFile);
    e.status_time = status.exists() ? status.lastModified() : QDateTime();
    e.status_size = status.exists() ? status.size() : -1;
}

std::vector<RunEntry> read_store(const QString& root) {
    std::vector<RunEntry> out;
    try {
        RunStore store(root.toStdString());
        for (const RunInfo& info : store.list()) {
            RunEntry e;
            e.name = QString::fromStdString(info.name);
            e.dir = QString::fromStdString(info.dir);
            fill_from_info(e, info);
            stamp_notes_file(e);
            // The store read status.json before this stamp: a run that may still change is reread at the
            // first poll (a stamp taken after a write in between would hide that write).
            stamp_status_file(e);
            if (e.status == kStatusRunning || e.status == kStatusInterrupted) e.status_time = QDateTime();
            fill_from_config(e);
            if (e.status == kStatusRunning) read_new_metrics(e);  // its progress and ETA, here in the worker
            out.push_back(std::move(e));
        }
    } catch (const std::exception&) {
        // An unreadable root is an empty store; the status bar names the root.
    }
    return out;
}

// One thread reads metric series, so that a selection of many runs leaves the other core to the window.
QThreadPool* series_pool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool;
        p->setMaxThreadCount(1);
        return p;
    }();
    return pool;
}

}  // namespace

QString store_write_problem(const QString& root) {
    const QString probe = root + "/.fone-workbench-write-test";
    QFile file(probe);
    if (!file.open(QIODevice::WriteOnly)) return "read-only: " + file.errorString();
    file.close();
    file.remove();
    return {};
}

double json_number(const json& j, const char* key, double fallback) {
    if (!j.is_object()) return fallback;
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string json_string(const json& j, const char* key, const std::string& fallback) {
    if (!j.is_object()) return fallback;
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

void fill_from_config(RunEntry& e) {
    const json& c = e.config;
    e.task = text_of(config_value(c, "task"));
    e.method = text_of(config_value(c, "method"));
    e.shape = shape_of(c);
    e.train_size = config_number(c, "train_size");
    e.size_level = config_number(c, "size_level");
    e.seed = config_number(c, "seed");
    e.epochs = config_number(c, "epochs");
    e.lr = config_number(c, "lr");
    e.batch = config_number(c, "batch");
    const json& s = e.summary;
    if (s.is_object() && !s.empty()) {
        e.params = number_or(s, "params", e.params);
        e.best_exact_match = number_or(s, "best_exact_match", e.best_exact_match);
        e.elapsed_seconds = number_or(s, "elapsed_seconds", e.elapsed_seconds);
        e.step = number_or(s, "step", e.step);
        if (const auto f = s.find("final"); f != s.end() && f->is_object()) {
            e.exact_match = number_or(*f, "exact_match", e.exact_match);
            e.digit_accuracy = number_or(*f, "digit_accuracy", e.digit_accuracy);
        }
        if (e.status == "finished") e.total_steps = std::max(e.total_steps, e.step);
    }
}

RunEntry read_run_entry(const QString& dir) {
    RunEntry e;
    e.dir = dir;
    e.name = QFileInfo(dir).fileName();
    stamp_status_file(e);
    stamp_notes_file(e);
    try {
        RunStore store(QFileInfo(dir).absolutePath().toStdString(), false);
        fill_from_info(e, store.info(dir.toStdString()));
    } catch (const std::exception& ex) {
        e.status = kStatusBroken;
        e.message = QString::fromUtf8(ex.what());
    }
    fill_from_config(e);
    return e;
}

void apply_event(RunEntry& e, const json& ev) {
    if (!ev.is_object()) return;
    const std::string kind = json_string(ev, "event");
    const double step = number_or(ev, "step", e.step);
    const double epoch = number_or(ev, "epoch", 0);
    const double time = number_or(ev, "elapsed_seconds", 0);
    if (kind == "progress") {
        e.step = step;
        e.epoch = epoch;
        e.total_steps = number_or(ev, "total_steps", e.total_steps);
        e.elapsed_seconds = time;
        e.eta_seconds = number_or(ev, "eta_seconds", -1);
        const double loss = number_or(ev, "loss", NAN);
        if (e.series_loaded) {
            e.series.loss_step.push_back(step);
            e.series.loss_epoch.push_back(epoch);
            e.series.loss_time.push_back(time);
            e.series.loss.push_back(loss);
        }
    } else if (kind == "eval" && json_string(ev, "split", "test") == "test") {
        e.exact_match = number_or(ev, "exact_match", e.exact_match);
        e.digit_accuracy = number_or(ev, "digit_accuracy", e.digit_accuracy);
        double lowest = NAN;  // the typed suite's lowest shape (a run with --sampling typed)
        if (ev.contains("typed") && ev["typed"].is_object())
            for (const auto& [shape, value] : ev["typed"].items())
                if (value.is_number())
                    lowest = std::isnan(lowest) ? value.get<double>() : std::min(lowest, value.get<double>());
        // The best is counted as the trainer counts it for checkpoint-best and summary.json's
        // best_exact_match: with the typed suite, an evaluation counts its lowest shape when that is lower.
        const double counted = std::isnan(lowest) ? e.exact_match : std::min(e.exact_match, lowest);
        e.best_exact_match = std::max(e.best_exact_match, counted);
        if (e.series_loaded) {
            e.series.eval_step.push_back(step);
            e.series.eval_epoch.push_back(epoch);
            e.series.eval_time.push_back(time);
            e.series.exact_match.push_back(e.exact_match);
            e.series.digit_accuracy.push_back(e.digit_accuracy);
            e.series.typed_lowest.push_back(lowest);
        }
    } else if (kind == "start") {
        e.params = number_or(ev, "params", e.params);
    }
}

int read_new_metrics(RunEntry& e) {
    // A regular file of bounded size only (as the store reads it, fone/io/file_read.h): a metrics.jsonl
    // that is a FIFO or a link to /dev/zero must neither hang the window nor fill its memory.
    const int fd = ::open(QString(e.dir + "/" + fone::kMetricsFile).toLocal8Bit().constData(),
                          O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return 0;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<std::uint64_t>(st.st_size) > fone::kMaxMetricsFileBytes) {
        ::close(fd);
        return 0;
    }
    QFile file;
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return 0;
    }
    if (st.st_size < e.metrics_offset) {  // rewritten (a restarted run): read it again
        e.metrics_offset = 0;
        e.series.clear();
    }
    if (!file.seek(e.metrics_offset)) return 0;
    const QByteArray bytes = file.read(st.st_size - e.metrics_offset);
    qsizetype consumed = 0;
    const int records = apply_metrics_bytes(e, bytes, consumed);
    e.metrics_offset += consumed;
    return records;
}

int apply_metrics_bytes(RunEntry& e, const QByteArray& bytes, qsizetype& consumed) {
    int records = 0;
    qsizetype start = 0;
    for (qsizetype nl = bytes.indexOf('\n'); nl >= 0; nl = bytes.indexOf('\n', start)) {
        const QByteArray line = bytes.mid(start, nl - start);
        start = nl + 1;
        if (line.trimmed().isEmpty()) continue;
        const json ev = json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        // A malformed line, or JSON that is not an event object, is skipped here; `fone runs` reports it.
        if (ev.is_discarded() || !ev.is_object()) continue;
        apply_event(e, ev);
        ++records;
    }
    consumed = start;
    return records;
}

RunCatalog::RunCatalog(QObject* parent) : QObject(parent) {
    timer_.setInterval(kPollMs);
    connect(&timer_, &QTimer::timeout, this, &RunCatalog::poll);
    connect(&watcher_, &QFutureWatcher<std::vector<RunEntry>>::finished, this, &RunCatalog::on_loaded);
}

RunCatalog::~RunCatalog() {
    watcher_.waitForFinished();
}

void RunCatalog::open(const QString& root) {
    root_ = QDir(root).absolutePath();
    QDir().mkpath(root_);
    write_problem_ = store_write_problem(root_);
    loaded_ = false;
    watcher_.setFuture(QtConcurrent::run(read_store, root_));
}

void RunCatalog::on_loaded() {
    std::vector<RunEntry> read = watcher_.result();
    for (RunEntry& e : read) {
        if (row_of(e.name) >= 0) continue;  // a job bound while the store was being read
        insert_entry(std::move(e));
    }
    loaded_ = true;
    timer_.start();
    Q_EMIT loaded();
}

void RunCatalog::insert_entry(RunEntry entry) {
    const int row = size();
    Q_EMIT rowsAboutToBeInserted(row, row);
    if (!entry.name.isEmpty()) row_by_name_.insert(entry.name, row);
    runs_.push_back(std::move(entry));
    Q_EMIT rowsInserted(row, row);
}

int RunCatalog::row_of(const QString& name) const {
    return row_by_name_.value(name, -1);
}

int RunCatalog::row_of_job(int job_id) const {
    for (int r = size() - 1; r >= 0; --r)
        if (at(r).job_id == job_id) return r;
    return -1;
}

void RunCatalog::ensure_series(int row) {
    RunEntry& e = runs_[static_cast<std::size_t>(row)];
    if (e.series_loaded || e.series_loading || e.dir.isEmpty()) return;
    e.series_loading = true;
    // Read off the GUI thread (a run of 5,000 lines takes tens of ms); the views get seriesChanged.
    const QString dir = e.dir;
    QtConcurrent::run(series_pool(), [dir] {
        RunEntry snapshot;
        snapshot.dir = dir;
        snapshot.series_loaded = true;
        read_new_metrics(snapshot);
        return snapshot;
    }).then(this, [this, row](RunEntry snapshot) {
        // Always later, never inside ensure_series (a future that is already done runs this at once).
        QTimer::singleShot(0, this, [this, row, snapshot = std::move(snapshot)]() mutable {
            on_series_read(row, std::move(snapshot));
        });
    });
}

void RunCatalog::on_series_read(int row, RunEntry snapshot) {
    RunEntry& e = runs_[static_cast<std::size_t>(row)];
    e.series = std::move(snapshot.series);
    // Lines the poll read meanwhile (past the snapshot) are read again from here and appended.
    e.metrics_offset = snapshot.metrics_offset;
    e.series_loaded = true;
    e.series_loading = false;
    if (e.status != "finished" && e.status != "stopped") {  // else the summary's figures stay authoritative
        e.step = std::max(e.step, snapshot.step);
        e.total_steps = std::max(e.total_steps, snapshot.total_steps);
        e.eta_seconds = snapshot.eta_seconds;
        e.elapsed_seconds = std::max(e.elapsed_seconds, snapshot.elapsed_seconds);
        if (snapshot.exact_match >= 0) e.exact_match = snapshot.exact_match;
        if (snapshot.digit_accuracy >= 0) e.digit_accuracy = snapshot.digit_accuracy;
    }
    e.best_exact_match = std::max(e.best_exact_match, snapshot.best_exact_match);
    Q_EMIT seriesChanged(row);
    Q_EMIT rowChanged(row);
}

bool RunCatalog::notes_file_changed(const RunEntry& e) const {
    const QFileInfo notes(e.dir + "/" + fone::kNotesFile);
    const bool exists = notes.exists();
    return (exists ? notes.lastModified() : QDateTime()) != e.notes_time ||
           (exists ? notes.size() : -1) != e.notes_size;
}

void RunCatalog::reload_notes(int row) {
    if (row < 0 || row >= size()) return;
    RunEntry& e = runs_[static_cast<std::size_t>(row)];
    if (e.dir.isEmpty()) return;
    stamp_notes_file(e);
    e.tags.clear();
    e.notes.clear();
    try {
        const RunNotes n = read_run_notes(e.dir.toStdString());
        for (const std::string& t : n.tags)
            e.tags << QString::fromStdString(t);
        e.notes = QString::fromStdString(n.text);
    } catch (const std::exception&) {
        // A damaged notes.json lists as none; the notes pane says why when the run is selected.
    }
    Q_EMIT rowChanged(row);
}

void RunCatalog::rescan() {
    retire_deleted_runs();
    scan_for_new_runs();
}

bool RunCatalog::status_file_changed(const RunEntry& e) const {
    const QFileInfo status(e.dir + "/" + fone::kStatusFile);
    const bool exists = status.exists();
    return (exists ? status.lastModified() : QDateTime()) != e.status_time ||
           (exists ? status.size() : -1) != e.status_size;
}

void RunCatalog::refresh_row(int row) {
    RunEntry& e = runs_[static_cast<std::size_t>(row)];
    if (e.dir.isEmpty() || e.status == kRetired) return;
    // The run's files are reread only when status.json changed or its process is gone (a stat, and for a
    // running run a look at its lock, not three JSON files, per run and poll).
    // The run's lock says whether its process lives (the same rule as the store's: a pid may be reused).
    const bool gone =
        e.status == "running" && !run_process_alive(e.dir.toStdString(), e.pid, e.host.toStdString());
    bool changed_status = false;
    if (status_file_changed(e) || gone) {
        const int job = e.job_id;
        RunEntry fresh = read_run_entry(e.dir);
        changed_status = fresh.status != e.status;
        e.status = fresh.status;
        e.message = fresh.message;
        e.summary = fresh.summary;
        e.config = fresh.config;
        e.pid = fresh.pid;
        e.host = fresh.host;
        e.status_time = fresh.status_time;
        e.status_size = fresh.status_size;
        e.job_id = job;
        if (e.status != "running") e.eta_seconds = -1;
        fill_from_config(e);
    }
    // Notes and tags written elsewhere (`fone runs note | tag` in a terminal): a stat per poll.
    if (notes_file_changed(e)) reload_notes(row);
    // Metrics grow while a run trains; its last lines may land just before its status turns.
    const int records = e.status == "running" || changed_status ? read_new_metrics(e) : 0;
    if (records > 0 && e.series_loaded) Q_EMIT seriesChanged(row);
    if (records > 0 || changed_status) Q_EMIT rowChanged(row);
}

void RunCatalog::poll() {
    // Every run, not only the running ones: a stat of status.json each (2,000 runs: a few ms).
    for (int r = 0; r < size(); ++r)
        refresh_row(r);
    if (--scan_countdown_ <= 0) {
        scan_countdown_ = kScanEveryPolls;
        retire_deleted_runs();
        scan_for_new_runs();
    }
}

void RunCatalog::scan_for_new_runs() {
    const QStringList dirs = QDir(root_).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& name : dirs) {
        if (name.startsWith('.') || row_of(name) >= 0) continue;
        if (!QFileInfo::exists(root_ + "/" + name + "/" + fone::kConfigFile)) continue;
        insert_entry(read_run_entry(root_ + "/" + name));
    }
}

void RunCatalog::retire_deleted_runs() {
    for (int r = 0; r < size(); ++r) {
        RunEntry& e = runs_[static_cast<std::size_t>(r)];
        if (e.dir.isEmpty() || e.status == kRetired || QFileInfo::exists(e.dir)) continue;
        // Its folder is gone (deleted here or elsewhere): its row goes, and a new run of that name is new.
        row_by_name_.remove(e.name);
        e.status = kRetired;
        e.job_id = 0;
        Q_EMIT rowChanged(r);
    }
}

void RunCatalog::remove_row(int row) {
    if (row < 0 || row >= size()) return;
    RunEntry& e = runs_[static_cast<std::size_t>(row)];
    if (e.status == kRetired || (e.is_active() && e.job_id == 0 && !e.dir.isEmpty())) return;
    e.status = kRetired;  // its name stays known, so the scan does not bring the run back
    e.job_id = 0;
    Q_EMIT rowChanged(row);
}

QString RunCatalog::delete_run(int row) {
    if (row < 0 || row >= size()) return QStringLiteral("no such row");
    RunEntry& e = runs_[static_cast<std::size_t>(row)];
    if (e.is_active()) return e.display_name() + " is training: stop it first";
    if (!e.dir.isEmpty()) {
        // Only a folder of this store, never a path a file could point elsewhere.
        const QFileInfo dir(e.dir);
        if (dir.isSymLink() || QDir(dir.absolutePath()).canonicalPath() != QDir(root_).canonicalPath())
            return e.dir + " is not a folder of the open store";
        if (!QDir(e.dir).removeRecursively()) return "could not delete every file of " + e.dir;
        row_by_name_.remove(e.name);
    }
    e.status = kRetired;
    e.job_id = 0;
    Q_EMIT rowChanged(row);
    return {};
}

int RunCatalog::store_run_count() const {
    int n = 0;
    for (const RunEntry& e : runs_)
        n += !e.dir.isEmpty() && e.status != kRetired;
    return n;
}

void RunCatalog::set_selected(const QStringList& names) {
    if (colours_.follow(names)) Q_EMIT coloursChanged();
}

int RunCatalog::add_job(int job_id, const QString& label) {
    RunEntry e;
    e.job_id = job_id;
    e.label = label;
    e.status = "queued";
    insert_entry(std::move(e));
    return size() - 1;
}

void RunCatalog::set_job_status(int job_id, const QString& status, const QString& message) {
    const int row = row_of_job(job_id);
    if (row < 0) return;
    RunEntry& e = runs_[static_cast<std::size_t>(row)];
    e.status = status;
    if (!message.isEmpty()) e.message = message;
    Q_EMIT rowChanged(row);
}

void RunCatalog::bind_job(int job_id, const QString& run_dir) {
    const int job_row = row_of_job(job_id);
    const QString name = QFileInfo(run_dir).fileName();
    const int store_row = row_of(name);
    if (store_row >= 0 && store_row != job_row) {
        // The scan found the run first: one row per run. The job's row is retired, not removed, so that row
        // numbers held by views never shift.
        runs_[static_cast<std::size_t>(store_row)].job_id = job_id;
        if (job_row >= 0 && at(job_row).name.isEmpty()) {
            RunEntry& retired = runs_[static_cast<std::size_t>(job_row)];
            retired.job_id = 0;
            retired.status = kRetired;
            Q_EMIT rowChanged(job_row);
        }
        refresh_row(store_row);
        Q_EMIT rowChanged(store_row);
        return;
    }
    if (job_row < 0) return;
    RunEntry fresh = read_run_entry(run_dir);
    fresh.job_id = job_id;
    runs_[static_cast<std::size_t>(job_row)] = std::move(fresh);
    row_by_name_.insert(name, job_row);
    Q_EMIT rowChanged(job_row);
}

void RunCatalog::job_event(int job_id, const json& event) {
    const int row = row_of_job(job_id);
    if (row < 0) return;
    RunEntry& e = runs_[static_cast<std::size_t>(row)];
    if (!e.dir.isEmpty()) return;  // bound runs follow their files (one source of truth)
    apply_event(e, event);
    Q_EMIT rowChanged(row);
}

void RunCatalog::finish_job(int job_id, const QString& status, const QString& message) {
    const int row = row_of_job(job_id);
    if (row < 0) return;
    RunEntry& e = runs_[static_cast<std::size_t>(row)];
    e.job_id = 0;
    if (!e.dir.isEmpty()) {
        refresh_row(row);
        // A child that died without ending its run leaves "running" behind; what the process said wins.
        if (e.status == "running" || e.status == "interrupted") e.status = status;
        if (!message.isEmpty() && status == "failed")
            e.message = e.message.isEmpty() ? message : e.message + "\n" + message;
    } else {
        e.status = status;
        e.message = message;
    }
    Q_EMIT rowChanged(row);
}

QString format_count(double n) {
    if (n <= 0) return {};
    if (n >= 1e6) return QString::number(n / 1e6, 'f', n >= 1e8 ? 0 : 2) + "M";
    return QLocale(QLocale::English).toString(static_cast<qlonglong>(std::llround(n)));
}

QString format_seconds(double s) {
    if (s < 0 || !std::isfinite(s)) return {};
    const long long t = std::llround(s);
    if (t < 60) return QStringLiteral("%1 s").arg(t);
    const QString ms = QStringLiteral("%1:%2").arg((t / 60) % 60).arg(t % 60, 2, 10, QChar('0'));
    if (t < 3600) return ms;
    return QStringLiteral("%1:%2:%3")
        .arg(t / 3600)
        .arg((t / 60) % 60, 2, 10, QChar('0'))
        .arg(t % 60, 2, 10, QChar('0'));
}

QString format_percent(double f) {
    if (f < 0 || !std::isfinite(f)) return {};
    return QString::number(100.0 * f, 'f', 2) + "%";
}

}  // namespace fone::gui
