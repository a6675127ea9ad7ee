// The run store: atomic files, append-only metrics, and run states read back without trusting any file.
#include "fone/store/run_store.h"

#include "fone/io/file_read.h"
#include "fone/io/json_bounded.h"
#include "fone/io/shown_text.h"
#include "fone/store/run_lock.h"
#include "fone/store/run_notes.h"
#include "io/posix_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <set>

namespace fone {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool is_blank(std::string_view s) {
    return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n\f\v");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r\n\f\v") - b + 1);
}

constexpr std::size_t kMaxNameLength = 120;

// Empty when the name is fine, else why not.
std::string name_problem(const std::string& name) {
    if (name.empty()) return "a run name may not be empty";
    if (name.find('/') != std::string::npos) return "a run name may not contain '/'";
    if (name.front() == '.') return "a run name may not start with '.'";
    if (name.size() > kMaxNameLength)
        return "a run name may have at most " + std::to_string(kMaxNameLength) + " characters";
    for (const char c : name)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return "a run name may not contain control characters";
    if (!valid_utf8(name)) return "a run name must be valid UTF-8";
    if (name.find(".tmp-") != std::string::npos)
        return "a run name may not contain '.tmp-' (the mark of a temporary file)";
    return "";
}

// A piece of a generated name: letters, digits, '.', '_' and '-' kept, anything else becomes '-'.
std::string name_part(const json& v) {
    std::string s = v.is_string() ? v.get<std::string>() : v.is_null() ? "" : dump_json(v, -1);
    std::string out;
    for (const char c : s) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                          c == '.' || c == '_' || c == '-';
        const char k = keep ? c : '-';
        if (k == '-' && !out.empty() && out.back() == '-') continue;
        out += k;
    }
    while (!out.empty() && (out.front() == '-' || out.front() == '.'))
        out.erase(out.begin());
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    if (out.size() > 40) out.resize(40);
    return out;
}

}  // namespace

std::string run_name_problem(const std::string& name) {
    return name_problem(name);
}

namespace {

bool has_temp_marker(const std::string& name) {
    return name.find(".tmp-") != std::string::npos;
}

// Loads an object-valued JSON file; "" when fine, else the problem (missing ones only when required).
std::string load_object(const std::string& path, json& out, bool required) {
    std::string error;
    switch (load_json(path, out, error)) {
        case JsonLoad::missing:
            out = json::object();
            return required ? error : "";
        case JsonLoad::bad:
            out = json::object();
            return error;
        case JsonLoad::ok:
            break;
    }
    if (!out.is_object()) {
        out = json::object();
        return path + ": corrupt JSON (not an object)";
    }
    return "";
}

std::string string_field(const json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

RunInfo read_run(const fs::path& dir, const std::string& this_host) {
    RunInfo info;
    info.name = dir.filename().string();
    info.dir = dir.string();

    const std::string config_path = (dir / kConfigFile).string();
    const std::string status_path = (dir / kStatusFile).string();
    const std::string summary_path = (dir / kSummaryFile).string();

    if (std::string problem = load_object(config_path, info.config, true); !problem.empty()) {
        info.status = kStatusBroken;
        info.message = std::move(problem);
        // Kept for display only; a bad one changes nothing.
        load_object(status_path, info.last_status, false);
        info.summary = json::object();
        return info;
    }

    std::string error;
    const JsonLoad st = load_json(status_path, info.last_status, error);
    if (st == JsonLoad::missing) {
        info.last_status = json::object();
        // A run is published with its lock held, before its first status write (its data and model are
        // being prepared): held, it is starting; free, it stopped before that write.
        if (probe_run_lock(info.dir).state == LockState::held) {
            info.status = kStatusRunning;
            info.message = "starting: its process holds the run's lock and prepares its data and model";
        } else {
            info.status = kStatusInterrupted;
            info.message =
                "no status.json: the run stopped before its first status write; resume with: "
                "fone train --resume " +
                info.name;
        }
    } else if (st == JsonLoad::bad || !info.last_status.is_object()) {
        info.status = kStatusBroken;
        info.message = st == JsonLoad::bad ? error : status_path + ": corrupt JSON (not an object)";
        info.last_status = json::object();
    } else {
        info.status = string_field(info.last_status, "status");
        info.message = string_field(info.last_status, "message");
        if (info.status.empty()) {
            info.status = kStatusBroken;
            info.message = status_path + ": no \"status\" field";
        } else if (info.status == kStatusRunning) {
            const std::string host = string_field(info.last_status, "host");
            const auto pid_it = info.last_status.find("pid");
            const int pid =
                pid_it != info.last_status.end() && pid_it->is_number_integer() ? pid_it->get<int>() : 0;
            // The run's lock says whether a process trains it, here or on another machine of a shared
            // filesystem (a pid alone may have been reused, e.g. after a reboot, or name another host's
            // process); no lock file: nobody does. Only without filesystem locks does the pid decide.
            const bool here = host.empty() || host == this_host;
            if (!run_process_alive(info.dir, pid, host)) {
                info.status = kStatusInterrupted;
                info.message = (here ? "process " + std::to_string(pid) : "the process on " + host) +
                               " is gone (killed, crashed or the machine restarted); resume with: fone train "
                               "--resume " +
                               info.name;
            }
        }
    }

    // summary.json appears at the end; a corrupt one makes the run "broken" with the reason.
    if (std::string problem = load_object(summary_path, info.summary, false); !problem.empty()) {
        info.status = kStatusBroken;
        info.message = std::move(problem);
    }
    // The user's notes never make a run broken: an unreadable notes.json lists as none (`fone runs note`
    // names the problem).
    try {
        RunNotes notes = read_run_notes(info.dir);
        info.tags = std::move(notes.tags);
        info.notes = std::move(notes.text);
    } catch (const std::exception&) {
    }
    return info;
}

}  // namespace

MetricsFile read_metrics(const std::string& path) {
    const FileRead file = read_regular_file(path, kMaxMetricsFileBytes);
    if (file.missing) return {};
    if (!file.ok()) throw RunError(file.error);
    return parse_metrics(file.text, path);
}

MetricsFile parse_metrics(std::string_view text, const std::string& path) {
    MetricsFile m;
    std::size_t pos = 0;
    std::size_t line_no = 0;
    while (pos < text.size()) {
        ++line_no;
        const std::size_t nl = text.find('\n', pos);
        const bool complete = nl != std::string::npos;
        const std::string_view line(text.data() + pos, (complete ? nl : text.size()) - pos);
        pos = complete ? nl + 1 : text.size();
        if (is_blank(line)) continue;
        json j;
        std::string error;
        const bool parsed = parse_json_bounded(line, path, j, &error);  // a record nested too deep: bad
        if (!parsed || !j.is_object()) {
            if (!complete) {
                m.truncated_tail = true;  // a write cut short by a crash or power loss
                break;
            }
            std::string why = !parsed ? "not valid JSON" : "not a JSON object";
            throw RunError(path + ":" + std::to_string(line_no) + ": corrupt metrics line (" + why + ")");
        }
        m.records.push_back(std::move(j));
    }
    return m;
}

void write_status(const std::string& run_dir, const std::string& status, const std::string& message,
                  const json& extra) {
    json j = extra.is_object() ? extra : json::object();
    j["status"] = status;
    j["pid"] = static_cast<int>(::getpid());
    j["host"] = host_name();
    j["updated"] = utc_now_iso();
    j["message"] = message;
    write_json_atomic((fs::path(run_dir) / kStatusFile).string(), j);
}

bool process_alive(int pid) {
    if (pid <= 0) return false;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
    // A zombie has exited: only its parent has not collected it yet.
    const FileRead proc = read_regular_file("/proc/" + std::to_string(pid) + "/stat", kMaxSmallFileBytes);
    if (proc.ok()) {
        const std::string& stat = proc.text;
        const auto close_paren = stat.rfind(')');
        if (close_paren != std::string::npos && close_paren + 2 < stat.size() && stat[close_paren + 2] == 'Z')
            return false;
    }
    return true;
}

RunStore::RunStore(std::string root) : RunStore(std::move(root), true) {}

RunStore::RunStore(std::string root, bool create_root) {
    if (root.empty()) throw RunError("the run store's directory may not be empty");
    std::error_code ec;
    fs::path p = fs::absolute(fs::path(root), ec);
    if (ec) p = fs::path(root);
    root_ = p.lexically_normal().string();
    while (root_.size() > 1 && root_.back() == '/')
        root_.pop_back();
    if (create_root) {
        fs::create_directories(root_, ec);
        if (ec || !fs::is_directory(root_))
            throw RunError(root_ + ": cannot create the run store: " +
                           (ec ? ec.message() : std::string("not a directory")));
    }
}

namespace {

// Where the default store is, and whether that had to fall back on the current folder.
std::string default_root_of(bool* fell_back) {
    if (fell_back) *fell_back = false;
    if (const char* d = std::getenv("FONE_RUNS_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/fone-workbench/runs";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.local/share/fone-workbench/runs";
    if (fell_back) *fell_back = true;
    std::error_code ec;
    const fs::path here = fs::current_path(ec);
    return ((ec ? fs::path(".") : here) / ".local/share/fone-workbench/runs").string();
}

}  // namespace

std::string RunStore::default_root() {
    return default_root_of(nullptr);
}

std::string RunStore::default_root_note() {
    bool fell_back = false;
    const std::string root = default_root_of(&fell_back);
    if (!fell_back) return "";
    return "note: neither FONE_RUNS_DIR, XDG_DATA_HOME nor HOME is set: the run store is " + root +
           " (choose one with --runs-dir or FONE_RUNS_DIR)";
}

namespace {

// A run is made in a hidden folder beside its final name ("." + name + kCreatingMark + pid), then renamed
// into place: a kill at any step of the creation leaves either no run or a whole one (config.json written,
// its lock taken), never a husk whose only copy of its settings is a temporary file. Listings skip the
// hidden folder (a leading '.', and ".tmp-"); the next creation removes those whose process is gone.
constexpr const char* kCreatingMark = ".tmp-creating-";

// Test hook for the reliability tests: FONE_INJECT_CREATE_KILL=<step> kills this process (SIGKILL) at that
// step of making a run: "folder", "config", "lock" or "published".
void creation_step(const char* step) {
    const char* v = std::getenv("FONE_INJECT_CREATE_KILL");
    if (v && std::strcmp(v, step) == 0) ::raise(SIGKILL);
}

// Hidden creation folders of processes that died while making a run. Once per store and process: a listing
// of the store per run made would make a process that makes n runs quadratic in n (2,000 runs: 89 s).
void remove_dead_creations(const std::string& root) {
    static std::mutex mutex;
    static std::set<std::string> cleaned;
    {
        const std::lock_guard<std::mutex> hold(mutex);
        if (!cleaned.insert(root).second) return;
    }
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const auto mark = name.rfind(kCreatingMark);
        if (name.front() != '.' || mark == std::string::npos) continue;
        const std::string pid = name.substr(mark + std::strlen(kCreatingMark));
        if (pid.empty() || pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::error_code rm;
        if (!process_alive(std::stoi(pid))) fs::remove_all(it->path(), rm);
    }
}

}  // namespace

bool rename_no_replace(const std::string& from, const std::string& to) {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return true;
    int err = errno;
    if (err == EINVAL || err == ENOSYS) {  // a filesystem without RENAME_NOREPLACE: mkdir reserves the name
        if (::mkdir(to.c_str(), 0755) != 0) {
            err = errno;
        } else if (::rename(from.c_str(), to.c_str()) == 0) {  // onto the empty folder it just made
            return true;
        } else {
            err = errno;
            ::rmdir(to.c_str());
        }
    }
    if (err == EEXIST || err == ENOTEMPTY) return false;
    throw write_error(to, "create the run directory", err);
}

namespace {

// Makes <root>/<name> with config.json (and, when lock is given, its lock held) in one rename. False when
// the name was taken meanwhile.
bool publish_new_run(const std::string& root, const std::string& name, const json& config, RunLock* lock) {
    const std::string made =
        (fs::path(root) / ("." + name + kCreatingMark + std::to_string(::getpid()))).string();
    const std::string dir = (fs::path(root) / name).string();
    std::error_code ec;
    fs::remove_all(made, ec);  // this process's own leftover of an earlier failed try
    if (::mkdir(made.c_str(), 0755) != 0) throw write_error(dir, "create the run directory", errno);
    try {
        creation_step("folder");
        write_json_atomic((fs::path(made) / kConfigFile).string(), config);
        creation_step("config");
        if (lock) *lock = RunLock::acquire(made);  // the lock follows the folder through the rename
        creation_step("lock");
        if (!rename_no_replace(made, dir)) {
            if (lock) *lock = RunLock();
            fs::remove_all(made, ec);
            return false;
        }
    } catch (...) {
        if (lock) *lock = RunLock();
        fs::remove_all(made, ec);
        throw;
    }
    creation_step("published");
    return true;
}

}  // namespace

namespace {

// The n-th name tried for a run whose wanted name is base: base itself, then "base-2", "base-3", ... (cut
// to the longest name allowed).
std::string candidate_name(const std::string& base, int n) {
    if (n <= 1) return base;
    std::string candidate = base;
    const std::string suffix = "-" + std::to_string(n);
    if (candidate.size() + suffix.size() > kMaxNameLength) candidate.resize(kMaxNameLength - suffix.size());
    return candidate + suffix;
}

}  // namespace

std::string RunStore::publish_run(const std::string& name,
                                  const std::function<void(const std::string& folder)>& fill) const {
    if (const std::string why = name_problem(name); !why.empty())
        throw RunError(why + ": '" + shown_text(name) + "'");
    remove_dead_creations(root_);
    static std::atomic<int> made_count{0};
    // Unique within the process too (the window may unpack two files at once); the pid comes last, where
    // remove_dead_creations reads it.
    const std::string made = (fs::path(root_) / ("." + name + "-" + std::to_string(++made_count) +
                                                 kCreatingMark + std::to_string(::getpid())))
                                 .string();
    std::error_code ec;
    if (::mkdir(made.c_str(), 0755) != 0) throw write_error(made, "create a folder", errno);
    try {
        fill(made);
        for (int n = 1; n < 100000; ++n) {
            const std::string dir = (fs::path(root_) / candidate_name(name, n)).string();
            if (fs::exists(fs::symlink_status(dir, ec))) continue;
            if (rename_no_replace(made, dir)) return dir;
        }
    } catch (...) {
        fs::remove_all(made, ec);
        throw;
    }
    fs::remove_all(made, ec);
    throw RunError("no free run name for '" + name + "' in " + root_);
}

std::string RunStore::create_run(const std::string& name, const json& config) {
    return create_run(name, config, nullptr);
}

std::string RunStore::create_run(const std::string& name, const json& config, RunLock* lock) {
    std::string base = trim(name);
    const bool generated = base.empty();
    if (generated) {
        if (!name.empty()) throw RunError("a run name may not be empty");
        const std::string task = name_part(config_value(config, "task"));
        const std::string method = name_part(config_value(config, "method"));
        base = task.empty() && method.empty() ? "run"
               : task.empty()                 ? method
               : method.empty()               ? task
                                              : task + "-" + method;
        base += "-" + local_stamp();
    } else if (const std::string why = name_problem(base); !why.empty()) {
        throw RunError(why + ": '" + shown_text(name) + "'");
    }

    remove_dead_creations(root_);
    for (int n = 1; n < 100000; ++n) {
        const std::string candidate = candidate_name(base, n);
        const std::string dir = (fs::path(root_) / candidate).string();
        std::error_code ec;
        if (fs::exists(fs::symlink_status(dir, ec))) continue;
        if (publish_new_run(root_, candidate, config, lock)) return dir;
    }
    throw RunError("no free run name for '" + base + "' in " + root_);
}

std::string RunStore::resolve(const std::string& name_or_dir) const {
    if (name_or_dir.empty()) throw RunError("no run '' in " + root_);
    std::error_code ec;
    const bool bare = name_or_dir.find('/') == std::string::npos;
    // A bare name is the store's run first: a folder of that name in the current directory never hides it.
    if (bare && name_problem(name_or_dir).empty()) {
        const fs::path in_store = fs::path(root_) / name_or_dir;
        if (fs::is_directory(in_store, ec)) return in_store.string();
    }
    const fs::path p(name_or_dir);
    if (fs::is_directory(p, ec) && (fs::exists(p / kConfigFile, ec) || fs::exists(p / kStatusFile, ec))) {
        fs::path a = fs::absolute(p, ec);
        if (ec) a = p;
        std::string s = a.lexically_normal().string();
        while (s.size() > 1 && s.back() == '/')
            s.pop_back();
        return s;
    }
    throw RunError("no run '" + shown_text(name_or_dir) + "' in " + root_);
}

RunInfo RunStore::info(const std::string& run_dir) const {
    fs::path p(run_dir);
    std::error_code ec;
    fs::path a = fs::absolute(p, ec);
    if (!ec) p = a.lexically_normal();
    if (!p.has_filename()) p = p.parent_path();
    return read_run(p, host_name());
}

std::vector<RunInfo> RunStore::list() const {
    std::vector<fs::path> dirs;
    std::error_code ec;
    fs::directory_iterator it(root_, ec);
    if (ec) {
        if (ec == std::errc::no_such_file_or_directory) return {};
        throw RunError(root_ + ": cannot list the run store: " + ec.message());
    }
    for (const fs::directory_iterator end; it != end; it.increment(ec)) {
        if (ec) break;
        const std::string n = it->path().filename().string();
        if (n.empty() || n.front() == '.' || has_temp_marker(n)) continue;
        std::error_code type_ec;
        if (!it->is_directory(type_ec)) continue;
        dirs.push_back(it->path());
    }
    if (ec) throw RunError(root_ + ": cannot list the run store: " + ec.message());
    std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) {
        return a.filename().string() < b.filename().string();
    });

    const std::string this_host = host_name();
    std::vector<RunInfo> runs;
    runs.reserve(dirs.size());
    for (const fs::path& d : dirs) {
        try {
            runs.push_back(read_run(d, this_host));
        } catch (const std::exception& e) {  // never one run's fault to lose the listing
            RunInfo broken;
            broken.name = d.filename().string();
            broken.dir = d.string();
            broken.status = kStatusBroken;
            broken.message = e.what();
            broken.config = json::object();
            broken.summary = json::object();
            broken.last_status = json::object();
            runs.push_back(std::move(broken));
        }
    }
    return runs;
}

std::string utc_now_iso() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string local_stamp() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    ::localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    return buf;
}

std::string host_name() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return "";
    return buf;
}

std::string run_identity(const json& config_record) {
    json j = config_record.is_object() ? config_record : json::object();
    for (const char* key : {"name", "threads", "versions"})
        j.erase(key);
    // FNV-1a 64 over the canonical text (nlohmann writes object keys sorted).
    std::uint64_t h = 1469598103934665603ULL;
    for (const char c : dump_json(j, -1))
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

std::string run_identity_of(const std::string& run_dir) {
    return run_identity(read_json_file((fs::path(run_dir) / kConfigFile).string()));
}

json config_value(const json& config, const char* key) {
    if (!config.is_object()) return nullptr;
    json v;
    if (auto it = config.find(key); it != config.end()) {
        v = *it;
    } else {
        for (const char* outer : {"config", "train", "settings"}) {
            const auto o = config.find(outer);
            if (o != config.end() && o->is_object())
                if (auto it2 = o->find(key); it2 != o->end()) {
                    v = *it2;
                    break;
                }
        }
    }
    if (v.is_object())
        for (const char* inner : {"name", "kind"})
            if (auto it = v.find(inner); it != v.end() && it->is_string()) return *it;
    return v;
}

}  // namespace fone
