// The number schemes side by side on one model and task (6-digit decimal addition, the default model
// for 51,200 examples: hidden 64, 2 layers), with the ratio of each to FoNE. The yardsticks: a
// FoNE training epoch >= 3x faster than digit-wise, evaluation (free greedy generation for the token
// schemes) >= 10x.
//   1. Raw speed: training steps (teacher-forced for token schemes) and inference of an untrained model
//      (one prompt; batched evaluation). An untrained token model may write more or fewer tokens than a
//      trained one, so its evaluation speed is only indicative.
//   2. Trained: each method is trained for real (`fone train` through the engine, into a temporary run
//      store) on the same examples, model and epochs; the last evaluation's training time per epoch and
//      test time (every answer generated in full, as a trained model writes it), wall and CPU seconds.
//      CPU seconds are the steadier figure on a machine shared with other work.
//   build/bin/bench_schemes [threads] [steps] [methods, comma-separated; fone first] [train size] [epochs]
//   (train size 0 skips part 2; defaults: 0 threads = every core, 20 steps, fone,xval,digit,subword,abacus,
//   25,600 examples, 2 epochs)
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "fone/store/run_store.h"
#include "fone/train/measure.h"
#include "fone/train/training.h"

namespace {

using nlohmann::json;

const json kModel = {{"hidden", 64},  {"layers", 2},         {"heads", 2},
                     {"kv_heads", 1}, {"intermediate", 256}, {"head_dim", 32}};

void raw_speed(const std::vector<std::string>& methods, int threads, int steps) {
    std::printf(
        "1. Raw speed: 6-digit decimal addition, hidden 64 / 2 layers, batch 256, %d threads (0: all)\n",
        threads);
    std::printf("%-9s %6s %12s %9s %14s %9s %16s %9s\n", "method", "seq", "train ex/s", "vs fone",
                "1 prompt ms", "vs fone", "eval ex/s", "vs fone");
    double fone_train = 0, fone_latency = 0, fone_eval = 0;
    for (const auto& m : methods) {
        const fone::TrainConfig c = fone::resolve_train_config({{{"task", "dec-add"},
                                                                 {"train_size", 51200},
                                                                 {"method", m},
                                                                 {"threads", threads},
                                                                 {"model", kModel}}});
        const auto t = fone::measure_training_throughput(c, steps);
        const auto i = fone::measure_inference_speed(c, 30, 4096);
        const double train = t["examples_per_second"], latency = i["single_latency_ms"],
                     eval = i["eval_examples_per_second"];
        if (m == methods.front()) {
            fone_train = train;
            fone_latency = latency;
            fone_eval = eval;
        }
        std::printf("%-9s %6lld %12.0f %8.1fx %14.2f %8.1fx %16.0f %8.1fx\n", m.c_str(),
                    static_cast<long long>(t["sequence_length"].get<int64_t>()), train, fone_train / train,
                    latency, latency / fone_latency, eval, fone_eval / eval);
    }
}

void trained(const std::vector<std::string>& methods, int threads, std::size_t size, int epochs) {
    namespace fs = std::filesystem;
    const fs::path store_dir = fs::temp_directory_path() / ("bench_schemes-" + std::to_string(::getpid()));
    fone::RunStore store(store_dir.string());
    std::printf(
        "\n2. Trained: 6-digit decimal addition, %zu examples, %d epochs, 2,000 test problems, hidden 64 / 2 "
        "layers, %d threads (0: all)\n",
        size, epochs, threads);
    std::printf("%-9s %7s %9s %9s %8s %8s %8s %8s %8s %8s %8s %8s\n", "method", "tokens", "exact",
                "malformed", "epoch s", "vs fone", "CPU s", "vs fone", "test s", "vs fone", "CPU s",
                "vs fone");
    json f;
    for (const auto& m : methods) {
        fone::TrainConfig c = fone::resolve_train_config({{{"task", "dec-add"},
                                                           {"train_size", size},
                                                           {"test_size", 2000},
                                                           {"val_size", 0},
                                                           {"epochs", epochs},
                                                           {"eval_every", 0},
                                                           {"seed", 1},
                                                           {"method", m},
                                                           {"threads", threads},
                                                           {"name", "bench-" + m},
                                                           {"model", kModel}}});
        json last;
        const fone::TrainOutcome out = fone::train_new(c, store, [&](const json& e) {
            if (e.value("event", "") == "eval") last = e;
        });
        if (last.is_null()) {
            std::printf("%-9s no evaluation (%s)\n", m.c_str(), out.message.c_str());
            continue;
        }
        if (m == methods.front()) f = last;
        auto r = [&](const char* k) { return last[k].get<double>() / f[k].get<double>(); };
        std::printf(
            "%-9s %7lld %8.1f%% %9lld %8.2f %7.1fx %8.2f %7.1fx %8.3f %7.1fx %8.3f %7.1fx\n", m.c_str(),
            static_cast<long long>(last["tokens_per_number"].get<int64_t>()),
            100 * last["exact_match"].get<double>(), static_cast<long long>(last["malformed"].get<int64_t>()),
            last["epoch_seconds"].get<double>(), r("epoch_seconds"), last["epoch_cpu_seconds"].get<double>(),
            r("epoch_cpu_seconds"), last["eval_seconds"].get<double>(), r("eval_seconds"),
            last["eval_cpu_seconds"].get<double>(), r("eval_cpu_seconds"));
        std::fflush(stdout);
    }
    fs::remove_all(store_dir);
    std::printf(
        "(vs fone: how many times the time FoNE takes; token schemes generate greedily with a key-value "
        "cache, "
        "until [EOS])\n");
}

}  // namespace

int main(int argc, char** argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 0;
    const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
    std::vector<std::string> methods = {"fone", "xval", "digit", "subword", "abacus"};
    if (argc > 3) {
        methods.clear();
        std::stringstream list(argv[3]);
        for (std::string m; std::getline(list, m, ',');)
            methods.push_back(m);
    }
    const std::size_t size = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 25600;
    const int epochs = argc > 5 ? std::atoi(argv[5]) : 2;
    raw_speed(methods, threads, steps);
    if (size > 0) trained(methods, threads, size, epochs);
    return 0;
}
