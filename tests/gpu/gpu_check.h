// The GPU tests' own small harness, without Qt: they must build and run on an offline GPU node that has
// PyTorch and a compiler but no Qt (scripts/device-check.sh, docs/gpu.md). A case is a named function;
// CHECK records a failure with its message and goes on; run_cases prints one line per case and returns the
// process's exit status (0 all passed, 1 a case failed). Running `fone` as a user does: run_fone.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace gpu_check {

struct Case {
    std::string name;
    std::function<void()> run;
};

inline int& failures_in_case() {
    static int n = 0;
    return n;
}

inline void fail(const char* file, int line, const std::string& what) {
    ++failures_in_case();
    std::cout << "  FAIL " << file << ":" << line << ": " << what << std::endl;
}

#define GPU_CHECK(cond, message)                                                                   \
    do {                                                                                           \
        if (!(cond)) ::gpu_check::fail(__FILE__, __LINE__, std::string(#cond) + ": " + (message)); \
    } while (0)

// Runs the cases named on the command line (all when none), in order; "PASS name (seconds)" or "FAIL".
// `--list` prints the cases' names (a check that the program starts, GPU or not).
inline int list_cases(const std::vector<Case>& cases) {
    for (const Case& c : cases)
        std::cout << c.name << "\n";
    return 0;
}
inline int run_cases(const std::vector<Case>& cases, int argc, char** argv) {
    std::vector<std::string> wanted(argv + 1, argv + argc);
    int failed = 0, ran = 0;
    for (const Case& c : cases) {
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), c.name) == wanted.end()) continue;
        ++ran;
        failures_in_case() = 0;
        const auto t0 = std::chrono::steady_clock::now();
        std::cout << "RUN  " << c.name << std::endl;
        try {
            c.run();
        } catch (const std::exception& e) {
            fail(__FILE__, __LINE__, std::string("exception: ") + e.what());
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const bool ok = failures_in_case() == 0;
        failed += !ok;
        std::printf("%s %s (%.1f s)\n", ok ? "PASS" : "FAIL", c.name.c_str(), s);
        std::fflush(stdout);
    }
    std::printf("%d of %d cases passed\n", ran - failed, ran);
    return failed == 0 && ran > 0 ? 0 : 1;
}

struct Result {
    int code = -1;  // -1: killed by a signal, -2: timed out (and killed)
    std::string out, err;
};

inline std::string read_whole(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Starts `program args...` with `env` ("NAME=VALUE" over this process's environment; "NAME=" removes
// NAME), stdout and stderr to files in `scratch`; returns its pid (or -1).
inline pid_t start(const std::string& program, const std::vector<std::string>& args,
                   const std::vector<std::string>& env, const std::string& scratch) {
    std::vector<std::string> environment;
    for (char** e = environ; *e; ++e) {
        const std::string kv = *e, name = kv.substr(0, kv.find('='));
        bool replaced = false;
        for (const std::string& o : env)
            replaced |= o.substr(0, o.find('=')) == name;
        if (!replaced) environment.push_back(kv);
    }
    for (const std::string& o : env)
        if (o.find('=') + 1 < o.size()) environment.push_back(o);
    std::vector<char*> argv{const_cast<char*>(program.c_str())}, envp;
    for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (std::string& e : environment)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&files, 1, (scratch + "/out").c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&files, 2, (scratch + "/err").c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    pid_t pid = -1;
    if (posix_spawn(&pid, program.c_str(), &files, nullptr, argv.data(), envp.data()) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&files);
    return pid;
}

// Waits for `pid` up to `timeout_s` (then kills it); its exit code, -1 for a signal, -2 for a timeout.
inline int wait_for(pid_t pid, double timeout_s) {
    const auto t0 = std::chrono::steady_clock::now();
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeout_s) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -2;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A scratch folder of this process's own for one child's output files.
inline std::string scratch_folder() {
    static int n = 0;
    const std::string d = (std::filesystem::temp_directory_path() /
                           ("gpu-check-" + std::to_string(getpid()) + "-" + std::to_string(++n)))
                              .string();
    std::filesystem::create_directories(d);
    return d;
}

// The `fone` to test: the one beside this program (a build's bin/, or the device kit's, carried to another
// machine), else the build's.
inline std::string fone_program() {
    std::error_code ec;
    const auto beside = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "fone";
    return !ec && std::filesystem::exists(beside) ? beside.string() : std::string(FONE_BIN_DIR "/fone");
}

// The built `fone` with `args`, as a user runs it.
inline Result run_fone(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                       double timeout_s = 1800) {
    const std::string scratch = scratch_folder();
    const pid_t pid = start(fone_program(), args, env, scratch);
    Result r;
    r.code = pid < 0 ? -1 : wait_for(pid, timeout_s);
    r.out = read_whole(scratch + "/out");
    r.err = read_whole(scratch + "/err");
    std::filesystem::remove_all(scratch);
    return r;
}

// One object per line that parses as a JSON object (events), in order.
inline std::vector<nlohmann::json> json_lines(const std::string& out) {
    std::vector<nlohmann::json> v;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_object()) v.push_back(j);
    }
    return v;
}

// The last event of a kind ("start", "eval", "end"), or an empty object.
inline nlohmann::json last_event(const std::string& out, const std::string& kind) {
    nlohmann::json found = nlohmann::json::object();
    for (const nlohmann::json& e : json_lines(out))
        if (e.value("event", "") == kind) found = e;
    return found;
}

inline nlohmann::json read_json(const std::string& path) {
    return nlohmann::json::parse(read_whole(path), nullptr, false);
}

}  // namespace gpu_check
