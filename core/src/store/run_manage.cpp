// Rename, trash, restore and archive: folder moves under the run's lock, nothing copied, nothing lost.
#include "fone/store/run_manage.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "fone/io/file_read.h"
#include "fone/io/json_files.h"
#include "fone/io/shown_text.h"
#include "fone/store/run_lock.h"

namespace fone {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The run's lock, taken so that no trainer runs it while it moves; RunError naming the trainer when one
// does. On a filesystem without locks (an empty lock), status.json's "running" decides.
RunLock lock_idle_run(const RunStore& store, const std::string& run_dir) {
    RunLock lock = RunLock::acquire(run_dir);
    if (!lock.held() && store.info(run_dir).status == kStatusRunning)
        throw RunError(fs::path(run_dir).filename().string() + " is training: stop it first");
    return lock;
}

std::string trash_root(const RunStore& store) {
    return (fs::path(store.root()) / kTrashDir).string();
}

// "20261128T172000Z": a stamp that sorts as time does and is a valid name part.
std::string trash_stamp() {
    std::string s = utc_now_iso();
    s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == '-' || c == ':'; }), s.end());
    return s;
}

// "name.20261128T172000Z" -> name and the stamp as ISO 8601.
TrashedRun trashed_from(const fs::path& dir) {
    TrashedRun t;
    t.id = dir.filename().string();
    t.dir = dir.string();
    const auto dot = t.id.rfind('.');
    t.name = dot == std::string::npos ? t.id : t.id.substr(0, dot);
    const std::string s = dot == std::string::npos ? "" : t.id.substr(dot + 1);
    if (s.size() >= 16 && s[8] == 'T')  // 20261128T172000Z[-n]
        t.trashed = s.substr(0, 4) + "-" + s.substr(4, 2) + "-" + s.substr(6, 2) + "T" + s.substr(9, 2) +
                    ":" + s.substr(11, 2) + ":" + s.substr(13, 2) + "Z";
    return t;
}

// What an archived run keeps, by name in the run folder.
const std::set<std::string>& archive_keeps() {
    static const std::set<std::string> keep = {kConfigFile,         kStatusFile,       kMetricsFile,
                                               kSummaryFile,        kNotesFile,        kTokenizerFile,
                                               kPretrainedFilesDir, kDataParallelFile, kArchivedFile};
    return keep;
}

}  // namespace

std::uint64_t disk_bytes(const std::string& path) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(path, ec);
    if (ec) return 0;
    if (fs::is_regular_file(st)) {
        const auto n = fs::file_size(path, ec);
        return ec ? 0 : n;
    }
    if (!fs::is_directory(st)) return 0;
    std::uint64_t total = 0;
    for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && !it->is_symlink(ec)) total += it->file_size(ec);
    return total;
}

std::string rename_run(const RunStore& store, const std::string& run_dir, const std::string& new_name) {
    if (const std::string why = run_name_problem(new_name); !why.empty())
        throw RunError(why + ": '" + shown_text(new_name) + "'");
    const std::string to = (fs::path(store.root()) / new_name).string();
    if (fs::path(run_dir).filename() == new_name) return run_dir;
    const RunLock lock = lock_idle_run(store, run_dir);
    if (!rename_no_replace(run_dir, to))
        throw RunError("a run named '" + shown_text(new_name) + "' exists in " + store.root());
    return to;
}

TrashedRun trash_run(const RunStore& store, const std::string& run_dir) {
    const RunLock lock = lock_idle_run(store, run_dir);
    const std::string trash = trash_root(store);
    std::error_code ec;
    fs::create_directories(trash, ec);
    if (ec) throw RunError(trash + ": cannot make the trash folder: " + ec.message());
    const std::string base = fs::path(run_dir).filename().string() + "." + trash_stamp();
    for (int n = 1; n < 1000; ++n) {
        const std::string id = n == 1 ? base : base + "-" + std::to_string(n);
        const fs::path to = fs::path(trash) / id;
        if (rename_no_replace(run_dir, to.string())) return trashed_from(to);
    }
    throw RunError("no free name in " + trash + " for " + base);
}

std::vector<TrashedRun> list_trash(const RunStore& store) {
    std::vector<TrashedRun> out;
    std::error_code ec;
    for (fs::directory_iterator it(trash_root(store), ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec) && !it->is_symlink(ec)) out.push_back(trashed_from(it->path()));
    std::sort(out.begin(), out.end(), [](const TrashedRun& a, const TrashedRun& b) {
        return a.trashed != b.trashed ? a.trashed < b.trashed : a.id < b.id;
    });
    return out;
}

std::string restore_run(const RunStore& store, const std::string& id_or_name) {
    const std::vector<TrashedRun> trash = list_trash(store);
    const TrashedRun* found = nullptr;
    for (const TrashedRun& t : trash)  // by id; else by name, the latest trashing of that run
        if (t.id == id_or_name || (t.name == id_or_name && (!found || found->id != id_or_name))) found = &t;
    if (!found)
        throw RunError("nothing named '" + shown_text(id_or_name) +
                       "' in the trash (fone runs trash lists it)");
    for (int n = 1; n < 100000; ++n) {
        const std::string name = n == 1 ? found->name : found->name + "-" + std::to_string(n);
        if (!run_name_problem(name).empty()) break;
        const std::string to = (fs::path(store.root()) / name).string();
        if (rename_no_replace(found->dir, to)) return to;
    }
    throw RunError("no free name in " + store.root() + " for " + found->name);
}

std::uint64_t empty_trash(const RunStore& store) {
    std::uint64_t freed = 0;
    for (const TrashedRun& t : list_trash(store)) {
        freed += disk_bytes(t.dir);
        std::error_code ec;
        fs::remove_all(t.dir, ec);
        if (ec) throw RunError(t.dir + ": cannot delete: " + ec.message());
    }
    return freed;
}

ArchiveResult archive_run(const std::string& run_dir) {
    const RunStore store(fs::path(run_dir).parent_path().string(), false);
    const RunLock lock = lock_idle_run(store, run_dir);
    const RunInfo info = store.info(run_dir);
    const std::string name = fs::path(run_dir).filename().string();
    if (info.status != kStatusFinished)
        throw RunError(name + " is " + info.status +
                       ": only a finished run is archived (its last checkpoint is what a resume needs)");
    const fs::path dir(run_dir);
    std::error_code ec;
    const bool has_best = fs::is_regular_file(fs::symlink_status(dir / kBestCheckpoint, ec));
    const char* kept_checkpoint = has_best ? kBestCheckpoint : kLastCheckpoint;
    if (!fs::is_regular_file(fs::symlink_status(dir / kept_checkpoint, ec)))
        throw RunError(name +
                       ": no safetensors checkpoint to keep (an older run: fone runs convert it first)");
    ArchiveResult r;
    std::vector<fs::path> doomed;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string f = it->path().filename().string();
        if (archive_keeps().count(f) || f == kept_checkpoint || f == kLockFile) continue;
        doomed.push_back(it->path());
    }
    if (ec) throw RunError(run_dir + ": cannot list: " + ec.message());
    std::sort(doomed.begin(), doomed.end());
    // The record first, added to an earlier one: a kill half way leaves a run that says what it was losing,
    // and archiving it again finishes the job.
    json record;
    std::string error;
    if (load_json((dir / kArchivedFile).string(), record, error) != JsonLoad::ok || !record.is_object() ||
        !record.contains("removed") || !record["removed"].is_array())
        record = {{"removed", json::array()}, {"freed_bytes", 0}};
    record["archived"] = utc_now_iso();
    record["kept_checkpoint"] = kept_checkpoint;
    for (const fs::path& p : doomed) {
        r.removed.push_back(p.filename().string() + (fs::is_directory(fs::symlink_status(p, ec)) ? "/" : ""));
        record["removed"].push_back(r.removed.back());
        r.freed_bytes += disk_bytes(p.string());
    }
    const json earlier = record.value("freed_bytes", json(0));
    record["freed_bytes"] = (earlier.is_number_unsigned() ? earlier.get<std::uint64_t>() : 0) + r.freed_bytes;
    write_json_atomic((dir / kArchivedFile).string(), record);
    for (const fs::path& p : doomed) {
        fs::remove_all(p, ec);
        if (ec) throw RunError(p.string() + ": cannot remove: " + ec.message());
    }
    r.kept_bytes = disk_bytes(run_dir);
    return r;
}

}  // namespace fone
