// Training throughput of the engine for the paper's size levels 1, 2 and 4 (and the default model), as
// examples/s and as a fraction of this machine's measured sgemm FLOP/s, with the time split into
// batching, forward, backward and optimiser.
//   build/bin/bench_train [steps] [train]     (train: skip the inference table)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "fone/platform/blas_kernel.h"
#include "fone/platform/thread_environment.h"
#include "fone/train/measure.h"

namespace {

// The peak this bench compares against: a 1024x1024 sgemm with the same thread count.
double sgemm_gflops() {
    auto a = torch::randn({1024, 1024}), b = torch::randn({1024, 1024});
    for (int i = 0; i < 3; ++i)
        torch::mm(a, b);
    const auto t0 = std::chrono::steady_clock::now();
    int reps = 0;
    double secs = 0;
    while (secs < 1.0) {
        torch::mm(a, b);
        ++reps;
        secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return 2.0 * 1024 * 1024 * 1024 * reps / secs / 1e9;
}

// One line of the table; returns the fraction of the peak.
double row(const char* label, const nlohmann::json& m, double peak) {
    const double total = m["seconds"];
    auto pct = [&](const char* k) { return 100.0 * m[k].get<double>() / total; };
    const double of_peak = m["gflops_per_second"].get<double>() / peak;
    std::printf("%-24s %10lld %9.0f %10.2f %8.1f %6.1f%%   %5.1f%% %5.1f%% %5.1f%% %5.1f%%\n", label,
                static_cast<long long>(m["params"].get<int64_t>()), m["examples_per_second"].get<double>(),
                m["flops_per_example"].get<double>() / 1e6, m["gflops_per_second"].get<double>(),
                100.0 * of_peak, pct("batching_seconds"), pct("forward_seconds"), pct("backward_seconds"),
                pct("optimizer_seconds"));
    std::fflush(stdout);
    return of_peak;
}

}  // namespace

int main(int argc, char** argv) {
    fone::settle_thread_environment();
    const int steps = argc > 1 ? std::atoi(argv[1]) : 20;
    // The defaults for 51,200 examples (the small-set defaults use a wider model).
    fone::TrainConfig base = fone::resolve_train_config({{{"task", "dec-add"}, {"train_size", 51200}}});
    torch::set_num_threads(fone::available_cores());
    const double peak = sgemm_gflops();
    std::printf(
        "6-digit decimal addition, default batch %zu, %d threads, sgemm 1024^3 peak %.1f GFLOP/s (%s)\n",
        base.batch, torch::get_num_threads(), peak, fone::blas_kernel_text().c_str());
    std::printf("%-24s %10s %9s %10s %8s %7s   %6s %6s %6s %6s\n", "model", "params", "ex/s", "MFLOP/ex",
                "GFLOP/s", "of peak", "batch", "fwd", "bwd", "optim");
    struct Fraction {
        std::string label;
        double of_peak, target;
    };
    std::vector<Fraction> fractions;
    fractions.push_back({"default model",
                         row("default (h64, 2 layers)", fone::measure_training_throughput(base, steps), peak),
                         0.35});
    for (int level : {1, 2, 4})
        for (std::size_t batch : {256, 512}) {
            fone::TrainConfig c = fone::resolve_train_config(
                {{{"task", "dec-add"}, {"train_size", 51200}, {"size_level", level}, {"batch", batch}}});
            const std::string label = "level " + std::to_string(level) + ", batch " + std::to_string(batch);
            const double f =
                row(label.c_str(),
                    fone::measure_training_throughput(c, level >= 4 ? std::max(5, steps / 4) : steps), peak);
            if (batch == 512)
                fractions.push_back(
                    {"level " + std::to_string(level) + " (batch 512)", f, level == 4 ? 0.5 : 0});
        }
    // The figures issue 15 asks for, in one place: each model's FLOP/s over the sgemm peak of this run.
    std::printf("\nFraction of the %d-thread sgemm peak (%.1f GFLOP/s, measured above in this run)\n",
                torch::get_num_threads(), peak);
    for (const auto& f : fractions) {
        std::printf("  %-22s %5.1f%%", f.label.c_str(), 100.0 * f.of_peak);
        if (f.target > 0) std::printf("   (target >= %.0f%%)", 100.0 * f.target);
        std::printf("\n");
    }
    std::fflush(stdout);
    if (argc > 2 && std::string(argv[2]) == "train") return 0;  // training only
    std::printf("\nInference (untrained weights; the cost does not depend on them)\n");
    std::printf("%-22s %16s %22s\n", "model", "one prompt (ms)", "batched eval (ex/s)");
    for (int level : {0, 1, 2, 4}) {
        nlohmann::json layer = {{"task", "dec-add"}, {"train_size", 51200}};
        if (level) layer["size_level"] = level;
        const auto m = fone::measure_inference_speed(fone::resolve_train_config({layer}));
        const std::string label = level ? "level " + std::to_string(level) : "default (h64, 2 layers)";
        std::printf("%-22s %16.2f %22.0f\n", label.c_str(), m["single_latency_ms"].get<double>(),
                    m["eval_examples_per_second"].get<double>());
    }
    return 0;
}
