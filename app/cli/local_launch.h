// `fone train --nproc N`: this same command started N times on this machine, as ranks 0..N-1 of one run,
// with torchrun's environment (docs/cluster.md, "One run on several processes").
#pragma once

#include <string>
#include <vector>

namespace fone::cli {

struct LocalLaunch {
    int nproc = 2;
    int threads_each = 1;  // each rank's --threads: its share of the cores
    int master_port = 0;   // 0: a free port of this machine
    double timeout_seconds = 300;
};

// This process's command line (/proc/self/cmdline) without `--nproc N` and `--threads T`, and with
// `--threads <threads_each>`: what each rank runs.
std::vector<std::string> rank_command_line(int threads_each);

// Starts the ranks, forwards SIGINT/SIGTERM to them and waits. When one ends in failure, the others get a
// 5 seconds to stop by themselves (their collectives fail and name it), then are killed. A rank killed by a
// signal is one line on stderr naming it. Returns the first failing rank's exit status (128 + signal for a
// signal), 0 when all finished.
int launch_local_ranks(const LocalLaunch& launch, const std::vector<std::string>& command);

}  // namespace fone::cli
