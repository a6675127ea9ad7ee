#include "fone/nn/device.h"

#include <stdexcept>

#include <ATen/autocast_mode.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/version.h>

#include "fone/platform/cpu.h"
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

void set_threads(int threads) {
    // 0: the cores this process may use (a Slurm task's, taskset's), not every core of the machine.
    torch::set_num_threads(threads > 0 ? threads : available_cores());
}

CudaAutocast::CudaAutocast(const torch::Device& device) : on_(device.is_cuda()) {
    if (!on_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
    at::autocast::set_autocast_enabled(at::kCUDA, true);
#else
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
    at::autocast::set_enabled(true);
#endif
}

CudaAutocast::~CudaAutocast() {
    if (!on_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(at::kCUDA, false);
#else
    at::autocast::set_enabled(false);
#endif
    at::autocast::clear_cache();
}

}  // namespace fone
