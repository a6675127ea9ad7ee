// `fone runs convert RUN --trust`: an older build's LibTorch checkpoints rewritten as safetensors. The only
// file of the project that opens a LibTorch archive (torch::serialize::InputArchive): opening one runs any
// TorchScript __setstate__ stored in it, so this is reached only by that explicit command, whose caller
// vouches for the file. Every record's CRC-32 is checked first (zip_integrity.h): accidental damage is a
// clear error instead of a crash inside LibTorch.
#include <cstring>
#include <filesystem>

#include "checkpoints/checkpoint_file.h"
#include "checkpoints/run_model.h"
#include "fone/checkpoints/checkpoint.h"
#include "fone/io/json_bounded.h"
#include "fone/io/shown_text.h"
#include "fone/io/zip_integrity.h"
#include "fone/store/run_store.h"

namespace fone {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string tensor_string(const torch::Tensor& t) {
    auto c = t.contiguous().to(torch::kCPU);
    return std::string(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()),
                       static_cast<std::size_t>(c.numel()));
}

// What the archive's meta tensors say (the format of checkpoint files before safetensors: format 1).
struct LegacyMeta {
    TrainConfig config;
    Position pos;
};

LegacyMeta read_legacy_meta(torch::serialize::InputArchive& archive, const std::string& path) {
    torch::Tensor format, config, position, times;
    archive.read("meta.format", format);
    if (format.numel() != 1 || format.item<int64_t>() != 1)
        throw RunError(path + ": not a checkpoint of format 1 (the one before safetensors)");
    archive.read("meta.config", config);
    archive.read("meta.position", position);
    archive.read("meta.times", times);
    if (config.scalar_type() != torch::kUInt8 || config.dim() != 1 ||
        position.scalar_type() != torch::kInt64 || position.numel() != 3 ||
        times.scalar_type() != torch::kFloat64 || times.numel() != 4)
        throw RunError(path + ": corrupt checkpoint (its meta tensors have the wrong type or length)");
    LegacyMeta m;
    json settings;
    std::string error;
    if (!parse_json_bounded(tensor_string(config), path + ": meta.config", settings, &error))
        throw RunError(error);
    m.config = TrainConfig::from_json(settings);
    m.config.validate();
    position = position.contiguous();
    times = times.contiguous();
    const auto* p = position.data_ptr<int64_t>();
    const auto* t = times.data_ptr<double>();
    m.pos = {p[0], p[1], p[2], t[0], t[1], t[2], t[3]};
    return m;
}

// The first setting (of those that make the model and its data: not the name, threads or device) in
// which a .pt's stored config and the run's config.json differ, as "\"seed\": 3 in the file, 4 in
// config.json"; "" when none. Both go through this build's TrainConfig, so fields added since (and their
// defaults) never differ.
// config.json's model.vocab_size 0 means "the scheme's" (the trained model's records the number).
std::string settings_difference(const json& stored, const json& run_settings,
                                const std::string& prefix = "") {
    for (auto it = stored.begin(); it != stored.end(); ++it) {
        const std::string& key = it.key();
        if (prefix.empty() && (key == "name" || key == "threads" || key == "device")) continue;
        const json b = run_settings.contains(key) ? run_settings[key] : json();
        if (prefix == "model." && key == "vocab_size" && b == json(0)) continue;
        if (b.is_object() && it->is_object()) {
            if (std::string d = settings_difference(*it, b, prefix + key + "."); !d.empty()) return d;
        } else if (b != it.value()) {
            return "\"" + prefix + key + "\": " + shown_text(it.value().dump(), 60) + " in the file, " +
                   shown_text(b.dump(), 60) + " in config.json";
        }
    }
    return "";
}

// One .pt file of run_dir rewritten as `to`; its entry of the report. A .pt whose stored settings are not
// those of the run's config.json came from another run: it is refused, never stamped with this run's
// identity (which would make eval accept a swapped checkpoint).
json convert_one(const std::string& run_dir, const std::string& from, const std::string& to,
                 const std::string& identity, const json& settings) {
    if (const std::string why = detail::zip_problem(from); !why.empty())
        throw RunError(from + ": corrupt or truncated checkpoint (" + why + ")");
    try {
        torch::serialize::InputArchive archive;
        archive.load_from(from);
        LegacyMeta m = read_legacy_meta(archive, from);
        if (const std::string diff = settings_difference(m.config.to_json(), settings); !diff.empty())
            throw RunError(from + ": belongs to another run (" + diff + "): not converted");
        RunModel r = open_trained_model_shape(m.config, run_dir);
        r.model->load(archive);
        std::unique_ptr<torch::optim::AdamW> opt;  // none in an exported model
        if (torch::serialize::InputArchive opt_archive; archive.try_read("optimizer", opt_archive)) {
            opt = std::make_unique<torch::optim::AdamW>(r.model->parameters(),
                                                        torch::optim::AdamWOptions(m.config.lr)
                                                            .betas({m.config.beta1, m.config.beta2})
                                                            .weight_decay(m.config.weight_decay));
            opt->load(opt_archive);
        }
        // LibTorch 2.x reads 1.13's AdamW archive without its moments: the weights are converted, and
        // the report says the optimiser state was not (a resume starts AdamW afresh).
        std::string optimizer_note;
        if (opt && !optimizer_state_complete(r.model, *opt)) {
            opt.reset();
            optimizer_note = "the optimiser state in the file could not be read by this build's LibTorch " +
                             std::string(TORCH_VERSION) + ": weights only (a resume starts AdamW afresh)";
        }
        save_checkpoint(to, r.model, opt.get(), r.config, m.pos, identity);
        json entry = {{"from", from},
                      {"to", to},
                      {"step", m.pos.step},
                      {"optimizer", opt != nullptr},
                      {"weights_digest", weights_digest(r.model)}};
        if (!optimizer_note.empty()) entry["optimizer_note"] = optimizer_note;
        return entry;
    } catch (const RunError&) {
        throw;
    } catch (const std::exception& e) {
        std::string what = e.what();
        throw RunError(from + ": cannot convert (" + what.substr(0, what.find('\n')) + ")");
    }
}

}  // namespace

json convert_legacy_checkpoints(const std::string& run_dir) {
    const fs::path dir(run_dir);
    const std::string identity = run_identity_of(run_dir);
    json record = read_json_file((dir / kConfigFile).string());
    if (record.is_object()) record.erase("versions");
    json settings;
    try {
        settings = TrainConfig::from_json(record).to_json();
    } catch (const std::invalid_argument& e) {
        throw RunError((dir / kConfigFile).string() + ": " + e.what());
    }
    json report = {{"run", run_dir}, {"converted", json::array()}, {"skipped", json::array()}};
    bool any = false;
    for (const auto& [legacy, current] : {std::pair{kLegacyLastCheckpoint, kLastCheckpoint},
                                          std::pair{kLegacyBestCheckpoint, kBestCheckpoint}}) {
        const fs::path from = dir / legacy, to = dir / current;
        std::error_code ec;
        if (!fs::exists(from, ec)) continue;
        any = true;
        if (fs::exists(to, ec)) {
            report["skipped"].push_back({{"from", from.string()}, {"why", to.string() + " exists"}});
            continue;
        }
        report["converted"].push_back(convert_one(run_dir, from.string(), to.string(), identity, settings));
    }
    if (!any)
        throw RunError(run_dir + " has no checkpoint of an older fone (" + kLegacyLastCheckpoint + ", " +
                       kLegacyBestCheckpoint + ") to convert");
    return report;
}

}  // namespace fone
