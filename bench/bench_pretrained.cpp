// Time and peak memory of a pretrained model folder (docs/pretrained.md, "A 1B model on this machine"):
// opening it (memory-mapped), one forward pass of a short prompt, then — unless "forward" is given — one
// training step of `fone train --init-from DIR` (the folder's shape and weights, FoNE on dec-add, AdamW),
// outside any run so that nothing is written. Peak RSS is read from the kernel after each stage.
//   build/bin/bench_pretrained DIR [forward] [--threads N] [--batch B]
// scripts/make-random-llama.py makes a random-weights folder the size of Llama-3.2-1B to run it on.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "fone/hf/forward.h"
#include "fone/pretrained/model_folder.h"
#include "fone/store/train_config.h"
#include "fone/train/measure.h"

namespace {

// VmHWM of /proc/self/status: the most resident memory so far, in GiB.
double peak_rss_gib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / (1024.0 * 1024.0);
    return -1;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_pretrained DIR [forward] [--threads N] [--batch B]\n");
        return 2;
    }
    const std::string dir = argv[1];
    bool forward_only = false;
    int threads = 1;
    std::size_t batch = 8;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "forward") forward_only = true;
        if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
        if (a == "--batch" && i + 1 < argc) batch = static_cast<std::size_t>(std::atoll(argv[++i]));
    }
    torch::set_num_threads(threads);
    auto t0 = std::chrono::steady_clock::now();
    const auto folder = fone::pretrained::ModelFolder::open(dir);
    std::printf("open:    %8.3f s  peak RSS %6.2f GiB  (%lld parameters, %s, %zu files)\n", seconds_since(t0),
                peak_rss_gib(), static_cast<long long>(folder.parameter_count()), folder.dtype().c_str(),
                folder.files().size());
    const std::vector<int64_t> ids = {1, 17, 42, 1000, 5000, 9, 23, 77};  // 8 tokens
    t0 = std::chrono::steady_clock::now();
    const auto r = fone::pretrained::forward_last(folder, ids, threads);
    std::printf("forward: %8.3f s  peak RSS %6.2f GiB  (%zu tokens, %zu logits, %d thread(s))\n",
                seconds_since(t0), peak_rss_gib(), ids.size(), r.logits_last.size(), threads);
    if (forward_only) return 0;
    fone::TrainConfig c = fone::resolve_train_config({{{"task", "dec-add"},
                                                       {"method", "fone"},
                                                       {"init_from", dir},
                                                       {"batch", batch},
                                                       {"threads", threads}}});
    t0 = std::chrono::steady_clock::now();
    const nlohmann::json m = fone::measure_training_throughput(c, 1, 0);
    std::printf(
        "train:   %8.3f s  peak RSS %6.2f GiB  (building the model, copying the weights and one step "
        "of batch %zu: %.3f s of it the step: forward %.3f, backward %.3f, AdamW %.3f; %lld parameters)\n",
        seconds_since(t0), peak_rss_gib(), batch, m["seconds"].get<double>(),
        m["forward_seconds"].get<double>(), m["backward_seconds"].get<double>(),
        m["optimizer_seconds"].get<double>(), static_cast<long long>(m["params"].get<int64_t>()));
    return 0;
}
