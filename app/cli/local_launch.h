// `fone train --nproc N`: this same command started N times on this machine, as ranks 0..N-1 of one run,
// with torchrun's environment (docs/cluster.md, "One run on several processes").
#pragma once

#include <string>
#include <vector>

namespace fone::cli {

struct LocalLaunch {
    int nproc = 2;
    int threads_each = 1;  // each rank's --threads: its share of the cores
    int master_port = 0;   // given: rank 0 hosts a TCP rendezvous on it
    bool tcp = false;      // --master-addr given: a TCP rendezvous there (else a private file, no listener)
    double timeout_seconds = 300;
};

// This process's command line (/proc/self/cmdline) without `--nproc N` and `--threads T`, and with
// `--threads <threads_each>`: what each rank runs.
std::vector<std::string> rank_command_line(int threads_each);

// Starts the ranks (they meet through a file in a private folder, or over TCP when a port or address was
// given; every key under a random token of this launch), forwards SIGINT/SIGTERM to them (a third signal
// kills them) and waits. When rank 0 ends, or one fails, the others get 5 seconds to stop by themselves
// (their collectives fail and name it), then are killed. The ranks' stderr comes through here: LibTorch's
// and Gloo's log lines are dropped and the failure is one line (rank 0's, naming the rank behind it); a rank
// killed by a signal is one line naming it. Returns 0 when rank 0 ended well, else the first failing rank's
// exit status (128 + signal for a signal).
int launch_local_ranks(const LocalLaunch& launch, const std::vector<std::string>& command);

}  // namespace fone::cli
