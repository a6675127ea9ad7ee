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
    unknown,  // the filesystem has no locks (or the lock file cannot be opened): only a pid can tell
    absent,   // no lock file: no process of this build trains the run (a trainer's run is never visible
              // without its lock: RunStore::create_run takes it before the run appears)
};

struct LockProbe {
    LockState state = LockState::unknown;
    LockHolder holder;  // when held
};

// Whether a process holds run_dir's lock now. Creates nothing (read-only tools call it).
LockProbe probe_run_lock(const std::string& run_dir);

// Whether a process trains run_dir (status.json says "running", with this pid, written on host): the lock
// decides, wherever the run trains (a lock on a shared filesystem is seen from every host); a run without
// a lock file is not training, whatever live pid or other host its status.json names. Only where the
// filesystem has no locks does the pid decide, and a run on another host cannot be checked (true).
bool run_process_alive(const std::string& run_dir, int pid, const std::string& host);
// The same for a status.json written on this host.
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
