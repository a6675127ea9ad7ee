// `fone train --nproc N`: N ranks of one run on this machine.
#include "local_launch.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace fone::cli {
namespace {

volatile sig_atomic_t g_forward_signal = 0;

extern "C" void remember_signal(int sig) {
    g_forward_signal = sig;
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

bool is_option(const std::string& arg, const std::string& name) {
    return arg == name || arg.rfind(name + "=", 0) == 0;
}

pid_t start_rank(const LocalLaunch& launch, const std::vector<std::string>& command, int rank, int port) {
    const pid_t pid = ::fork();
    if (pid < 0)
        throw std::runtime_error("could not start rank " + std::to_string(rank) + ": " +
                                 std::strerror(errno));
    if (pid > 0) return pid;
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the launcher gone (kill -9): its ranks stop too
    ::setenv("RANK", std::to_string(rank).c_str(), 1);
    ::setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
    ::setenv("WORLD_SIZE", std::to_string(launch.nproc).c_str(), 1);
    ::setenv("LOCAL_WORLD_SIZE", std::to_string(launch.nproc).c_str(), 1);
    ::setenv("MASTER_ADDR", "127.0.0.1", 1);
    ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
    ::setenv("FONE_LAUNCHER", "nproc", 1);
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
    const int port = launch.master_port > 0 ? launch.master_port : free_port();
    struct sigaction forward {};
    forward.sa_handler = remember_signal;
    ::sigaction(SIGINT, &forward, nullptr);
    ::sigaction(SIGTERM, &forward, nullptr);
    std::vector<pid_t> ranks;
    for (int r = 0; r < launch.nproc; ++r)
        ranks.push_back(start_rank(launch, command, r, port));
    int first_failure = 0, running = launch.nproc;
    std::chrono::steady_clock::time_point kill_at = std::chrono::steady_clock::time_point::max();
    while (running > 0) {
        if (g_forward_signal) {
            for (pid_t p : ranks)
                if (p > 0) ::kill(p, g_forward_signal);
            g_forward_signal = 0;
        }
        if (std::chrono::steady_clock::now() >= kill_at)
            for (pid_t p : ranks)
                if (p > 0) ::kill(p, SIGKILL);
        int status = 0;
        const pid_t done = ::waitpid(-1, &status, WNOHANG);
        if (done <= 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            continue;
        }
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            if (ranks[r] != done) continue;
            ranks[r] = -1;
            --running;
            if (exit_status(status) == 0 || first_failure) break;
            first_failure = exit_status(status);
            if (WIFSIGNALED(status))
                std::fprintf(stderr,
                             "fone train: rank %zu was killed by signal %d (%s); stopping the other ranks\n",
                             r, WTERMSIG(status), strsignal(WTERMSIG(status)));
            // The others' collectives fail within moments (a hung rank: never): then they are killed.
            kill_at = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        }
    }
    return first_failure;
}

}  // namespace fone::cli
