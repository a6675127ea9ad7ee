// The ranks of one run talking to each other: c10d's TCPStore for the rendezvous, ProcessGroupGloo on
// CPUs, ProcessGroupNCCL on CUDA (a LibTorch 2.x built with it). Private to core/src/train/; the trainer's
// data-parallel step is in data_parallel.cpp.
#pragma once

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "fone/train/distributed.h"

namespace fone {

// A collective or the rendezvous failed; what() names the rank that caused it and why.
class RankFailure : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A rank waiting in a collective was asked to stop (SIGINT, SIGTERM) and the collective did not end: a rank
// hangs. The step was not taken: the weights are those of the last step every rank finished.
class StoppedWhileWaiting : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The stop requests this process got (request_stop, fone/train/training.h): how many, and when the first
// came. A collective that waits reads them: kStopGrace after the first, or at once after a second, it gives
// up waiting (StoppedWhileWaiting).
struct StopRequests {
    std::atomic<int> count{0};
    std::atomic<int64_t> first_ms{0};  // steady clock, milliseconds
    void add() noexcept;
    bool any() const noexcept { return count.load() > 0; }
    // Whether a collective waiting since before the request should stop waiting now.
    bool give_up_waiting() const noexcept;
};
StopRequests& stop_requests();
inline constexpr double kStopGraceSeconds = 5.0;

class Collective {
  public:
    // Meets the other ranks within setup.timeout_seconds (rank 0 hosts the store at master_addr:port, or
    // the ranks share setup.rendezvous_file) and builds the process group for `device`'s kind. Every key is
    // under setup.token and `signature` (a digest of what the ranks will train: ranks of two runs never
    // exchange anything). Past the timeout the process ends with one line on stderr, whatever c10d is
    // waiting for (a listener that never answers). Throws RankFailure, or RunError in a build without c10d.
    static std::unique_ptr<Collective> connect(const DistributedSetup& setup, const torch::Device& device,
                                               const std::string& signature);
    virtual ~Collective() = default;

    const DistributedSetup& setup() const { return setup_; }
    int rank() const { return setup_.rank; }
    int world_size() const { return setup_.world_size; }
    bool lead() const { return setup_.rank == 0; }

    // Rank 0's values into every rank's tensors (same shapes and dtypes everywhere), in flat buckets.
    virtual void broadcast(const std::vector<torch::Tensor>& tensors) = 0;
    // Every rank's tensors replaced by their sum over the ranks, in flat buckets (one collective per bucket
    // of up to kBucketBytes, not one per tensor), the buckets sent while the next is being packed.
    virtual void sum(const std::vector<torch::Tensor>& tensors) = 0;
    // A text rank 0 gives the others through the store (the run's folder, where the run starts from).
    // "!" followed by a reason: rank 0 failed before training; the others throw RankFailure with it.
    virtual void publish(const std::string& key, const std::string& value) = 0;
    virtual std::string receive(const std::string& key) = 0;

    // A failure on this rank that is not a collective's (an error, out of memory): posted for the others,
    // so that their collectives' errors name this rank and its cause. Never throws.
    virtual void post_failure(const std::string& cause) noexcept = 0;
    // After a collective failed here: which rank caused it (one that posted its cause, or one that never
    // answered: died, or hung past the timeout), as one line. Waits a moment for the others' posts.
    virtual std::string explain_failure(const std::string& what, int64_t step) noexcept = 0;
    // After StoppedWhileWaiting: the process group is left to the operating system (its destructor would
    // wait for the hung collective until the timeout); the process ends soon after.
    virtual void abandon() noexcept = 0;

    static constexpr int64_t kBucketBytes = 25 << 20;

  protected:
    explicit Collective(DistributedSetup setup) : setup_(std::move(setup)) {}
    DistributedSetup setup_;
};

}  // namespace fone
