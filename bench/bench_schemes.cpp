// The number schemes side by side on one model and task (6-digit decimal addition, the default model
// for 51,200 examples): training throughput (examples/s, teacher-forced for token schemes) and
// inference (one prompt; batched evaluation: free greedy generation for token schemes), with the ratio
// of each to FoNE. The yardsticks: a FoNE epoch >= 3x faster than digit-wise, evaluation >= 10x.
//   build/bin/bench_schemes [threads] [steps] [methods, comma-separated; fone first for the ratios]
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "fone/engine.h"

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
    std::printf(
        "6-digit decimal addition, default model for 51,200 examples, batch 256, %d threads (0: all)\n",
        threads);
    std::printf("%-9s %6s %12s %9s %14s %9s %16s %9s\n", "method", "seq", "train ex/s", "vs fone",
                "1 prompt ms", "vs fone", "eval ex/s", "vs fone");
    double fone_train = 0, fone_latency = 0, fone_eval = 0;
    for (const auto& m : methods) {
        const fone::TrainConfig c = fone::resolve_train_config(
            {{{"task", "dec-add"}, {"train_size", 51200}, {"method", m}, {"threads", threads}}});
        const auto t = fone::measure_training_throughput(c, steps);
        const auto i = fone::measure_inference_speed(c, 30, 4096);
        const double train = t["examples_per_second"], latency = i["single_latency_ms"],
                     eval = i["eval_examples_per_second"];
        if (m == "fone") {
            fone_train = train;
            fone_latency = latency;
            fone_eval = eval;
        }
        std::printf("%-9s %6lld %12.0f %8.1fx %14.2f %8.1fx %16.0f %8.1fx\n", m.c_str(),
                    static_cast<long long>(t["sequence_length"].get<int64_t>()), train, fone_train / train,
                    latency, latency / fone_latency, eval, fone_eval / eval);
    }
    std::printf(
        "(vs fone: how many times slower than FoNE; token schemes generate greedily with a key-value "
        "cache)\n");
    return 0;
}
