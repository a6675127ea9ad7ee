#include "fone/platform/thread_environment.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "fone/platform/blas_kernel.h"
#include "fone/platform/cpu_share.h"

namespace fone {

namespace {

constexpr const char* kSetByFone = "FONE_SET_OMP_WAIT_POLICY";

bool user_chose_openmp_wait() {
    return std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT");
}

void set_openmp_wait(const OpenMpWaitChoice& choice) {
    ::setenv(choice.variable, choice.value, 1);
    // What it set, so a later change by hand is the user's: "PASSIVE" or "GOMP_SPINCOUNT=10000".
    const std::string mark = std::string(choice.variable) == "OMP_WAIT_POLICY"
                                 ? std::string(choice.value)
                                 : std::string(choice.variable) + "=" + choice.value;
    ::setenv(kSetByFone, mark.c_str(), 1);
}

}  // namespace

OpenMpWaitChoice openmp_wait_for_load(int usable_cpus, double others_busy) {
    if (usable_cpus >= 2 && others_busy < 0.5) return {"GOMP_SPINCOUNT", kIdleSpinCount};
    return {"OMP_WAIT_POLICY", kYieldingWaitPolicy};
}

bool prefer_yielding_openmp_wait() {
    if (user_chose_openmp_wait()) return false;
    set_openmp_wait({"OMP_WAIT_POLICY", kYieldingWaitPolicy});
    return true;
}

bool openmp_runtime_loaded() {
    void* gomp = ::dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (gomp) ::dlclose(gomp);  // NOLOAD took a reference: give it back
    return gomp != nullptr;
}

OpenMpWait openmp_wait() {
    // What libgomp read when it loaded: the environment this process started with (/proc/self/environ;
    // setenv does not change it) ...
    std::map<std::string, std::string> env;
    std::ifstream in("/proc/self/environ", std::ios::binary);
    for (std::string entry; std::getline(in, entry, '\0');)
        if (const auto eq = entry.find('='); eq != std::string::npos)
            env[entry.substr(0, eq)] = entry.substr(eq + 1);
    // ... unless fone set the wait after the start: settle_thread_environment does that without starting
    // again only when no libgomp was loaded yet (a build whose libgomp comes with LibTorch's own libraries,
    // loaded later: PyPI's wheels), so libgomp reads the environment as it is now. (The environment, not a
    // flag: `fone` and its LibTorch plugin each hold a copy of this file's statics.)
    if (env.count(kSetByFone) == 0 && std::getenv(kSetByFone)) {
        env.clear();
        for (const char* name : {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", kSetByFone})
            if (const char* value = std::getenv(name)) env[name] = value;
    }
    const std::string policy = env["OMP_WAIT_POLICY"], spin = env["GOMP_SPINCOUNT"];
    if (!policy.empty()) return {policy, env[kSetByFone] == policy ? "fone" : "environment"};
    if (!spin.empty())
        return {"GOMP_SPINCOUNT=" + spin,
                env[kSetByFone] == "GOMP_SPINCOUNT=" + spin ? "fone" : "environment"};
    return {"default (spin, then sleep)", "libgomp"};
}

void restart_self() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::vector<std::string> args;
    for (std::string arg; std::getline(in, arg, '\0');)
        args.push_back(arg);
    if (args.empty()) return;
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    // The program's own path, not /proc/self/exe: the process is named after the file it executes, and
    // `ps` and `top` should say "fone", not "exe".
    std::error_code ec;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (!ec && ::access(self.c_str(), X_OK) == 0) ::execv(self.c_str(), argv.data());
    ::execv("/proc/self/exe", argv.data());
}

// Sets the wait for the load of the next 0.05 s (a short look: every LibTorch command pays it once).
static bool choose_openmp_wait_for_load() {
    if (user_chose_openmp_wait()) return false;
    CpuLoadMeter meter;
    const CpuShare share = measure_cpu_share(meter, 0.05);
    set_openmp_wait(openmp_wait_for_load(share.usable, share.others_busy));
    return true;
}

void settle_thread_environment() {
    // The wait policy first: torch_blas() may load OpenBLAS, and with it libgomp.
    const bool libgomp_read_it = openmp_runtime_loaded();
    const bool wait_set = choose_openmp_wait_for_load();
    const bool kernel_set = set_best_blas_kernel_variable();
    // Both variables are set now, so the second start returns here without executing again.
    if ((wait_set && libgomp_read_it) || kernel_set) restart_self();
    // Could not start again: this run keeps the libraries' defaults, its children get the settings.
}

}  // namespace fone
