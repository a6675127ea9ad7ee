#include "fone/checkpoints/checkpoint.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "checkpoints/checkpoint_file.h"
#include "checkpoints/run_model.h"
#include "fone/io/json_files.h"
#include "fone/store/run_store.h"

namespace fone {

namespace fs = std::filesystem;

nlohmann::json inspect_checkpoint(const std::string& path) {
    const std::string run_dir = fs::path(path).parent_path().string();
    Checkpoint c = open_run_checkpoint(run_dir, path);
    RunModel r = open_run_model(c.config, run_dir, RunData::none, &c);
    nlohmann::json j = {{"config", c.config.to_json()},
                        {"step", c.pos.step},
                        {"epoch", c.pos.epoch},
                        {"params", param_count(r.model).total},
                        {"weights_digest", weights_digest(r.model)},
                        {"identity", c.identity},
                        {"optimizer", c.has_optimizer}};
    if (c.has_optimizer) {  // the optimiser state must load too (what a resume does)
        torch::optim::AdamW opt(r.model->parameters());
        load_optimizer(c, r.model, opt);
    }
    return j;
}

void write_new_folder(const std::string& out_dir,
                      const std::function<void(const std::string& folder)>& fill) {
    const std::string tmp = out_dir + ".tmp-" + std::to_string(::getpid());
    if (::mkdir(tmp.c_str(), 0755) != 0) throw write_error(tmp, "create", errno);
    try {
        fill(tmp);
    } catch (...) {
        std::error_code ec;
        fs::remove_all(tmp, ec);
        throw;
    }
    fs::rename(tmp, out_dir);
}

void export_model(const std::string& run_dir, const std::string& out_dir) {
    if (fs::exists(out_dir)) throw RunError(out_dir + " exists; choose a new folder");
    Checkpoint c = open_run_checkpoint(run_dir, model_checkpoint(run_dir));
    RunModel r = open_run_model(c.config, run_dir, RunData::none, &c);
    write_new_folder(out_dir, [&](const std::string& tmp) {
        // config.json first: the copy's identity is the run's, so the copied checkpoint belongs to it.
        for (const char* f : {kConfigFile, kSummaryFile, kNotesFile, kTokenizerFile, kPretrainedFilesDir})
            if (fs::exists(fs::path(run_dir) / f))
                fs::copy(fs::path(run_dir) / f, fs::path(tmp) / f, fs::copy_options::recursive);
        save_checkpoint((fs::path(tmp) / kBestCheckpoint).string(), r.model, nullptr, c.config, c.pos,
                        c.identity);
        write_status(tmp, kStatusFinished, "exported from " + fs::path(run_dir).filename().string());
    });
}

}  // namespace fone
