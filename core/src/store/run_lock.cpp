// The run lock (fone/store/run_lock.h): flock on <run>/train.lock, held for the trainer's life.
#include "fone/store/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "fone/io/file_read.h"
#include "fone/io/file_write.h"
#include "fone/io/json_bounded.h"
#include "fone/store/run_store.h"
#include "io/posix_io.h"

namespace fone {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string lock_path(const std::string& run_dir) {
    return (fs::path(run_dir) / kLockFile).string();
}

// The filesystem cannot lock (some network filesystems): the run is not guarded.
bool locks_unsupported(int err) {
    return err == ENOLCK || err == EOPNOTSUPP || err == EINVAL || err == ENOSYS;
}

LockHolder read_holder(const std::string& path) {
    LockHolder h;
    const FileRead r = read_regular_file(path, kMaxSmallFileBytes);
    if (!r.ok()) return h;
    json j;
    if (!parse_json_bounded(r.text, path, j, nullptr) || !j.is_object()) return h;
    if (const auto it = j.find("pid"); it != j.end() && it->is_number_integer()) h.pid = it->get<int>();
    if (const auto it = j.find("host"); it != j.end() && it->is_string()) h.host = it->get<std::string>();
    if (const auto it = j.find("since"); it != j.end() && it->is_string()) h.since = it->get<std::string>();
    return h;
}

}  // namespace

std::string LockHolder::text() const {
    std::string t = pid > 0 ? "process " + std::to_string(pid) : std::string("a process");
    if (!host.empty()) t += " on " + host;
    if (!since.empty()) t += " since " + since;
    return t;
}

LockProbe probe_run_lock(const std::string& run_dir) {
    LockProbe p;
    const std::string path = lock_path(run_dir);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT) p.state = LockState::absent;
        return p;
    }
    // A shared lock for an instant: it fails only while a trainer holds the exclusive one. (A trainer that
    // starts in that instant retries: RunLock::acquire.)
    if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
        ::flock(fd, LOCK_UN);
        p.state = LockState::free;
    } else if (errno == EWOULDBLOCK) {
        p.state = LockState::held;
        p.holder = read_holder(path);
    }
    ::close(fd);
    return p;
}

bool run_process_alive(const std::string& run_dir, int pid, const std::string& host) {
    switch (probe_run_lock(run_dir).state) {
        case LockState::held:
            return true;
        case LockState::free:
        case LockState::absent:
            return false;
        case LockState::unknown:
            break;
    }
    if (!host.empty() && host != host_name()) return true;  // no locks, another machine: cannot tell
    return process_alive(pid);
}

bool run_process_alive(const std::string& run_dir, int pid) {
    return run_process_alive(run_dir, pid, "");
}

RunLock RunLock::acquire(const std::string& run_dir) {
    const std::string path = lock_path(run_dir);
    // A link in its place (a received run folder) is refused, never truncated through.
    const int fd = open_for_writing(path, WriteOpen::update);
    // A reader's probe holds a shared lock for microseconds: try for a second before calling it taken.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        if (err == EINTR) continue;
        if (locks_unsupported(err)) {
            ::close(fd);
            return RunLock();
        }
        if (err != EWOULDBLOCK || std::chrono::steady_clock::now() > deadline) {
            ::close(fd);
            if (err != EWOULDBLOCK) throw RunError(path + ": cannot lock the run: " + std::strerror(err));
            throw RunError(fs::path(run_dir).filename().string() + " is already being trained by " +
                           read_holder(path).text() + " (one process trains a run at a time)");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // Who holds it, for the message another trainer gets. Best effort: a full disk must not stop the run
    // here (the lock itself is held either way).
    const std::string who =
        json{{"pid", static_cast<int>(::getpid())}, {"host", host_name()}, {"since", utc_now_iso()}}.dump() +
        "\n";
    if (::ftruncate(fd, 0) == 0) (void)::pwrite(fd, who.data(), who.size(), 0);
    return RunLock(fd);
}

RunLock& RunLock::operator=(RunLock&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.fd_;
        o.fd_ = -1;
    }
    return *this;
}

RunLock::~RunLock() {
    if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the lock
}

}  // namespace fone
