// The trainer's data-parallel pieces (docs/cluster.md, "One run on several processes"), each called from one
// place in trainer.cpp's loop. Private to core/src/train/.
//
// A batch's gradient is the sum of gradient_shards disjoint, contiguous shares of its rows, each share's loss
// weighted by its share of the rows (so the sum is the whole batch's mean loss): rank r computes the shares
// r, r + world, ... and the ranks' sums are all-reduced. gradient_shards is fixed when the run starts (its
// number of processes) and kept by a resume, so a resume on 1, 2 or N processes computes the same sums; with
// 2 shares they are even bit-identical (one addition is one addition, in whichever process it happens).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/store/train_config.h"
#include "schemes/scheme.h"
#include "train/distributed.h"

namespace fone {

struct ParallelPlan {
    std::unique_ptr<Collective> group;  // null: this process trains alone
    int gradient_shards = 1;

    bool active() const { return group != nullptr || gradient_shards > 1; }
    bool lead() const { return !group || group->lead(); }
    int rank() const { return group ? group->rank() : 0; }
    int world_size() const { return group ? group->world_size() : 1; }
};

// The run's gradient_shards (kDataParallelFile; 1 without one) and writing it when a run starts.
int read_gradient_shards(const std::string& run_dir);
void write_gradient_shards(const std::string& run_dir, int shards);

// This rank's device: `wanted` resolved (fone/nn/device.h); on CUDA the GPU of its local rank.
torch::Device rank_device(const std::string& wanted, const ParallelPlan& plan);
torch::Device rank_device(const std::string& wanted, const DistributedSetup& setup);
// Where the other ranks of a new text or adapter run open their model (opening it trains and saves the
// tokenizer, or keeps the pretrained files, which only rank 0 writes into the run): a folder of their own in
// the temporary folder, made by mkdtemp (an unpredictable name, mode 0700) and removed with this object.
class ScratchFolder {
  public:
    explicit ScratchFolder(const std::string& prefix);
    ~ScratchFolder();
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};
// A ScratchFolder("fone-rank") for a rank other than 0 of a new text or adapter run; null otherwise.
std::unique_ptr<ScratchFolder> rank_scratch(const ParallelPlan& plan, bool new_text_run);

// What the ranks of one run agree on before they meet (Collective::connect's signature), as 16 hex digits:
// rank_signature of any text; a new run's settings but its threads (a node's cores decide those).
std::string rank_signature(const std::string& what);
std::string new_run_signature(const TrainConfig& config);
std::string resume_signature(const std::string& run_dir);  // of the folder's absolute path

// Rank 0's parameters and buffers into every rank's model (at the start and on a resume).
void broadcast_weights(Collective& group, FoneTransformer& model);

struct ShardedStep {
    double loss = 0.0;                 // the whole batch's loss, summed over the shares
    bool stop = false;                 // some rank was asked to stop (SIGTERM, SIGINT)
    std::vector<double> rank_seconds;  // each rank's forward and backward seconds of this step
    double reduce_seconds = 0.0;       // this rank's all-reduce (waiting for the slowest rank included)
};

// One step's gradient: this rank's shares of b (forward, backward, Abacus noise seeded by (seed, step,
// share)), then the sum over ranks of the gradients, the loss, the stop requests and the ranks' seconds, in
// flat buckets. A parameter no share gave a gradient keeps none (AdamW skips it, as without shares). bf16:
// each share's forward pass under bf16 autocast (--precision bf16).
ShardedStep sharded_gradient(ParallelPlan& plan, const NumberScheme& scheme, FoneTransformer& model,
                             const Batch& b, std::uint64_t seed, int64_t step, bool stop_requested,
                             bool bf16);

// The test split's metrics ("eval" event fields), each rank scoring its share and the counts summed: the
// same figures one process gets. Text runs (and splits smaller than the world) are scored whole on every
// rank.
nlohmann::json split_evaluation(ParallelPlan& plan, const NumberScheme& scheme, FoneTransformer& model,
                                const Batch& split, const torch::Device& device, bool text);

// Rank 0's value on every rank (the decision it took: the exact match that counts, after its extras).
double from_lead(Collective& group, double value);

}  // namespace fone
