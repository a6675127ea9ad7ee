// Which BLAS kernel LibTorch's matrix products run on, and choosing a better one where OpenBLAS's own
// choice is wrong.
//
// Debian's OpenBLAS is built for every x86-64 CPU (DYNAMIC_ARCH) and picks its kernel from the CPU's
// family and model when it loads. A CPU newer than its table (0.3.21 on an Intel Xeon of family 6,
// model 207) gets the SSE3 "Prescott" kernel: sgemm at a fifth of the AVX-512 kernel's speed. OpenBLAS
// reads OPENBLAS_CORETYPE when it loads, so the fix has to be in the environment before the library is:
// settle_thread_environment() (thread_environment.h) starts the program again with it (docs/training.md,
// "The BLAS kernel").
#pragma once

#include <optional>
#include <string>

#include "fone/platform/cpu.h"

namespace fone {

// The BLAS that LibTorch calls, when it is OpenBLAS.
struct BlasInfo {
    bool openblas = false;      // false: another BLAS (MKL in PyPI's torch, the reference BLAS), or none
    std::string config;         // openblas_get_config(): "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY ..."
    std::string core;           // openblas_get_corename(): "Cooperlake", "Prescott", ...
    bool dynamic_arch = false;  // chooses its kernel at load time (so OPENBLAS_CORETYPE can change it)
};

// The OpenBLAS already in this process if there is one, else the BLAS library that this build's LibTorch
// needs (found at configure time: Debian's libblas.so.3, OpenBLAS through the alternatives), loaded now;
// its kernel is chosen then, and LibTorch loaded later reuses it. Nothing for a LibTorch that brings its
// own BLAS (PyPI's torch: MKL inside) or a build without LibTorch.
BlasInfo torch_blas();

// The kernel to ask OpenBLAS for (an OPENBLAS_CORETYPE value), or nothing to keep its own choice:
// a kernel of the best instruction set the CPU supports, when OpenBLAS chose one of an older set
// ("Prescott" on an AVX-512 CPU gives "SkylakeX", on an AVX2 one "Haswell"). Never a kernel whose
// instructions the CPU lacks; nothing for core names it does not know.
std::optional<std::string> better_blas_kernel(const CpuFeatures& cpu, const std::string& openblas_core);

// When OPENBLAS_CORETYPE is not set (a user's own value always wins) and better_blas_kernel() finds a better
// kernel than OpenBLAS chose, sets OPENBLAS_CORETYPE in this process's environment and returns true (the
// caller, settle_thread_environment, starts the program again: OpenBLAS has read its environment already).
// For tests: FONE_PRETEND_OPENBLAS_CORE=NAME acts as if OpenBLAS had chosen NAME.
bool set_best_blas_kernel_variable();

// OpenBLAS's own thread count, kept equal to LibTorch's so that the two never oversubscribe each other (a
// pthreads OpenBLAS has a pool of its own; the openmp build follows omp_get_max_threads() anyway). Nothing
// when LibTorch's BLAS is not OpenBLAS.
void set_blas_threads(int threads);

// One line for --version, the About box and bench_matmul: "OpenBLAS 0.3.21, Cooperlake kernel",
// "OpenBLAS 0.3.21, SkylakeX kernel (OPENBLAS_CORETYPE)", or "BLAS: not OpenBLAS".
std::string blas_kernel_text();

}  // namespace fone
