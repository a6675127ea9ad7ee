// The run store: one directory per run, nothing ever lost.
//
//   <root>/<run-name>/config.json    the full config, seed, library versions, git revision (atomic write)
//                     status.json    {"status", "pid", "host", "updated", "message", "step", "epoch"}
//                     metrics.jsonl  one JSON object per line, appended and closed per record (llm.c style)
//                     summary.json   final figures, written at the end (atomic write)
//                     checkpoint-last.safetensors, checkpoint-best.safetensors   (the trainer's, atomic)
//                     train.lock     the lock the process training the run holds (fone/store/run_lock.h)
//                     notes.json     the user's notes and tags (fone/store/run_notes.h; atomic write)
//                     archived.json  what `fone runs archive` removed and when (fone/store/run_manage.h)
//   <root>/.trash/<name>.<stamp>/    runs moved to the trash by `fone runs rm`, restorable
//
// Every file is written to a temporary file in the same directory and renamed, so a crash or kill -9
// leaves either the old or the new file, never half of one. A corrupt file is a RunError that names it.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/io/json_files.h"

namespace fone {

class RunLock;  // fone/store/run_lock.h

// Every error of a run file: the ground floor's FileError (fone/io/json_files.h), named for the store.
using RunError = FileError;

// The states a run can be in. "interrupted" is never written: it is what a "running" run whose process
// is gone (kill -9, power loss) reads as. "broken" is a run directory whose config.json is missing or
// corrupt.
inline constexpr const char* kStatusRunning = "running";
inline constexpr const char* kStatusFinished = "finished";
inline constexpr const char* kStatusStopped = "stopped";
inline constexpr const char* kStatusFailed = "failed";
inline constexpr const char* kStatusInterrupted = "interrupted";
inline constexpr const char* kStatusBroken = "broken";

// The files of a run directory (the layout above). Every reader and writer names them through these.
inline constexpr const char* kConfigFile = "config.json";
inline constexpr const char* kStatusFile = "status.json";
inline constexpr const char* kMetricsFile = "metrics.jsonl";
inline constexpr const char* kSummaryFile = "summary.json";
inline constexpr const char* kLastCheckpoint = "checkpoint-last.safetensors";
inline constexpr const char* kBestCheckpoint = "checkpoint-best.safetensors";
// Checkpoints of older builds: LibTorch archives, which can run code when opened. Never opened, except by
// the explicit conversion `fone runs convert RUN --trust`; a run that has one counts as having a checkpoint
// (it is never deleted as "nothing trained").
inline constexpr const char* kLegacyLastCheckpoint = "checkpoint-last.pt";
inline constexpr const char* kLegacyBestCheckpoint = "checkpoint-best.pt";
// The lock of the process that trains the run (fone/store/run_lock.h).
inline constexpr const char* kLockFile = "train.lock";
// A text run's SentencePiece model, trained on its train split when the run starts.
inline constexpr const char* kTokenizerFile = "tokenizer.model";
// A fone-adapter run's copy of its pretrained folder's config.json and tokenizer files (not the weights,
// which its checkpoints hold): the run answers and exports without the folder.
inline constexpr const char* kPretrainedFilesDir = "pretrained";
// A run trained on several processes (docs/cluster.md): {"gradient_shards": N}, the number of disjoint
// shares each batch's gradient is summed from. A resume keeps it, on any number of processes, so that it
// computes the same sums (absent: 1, the whole batch at once).
inline constexpr const char* kDataParallelFile = "data-parallel.json";
// The user's notes and tags (fone/store/run_notes.h: the one reader and writer). Resume never touches it;
// `fone export` and `fone runs pack` copy it.
inline constexpr const char* kNotesFile = "notes.json";
// Written by `fone runs archive` (fone/store/run_manage.h): when, what it removed, how many bytes it freed.
inline constexpr const char* kArchivedFile = "archived.json";
// The store's trash (fone/store/run_manage.h): a hidden folder, so listings skip it.
inline constexpr const char* kTrashDir = ".trash";

struct MetricsFile {
    std::vector<nlohmann::json> records;
    // The last line had no newline and did not parse: a write cut short by a crash. Tolerated and
    // reported; every complete line before it is kept.
    bool truncated_tail = false;
};
// A malformed complete line (not the cut-short last one) throws RunError naming the file and line number.
// A missing file reads as no records.
MetricsFile read_metrics(const std::string& path);
// The same rules for text already read (path names it in errors); the metrics fuzzer's entry point.
MetricsFile parse_metrics(std::string_view text, const std::string& path);

struct RunInfo {
    std::string name;               // the directory's name
    std::string dir;                // absolute path
    std::string status;             // one of the kStatus* values, "interrupted" derived as described above
    std::string message;            // why it failed / was stopped / is broken
    nlohmann::json config;          // {} when broken
    nlohmann::json summary;         // {} until finished
    nlohmann::json last_status;     // status.json as read ({} when missing)
    std::vector<std::string> tags;  // notes.json's tags (none when it is missing or unreadable)
    std::string notes;              // notes.json's text
};

class RunStore {
  public:
    // Creates the root directory if needed.
    explicit RunStore(std::string root);
    // With create_root false, a missing root is an empty store (read-only tools such as `fone runs`).
    RunStore(std::string root, bool create_root);
    // $FONE_RUNS_DIR, else $XDG_DATA_HOME/fone-workbench/runs, else ~/.local/share/fone-workbench/runs;
    // with neither HOME nor XDG_DATA_HOME, ./.local/share/fone-workbench/runs made absolute, and
    // default_root_note() says so.
    static std::string default_root();
    // "" normally; a one-line note naming the store when default_root() had to fall back on the current
    // folder (no FONE_RUNS_DIR, XDG_DATA_HOME or HOME). Tools print it so that the store is never a surprise.
    static std::string default_root_note();
    const std::string& root() const { return root_; }

    // Makes a new run directory and writes config.json. With an empty name, a readable unique one is made
    // from the config ("dec-add-fone-20261122-041502"); a name already taken gets "-2", "-3", ... Names
    // may not contain '/' or start with '.' (RunError).
    // The run appears whole: it is made in a hidden folder beside its name and renamed into place, so a kill
    // at any moment leaves no run or one with its config.json (never a folder without its settings).
    std::string create_run(const std::string& name, const nlohmann::json& config);
    // The same, with the run's lock (fone/store/run_lock.h) taken before the run appears: a trainer's run
    // is never visible unlocked, so "running" is decided by the lock alone.
    std::string create_run(const std::string& name, const nlohmann::json& config, RunLock* lock);
    // A run's directory from its name or a path. A bare name (no '/') is the store's run first; only when
    // the store has none is a run directory of that name in the current folder taken. Anything with a '/'
    // is a path. RunError if neither.
    std::string resolve(const std::string& name_or_dir) const;
    // All runs, sorted by name. Never throws for a broken run: it is listed with status "broken".
    std::vector<RunInfo> list() const;
    RunInfo info(const std::string& run_dir) const;
    // A run made by writing its files: fill(folder) writes them into a hidden folder beside the store's
    // runs, which is then renamed into place under `name`, or "name-2", "name-3", ... when that is taken
    // (never over another run). A throw from fill removes the hidden folder: a failure leaves nothing
    // behind, and a kill leaves a hidden folder that the next creation removes. Returns the run's folder.
    std::string publish_run(const std::string& name,
                            const std::function<void(const std::string& folder)>& fill) const;

  private:
    std::string root_;
};

// status.json, written atomically, with this process's pid and the time.
void write_status(const std::string& run_dir, const std::string& status, const std::string& message = "",
                  const nlohmann::json& extra = nlohmann::json::object());
// Renames the folder `from` to `to` unless `to` exists (renameat2's RENAME_NOREPLACE; mkdir + rename on a
// filesystem without it): never over another run. False when `to` is taken; RunError for other failures.
bool rename_no_replace(const std::string& from, const std::string& to);
// True when pid is a live process (not a zombie).
bool process_alive(int pid);

// "" when name can be a run's name, else why not ("a run name may not contain '/'", ...): not empty, no
// '/', no leading '.', at most 120 bytes, no control characters, valid UTF-8, and not containing ".tmp-"
// (the mark of a temporary file, which listings skip).
std::string run_name_problem(const std::string& name);

// A run's identity: a digest (16 hex digits) of the settings in its config.json record that make its model
// and data: every key but "name", "threads" and "versions". Every checkpoint carries its run's identity; one
// whose identity is not that of the config.json beside it is refused (a checkpoint copied between runs).
std::string run_identity(const nlohmann::json& config_record);
// run_identity of run_dir's config.json; RunError when it is missing or unreadable.
std::string run_identity_of(const std::string& run_dir);

// Small helpers the store and the tools share.
std::string utc_now_iso();  // "2026-11-22T04:15:02Z"
std::string local_stamp();  // "20261122-041502", for generated names
std::string host_name();    // "" when unknown
// config[key] of a run's config.json (or one level down under "config", "train" or "settings"); a value
// that is an object gives its "name" or "kind". null when absent.
nlohmann::json config_value(const nlohmann::json& config, const char* key);

}  // namespace fone
