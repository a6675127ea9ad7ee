// Checkpoint save and load times and file sizes: a training checkpoint (weights + AdamW state after one
// step) of the default model and of the paper's level 4, written and read back as a resume does.
//   build/bin/bench_checkpoint [repeats] [dir]
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <torch/torch.h>

#include "fone/store/train_config.h"
#include "train/checkpoint_file.h"
#include "train/model.h"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

void bench(const char* label, fone::TrainConfig c, int repeats, const std::string& dir) {
    c.model.vocab_size = 16;
    c.model.validate();
    torch::manual_seed(1);
    fone::FoneTransformer model(c.model, fone::ModelHeads{});
    torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-3));
    for (auto& p : model->parameters())
        p.mutable_grad() = torch::randn_like(p);
    opt.step();
    fone::Position pos;
    pos.step = 1;
    const std::string path = dir + "/bench-checkpoint";
    double save = 1e9, load = 1e9;
    for (int k = 0; k < repeats; ++k) {
        auto t0 = Clock::now();
        fone::save_checkpoint(path, model, &opt, c, pos);
        save = std::min(save, since(t0));
        fone::FoneTransformer other(c.model, fone::ModelHeads{});
        torch::optim::AdamW opt2(other->parameters(), torch::optim::AdamWOptions(1e-3));
        t0 = Clock::now();
        fone::Checkpoint ck = fone::open_checkpoint(path);
        fone::load_weights(ck, other);
        torch::serialize::InputArchive oa;
        ck.archive.read("optimizer", oa);
        opt2.load(oa);
        load = std::min(load, since(t0));
    }
    const auto bytes = std::filesystem::file_size(path);
    std::printf("%-22s %10lld params  file %9.1f KB  save %7.1f ms  load %7.1f ms (best of %d)\n", label,
                static_cast<long long>(fone::param_count(model).total), bytes / 1024.0, 1e3 * save,
                1e3 * load, repeats);
    std::filesystem::remove(path);
}

}  // namespace

int main(int argc, char** argv) {
    const int repeats = argc > 1 ? std::atoi(argv[1]) : 5;
    const std::string dir = argc > 2 ? argv[2] : std::filesystem::temp_directory_path().string();
    torch::set_num_threads(1);
    bench("default (h64, 2 layers)",
          fone::resolve_train_config({{{"task", "dec-add"}, {"train_size", 51200}}}), repeats, dir);
    for (int level : {2, 4})
        bench(
            ("level " + std::to_string(level)).c_str(),
            fone::resolve_train_config({{{"task", "dec-add"}, {"train_size", 51200}, {"size_level", level}}}),
            repeats, dir);
}
