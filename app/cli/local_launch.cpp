// `fone train --nproc N`: N ranks of one run on this machine.
#include "local_launch.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <thread>

namespace fone::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_forward_signal = 0;
volatile sig_atomic_t g_signals = 0;

extern "C" void remember_signal(int sig) {
    g_forward_signal = sig;
    g_signals = g_signals + 1;
}

// A TCP port nobody listens on now (the kernel's choice), for rank 0's store.
int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        throw std::runtime_error("no socket for the rendezvous: " + std::string(std::strerror(errno)));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
    ::close(fd);
    if (!ok)
        throw std::runtime_error("no free port for the rendezvous: " + std::string(std::strerror(errno)));
    return ntohs(addr.sin_port);
}

// 128 random bits as hex: the run's token (fone/train/distributed.h, DistributedSetup::token).
std::string random_token() {
    unsigned char bytes[16];
    std::size_t got = 0;
    while (got < sizeof bytes) {
        const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            throw std::runtime_error("no random bytes for the run's token: " +
                                     std::string(std::strerror(errno)));
        got += static_cast<std::size_t>(n);
    }
    std::string hex;
    for (unsigned char b : bytes) {
        char two[3];
        std::snprintf(two, sizeof two, "%02x", b);
        hex += two;
    }
    return hex;
}

// The ranks' meeting place when no address was asked for: a file in a folder only this user can enter
// (mkdtemp: mode 0700, a name nobody could plant beforehand). Nothing listens on the network. Removed with
// this object.
class PrivateRendezvous {
  public:
    PrivateRendezvous() {
        std::string pattern = (fs::temp_directory_path() / "fone-rendezvous-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            throw std::runtime_error("cannot make the rendezvous folder " + pattern + ": " +
                                     std::strerror(errno));
        dir_ = pattern;
    }
    ~PrivateRendezvous() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    PrivateRendezvous(const PrivateRendezvous&) = delete;
    PrivateRendezvous& operator=(const PrivateRendezvous&) = delete;
    std::string file() const { return dir_ + "/store"; }

  private:
    std::string dir_;
};

bool is_option(const std::string& arg, const std::string& name) {
    return arg == name || arg.rfind(name + "=", 0) == 0;
}

struct RankEnvironment {
    int port = 0;                 // 0: the rendezvous file
    std::string rendezvous_file;  // "" : TCP at 127.0.0.1:port (or the ranks' --master-addr)
    std::string token;
    bool stderr_tty = false;
};

pid_t start_rank(const LocalLaunch& launch, const std::vector<std::string>& command, int rank,
                 const RankEnvironment& env, int stderr_fd) {
    const pid_t pid = ::fork();
    if (pid < 0)
        throw std::runtime_error("could not start rank " + std::to_string(rank) + ": " +
                                 std::strerror(errno));
    if (pid > 0) return pid;
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the launcher gone (kill -9): its ranks stop too
    ::dup2(stderr_fd, STDERR_FILENO);
    ::setenv("RANK", std::to_string(rank).c_str(), 1);
    ::setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
    ::setenv("WORLD_SIZE", std::to_string(launch.nproc).c_str(), 1);
    ::setenv("LOCAL_WORLD_SIZE", std::to_string(launch.nproc).c_str(), 1);
    ::setenv("MASTER_ADDR", "127.0.0.1", 1);
    ::setenv("MASTER_PORT", std::to_string(env.port > 0 ? env.port : 29500).c_str(), 1);
    ::setenv("FONE_LAUNCHER", "nproc", 1);
    ::setenv("FONE_RUN_TOKEN", env.token.c_str(), 1);
    if (env.rendezvous_file.empty())
        ::unsetenv("FONE_RENDEZVOUS_FILE");
    else
        ::setenv("FONE_RENDEZVOUS_FILE", env.rendezvous_file.c_str(), 1);
    // Rank 0's progress bar goes to the launcher's terminal through a pipe.
    if (env.stderr_tty && rank == 0) ::setenv("FONE_STDERR_IS_TTY", "1", 1);
    // c10d's and Gloo's own log lines (warnings of a collective that failed) repeat what the one error line
    // says, once per rank: only errors.
    ::setenv("TORCH_CPP_LOG_LEVEL", "ERROR", 0);
    std::vector<char*> argv;
    for (const std::string& a : command)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv("/proc/self/exe", argv.data());
    std::fprintf(stderr, "fone train: could not start rank %d: %s\n", rank, std::strerror(errno));
    ::_exit(127);
}

int exit_status(int status) {
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// A line of a rank's stderr that only LibTorch's or Gloo's logging wrote: "[W ProcessGroupGloo.cpp:2791]
// Warning: ...", glog's "E1128 17:02:03.123456 4321 file.cc:12] ...".
bool is_library_log(const std::string& line) {
    if (line.size() > 3 && line[0] == '[' && std::strchr("WEIF", line[1]) && line[2] == ' ') return true;
    return line.size() > 6 && std::strchr("WEIF", line[0]) &&
           std::isdigit(static_cast<unsigned char>(line[1])) &&
           std::isdigit(static_cast<unsigned char>(line[4])) && line[5] == ' ';
}

// The ranks' stderr, read by the launcher: library log lines dropped, each rank's error lines held back so
// that the run's failure is one line (rank 0's, which names the rank behind it; else the first other rank's),
// every other line passed through as it comes.
class RankOutput {
  public:
    explicit RankOutput(int nproc)
        : fds_(static_cast<std::size_t>(nproc), -1), partial_(fds_.size()), errors_(fds_.size()) {}
    // A pipe for rank r: the write end goes to the child, the read end stays here.
    int open_for(int rank) {
        int p[2];
        if (::pipe2(p, O_CLOEXEC) != 0)
            throw std::runtime_error("no pipe for a rank: " + std::string(std::strerror(errno)));
        fds_[static_cast<std::size_t>(rank)] = p[0];
        return p[1];
    }
    // Reads what is there (waits up to ms for something).
    void pump(int ms) {
        std::vector<pollfd> polls;
        for (int fd : fds_)
            if (fd >= 0) polls.push_back({fd, POLLIN, 0});
        if (polls.empty()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
            return;
        }
        if (::poll(polls.data(), polls.size(), ms) <= 0) return;
        for (const pollfd& p : polls)
            if (p.revents & (POLLIN | POLLHUP | POLLERR)) read_from(p.fd);
    }
    void drain() {
        for (int tries = 0; tries < 200 && open_count() > 0; ++tries)
            pump(10);
    }
    // The held error lines: rank 0's when it has one, else every other rank's distinct ones (at most one
    // each), unless rank 0 ended well (its outcome is the run's).
    void print_errors(bool lead_ok) const {
        if (!errors_[0].empty()) {
            std::fprintf(stderr, "%s\n", errors_[0].front().c_str());
            return;
        }
        if (lead_ok) return;
        std::vector<std::string> shown;
        for (std::size_t r = 1; r < errors_.size(); ++r)
            for (const std::string& e : errors_[r])
                if (std::find(shown.begin(), shown.end(), e) == shown.end()) {
                    shown.push_back(e);
                    std::fprintf(stderr, "%s\n", e.c_str());
                    break;
                }
    }

  private:
    std::vector<int> fds_;
    std::vector<std::string> partial_;
    std::vector<std::vector<std::string>> errors_;

    int open_count() const {
        int n = 0;
        for (int fd : fds_)
            n += fd >= 0;
        return n;
    }
    void read_from(int fd) {
        const auto it = std::find(fds_.begin(), fds_.end(), fd);
        const std::size_t r = static_cast<std::size_t>(it - fds_.begin());
        char buf[4096];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) return;
            if (!partial_[r].empty()) line(r, partial_[r]);
            partial_[r].clear();
            ::close(fd);
            fds_[r] = -1;
            return;
        }
        std::string& part = partial_[r];
        for (ssize_t i = 0; i < n; ++i) {
            const char c = buf[i];
            if (c == '\n') {
                line(r, part);
                part.clear();
            } else if (c == '\r') {  // a progress bar's redraw: passed on as it is
                std::fprintf(stderr, "%s\r", part.c_str());
                part.clear();
            } else if (part.size() < 65536) {
                part += c;
            }
        }
        std::fflush(stderr);
    }
    void line(std::size_t rank, const std::string& text) {
        if (is_library_log(text)) return;
        if (text.rfind("fone train: error: ", 0) == 0) {
            if (errors_[rank].size() < 8) errors_[rank].push_back(text);
            return;
        }
        std::fprintf(stderr, "%s\n", text.c_str());
    }
};

}  // namespace

std::vector<std::string> rank_command_line(int threads_each) {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    for (std::size_t at = 0; at < all.size();) {
        const std::size_t end = all.find('\0', at);
        args.push_back(all.substr(at, end - at));
        at = end == std::string::npos ? all.size() : end + 1;
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (i > 0 && (is_option(args[i], "--nproc") || is_option(args[i], "--threads"))) {
            if (args[i].find('=') == std::string::npos) ++i;  // its value
            continue;
        }
        out.push_back(args[i]);
    }
    out.push_back("--threads");
    out.push_back(std::to_string(threads_each));
    return out;
}

int launch_local_ranks(const LocalLaunch& launch, const std::vector<std::string>& command) {
    RankEnvironment env;
    env.token = random_token();
    env.stderr_tty = ::isatty(STDERR_FILENO);
    std::unique_ptr<PrivateRendezvous> rendezvous;
    if (launch.master_port > 0 || launch.tcp) {
        env.port = launch.master_port > 0 ? launch.master_port : free_port();
    } else {
        rendezvous = std::make_unique<PrivateRendezvous>();
        env.rendezvous_file = rendezvous->file();
    }
    struct sigaction forward {};
    forward.sa_handler = remember_signal;
    ::sigaction(SIGINT, &forward, nullptr);
    ::sigaction(SIGTERM, &forward, nullptr);
    RankOutput output(launch.nproc);
    std::vector<pid_t> ranks;
    for (int r = 0; r < launch.nproc; ++r) {
        const int write_end = output.open_for(r);
        ranks.push_back(start_rank(launch, command, r, env, write_end));
        ::close(write_end);
    }
    int first_failure = 0, running = launch.nproc;
    bool lead_ok = false;
    Clock::time_point kill_at = Clock::time_point::max();
    while (running > 0) {
        if (g_forward_signal) {
            // The first two are the ranks' (a stop; a second: stop without waiting for a hung rank); a third
            // ends every rank at once.
            const int sig = g_signals >= 3 ? SIGKILL : g_forward_signal;
            for (pid_t p : ranks)
                if (p > 0) ::kill(p, sig);
            g_forward_signal = 0;
        }
        if (Clock::now() >= kill_at)
            for (pid_t p : ranks)
                if (p > 0) ::kill(p, SIGKILL);
        output.pump(50);
        int status = 0;
        const pid_t done = ::waitpid(-1, &status, WNOHANG);
        if (done <= 0) continue;
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            if (ranks[r] != done) continue;
            ranks[r] = -1;
            --running;
            const int code = exit_status(status);
            if (r == 0) lead_ok = code == 0;
            // Rank 0 ended, or a rank failed: the others end by themselves within moments (the same last
            // step, or a failed collective); one that hangs is killed 5 s later. (Another rank ending well
            // sets no clock: rank 0 may still be writing the run.)
            if ((r == 0 || code != 0) && kill_at == Clock::time_point::max())
                kill_at = Clock::now() + std::chrono::seconds(5);
            // Rank 0 ended well (finished, or stopped on request): a rank that ends after it is no failure.
            if (code == 0 || (lead_ok && r > 0) || first_failure) break;
            first_failure = code;
            if (WIFSIGNALED(status) && Clock::now() < kill_at)
                std::fprintf(stderr,
                             "fone train: rank %zu was killed by signal %d (%s); stopping the other ranks\n",
                             r, WTERMSIG(status), strsignal(WTERMSIG(status)));
        }
    }
    output.drain();
    output.print_errors(lead_ok);
    // Rank 0 writes the run: when it ended well (finished, or stopped on request), so did the run, whatever
    // became of a hung rank killed after it.
    return lead_ok ? 0 : first_failure;
}

}  // namespace fone::cli
