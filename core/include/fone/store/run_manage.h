// Keeping a store tidy without losing anything: rename a run, move it to the store's trash (restorable),
// archive it (keep what it showed, drop what only training needs). `fone runs mv | rm | restore | trash |
// archive` and the window's Run menu call these.
//
// None of them touches a live run: each takes the run's lock first (fone/store/run_lock.h), so a run being
// trained is refused naming its process, and no trainer can start on it meanwhile.
//
// The trash is <root>/.trash/ (hidden, so listings skip it): a trashed run is its folder moved there whole
// as "<name>.<UTC stamp>" (renamed, never copied). Restoring moves it back under its name, or "name-2", ...
// when that is taken.
//
// Archiving keeps config.json, status.json, metrics.jsonl, summary.json, notes.json, the best checkpoint
// (the last one when there is no best), the files a run needs to answer (tokenizer.model, pretrained/,
// data-parallel.json) and writes archived.json; it removes snapshots/, checkpoint-last and everything else.
// Only a finished run is archived: a run that can still be resumed needs its last checkpoint.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fone/store/run_store.h"

namespace fone {

// Renames the run at run_dir to new_name in the same store; returns its new folder. RunError when the name
// is not a run name, is taken, or the run is training.
std::string rename_run(const RunStore& store, const std::string& run_dir, const std::string& new_name);

struct TrashedRun {
    std::string id;       // the folder's name in the trash: "<name>.<stamp>"
    std::string name;     // the run's name when it was trashed
    std::string trashed;  // when (UTC, ISO 8601)
    std::string dir;      // its folder in the trash
};

// Moves the run to the trash; returns what it became there. RunError when it is training.
TrashedRun trash_run(const RunStore& store, const std::string& run_dir);
// The trash's runs, oldest first.
std::vector<TrashedRun> list_trash(const RunStore& store);
// Moves a trashed run back (id, or a run name: its latest trashing); returns its folder in the store.
std::string restore_run(const RunStore& store, const std::string& id_or_name);
// Deletes the trash's runs for good; returns how many bytes that freed.
std::uint64_t empty_trash(const RunStore& store);

struct ArchiveResult {
    std::vector<std::string> removed;  // paths relative to the run folder
    std::uint64_t freed_bytes = 0;
    std::uint64_t kept_bytes = 0;
};

// Archives a finished run in place. RunError for a run that is not finished, is training, or has no
// safetensors checkpoint to keep.
ArchiveResult archive_run(const std::string& run_dir);

// The bytes of the regular files under path (a file or a folder); links are not followed.
std::uint64_t disk_bytes(const std::string& path);

}  // namespace fone
