#include "fone/nn/device.h"

#include <stdexcept>

#include <ATen/autocast_mode.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/version.h>

#include "fone/platform/blas_kernel.h"
#include "fone/platform/cpu.h"
#include "fone/platform/cpu_share.h"
#include "nn/device_setup.h"

namespace fone {

bool cuda_available() {
    return torch::cuda::is_available();
}

std::string torch_version() {
    return TORCH_VERSION;
}

nlohmann::json torch_build_info() {
    nlohmann::json j = {
        {"libtorch", TORCH_VERSION}, {"cuda_build", ""}, {"cuda_available", false}, {"gpus", 0}};
    try {
        // A CPU build's hooks throw here ("without ATen_cuda library"); a CUDA build gives e.g. 12010.
        const int v = static_cast<int>(at::detail::getCUDAHooks().versionCUDART());
        if (v > 0) j["cuda_build"] = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    } catch (const std::exception&) {
    }
    if (torch::cuda::is_available()) {
        j["cuda_available"] = true;
        j["gpus"] = static_cast<int>(torch::cuda::device_count());
    }
    return j;
}

std::string resolve_device(const std::string& requested) {
    if (requested == "cpu") return "cpu";
    if (requested == "cuda") {
        if (!cuda_available())
            throw std::invalid_argument("device cuda: this build's LibTorch " + torch_version() +
                                        " has no CUDA or no GPU is visible (build against LibTorch with "
                                        "CUDA: scripts/check-torch2.sh)");
        return "cuda";
    }
    if (requested == "auto") return cuda_available() ? "cuda" : "cpu";
    throw std::invalid_argument("device must be auto, cpu or cuda, not '" + requested + "'");
}

namespace {

// Other processes' load from the moment the LibTorch commands were loaded (this object's static
// initialisation) to the first choice: the program's own start-up, parsing and data, which is usually long
// enough that choosing costs no extra wait.
CpuLoadMeter& load_meter() {
    static CpuLoadMeter meter;
    return meter;
}
[[maybe_unused]] const bool g_meter_started = (load_meter(), true);

}  // namespace

ThreadChoice choose_threads(int requested, double min_seconds) {
    ThreadChoice c;
    if (requested > 0) {
        c.threads = requested;
        c.usable = usable_cpus(available_cores(), this_process_cpu_quota());
        c.reason = "--threads " + std::to_string(requested);
        return c;
    }
    const CpuShare share = measure_cpu_share(load_meter(), min_seconds);
    c.threads = share.threads;
    c.automatic = true;
    c.usable = share.usable;
    c.reason =
        "auto: " + std::to_string(c.threads) + (c.threads == 1 ? " thread; " : " threads; ") + share.reason();
    return c;
}

void apply_threads(int threads) {
    torch::set_num_threads(threads);
    set_blas_threads(threads);
}

ThreadChoice set_threads(int threads, double min_seconds) {
    const ThreadChoice c = choose_threads(threads, min_seconds);
    apply_threads(c.threads);
    return c;
}

// LibTorch 2.4 made autocast's switches per device type; 1.13 has one pair for CUDA and one for the CPU.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define FONE_AUTOCAST_PER_DEVICE 1
#endif

Bf16Autocast::Bf16Autocast(const torch::Device& device, bool on) : on_(on), cuda_(device.is_cuda()) {
    if (!on_) return;
#ifdef FONE_AUTOCAST_PER_DEVICE
    const at::DeviceType type = cuda_ ? at::kCUDA : at::kCPU;
    at::autocast::set_autocast_dtype(type, at::kBFloat16);
    at::autocast::set_autocast_enabled(type, true);
#else
    if (cuda_) {
        at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
        at::autocast::set_enabled(true);
    } else {
        at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
        at::autocast::set_cpu_enabled(true);
    }
#endif
}

Bf16Autocast::~Bf16Autocast() {
    if (!on_) return;
#ifdef FONE_AUTOCAST_PER_DEVICE
    at::autocast::set_autocast_enabled(cuda_ ? at::kCUDA : at::kCPU, false);
#else
    if (cuda_)
        at::autocast::set_enabled(false);
    else
        at::autocast::set_cpu_enabled(false);
#endif
    at::autocast::clear_cache();
}

}  // namespace fone
