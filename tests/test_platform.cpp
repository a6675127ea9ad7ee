// The machine: CPU features against /proc/cpuinfo, the cores a process may use, and the choice of
// OpenBLAS kernel (fone/platform/blas_kernel.h) for the CPUs of issue 15, whose feature sets are written
// out here by hand.
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "fone/platform/blas_kernel.h"
#include "fone/platform/cpu.h"
#include "fone/platform/own_library.h"

namespace {

// Intel Xeon of family 6, model 207 (Emerald Rapids): AVX-512 with BF16, AMX.
fone::CpuFeatures emerald_rapids() {
    fone::CpuFeatures f;
    f.vendor = "GenuineIntel", f.family = 6, f.model = 207;
    f.sse3 = f.avx = f.fma = f.avx2 = f.avx512 = f.avx512_bf16 = f.amx = true;
    return f;
}
fone::CpuFeatures avx2_only() {  // a Haswell or Zen 2 desktop
    fone::CpuFeatures f;
    f.sse3 = f.avx = f.fma = f.avx2 = true;
    return f;
}
fone::CpuFeatures avx_only() {  // Sandy Bridge
    fone::CpuFeatures f;
    f.sse3 = f.avx = true;
    return f;
}
fone::CpuFeatures sse_only() {  // an old Core 2, or AVX that the operating system does not enable
    fone::CpuFeatures f;
    f.sse3 = true;
    return f;
}

// The flags line of /proc/cpuinfo, the kernel's own reading of CPUID (an independent source).
std::string cpuinfo_flags() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("flags", 0) == 0) return line.substr(line.find(':') + 1) + " ";
    return {};
}
bool has_flag(const std::string& flags, const std::string& flag) {
    return flags.find(" " + flag + " ") != std::string::npos;
}

}  // namespace

class TestPlatform : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void fallback_kernel_on_emerald_rapids_becomes_skylakex() {
        // OpenBLAS 0.3.21 does not know model 207 and falls back to Prescott (SSE3): ask for AVX-512.
        QCOMPARE(fone::better_blas_kernel(emerald_rapids(), "Prescott").value_or("-"),
                 std::string("SkylakeX"));
        QCOMPARE(fone::better_blas_kernel(emerald_rapids(), "prescott").value_or("-"),
                 std::string("SkylakeX"));
        QCOMPARE(fone::better_blas_kernel(emerald_rapids(), "Nehalem").value_or("-"),
                 std::string("SkylakeX"));
        QCOMPARE(fone::better_blas_kernel(emerald_rapids(), "Haswell").value_or("-"),
                 std::string("SkylakeX"));
        // OpenBLAS's own AVX-512 choices stay.
        for (const char* core : {"SkylakeX", "Cooperlake", "SapphireRapids"})
            QVERIFY(!fone::better_blas_kernel(emerald_rapids(), core));
    }

    void each_cpu_gets_its_best_instruction_set() {
        QCOMPARE(fone::better_blas_kernel(avx2_only(), "Prescott").value_or("-"), std::string("Haswell"));
        QCOMPARE(fone::better_blas_kernel(avx2_only(), "Sandybridge").value_or("-"), std::string("Haswell"));
        QVERIFY(!fone::better_blas_kernel(avx2_only(), "Haswell"));
        QVERIFY(!fone::better_blas_kernel(avx2_only(), "Zen"));
        QCOMPARE(fone::better_blas_kernel(avx_only(), "Core2").value_or("-"), std::string("Sandybridge"));
        QVERIFY(!fone::better_blas_kernel(avx_only(), "Sandybridge"));
    }

    void never_a_kernel_the_cpu_cannot_run() {
        // Without AVX (or with AVX the operating system does not save) nothing beats an SSE kernel.
        QVERIFY(!fone::better_blas_kernel(sse_only(), "Prescott"));
        // AVX-512 cores named on a CPU without AVX-512 are left to OpenBLAS, never "upgraded" to them.
        QVERIFY(!fone::better_blas_kernel(avx2_only(), "SkylakeX"));
        QVERIFY(!fone::better_blas_kernel(fone::CpuFeatures{}, "Prescott"));
        // A core name this table does not know (a newer OpenBLAS) is OpenBLAS's business.
        QVERIFY(!fone::better_blas_kernel(emerald_rapids(), "GraniteRapids"));
        QVERIFY(!fone::better_blas_kernel(emerald_rapids(), ""));
    }

    void cpu_features_agree_with_proc_cpuinfo() {
        const std::string flags = cpuinfo_flags();
        if (flags.empty()) QSKIP("no /proc/cpuinfo flags (not x86 Linux)");
        const fone::CpuFeatures f = fone::cpu_features();
        QCOMPARE(f.avx, has_flag(flags, "avx"));
        QCOMPARE(f.avx2, has_flag(flags, "avx2") && has_flag(flags, "fma"));
        const bool avx512 = has_flag(flags, "avx512f") && has_flag(flags, "avx512cd") &&
                            has_flag(flags, "avx512bw") && has_flag(flags, "avx512dq") &&
                            has_flag(flags, "avx512vl");
        QCOMPARE(f.avx512, avx512);
        QCOMPARE(f.avx512_bf16, avx512 && has_flag(flags, "avx512_bf16"));
        QCOMPARE(f.amx, has_flag(flags, "amx_tile") && has_flag(flags, "amx_int8"));
    }

    void cores_are_shared_out() {
        const int cores = fone::available_cores();
        QVERIFY(cores >= 1);
        QVERIFY(cores <= static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
        QCOMPARE(fone::threads_per_run(1), cores);
        QCOMPARE(fone::threads_per_run(0), cores);
        QCOMPARE(fone::threads_per_run(2), std::max(1, cores / 2));
        QCOMPARE(fone::threads_per_run(cores * 4), 1);
    }

    void own_libraries_env_first_then_beside_the_program() {
        qputenv("FONE_TEST_LIBRARY", "/somewhere/libx.so");
        const auto paths = fone::own_library_paths("libx.so", "FONE_TEST_LIBRARY");
        QVERIFY(paths.size() >= 3);
        QCOMPARE(paths.front(), std::string("/somewhere/libx.so"));
        QCOMPARE(std::set<std::string>(paths.begin(), paths.end()).size(), paths.size());  // each once
        const std::string beside = QCoreApplication::applicationDirPath().toStdString() + "/../lib/libx.so";
        QVERIFY(std::any_of(paths.begin(), paths.end(), [&](const std::string& p) {
            return QFileInfo(QString::fromStdString(p)).absoluteFilePath() ==
                   QFileInfo(QString::fromStdString(beside)).absoluteFilePath();
        }));
        qunsetenv("FONE_TEST_LIBRARY");
        QCOMPARE(fone::own_library_paths("libx.so", "FONE_TEST_LIBRARY").size(), paths.size() - 1);
    }
};

QTEST_GUILESS_MAIN(TestPlatform)
#include "test_platform.moc"
