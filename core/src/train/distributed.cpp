// The ranks of one run on c10d: TCPStore rendezvous, Gloo (CPU) or NCCL (CUDA) collectives in flat buckets,
// and failures that name the rank behind them.
#include "train/distributed.h"

#include <chrono>
#include <thread>

#include "fone/store/run_store.h"

#if FONE_HAVE_C10D
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#if FONE_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#if FONE_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#endif

namespace fone {

bool distributed_available() {
    return FONE_HAVE_C10D && (FONE_HAVE_GLOO || FONE_HAVE_NCCL);
}

bool distributed_available_on_cpu() {
    return FONE_HAVE_C10D && FONE_HAVE_GLOO;
}

std::string distributed_unavailable_message() {
    return "--nproc and distributed training are not available in this build (LibTorch's c10d headers or "
           "Gloo's, from libgloo-dev, were not found when it was configured)";
}

namespace {

[[maybe_unused]] std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

}  // namespace

#if FONE_HAVE_C10D
namespace {

#if TORCH_VERSION_MAJOR >= 2
using Group = c10::intrusive_ptr<c10d::Backend>;  // 2.x: the backends are c10d::Backend
#else
using Group = c10::intrusive_ptr<c10d::ProcessGroup>;
#endif

using std::chrono::milliseconds;

// Consecutive tensors of one dtype, up to max_bytes each (a larger tensor is a bucket of its own).
std::vector<std::vector<torch::Tensor>> buckets_of(const std::vector<torch::Tensor>& tensors,
                                                   int64_t max_bytes) {
    std::vector<std::vector<torch::Tensor>> buckets;
    int64_t bytes = 0;
    for (const torch::Tensor& t : tensors) {
        const int64_t size = t.numel() * static_cast<int64_t>(t.element_size());
        if (buckets.empty() || bytes + size > max_bytes ||
            buckets.back().front().scalar_type() != t.scalar_type()) {
            buckets.emplace_back();
            bytes = 0;
        }
        buckets.back().push_back(t);
        bytes += size;
    }
    return buckets;
}

torch::Tensor flatten(const std::vector<torch::Tensor>& tensors) {
    std::vector<torch::Tensor> flat;
    flat.reserve(tensors.size());
    for (const torch::Tensor& t : tensors)
        flat.push_back(t.reshape({-1}));
    return torch::cat(flat);
}

void unflatten(const torch::Tensor& flat, const std::vector<torch::Tensor>& tensors) {
    int64_t offset = 0;
    for (const torch::Tensor& t : tensors) {
        t.copy_(flat.narrow(0, offset, t.numel()).view_as(t));
        offset += t.numel();
    }
}

milliseconds timeout_of(const DistributedSetup& s) {
    return milliseconds(static_cast<int64_t>(s.timeout_seconds * 1000));
}

bool is_loopback(const std::string& host) {
    return host == "127.0.0.1" || host == "localhost" || host == "::1";
}

Group make_group(const DistributedSetup& s, const c10::intrusive_ptr<c10d::Store>& store,
                 const torch::Device& device) {
    if (device.is_cuda()) {
#if FONE_HAVE_NCCL
        auto options = c10d::ProcessGroupNCCL::Options::create();
        options->timeout = timeout_of(s);
        return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, s.rank, s.world_size, options);
#else
        throw RunError("distributed training on CUDA needs a LibTorch with NCCL (this one has none)");
#endif
    }
#if FONE_HAVE_GLOO
    auto options = c10d::ProcessGroupGloo::Options::create(timeout_of(s));
    // One machine: the loopback interface. Several: GLOO_SOCKET_IFNAME names the interface, else the one
    // this host's name resolves to.
    if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
    else if (is_loopback(s.master_addr))
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    else
        options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    return c10::make_intrusive<c10d::ProcessGroupGloo>(store, s.rank, s.world_size, options);
#else
    throw RunError("distributed training on the CPU needs Gloo, which this build has not");
#endif
}

class C10dCollective final : public Collective {
  public:
    explicit C10dCollective(const DistributedSetup& s, const torch::Device& device)
        : Collective(s), device_(device) {
        c10d::TCPStoreOptions options;
        options.port = static_cast<std::uint16_t>(s.master_port);
        options.isServer = s.rank == 0;
        options.numWorkers = static_cast<std::size_t>(s.world_size);
        options.waitWorkers = true;
        options.timeout = timeout_of(s);
        try {
            store_ = c10::make_intrusive<c10d::TCPStore>(s.master_addr, options);
            group_ = make_group(s, store_, device);
        } catch (const RunError&) {
            throw;
        } catch (const std::exception& e) {
            throw RankFailure("rank " + std::to_string(s.rank) + " could not meet the other " +
                              std::to_string(s.world_size - 1) + " rank(s) at " + s.master_addr + ":" +
                              std::to_string(s.master_port) + " within " +
                              std::to_string(int(s.timeout_seconds)) +
                              " s (--dist-timeout): " + first_line(e.what()));
        }
    }

    void broadcast(const std::vector<torch::Tensor>& tensors) override {
        c10d::BroadcastOptions options;
        options.rootRank = 0;
        run_in_buckets(tensors,
                       [&](std::vector<at::Tensor>& flat) { return group_->broadcast(flat, options); });
    }

    void sum(const std::vector<torch::Tensor>& tensors) override {
        run_in_buckets(tensors, [&](std::vector<at::Tensor>& flat) { return group_->allreduce(flat); });
    }

    void publish(const std::string& key, const std::string& value) override {
        store_->set("fone/" + key, std::vector<uint8_t>(value.begin(), value.end()));
    }

    std::string receive(const std::string& key) override {
        try {
            const std::vector<uint8_t> bytes = store_->get("fone/" + key);
            std::string value(bytes.begin(), bytes.end());
            if (!value.empty() && value[0] == '!') throw RankFailure("rank 0 failed: " + value.substr(1));
            return value;
        } catch (const RankFailure&) {
            throw;
        } catch (const std::exception& e) {
            throw RankFailure("rank 0 did not start the run within the timeout (" + first_line(e.what()) +
                              ")");
        }
    }

    void post_failure(const std::string& cause) noexcept override {
        post("cause:" + first_line(cause));
        linger_for_the_others();
    }

    std::string explain_failure(const std::string& what, int64_t /*unused*/) noexcept override;

  private:
    torch::Device device_;  // NCCL's tensors live on the GPU, Gloo's on the CPU
    c10::intrusive_ptr<c10d::Store> store_;
    Group group_;

    template <class Launch>
    void run_in_buckets(const std::vector<torch::Tensor>& tensors, Launch launch);
    void post(const std::string& text) noexcept;
    void linger_for_the_others() noexcept;
    std::string key_of(int rank) const { return "fone/failed/" + std::to_string(rank); }
};

// Every bucket is packed and started before the first is waited for: Gloo sends one while the next is packed.
template <class Launch>
void C10dCollective::run_in_buckets(const std::vector<torch::Tensor>& tensors, Launch launch) {
    const auto buckets = buckets_of(tensors, kBucketBytes);
    std::vector<std::vector<at::Tensor>> flats;
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    try {
        for (const auto& bucket : buckets) {
            flats.push_back({flatten(bucket).to(device_)});
            works.push_back(launch(flats.back()));
        }
        for (auto& w : works)
            w->wait();
    } catch (const std::exception& e) {
        throw RankFailure(explain_failure(e.what(), -1));
    }
    for (std::size_t i = 0; i < buckets.size(); ++i)
        unflatten(flats[i].front(), buckets[i]);
}

void C10dCollective::post(const std::string& text) noexcept {
    try {
        store_->set(key_of(rank()), std::vector<uint8_t>(text.begin(), text.end()));
    } catch (...) {
    }
}

// The failing rank closes its connections (the others' collectives fail now rather than at the timeout)
// and, as the host of the store, stays a moment so that they can read its cause.
void C10dCollective::linger_for_the_others() noexcept {
    try {
        group_.reset();
        if (!lead()) return;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
        for (int k = 1; k < world_size() && std::chrono::steady_clock::now() < deadline;) {
            if (store_->check({key_of(k)}))
                ++k;
            else
                std::this_thread::sleep_for(milliseconds(50));
        }
    } catch (...) {
    }
}

std::string C10dCollective::explain_failure(const std::string& what, int64_t) noexcept {
    const std::string why = first_line(what);
    post("lost:" + why);
    std::vector<int> silent;
    try {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
        while (true) {
            silent.clear();
            for (int k = 0; k < world_size(); ++k) {
                if (k == rank()) continue;
                if (!store_->check({key_of(k)})) {
                    silent.push_back(k);
                    continue;
                }
                const std::vector<uint8_t> bytes = store_->get(key_of(k));
                const std::string posted(bytes.begin(), bytes.end());
                if (posted.rfind("cause:", 0) == 0)
                    return "rank " + std::to_string(k) + " failed: " + posted.substr(6);
            }
            if (silent.empty() || std::chrono::steady_clock::now() >= deadline) break;
            std::this_thread::sleep_for(milliseconds(100));
        }
    } catch (...) {
        silent = {0};  // the store lives in rank 0: it is gone
    }
    const std::string timeout = std::to_string(static_cast<int>(setup_.timeout_seconds));
    if (silent.empty()) return "rank " + std::to_string(rank()) + " lost the other ranks: " + why;
    std::string ranks;
    for (int k : silent)
        ranks += (ranks.empty() ? "" : ", ") + std::to_string(k);
    return "rank " + ranks + " stopped answering (it died, or hung past the " + timeout +
           " s --dist-timeout): " + why;
}

}  // namespace

std::unique_ptr<Collective> Collective::connect(const DistributedSetup& setup, const torch::Device& device) {
    if (!distributed_available()) throw RunError(distributed_unavailable_message());
    return std::make_unique<C10dCollective>(setup, device);
}

#else

std::unique_ptr<Collective> Collective::connect(const DistributedSetup&, const torch::Device&) {
    throw RunError(distributed_unavailable_message());
}

#endif

}  // namespace fone
