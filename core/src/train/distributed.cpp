// The ranks of one run on c10d: TCPStore rendezvous, Gloo (CPU) or NCCL (CUDA) collectives in flat buckets,
// and failures that name the rank behind them.
#include "train/distributed.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "fone/store/run_store.h"

#if FONE_HAVE_C10D
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
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

int64_t steady_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// The first line of a c10d or Gloo message, without the source positions they start with
// ("[../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer" -> "Connection closed by
// peer"), at most 300 bytes.
[[maybe_unused]] std::string first_line(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    for (;;) {
        const std::size_t open = line.find('[');
        const std::size_t close = line.find("] ", open == std::string::npos ? 0 : open);
        if (open == std::string::npos || close == std::string::npos) break;
        const std::string inside = line.substr(open + 1, close - open - 1);
        const std::size_t colon = inside.rfind(':');
        const bool source_position =
            colon != std::string::npos && colon + 1 < inside.size() &&
            inside.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
            (inside.find(".cc") != std::string::npos || inside.find(".cpp") != std::string::npos ||
             inside.find(".h") != std::string::npos);
        if (!source_position) break;
        line.erase(open, close + 2 - open);
    }
    if (line.size() > 300) line = line.substr(0, 300) + "...";
    return line;
}

}  // namespace

void StopRequests::add() noexcept {
    int64_t none = 0;
    first_ms.compare_exchange_strong(none, steady_ms());
    count.fetch_add(1);
}

bool StopRequests::give_up_waiting() const noexcept {
    const int n = count.load();
    if (n == 0) return false;
    return n >= 2 || steady_ms() - first_ms.load() >= static_cast<int64_t>(kStopGraceSeconds * 1000);
}

StopRequests& stop_requests() {
    static StopRequests requests;
    return requests;
}

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

// Where the ranks meet, as a message names it.
std::string meeting_place(const DistributedSetup& s) {
    return s.rendezvous_file.empty() ? s.master_addr + ":" + std::to_string(s.master_port)
                                     : "the rendezvous file of --nproc";
}

std::string could_not_meet(const DistributedSetup& s) {
    return "rank " + std::to_string(s.rank) + " could not meet the other " +
           std::to_string(s.world_size - 1) + " rank(s) at " + meeting_place(s) + " within " +
           std::to_string(int(s.timeout_seconds)) + " s (--dist-timeout)";
}

// c10d's rendezvous has no overall deadline: each of its calls waits up to the timeout, and a listener that
// accepts but never answers makes every call wait (193.6 s for a 15 s --dist-timeout). This watchdog ends the
// process, with one line, when the whole of connecting has taken longer than the timeout and a moment.
class ConnectDeadline {
  public:
    ConnectDeadline(double seconds, std::string message) : message_(std::move(message)) {
        watchdog_ = std::thread([this, seconds] {
            std::unique_lock<std::mutex> lock(mutex_);
            const auto deadline = std::chrono::steady_clock::now() +
                                  std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
            if (cv_.wait_until(lock, deadline, [this] { return done_; })) return;
            const std::string line = "fone train: error: " + message_ + "\n";
            (void)!::write(STDERR_FILENO, line.data(), line.size());
            ::_exit(1);  // nothing of the run was written yet: the folder is made after the ranks meet
        });
    }
    ~ConnectDeadline() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        cv_.notify_all();
        watchdog_.join();
    }

  private:
    std::string message_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread watchdog_;
};

// A file in a private folder (--nproc), else a TCPStore that rank 0 hosts; every key under the prefix.
c10::intrusive_ptr<c10d::Store> make_store(const DistributedSetup& s, const std::string& prefix) {
    c10::intrusive_ptr<c10d::Store> base;
    if (!s.rendezvous_file.empty()) {
        base = c10::make_intrusive<c10d::FileStore>(s.rendezvous_file, s.world_size);
        base->setTimeout(timeout_of(s));
    } else {
        c10d::TCPStoreOptions options;
        options.port = static_cast<std::uint16_t>(s.master_port);
        options.isServer = s.rank == 0;
        options.numWorkers = static_cast<std::size_t>(s.world_size);
        options.waitWorkers = true;
        options.timeout = timeout_of(s);
        try {
            base = c10::make_intrusive<c10d::TCPStore>(s.master_addr, options);
        } catch (const std::exception& e) {
            const std::string what = e.what();
            if (s.rank == 0 && what.find("ddress already in use") != std::string::npos)
                throw RankFailure(
                    "rank 0 cannot host the rendezvous: port " + std::to_string(s.master_port) +
                    " is in use (another run, or another program); choose another --master-port");
            throw;
        }
    }
    return c10::make_intrusive<c10d::PrefixStore>(prefix, base);
}

class C10dCollective final : public Collective {
  public:
    C10dCollective(const DistributedSetup& s, const torch::Device& device, const std::string& signature)
        : Collective(s), device_(device) {
        const std::string prefix = "fone/" + s.token + "/" + signature;
        const ConnectDeadline deadline(s.timeout_seconds + 2.0, could_not_meet(s));
        try {
            store_ = make_store(s, prefix);
            group_ = make_group(s, store_, device);
        } catch (const RunError&) {
            throw;
        } catch (const RankFailure&) {
            throw;
        } catch (const std::exception& e) {
            throw RankFailure(could_not_meet(s) + ": " + first_line(e.what()));
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

    void abandon() noexcept override {
        (void)group_.release();  // never destroyed: its threads may be inside the hung collective
        (void)store_.release();
    }

  private:
    torch::Device device_;  // NCCL's tensors live on the GPU, Gloo's on the CPU
    c10::intrusive_ptr<c10d::Store> store_;
    Group group_;

    template <class Launch>
    void run_in_buckets(const std::vector<torch::Tensor>& tensors, Launch launch);
    void wait_for(c10d::Work& work);
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
            wait_for(*w);
    } catch (const StoppedWhileWaiting&) {
        throw;
    } catch (const std::exception& e) {
        throw RankFailure(explain_failure(e.what(), -1));
    }
    for (std::size_t i = 0; i < buckets.size(); ++i)
        unflatten(flats[i].front(), buckets[i]);
}

// Waits in slices, so that a stop request is seen while a rank hangs. The collective's own timeout
// (--dist-timeout) still ends it with an error; a stop request ends the wait kStopGraceSeconds after it came
// (at once after a second one). Ranks that answer carry the request in the step's control values and stop
// at the same step within milliseconds, well inside the grace.
void C10dCollective::wait_for(c10d::Work& work) {
    // NCCL's wait with a timeout aborts the communicator when it expires: its own timeout only.
    if (device_.is_cuda()) {
        work.wait();
        return;
    }
    for (;;) {
        try {
            work.wait(milliseconds(250));
            return;
        } catch (const std::exception&) {
            if (work.isCompleted()) throw;  // the collective failed (not a slice that ended)
        }
        if (stop_requests().give_up_waiting())
            throw StoppedWhileWaiting("stopped on request while waiting for the other ranks");
    }
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

std::unique_ptr<Collective> Collective::connect(const DistributedSetup& setup, const torch::Device& device,
                                                const std::string& signature) {
    if (!distributed_available()) throw RunError(distributed_unavailable_message());
    return std::make_unique<C10dCollective>(setup, device, signature);
}

#else

std::unique_ptr<Collective> Collective::connect(const DistributedSetup&, const torch::Device&,
                                                const std::string&) {
    throw RunError(distributed_unavailable_message());
}

#endif

}  // namespace fone
