#include "fone/platform/cpu.h"

#include "fone/platform/cpu_share.h"

#include <sched.h>

#include <algorithm>
#include <cstring>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace fone {

namespace {

#if defined(__x86_64__) || defined(__i386__)
bool bit(unsigned reg, int n) {
    return (reg >> n) & 1u;
}

// XCR0: which register states the operating system saves (bits 1-2: SSE and AVX, 5-7: AVX-512).
unsigned long long enabled_register_state() {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (static_cast<unsigned long long>(hi) << 32) | lo;
}

CpuFeatures read_cpuid() {
    CpuFeatures f;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return f;
    const unsigned max_leaf = a;
    char vendor[13] = {};
    std::memcpy(vendor, &b, 4), std::memcpy(vendor + 4, &d, 4), std::memcpy(vendor + 8, &c, 4);
    f.vendor = vendor;
    __get_cpuid(1, &a, &b, &c, &d);
    const int base_family = static_cast<int>((a >> 8) & 0xf);
    f.family = base_family + (base_family == 0xf ? static_cast<int>((a >> 20) & 0xff) : 0);
    f.model = static_cast<int>((a >> 4) & 0xf) |
              (base_family == 6 || base_family == 0xf ? static_cast<int>((a >> 16) & 0xf) << 4 : 0);
    f.sse3 = bit(c, 0);
    const bool os_saves_ymm = bit(c, 27) && (enabled_register_state() & 0x6) == 0x6;  // OSXSAVE
    const bool os_saves_zmm = os_saves_ymm && (enabled_register_state() & 0xe6) == 0xe6;
    f.avx = bit(c, 28) && os_saves_ymm;
    f.fma = bit(c, 12) && f.avx;
    if (max_leaf < 7) return f;
    __get_cpuid_count(7, 0, &a, &b, &c, &d);
    f.avx2 = bit(b, 5) && f.fma;
    f.avx512 = os_saves_zmm && bit(b, 16) && bit(b, 17) && bit(b, 28) && bit(b, 30) && bit(b, 31);
    f.amx = bit(d, 24) && bit(d, 25);  // AMX-TILE and AMX-INT8
    __get_cpuid_count(7, 1, &a, &b, &c, &d);
    f.avx512_bf16 = f.avx512 && bit(a, 5);
    return f;
}
#endif

}  // namespace

CpuFeatures cpu_features() {
#if defined(__x86_64__) || defined(__i386__)
    static const CpuFeatures features = read_cpuid();
    return features;
#else
    return {};
#endif
}

int available_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int threads_per_run(int parallel_runs) {
    return std::max(1, usable_cpus(available_cores(), this_process_cpu_quota()) / std::max(1, parallel_runs));
}

}  // namespace fone
