// One process trains a run: the trainer holds an OS file lock (flock) on <run>/train.lock for its whole
// life. The kernel releases it when the process ends, however it ends (kill -9, a crash, a reboot), so a
// lock never goes stale, and "is this run training?" is answered by the lock, not by a PID that may now
// belong to another process.
#pragma once

#include <optional>
#include <string>

namespace fone {

// Who holds a run's lock, as the holder wrote it into the lock file.
struct LockHolder {
    int pid = 0;
    std::string host;
    std::string since;         // UTC, ISO 8601
    std::string text() const;  // "process 1234 on host vm since 2026-11-22T04:15:02Z"
};

enum class LockState {
    held,     // a process holds it: the run is training
    free,     // nobody holds it: no process trains the run
    unknown,  // no lock file (a run made before locks, or one never trained), or the filesystem has no locks
};

struct LockProbe {
    LockState state = LockState::unknown;
    LockHolder holder;  // when held
};

// Whether a process holds run_dir's lock now. Creates nothing (read-only tools call it).
LockProbe probe_run_lock(const std::string& run_dir);

// Whether the process training run_dir (status.json says "running" with this pid, on this host) is alive:
// the lock when there is one, else the pid (a run of an older build, a filesystem without locks).
bool run_process_alive(const std::string& run_dir, int pid);

// The lock of a run, held from acquire() until the object is destroyed or the process ends.
class RunLock {
  public:
    // Takes run_dir's lock (creating the lock file). Throws RunError naming the holder when another process
    // holds it: "<run>: already being trained by process 1234 on host vm since ...". On a filesystem without
    // locks (ENOLCK, EOPNOTSUPP) it returns an empty lock: the run trains, unguarded, as before locks.
    static RunLock acquire(const std::string& run_dir);

    RunLock() = default;
    RunLock(RunLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    RunLock& operator=(RunLock&& o) noexcept;
    RunLock(const RunLock&) = delete;
    RunLock& operator=(const RunLock&) = delete;
    ~RunLock();

    bool held() const { return fd_ >= 0; }

  private:
    explicit RunLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

}  // namespace fone
