// fone sweep's cells as child processes (cmd_sweep.h): N at a time, each a `fone train` whose JSON events
// are passed on with "run" and "index" added, whose stderr is appended to <logs>/<run>.stderr; runs that
// an earlier sweep's child is still training are waited for; SIGINT/SIGTERM stop the children cleanly.
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cmd_sweep.h"
#include "fone/io/file_write.h"

namespace fone::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kTailLines = 12;

std::string str_field(const json& j, const char* key) {
    if (!j.is_object()) return "";
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string seconds_text(double s) {
    char buf[32];
    if (s < 120)
        std::snprintf(buf, sizeof buf, "%.1f s", s);
    else
        std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    return buf;
}

int g_signal_pipe[2] = {-1, -1};
volatile std::sig_atomic_t g_signals = 0;

extern "C" void on_sweep_signal(int) {
    g_signals = g_signals + 1;
    const int saved = errno;
    if (g_signal_pipe[1] >= 0) {
        const ssize_t n = ::write(g_signal_pipe[1], "s", 1);
        (void)n;
    }
    errno = saved;
}

struct Child {
    std::size_t index = 0;
    pid_t pid = -1;
    int out_fd = -1;
    std::string buffer;
    json end;  // the child's "end" event, null until it comes
    Clock::time_point started;
    std::string log_path;
    std::uintmax_t log_offset = 0;
};

// A run of an earlier sweep's child that is still training: waited for, by polling the store.
struct Waiter {
    std::size_t index = 0;
    int pid = 0;
    Clock::time_point started;
};

// The last lines of a log written since offset.
// Only a regular file of that name is read: a link in its place (which the spawn refused to append
// through) is never followed, or a failed cell would print the lines of whatever it points at.
std::vector<std::string> log_tail(const std::string& path, std::uintmax_t offset) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return {};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return {};
    }
    const auto size = static_cast<std::uintmax_t>(st.st_size);
    std::uintmax_t from = std::max(offset, size > 65536 ? size - 65536 : 0);
    if (from > size) from = size;
    std::string text(static_cast<std::size_t>(size - from), '\0');
    const ssize_t got = ::pread(fd, text.data(), text.size(), static_cast<off_t>(from));
    ::close(fd);
    text.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    std::vector<std::string> lines;
    std::stringstream ss(text);
    for (std::string line; std::getline(ss, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        // A progress bar's carriage returns: keep what the terminal would show last.
        if (const auto cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
        if (!trim_blanks(line).empty()) lines.push_back(line);
    }
    if (lines.size() > kTailLines) lines.erase(lines.begin(), lines.end() - static_cast<long>(kTailLines));
    return lines;
}

class Sweep {
  public:
    Sweep(const SweepRun& how, RunStore& store, std::vector<SweepCell> cells, std::vector<CellPlan> plans)
        : how_(how), store_(store), cells_(std::move(cells)), plans_(std::move(plans)) {
        how_.slots = std::max(1, how_.slots);
        state_.resize(cells_.size());
        for (std::size_t i = 0; i < cells_.size(); ++i)
            state_[i] = plans_[i].status;
    }

    // The cells to run are queued, the others reported; then children are started and read until every
    // cell has ended (or a signal stopped the sweep).
    int run() {
        const auto t0 = Clock::now();
        std::deque<std::size_t> queue;
        for (std::size_t i = 0; i < cells_.size(); ++i) {
            const RunAction a = plans_[i].action;
            if (a == RunAction::start || a == RunAction::resume || a == RunAction::restart ||
                a == RunAction::retry)
                queue.push_back(i);
        }
        announce();
        install_signals();
        drive(queue);
        restore_signals();
        return report_end(t0);
    }

  private:
    std::string label(std::size_t i) const {
        return "[" + std::to_string(i + 1) + "/" + std::to_string(cells_.size()) + "] " + cells_[i].run;
    }

    // sweep_start, then a cell_skip for each cell not run and a cell_wait for each already training.
    void announce() {
        std::size_t todo = 0;
        for (const CellPlan& p : plans_)
            todo += is_todo(p.action);
        emit({{"event", "sweep_start"},
              {"sweep", how_.name},
              {"file", how_.file},
              {"runs_dir", store_.root()},
              {"cells", cells_.size()},
              {"todo", todo},
              {"parallel", how_.slots},
              {"resumed", how_.resumed}});
        std::cerr << "fone sweep: " << how_.name << ": " << cells_.size() << " cell(s), " << todo
                  << " to run, " << how_.slots << " at a time, in " << store_.root() << std::endl;
        for (std::size_t i = 0; i < cells_.size(); ++i)
            report_not_run(i);
        for (std::size_t i = 0; i < cells_.size(); ++i)
            if (plans_[i].action == RunAction::wait) {
                waiting_.push_back({i, plans_[i].pid, Clock::now()});
                emit({{"event", "cell_wait"}, {"run", cells_[i].run}, {"index", i}, {"pid", plans_[i].pid}});
                std::cerr << "fone sweep: " << label(i) << " is already running (pid " << plans_[i].pid
                          << "): waiting for it" << std::endl;
            }
    }

    // The loop: start queued cells while slots are free, then wait for output, a child's end, a signal or
    // (every 500 ms while some run is waited for) the store.
    void drive(std::deque<std::size_t>& queue) {
        int handled_signals = 0;
        while (true) {
            const bool stopping = g_signals > 0;
            while (!stopping && !queue.empty() &&
                   running_.size() + waiting_.size() < static_cast<std::size_t>(how_.slots)) {
                const std::size_t i = queue.front();
                queue.pop_front();
                launch(i);
            }
            if (running_.empty() && (waiting_.empty() || stopping)) return;

            std::vector<pollfd> fds;
            fds.push_back({g_signal_pipe[0], POLLIN, 0});
            for (const Child& c : running_)
                fds.push_back({c.out_fd, POLLIN, 0});
            const int r = ::poll(fds.data(), fds.size(), waiting_.empty() ? -1 : 500);
            if (r < 0 && errno != EINTR) throw RunError(std::string("poll: ") + std::strerror(errno));

            if (r > 0 && (fds[0].revents & POLLIN)) {
                char buf[64];
                while (::read(g_signal_pipe[0], buf, sizeof buf) > 0) {
                }
            }
            if (g_signals > handled_signals) {
                handled_signals = g_signals;
                forward_signal(handled_signals);
            }

            if (r > 0)
                for (std::size_t k = running_.size(); k-- > 0;) {
                    if (!(fds[k + 1].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                    if (read_child(running_[k])) {
                        finish_child(running_[k]);
                        running_.erase(running_.begin() + static_cast<long>(k));
                    }
                }
            poll_waiters(queue, g_signals > 0);
        }
    }

    // sweep_end, counted over every cell; the exit status.
    int report_end(Clock::time_point t0) {
        const bool interrupted = g_signals > 0;
        std::size_t finished = 0, failed = 0, stopped = 0;
        for (const std::string& s : state_) {
            if (s == kStatusFinished)
                ++finished;
            else if (s == kStatusFailed || s == kStatusBroken)
                ++failed;
            else if (s == kStatusStopped)
                ++stopped;
        }
        const std::size_t pending = cells_.size() - finished - failed - stopped;
        const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
        emit({{"event", "sweep_end"},
              {"sweep", how_.name},
              {"cells", cells_.size()},
              {"finished", finished},
              {"failed", failed},
              {"stopped", stopped},
              {"pending", pending},
              {"started", started_},
              {"interrupted", interrupted},
              {"elapsed_seconds", elapsed}});
        std::cerr << "fone sweep: " << how_.name << ": " << finished << " finished, " << failed << " failed, "
                  << stopped << " stopped, " << pending << " pending, in " << seconds_text(elapsed);
        if (interrupted || stopped || pending)
            std::cerr << "; continue with: fone sweep --resume " << how_.name;
        std::cerr << std::endl;
        if (interrupted) return 130;
        return finished == cells_.size() ? 0 : 1;
    }

    void report_not_run(std::size_t i) {
        const CellPlan& p = plans_[i];
        if (p.action != RunAction::reuse && p.action != RunAction::leave && p.action != RunAction::elsewhere)
            return;
        emit({{"event", "cell_skip"},
              {"run", cells_[i].run},
              {"index", i},
              {"status", p.status},
              {"exact_match", p.exact_match},
              {"message", p.message}});
        if (p.action == RunAction::leave)
            std::cerr << "fone sweep: " << label(i) << " " << p.status
                      << " earlier; left alone (--retry-failed runs it again): " << p.message << std::endl;
        else if (p.action == RunAction::elsewhere)
            std::cerr << "fone sweep: " << label(i) << " is " << p.message << "; left alone" << std::endl;
    }

    void install_signals() {
        if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
            throw RunError(std::string("pipe: ") + std::strerror(errno));
        struct sigaction sa {};
        sa.sa_handler = on_sweep_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;  // no SA_RESTART: poll() and waitpid() return so the loop sees the signal
        ::sigaction(SIGINT, &sa, &old_int_);
        ::sigaction(SIGTERM, &sa, &old_term_);
    }

    void restore_signals() {
        ::sigaction(SIGINT, &old_int_, nullptr);
        ::sigaction(SIGTERM, &old_term_, nullptr);
    }

    void forward_signal(int count) {
        const int sig = count >= 2 ? SIGKILL : SIGTERM;
        if (count == 1)
            std::cerr << "fone sweep: stopping: asking " << running_.size()
                      << " run(s) to checkpoint and stop (again to kill them)" << std::endl;
        else if (count == 2)
            std::cerr << "fone sweep: killing " << running_.size()
                      << " run(s); they resume from their last checkpoint" << std::endl;
        if (count > 2) return;
        for (const Child& c : running_)
            if (c.pid > 0) ::kill(c.pid, sig);
    }

    // The command line of cell i for its action.

    // The command line of cell i for its action.
    std::vector<std::string> child_args(std::size_t i, RunAction action) const {
        std::vector<std::string> args = {"fone", "train"};
        if (action == RunAction::resume)
            args.insert(args.end(), {"--resume", cells_[i].run, "--runs-dir", store_.root()});
        else {
            args.insert(args.end(), cells_[i].args.begin(), cells_[i].args.end());
            args.insert(args.end(), {"--runs-dir", store_.root()});
        }
        if (how_.child_threads > 0)
            args.insert(args.end(), {"--threads", std::to_string(how_.child_threads)});
        return args;
    }

    void launch(std::size_t i) {
        const RunAction action = plans_[i].action;
        Child c;
        c.index = i;
        c.started = Clock::now();
        c.log_path = (fs::path(how_.logs_dir) / (cells_[i].run + ".stderr")).string();
        try {
            // A fresh start needs the cell's name free (restart: deleted; retry: kept as RUN.failed-<k>).
            if (action == RunAction::restart || action == RunAction::retry) {
                const std::string aside =
                    clear_run_dir((fs::path(store_.root()) / cells_[i].run).string(), action);
                if (!aside.empty())
                    std::cerr << "fone sweep: " << label(i) << ": the failed run is kept as "
                              << fs::path(aside).filename().string() << std::endl;
            }
            spawn(c, child_args(i, action));
        } catch (const std::exception& e) {
            end_cell(i, kStatusFailed, json(), -1, 0.0, std::string("cannot start: ") + e.what(), c);
            return;
        }
        ++started_;
        state_[i] = kStatusRunning;
        emit({{"event", "cell_start"},
              {"run", cells_[i].run},
              {"index", i},
              {"action", sweep_action(action)},
              {"pid", c.pid}});
        running_.push_back(std::move(c));
    }

    void spawn(Child& c, const std::vector<std::string>& args) {
        // Everything the child needs is made before fork(): after it, only async-signal-safe calls.
        std::vector<char*> argv;
        for (const std::string& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        std::string header = "== fone sweep " + how_.name + " " + utc_now_iso() + ":";
        for (std::size_t k = 1; k < args.size(); ++k)
            header += " " + args[k];
        header += "\n";

        // A link or special file in the log's place is refused (FileError), never appended through.
        const int log_fd = open_for_writing(c.log_path, WriteOpen::append);
        const ssize_t written = ::write(log_fd, header.data(), header.size());
        (void)written;
        struct stat st {};
        c.log_offset = ::fstat(log_fd, &st) == 0 ? static_cast<std::uintmax_t>(st.st_size) : 0;
        const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        int out[2];
        if (::pipe2(out, O_CLOEXEC) != 0) {
            const int err = errno;
            ::close(log_fd);
            if (null_fd >= 0) ::close(null_fd);
            throw RunError(std::string("pipe: ") + std::strerror(err));
        }

        sigset_t block, old;
        sigemptyset(&block);
        sigaddset(&block, SIGINT);
        sigaddset(&block, SIGTERM);
        ::sigprocmask(SIG_BLOCK, &block, &old);
        const pid_t parent = ::getpid();
        const pid_t pid = ::fork();
        if (pid == 0) {
            struct sigaction dfl {};
            dfl.sa_handler = SIG_DFL;
            sigemptyset(&dfl.sa_mask);
            ::sigaction(SIGINT, &dfl, nullptr);
            ::sigaction(SIGTERM, &dfl, nullptr);
            // A dead sweep's pipe must not kill the child mid-step: it gets SIGTERM (below) and stops
            // cleanly.
            struct sigaction ign {};
            ign.sa_handler = SIG_IGN;
            sigemptyset(&ign.sa_mask);
            ::sigaction(SIGPIPE, &ign, nullptr);
            // The sweep dies (even by kill -9): its children checkpoint and stop instead of training on.
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (::getppid() != parent) ::_exit(127);
            if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
            ::dup2(out[1], STDOUT_FILENO);
            ::dup2(log_fd, STDERR_FILENO);
            ::sigprocmask(SIG_SETMASK, &old, nullptr);
            ::execv("/proc/self/exe", argv.data());
            static const char msg[] = "fone sweep: cannot run /proc/self/exe\n";
            const ssize_t n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
            (void)n;
            ::_exit(127);
        }
        const int fork_errno = errno;
        ::sigprocmask(SIG_SETMASK, &old, nullptr);
        ::close(out[1]);
        ::close(log_fd);
        if (null_fd >= 0) ::close(null_fd);
        if (pid < 0) {
            ::close(out[0]);
            throw RunError(std::string("fork: ") + std::strerror(fork_errno));
        }
        ::fcntl(out[0], F_SETFL, ::fcntl(out[0], F_GETFL) | O_NONBLOCK);
        c.pid = pid;
        c.out_fd = out[0];
    }

    // Reads what the child wrote; true at end of file.
    bool read_child(Child& c) {
        char buf[65536];
        while (true) {
            const ssize_t n = ::read(c.out_fd, buf, sizeof buf);
            if (n > 0) {
                c.buffer.append(buf, static_cast<std::size_t>(n));
                std::size_t nl;
                while ((nl = c.buffer.find('\n')) != std::string::npos) {
                    handle_line(c, c.buffer.substr(0, nl));
                    c.buffer.erase(0, nl + 1);
                }
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
            if (!c.buffer.empty()) handle_line(c, c.buffer);
            c.buffer.clear();
            return true;
        }
    }

    void handle_line(Child& c, const std::string& line) {
        if (trim_blanks(line).empty()) return;
        json e = json::parse(line, nullptr, false);
        const std::string& run = cells_[c.index].run;
        if (e.is_discarded() || !e.is_object()) {
            if (how_.verbose) emit({{"event", "output"}, {"run", run}, {"index", c.index}, {"line", line}});
            return;
        }
        const std::string kind = str_field(e, "event");
        if (kind == "end") c.end = e;
        if (kind == "eval" || kind == "end" || how_.verbose) {
            e["run"] = run;
            e["index"] = c.index;
            emit(e);
        }
    }

    void finish_child(Child& c) {
        ::close(c.out_fd);
        c.out_fd = -1;
        int wstatus = 0;
        while (::waitpid(c.pid, &wstatus, 0) < 0 && errno == EINTR) {
        }
        const int exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        const double elapsed = std::chrono::duration<double>(Clock::now() - c.started).count();
        const std::size_t i = c.index;

        std::string status = str_field(c.end, "status");
        std::string message = str_field(c.end, "message");
        if (status.empty()) {
            // No end event: it died (a signal, an error before training). A stop we asked for is a stop.
            status = g_signals > 0 && WIFSIGNALED(wstatus) ? kStatusStopped : kStatusFailed;
            message = WIFSIGNALED(wstatus) ? "killed by signal " + std::to_string(WTERMSIG(wstatus))
                                           : "exited with status " + std::to_string(exit_code);
            const auto tail = log_tail(c.log_path, c.log_offset);
            if (!tail.empty()) message += ": " + trim_blanks(tail.back());
        } else if (exit_code != 0 && status == kStatusFinished) {
            status = kStatusFailed;
            message = "exited with status " + std::to_string(exit_code) + " after finishing";
        }
        json exact_match;
        std::error_code ec;
        const fs::path dir = fs::path(store_.root()) / cells_[i].run;
        if (fs::is_directory(dir, ec)) {
            try {
                exact_match = summary_exact_match(store_.info(dir.string()).summary);
            } catch (const std::exception&) {  // the figure is missing from the event, nothing worse
            }
        }
        end_cell(i, status, exact_match, exit_code, elapsed, message, c);
    }

    void end_cell(std::size_t i, const std::string& status, const json& exact_match, int exit_code,
                  double elapsed, const std::string& message, const Child& c) {
        state_[i] = status;
        emit({{"event", "cell_end"},
              {"run", cells_[i].run},
              {"index", i},
              {"status", status},
              {"exact_match", exact_match},
              {"exit_code", exit_code >= 0 ? json(exit_code) : json()},
              {"elapsed_seconds", elapsed},
              {"message", message}});
        std::string line = "fone sweep: " + label(i) + " " + status;
        if (status == kStatusFinished) {
            if (exact_match.is_number()) {
                char buf[48];
                std::snprintf(buf, sizeof buf, ": exact match %.2f%%", 100.0 * exact_match.get<double>());
                line += buf;
            }
            line += " (" + seconds_text(elapsed) + ")";
            std::cerr << line << std::endl;
            return;
        }
        if (exit_code > 0) line += " (exit " + std::to_string(exit_code) + ")";
        std::cerr << line << ": " << message << std::endl;
        if (status == kStatusFailed && !c.log_path.empty()) {
            const auto tail = log_tail(c.log_path, c.log_offset);
            if (!tail.empty()) {
                std::cerr << "    stderr (" << c.log_path << "):" << std::endl;
                for (const std::string& t : tail)
                    std::cerr << "    | " << t << std::endl;
            }
        }
    }

    // Runs of an earlier sweep that are still training: handled once they stop.
    void poll_waiters(std::deque<std::size_t>& queue, bool stopping) {
        if (stopping) return;
        for (std::size_t k = waiting_.size(); k-- > 0;) {
            const std::size_t i = waiting_[k].index;
            CellPlan p = plan_cell(store_, cells_[i].run, how_.retry_failed);
            if (p.action == RunAction::wait) continue;
            const double elapsed = std::chrono::duration<double>(Clock::now() - waiting_[k].started).count();
            waiting_.erase(waiting_.begin() + static_cast<long>(k));
            plans_[i] = p;
            if (p.action == RunAction::reuse) {
                end_cell(i, kStatusFinished, p.exact_match, -1, elapsed, p.message, Child{});
            } else if (p.action == RunAction::leave || p.action == RunAction::elsewhere) {
                end_cell(i, p.status, p.exact_match, -1, elapsed, p.message, Child{});
            } else {
                state_[i] = p.status;
                queue.push_front(i);  // resume / restart / retry it next
            }
        }
    }

    SweepRun how_;
    RunStore& store_;
    std::vector<SweepCell> cells_;
    std::vector<CellPlan> plans_;
    std::vector<std::string> state_;
    std::vector<Child> running_;
    std::vector<Waiter> waiting_;
    std::size_t started_ = 0;
    struct sigaction old_int_ {
    }, old_term_{};
};

}  // namespace

int run_cells(const SweepRun& how, RunStore& store, std::vector<SweepCell> cells,
              std::vector<CellPlan> plans) {
    Sweep sweep(how, store, std::move(cells), std::move(plans));
    return sweep.run();
}

}  // namespace fone::cli
