#include "train/checkpoint_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "fone/store/run_store.h"
#include "train/zip_integrity.h"

namespace fone {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kCheckpointFormat = 1;

torch::Tensor string_tensor(const std::string& s) {
    auto t = torch::empty({static_cast<int64_t>(s.size())}, torch::kUInt8);
    std::memcpy(t.data_ptr<uint8_t>(), s.data(), s.size());
    return t;
}

std::string tensor_string(const torch::Tensor& t) {
    auto c = t.contiguous().to(torch::kCPU);
    return std::string(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()),
                       static_cast<std::size_t>(c.numel()));
}

void fsync_path(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// The weights take at least 4 bytes per parameter in the file: a config that describes a larger model
// than the file can hold is damage (and would allocate without bound before failing).
void check_model_fits_file(const TrainConfig& config, const std::string& path) {
    std::error_code ec;
    const auto bytes = fs::file_size(path, ec);
    if (ec) return;
    const double params = static_cast<double>(count_params(config.model, 0).without_embedding());
    if (params * 4 > static_cast<double>(bytes))
        throw RunError(path + ": corrupt checkpoint (its config describes " +
                       std::to_string(static_cast<long long>(params)) + " parameters, more than the " +
                       std::to_string(bytes) + " bytes of the file can hold)");
}

// The meta data of an opened archive (c.archive), checked before anything trusts it.
void read_meta(Checkpoint& c) {
    const std::string& path = c.path;
    torch::Tensor format, config, position, times;
    c.archive.read("meta.format", format);
    if (format.item<int64_t>() != kCheckpointFormat)
        throw RunError(path + ": checkpoint format " + std::to_string(format.item<int64_t>()) +
                       " is not the one this build reads (" + std::to_string(kCheckpointFormat) + ")");
    c.archive.read("meta.config", config);
    c.archive.read("meta.position", position);
    c.archive.read("meta.times", times);
    // accessor() does not check bounds: a damaged file may hold tensors of another type or length.
    if (config.scalar_type() != torch::kUInt8 || config.dim() != 1)
        throw RunError(path + ": corrupt checkpoint (meta.config is not a byte string)");
    if (position.scalar_type() != torch::kInt64 || position.dim() != 1 || position.numel() != 3 ||
        times.scalar_type() != torch::kFloat64 || times.dim() != 1 || times.numel() != 4)
        throw RunError(path + ": corrupt checkpoint (meta.position or meta.times has the wrong shape)");
    c.config = TrainConfig::from_json(nlohmann::json::parse(tensor_string(config)));
    // A config that no run could have been trained with (heads 0, hidden 1e9) is damage, not a model.
    c.config.validate();
    check_model_fits_file(c.config, path);
    position = position.contiguous();
    times = times.contiguous();
    auto p = position.accessor<int64_t, 1>();  // lvalues: accessor() of a temporary is deleted
    auto t = times.accessor<double, 1>();
    c.pos = {p[0], p[1], p[2], t[0], t[1], t[2], t[3]};
    if (c.pos.step < 0 || c.pos.epoch < 0 || c.pos.batch_in_epoch < 0 || c.pos.epoch > c.config.epochs)
        throw RunError(path + ": corrupt checkpoint (its position is impossible for its config)");
}

std::string shape_text(const std::vector<int64_t>& s) {
    std::string t = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

}  // namespace

void save_checkpoint(const std::string& path, FoneTransformer& model, torch::optim::AdamW* opt,
                     const TrainConfig& config, const Position& pos) {
    torch::serialize::OutputArchive archive;
    model->save(archive);
    if (opt) {
        torch::serialize::OutputArchive opt_archive;
        opt->save(opt_archive);
        archive.write("optimizer", opt_archive);
    }
    archive.write("meta.format", torch::tensor(kCheckpointFormat));
    archive.write("meta.config", string_tensor(config.to_json().dump()));
    archive.write("meta.position", torch::tensor({pos.step, pos.epoch, pos.batch_in_epoch}));
    archive.write("meta.times", torch::tensor({pos.best_exact_match, pos.train_seconds, pos.elapsed_seconds,
                                               pos.time_to_target},
                                              torch::kFloat64));
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    archive.save_to(tmp);
    fsync_path(tmp);
    fs::rename(tmp, path);
}

Checkpoint open_checkpoint(const std::string& path) {
    if (!fs::exists(path)) throw RunError(path + ": missing");
    // LibTorch 1.13 reads without checking CRCs and can crash on a damaged archive: check them first.
    if (const std::string why = detail::zip_problem(path); !why.empty())
        throw RunError(path + ": corrupt or truncated checkpoint (" + why + ")");
    Checkpoint c;
    c.path = path;
    try {
        c.archive.load_from(path);
        read_meta(c);
    } catch (const RunError&) {
        throw;
    } catch (const std::exception& e) {
        std::string what = e.what();
        what = what.substr(0, what.find('\n'));
        throw RunError(path + ": corrupt or truncated checkpoint (" + what + ")");
    }
    return c;
}

void load_weights(Checkpoint& c, FoneTransformer& model) {
    // Module::load adopts the shapes it reads: compare them with the model the config builds.
    struct Expected {
        std::string name;
        std::vector<int64_t> shape;
        torch::ScalarType dtype;
    };
    std::vector<Expected> shapes;
    for (const auto& item : model->named_parameters())
        shapes.push_back({item.key(), item.value().sizes().vec(), item.value().scalar_type()});
    for (const auto& item : model->named_buffers())
        shapes.push_back({item.key(), item.value().sizes().vec(), item.value().scalar_type()});
    try {
        model->load(c.archive);
    } catch (const std::exception& e) {
        std::string what = e.what();
        throw RunError(c.path + ": the weights do not match the model of its config (" +
                       what.substr(0, what.find('\n')) + ")");
    }
    auto params = model->named_parameters();
    auto buffers = model->named_buffers();
    for (const auto& [name, expected, dtype] : shapes) {
        const torch::Tensor* t = params.find(name);
        if (!t) t = buffers.find(name);
        if (!t || !t->defined() || t->sizes().vec() != expected || t->scalar_type() != dtype)
            throw RunError(
                c.path + ": the weights do not match the model of its config (" + name +
                (t && t->defined() ? " is " + shape_text(t->sizes().vec()) : std::string(" is missing")) +
                ", the config makes " + shape_text(expected) + ")");
    }
}

std::string model_checkpoint(const std::string& run_dir) {
    const std::string best = (fs::path(run_dir) / kBestCheckpoint).string();
    return fs::exists(best) ? best : (fs::path(run_dir) / kLastCheckpoint).string();
}

std::string weights_digest(FoneTransformer& model) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const auto& p : model->parameters()) {
        const auto c = p.detach().to(torch::kCPU).contiguous();
        const auto* bytes = static_cast<const unsigned char*>(c.data_ptr());
        for (std::size_t i = 0; i < static_cast<std::size_t>(c.nbytes()); ++i)
            h = (h ^ bytes[i]) * 1099511628211ULL;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

}  // namespace fone
