// The machine a process runs on: what its CPU can execute, and how many cores it may use. Plain C++: the
// workbench, the CLI and the benchmarks all ask here.
#pragma once

#include <string>

namespace fone {

// The vector instructions a kernel may use, as the CPU reports them (CPUID) AND the operating system
// enables them (XGETBV: it saves the wide registers on a context switch). On other architectures all false.
struct CpuFeatures {
    std::string vendor;  // "GenuineIntel", "AuthenticAMD", ... ("" when unknown)
    int family = 0, model = 0;
    bool sse3 = false;
    bool avx = false;
    bool fma = false;   // FMA3
    bool avx2 = false;  // with FMA3 (every AVX2 kernel uses both)
    // AVX-512 F, CD, BW, DQ and VL: the Skylake-SP set that OpenBLAS's AVX-512 kernels use.
    bool avx512 = false;
    bool avx512_bf16 = false;
    bool amx = false;  // AMX tiles (Sapphire Rapids and later)
};

CpuFeatures cpu_features();

// The cores this process may run on: its CPU affinity (what taskset, Slurm or a container allow), which
// can be fewer than the machine has. At least 1.
int available_cores();

// CPU threads for each of `parallel_runs` trainings that run at once on this process's cores: the cores
// (its affinity, capped by a cgroup CPU quota: usable_cpus in cpu_share.h) shared out evenly, at least 1
// each. Processes x threads above the cores make OpenMP threads spin and fight (a level-1 run fell from
// 19,700 to about 300 examples/s).
int threads_per_run(int parallel_runs);

}  // namespace fone
