// Checkpoint save and load times and file sizes, before and after issue 13, in one process: a training
// checkpoint (weights + AdamW state after one step) of the default model and of the paper's levels 2 and 4,
// written and read back as a resume does, as the LibTorch archive of older builds (CRC check + archive
// reader, the code path before issue 13) and as the safetensors file of this build.
//   build/bin/bench_checkpoint [repeats] [dir]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <torch/torch.h>

#include "checkpoints/checkpoint_file.h"
#include "fone/io/zip_integrity.h"
#include "fone/store/train_config.h"
#include "nn/model.h"

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
    const std::string path = dir + "/bench-checkpoint.safetensors", legacy = dir + "/bench-checkpoint.pt";
    double save = 1e9, load = 1e9, old_save = 1e9, old_load = 1e9;
    for (int k = 0; k < repeats; ++k) {
        // Before: the LibTorch archive (as save_checkpoint wrote it: tmp, fsync, rename).
        auto t0 = Clock::now();
        {
            torch::serialize::OutputArchive archive, opt_archive;
            model->save(archive);
            opt.save(opt_archive);
            archive.write("optimizer", opt_archive);
            archive.save_to(legacy + ".tmp");
            const int fd = ::open((legacy + ".tmp").c_str(), O_RDONLY);
            ::fsync(fd);
            ::close(fd);
            std::filesystem::rename(legacy + ".tmp", legacy);
        }
        old_save = std::min(old_save, since(t0));
        {
            fone::FoneTransformer other(c.model, fone::ModelHeads{});
            torch::optim::AdamW opt2(other->parameters(), torch::optim::AdamWOptions(1e-3));
            t0 = Clock::now();
            if (!fone::detail::zip_problem(legacy).empty()) std::abort();
            torch::serialize::InputArchive archive, opt_archive;
            archive.load_from(legacy);
            other->load(archive);
            archive.read("optimizer", opt_archive);
            opt2.load(opt_archive);
            old_load = std::min(old_load, since(t0));
        }
        // After: safetensors.
        t0 = Clock::now();
        fone::save_checkpoint(path, model, &opt, c, pos, "0123456789abcdef");
        save = std::min(save, since(t0));
        fone::FoneTransformer other(c.model, fone::ModelHeads{});
        torch::optim::AdamW opt2(other->parameters(), torch::optim::AdamWOptions(1e-3));
        t0 = Clock::now();
        const fone::Checkpoint ck = fone::open_checkpoint(path);
        fone::load_weights(ck, other);
        fone::load_optimizer(ck, other, opt2);
        load = std::min(load, since(t0));
        if (fone::weights_digest(other) != fone::weights_digest(model)) std::abort();
    }
    const auto bytes = std::filesystem::file_size(path), old_bytes = std::filesystem::file_size(legacy);
    std::printf(
        "%-24s %9lld params | .pt %9.1f KB save %7.1f ms load %7.1f ms | .safetensors %9.1f KB save "
        "%7.1f ms load %7.1f ms (best of %d)\n",
        label, static_cast<long long>(fone::param_count(model).total), old_bytes / 1024.0, 1e3 * old_save,
        1e3 * old_load, bytes / 1024.0, 1e3 * save, 1e3 * load, repeats);
    std::filesystem::remove(path);
    std::filesystem::remove(legacy);
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
