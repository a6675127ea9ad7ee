// One model on many processes (docs/cluster.md, "One run on several processes"): who this process is
// among the run's ranks, and where they meet. Plain C++: the CLI reads it from the environment that
// `fone train --nproc N`, torchrun or Slurm's srun sets; the trainer (core/src/train/distributed.h) turns
// it into a c10d process group.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace fone {

struct DistributedSetup {
    int rank = 0, world_size = 1, local_rank = 0, local_world_size = 1;
    std::string master_addr = "127.0.0.1";  // where rank 0 hosts the rendezvous (c10d's TCPStore)
    int master_port = 29500;
    double timeout_seconds = 300;  // a collective or the rendezvous waiting longer fails, naming the rank
    std::string launcher;          // "nproc", "torchrun", "slurm" (for the start event)
    // Where the ranks meet. A file (`fone train --nproc`: FONE_RENDEZVOUS_FILE, in a folder of mode 0700 the
    // launcher made): nothing listens on the network. Empty: rank 0 hosts c10d's TCPStore at
    // master_addr:master_port.
    std::string rendezvous_file;
    // The run's token: every key of the rendezvous is under it (and under a digest of what the ranks
    // train), so that ranks of two runs that meet at one address never exchange anything. `--nproc`: 128
    // random bits (FONE_RUN_TOKEN); torchrun, srun: FONE_RUN_TOKEN when exported, else the job's id.
    std::string token;
    bool active() const { return world_size > 1; }
    bool lead() const { return rank == 0; }
};

// Whether this build has c10d and a backend (Gloo on CPUs; NCCL with a CUDA LibTorch 2.x).
bool distributed_available();
// Whether it can train on CPUs (c10d and Gloo). PyPI's CUDA wheels of LibTorch 2.x ship no Gloo headers, so
// their builds train data-parallel on GPUs only (NCCL) and say so for CPUs in one line.
bool distributed_available_on_cpu();
// The one line `--nproc` and a distributed environment get in a build without it.
std::string distributed_unavailable_message();

using EnvironmentReader = std::function<const char*(const char*)>;

// The rank of a process started by torchrun (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT; `fone train --nproc` sets the same) or by Slurm's srun (SLURM_PROCID, SLURM_NTASKS,
// SLURM_LOCALID, SLURM_NTASKS_PER_NODE; the rendezvous on the first host of SLURM_JOB_NODELIST, port
// MASTER_PORT or 29500 + SLURM_JOB_ID % 1000). nullopt when neither says there is more than one process.
// Throws std::invalid_argument naming a variable that is not a number or out of range.
std::optional<DistributedSetup> distributed_from_environment(const EnvironmentReader& env);

// The first host of a Slurm node list: "node[07-09,12],gpu1" -> "node07", "a,b" -> "a".
std::string first_slurm_host(const std::string& nodelist);

}  // namespace fone
