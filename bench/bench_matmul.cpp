// Matmul GFLOP/s of LibTorch's CPU BLAS and the kernel it runs on, so a slow BLAS (Debian's reference
// libblas) or a fallback kernel (OpenBLAS's SSE3 "Prescott" on a CPU it does not know) shows at once.
// Like `fone`, it asks OpenBLAS for the best kernel the CPU supports (fone/platform/blas_kernel.h);
// OPENBLAS_CORETYPE=NAME measures another one. Each figure is given per second of wall time and per
// second of this process's CPU time (all its threads): on a loaded machine the second is the kernel's
// speed while it ran, the first also counts the time others took the cores.
//   build/bin/bench_matmul
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

#include <torch/torch.h>

#include "fone/platform/blas_kernel.h"
#include "fone/platform/thread_environment.h"

namespace {

std::string blas_library() {
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);)
        if (line.find("blas") != std::string::npos || line.find("mkl") != std::string::npos)
            return line.substr(line.find('/'));
    return "(none mapped)";
}

struct Rate {
    double per_wall_second = 0.0, per_cpu_second = 0.0;  // GFLOP
};

Rate gflops(int64_t n, int threads) {
    torch::set_num_threads(threads);
    auto a = torch::randn({n, n}), b = torch::randn({n, n});
    for (int i = 0; i < 2; ++i)
        torch::mm(a, b);  // warm up
    int reps = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    double secs = 0.0;
    while (secs < 1.0) {
        torch::mm(a, b);
        ++reps;
        secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    const double flop = 2.0 * n * n * n * reps;
    return {flop / secs / 1e9, flop / cpu / 1e9};
}

}  // namespace

int main() {
    fone::settle_thread_environment();
    const int hw = fone::available_cores();
    std::printf("LibTorch %s, BLAS: %s\n%s\n", TORCH_VERSION, blas_library().c_str(),
                fone::blas_kernel_text().c_str());
    for (int64_t n : {512, 1024, 2048})
        for (int threads : {1, hw}) {
            const Rate r = gflops(n, threads);
            std::printf("sgemm %4lld x %-4lld  %d thread(s): %7.1f GFLOP/s  (%7.1f GFLOP per CPU second)\n",
                        static_cast<long long>(n), static_cast<long long>(n), threads, r.per_wall_second,
                        r.per_cpu_second);
        }
    return 0;
}
