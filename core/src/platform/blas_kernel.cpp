#include "fone/platform/blas_kernel.h"

#include <dlfcn.h>
#include <unistd.h>

#include <strings.h>
#include <array>
#include <cstdlib>

namespace fone {

namespace {

// Instruction sets of OpenBLAS's x86-64 kernels, oldest first, and the kernel that stands for each.
enum class Isa { sse, avx, avx2, avx512 };
constexpr std::array<const char*, 4> kKernelFor = {"", "Sandybridge", "Haswell", "SkylakeX"};

struct KnownCore {
    const char* name;
    Isa isa;
};
// The core names of OpenBLAS's DYNAMIC_ARCH builds (driver/others/dynamic.c) and what their kernels use.
constexpr KnownCore kCores[] = {
    {"Unknown", Isa::sse},     {"Katmai", Isa::sse},        {"Coppermine", Isa::sse},
    {"Northwood", Isa::sse},   {"Prescott", Isa::sse},      {"Banias", Isa::sse},
    {"Atom", Isa::sse},        {"Core2", Isa::sse},         {"Penryn", Isa::sse},
    {"Dunnington", Isa::sse},  {"Nehalem", Isa::sse},       {"Athlon", Isa::sse},
    {"Opteron", Isa::sse},     {"Opteron_SSE3", Isa::sse},  {"Barcelona", Isa::sse},
    {"Nano", Isa::sse},        {"Bobcat", Isa::sse},        {"Sandybridge", Isa::avx},
    {"Bulldozer", Isa::avx},   {"Piledriver", Isa::avx},    {"Steamroller", Isa::avx},
    {"Excavator", Isa::avx},   {"Haswell", Isa::avx2},      {"Zen", Isa::avx2},
    {"SkylakeX", Isa::avx512}, {"Cooperlake", Isa::avx512}, {"SapphireRapids", Isa::avx512},
};

std::optional<Isa> isa_of_core(const std::string& core) {
    for (const KnownCore& k : kCores)
        if (::strcasecmp(k.name, core.c_str()) == 0) return k.isa;
    return std::nullopt;
}

Isa best_isa(const CpuFeatures& cpu) {
    if (cpu.avx512) return Isa::avx512;
    if (cpu.avx2) return Isa::avx2;
    if (cpu.avx) return Isa::avx;
    return Isa::sse;
}

const char* call_string_function(void* library, const char* name) {
    using Fn = char* (*)();
    auto fn = reinterpret_cast<Fn>(::dlsym(library, name));
    return fn ? fn() : nullptr;
}

}  // namespace

BlasInfo torch_blas() {
    BlasInfo info;
    // RTLD_DEFAULT (a null handle) first: a program linked with LibTorch has its BLAS already.
    void* where = RTLD_DEFAULT;
    if (!::dlsym(where, "openblas_get_corename")) {
        if (!*FONE_TORCH_BLAS) return info;
        where = ::dlopen(FONE_TORCH_BLAS, RTLD_NOW | RTLD_GLOBAL);
        if (!where) return info;
    }
    const char* config = call_string_function(where, "openblas_get_config");
    const char* core = call_string_function(where, "openblas_get_corename");
    if (!config || !core) return info;
    info.openblas = true;
    info.config = config;
    info.core = core;
    info.dynamic_arch = info.config.find("DYNAMIC_ARCH") != std::string::npos;
    return info;
}

std::optional<std::string> better_blas_kernel(const CpuFeatures& cpu, const std::string& openblas_core) {
    const std::optional<Isa> chosen = isa_of_core(openblas_core);
    const Isa best = best_isa(cpu);
    if (!chosen || *chosen >= best) return std::nullopt;
    return std::string(kKernelFor[static_cast<std::size_t>(best)]);
}

bool set_best_blas_kernel_variable() {
    if (std::getenv("OPENBLAS_CORETYPE")) return false;
    const BlasInfo blas = torch_blas();
    if (!blas.openblas || !blas.dynamic_arch) return false;
    const char* pretend = std::getenv("FONE_PRETEND_OPENBLAS_CORE");
    const auto kernel = better_blas_kernel(cpu_features(), pretend ? pretend : blas.core);
    if (!kernel) return false;
    ::setenv("OPENBLAS_CORETYPE", kernel->c_str(), 1);
    return true;
}

void set_blas_threads(int threads) {
    using SetThreads = void (*)(int);
    if (const auto set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
        set(threads);
}

std::string blas_kernel_text() {
    const BlasInfo blas = torch_blas();
    if (!blas.openblas) return "BLAS: not OpenBLAS";
    // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..." -> "OpenBLAS 0.3.21"
    const std::size_t version_end = blas.config.find(' ', blas.config.find(' ') + 1);
    std::string text = blas.config.substr(0, version_end) + ", " + blas.core + " kernel";
    if (const char* forced = std::getenv("OPENBLAS_CORETYPE"))
        text += std::string(" (OPENBLAS_CORETYPE=") + forced + ")";
    return text;
}

}  // namespace fone
