// The trainer's data-parallel pieces: shares of a batch, the all-reduced gradient, split evaluation.
#include "train/data_parallel.h"

#include <cmath>
#include <filesystem>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fone/io/json_files.h"
#include "fone/nn/device.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "nn/device_setup.h"
#include "nn/timing.h"

namespace fone {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Rows [lo, hi) of share `share` of n rows in `shares` contiguous pieces.
std::pair<int64_t, int64_t> share_rows(int64_t n, int share, int shares) {
    return {n * share / shares, n * (share + 1) / shares};
}

Batch rows_of(const Batch& b, int64_t lo, int64_t hi) {
    return select_rows(
        b, torch::arange(lo, hi, torch::TensorOptions(torch::kInt64).device(b.in.tokens.device())));
}

// This rank's shares: forward and backward of each, its loss weighted by its rows; the summed loss.
double local_shares(ParallelPlan& plan, const NumberScheme& scheme, FoneTransformer& model, const Batch& b,
                    std::uint64_t seed, int64_t step, bool bf16) {
    double loss_sum = 0.0;
    for (int share = plan.rank(); share < plan.gradient_shards; share += plan.world_size()) {
        const auto [lo, hi] = share_rows(b.n, share, plan.gradient_shards);
        if (hi == lo) continue;
        // The noise of a share depends on the share, not on which process computes it.
        torch::manual_seed(seed * 1000003ULL + static_cast<std::uint64_t>(step) + 1 +
                           0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(share));
        torch::Tensor loss;
        {
            const Bf16Autocast autocast(b.in.tokens.device(), bf16);
            loss = scheme.loss(model, rows_of(b, lo, hi), true) *
                   (static_cast<double>(hi - lo) / static_cast<double>(b.n));
        }
        loss_sum += loss.item<double>();
        loss.backward();
    }
    return loss_sum;
}

// Test hook for tests/test_distributed.cpp: FONE_INJECT_RANK_FAULT="<rank>:<step>:<kill|hang|error>" makes
// that rank, at that step, kill itself (SIGKILL), hang, or throw (as running out of memory would).
void injected_fault(int rank, int64_t step) {
    const char* v = std::getenv("FONE_INJECT_RANK_FAULT");
    if (!v) return;
    int r = -1;
    long long at = -1;
    char what[8] = {};
    if (std::sscanf(v, "%d:%lld:%7s", &r, &at, what) != 3 || r != rank || at != step) return;
    if (std::strcmp(what, "kill") == 0) ::kill(::getpid(), SIGKILL);
    if (std::strcmp(what, "hang") == 0)
        while (true)
            ::pause();
    if (std::strcmp(what, "error") == 0)
        throw std::runtime_error("injected failure (as out of memory would be)");
}

}  // namespace

int read_gradient_shards(const std::string& run_dir) {
    const fs::path file = fs::path(run_dir) / kDataParallelFile;
    if (!fs::exists(file)) return 1;
    const json j = read_json_file(file.string());
    const int shards = j.value("gradient_shards", 1);
    if (shards < 1) throw RunError(file.string() + ": gradient_shards must be at least 1");
    return shards;
}

void write_gradient_shards(const std::string& run_dir, int shards) {
    write_json_atomic((fs::path(run_dir) / kDataParallelFile).string(), {{"gradient_shards", shards}});
}

torch::Device rank_device(const std::string& wanted, const DistributedSetup& setup) {
    const torch::Device device(resolve_device(wanted));
    if (!device.is_cuda() || !setup.active()) return device;
    const int gpus = static_cast<int>(torch::cuda::device_count());
    return torch::Device(torch::kCUDA, static_cast<torch::DeviceIndex>(setup.local_rank % std::max(1, gpus)));
}

torch::Device rank_device(const std::string& wanted, const ParallelPlan& plan) {
    return plan.group ? rank_device(wanted, plan.group->setup()) : torch::Device(resolve_device(wanted));
}

ScratchFolder::ScratchFolder(const std::string& prefix) {
    std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
    // mkdtemp: a new folder of a name nobody could know beforehand, mode 0700 (a name planted in the shared
    // temporary folder, a link to someone's files, is never used).
    if (!::mkdtemp(pattern.data()))
        throw RunError(pattern + ": cannot make a temporary folder (" + std::strerror(errno) + ")");
    path_ = pattern;
}

ScratchFolder::~ScratchFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

std::unique_ptr<ScratchFolder> rank_scratch(const ParallelPlan& plan, bool new_text_run) {
    if (plan.lead() || !new_text_run) return nullptr;
    return std::make_unique<ScratchFolder>("fone-rank");
}

// What the ranks of one run agree on before they meet, as 16 hex digits: a new run's settings (all but the
// threads, which a node's cores decide), or the folder a resume continues. Two runs that meet at one
// address (two launches on one --master-port) have other signatures, so their ranks never exchange a key.
std::string rank_signature(const std::string& what) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const char c : what)
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

std::string resume_signature(const std::string& run_dir) {
    return rank_signature("resume:" + fs::absolute(run_dir).lexically_normal().string());
}

std::string new_run_signature(const TrainConfig& config) {
    json j = config.to_json();
    j.erase("threads");
    return rank_signature("new:" + dump_json(j, -1));
}

void broadcast_weights(Collective& group, FoneTransformer& model) {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> tensors = model->parameters();
    for (const torch::Tensor& b : model->buffers())
        tensors.push_back(b);
    group.broadcast(tensors);
}

ShardedStep sharded_gradient(ParallelPlan& plan, const NumberScheme& scheme, FoneTransformer& model,
                             const Batch& b, std::uint64_t seed, int64_t step, bool stop_requested,
                             bool bf16) {
    injected_fault(plan.rank(), step);
    const auto t0 = Clock::now();
    ShardedStep out;
    const double loss = local_shares(plan, scheme, model, b, seed, step, bf16);
    const double compute_seconds = seconds_since(t0);
    std::vector<torch::Tensor> params = model->parameters();
    const int world = plan.world_size();
    // After the gradients: [loss, stop, seconds of rank 0..world-1, which parameters had a gradient].
    torch::Tensor control = torch::zeros({2 + world + static_cast<int64_t>(params.size())}, torch::kFloat32);
    auto c = control.accessor<float, 1>();
    c[0] = static_cast<float>(loss);
    c[1] = stop_requested ? 1.0f : 0.0f;
    c[2 + plan.rank()] = static_cast<float>(compute_seconds);
    std::vector<torch::Tensor> grads;
    for (std::size_t i = 0; i < params.size(); ++i) {
        torch::Tensor& g = params[i].mutable_grad();
        if (g.defined())
            c[2 + world + static_cast<int64_t>(i)] = 1.0f;
        else
            g = torch::zeros_like(params[i]);
        grads.push_back(g);
    }
    const auto t1 = Clock::now();
    if (plan.group) {
        std::vector<torch::Tensor> all = grads;
        const torch::Device device = grads.empty() ? torch::Device(torch::kCPU) : grads.front().device();
        torch::Tensor on_device = control.to(device);
        all.push_back(on_device);
        plan.group->sum(all);
        control = on_device.cpu();
    }
    out.reduce_seconds = seconds_since(t1);
    auto r = control.accessor<float, 1>();
    out.loss = plan.group ? r[0] : loss;  // alone: the double sum, not its float
    out.stop = r[1] > 0;
    for (int k = 0; k < world; ++k)
        out.rank_seconds.push_back(r[2 + k]);
    for (std::size_t i = 0; i < params.size(); ++i)
        if (r[2 + world + static_cast<int64_t>(i)] == 0) params[i].mutable_grad() = torch::Tensor();
    return out;
}

namespace {

// The additive counts behind AnswerScores' metrics (scheme.cpp), recovered from them: counts exactly
// (rounded), sums of squares as the doubles they were.
std::vector<double> counts_of(const json& m, const Batch& share) {
    const double n = m["n"].get<double>();
    double sum = 0.0, sum_sq = 0.0;
    for (const Decimal& y : share.answer_values) {
        sum += y.to_double();
        sum_sq += y.to_double() * y.to_double();
    }
    std::vector<double> v = {n,
                             std::round(m["exact_match"].get<double>() * n),
                             m["digit_accuracy"].get<double>() * n,
                             m["malformed"].get<double>(),
                             std::pow(m["rmse"].get<double>(), 2) * n,
                             m["log_smape"].get<double>() * n,
                             sum,
                             sum_sq,
                             m["eval_cpu_seconds"].get<double>()};
    for (const auto& [position, accuracy] : m["digit_accuracy_by_position"].items())
        v.push_back(std::round(accuracy.get<double>() * n));
    return v;
}

json metrics_of(const std::vector<double>& v, json m, double seconds) {
    const double n = v[0];
    m["n"] = static_cast<int64_t>(n);
    m["exact_match"] = v[1] / n;
    m["digit_accuracy"] = v[2] / n;
    m["malformed"] = static_cast<int64_t>(v[3]);
    const double sse = v[4], sst = v[7] - v[6] * v[6] / n;
    m["r2"] = sst > 0 ? 1.0 - sse / sst : (sse == 0 ? 1.0 : 0.0);
    m["rmse"] = std::sqrt(sse / n);
    m["log_smape"] = v[5] / n;
    m["eval_cpu_seconds"] = v[8];
    std::size_t k = 9;
    for (auto& [position, accuracy] : m["digit_accuracy_by_position"].items())
        accuracy = v[k++] / n;
    m["eval_seconds"] = seconds;
    m["eval_examples_per_second"] = n / std::max(seconds, 1e-9);
    return m;
}

}  // namespace

json split_evaluation(ParallelPlan& plan, const NumberScheme& scheme, FoneTransformer& model,
                      const Batch& split, const torch::Device& device, bool text) {
    // Scored whole where the rows carry no answer values to share out: text and adapter runs (an adapter
    // run's split took the arithmetic path and copied from an empty vector: every rank crashed).
    if (!plan.group || text || split.n < plan.world_size() ||
        split.answer_values.size() != static_cast<std::size_t>(split.n) ||
        split.prompt_texts.size() != static_cast<std::size_t>(split.n))
        return scheme.evaluate(model, split, device);
    const auto t0 = Clock::now();
    const auto [lo, hi] = share_rows(split.n, plan.rank(), plan.world_size());
    Batch share = select_rows(split, torch::arange(lo, hi, torch::kInt64));
    share.answer_values.assign(split.answer_values.begin() + lo, split.answer_values.begin() + hi);
    share.prompt_texts.assign(split.prompt_texts.begin() + lo, split.prompt_texts.begin() + hi);
    const json mine = scheme.evaluate(model, share, device);
    const std::vector<double> counts = counts_of(mine, share);
    torch::Tensor summed = torch::tensor(counts, torch::kFloat64);
    plan.group->sum({summed});
    return metrics_of(
        std::vector<double>(summed.data_ptr<double>(), summed.data_ptr<double>() + summed.numel()), mine,
        seconds_since(t0));
}

double from_lead(Collective& group, double value) {
    torch::Tensor t = torch::tensor({value}, torch::kFloat64);
    group.broadcast({t});
    return t.item<double>();
}

}  // namespace fone
