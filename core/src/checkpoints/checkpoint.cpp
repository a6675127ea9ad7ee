#include "fone/checkpoints/checkpoint.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "checkpoints/checkpoint_file.h"
#include "checkpoints/export_files.h"
#include "checkpoints/run_model.h"
#include "fone/io/file_read.h"
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

// The folder an export makes: the name as given, trailing slashes dropped ("" is refused: the temporary
// folder would be ".tmp-<pid>" in the current folder).
std::string export_target(const std::string& out_dir) {
    std::string out = out_dir;
    while (out.size() > 1 && out.back() == '/')
        out.pop_back();
    if (out.empty()) throw RunError("--out is empty: give the new folder's name");
    std::error_code ec;
    // symlink_status: a link, even one that points nowhere, is a name that exists (never written through).
    if (fs::symlink_status(out, ec).type() != fs::file_type::not_found)
        throw RunError(out + " exists; choose a new folder");
    return out;
}

void write_new_folder(const std::string& out_dir,
                      const std::function<void(const std::string& folder)>& fill) {
    const std::string out = export_target(out_dir);
    const std::string tmp = out + ".tmp-" + std::to_string(::getpid());
    if (::mkdir(tmp.c_str(), 0755) != 0) throw write_error(tmp, "create", errno);
    const auto remove_tmp = [&] {
        std::error_code ec;
        fs::remove_all(tmp, ec);
    };
    try {
        fill(tmp);
    } catch (...) {
        remove_tmp();
        throw;
    }
    // Never onto a name that appeared meanwhile (rename would replace an empty folder, or fail on a link).
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, out.c_str(), RENAME_NOREPLACE) != 0) {
        const int err = errno;
        remove_tmp();
        if (err == EEXIST || err == ENOTEMPTY) throw RunError(out + " exists; choose a new folder");
        throw write_error(out, "create", err);
    }
}

void copy_run_file(const std::string& from, const std::string& to) {
    const FileRead read = read_regular_file(from, kMaxDataFileBytes, Links::refuse);
    if (!read.ok()) throw RunError(read.error + "; nothing exported");
    write_file_atomic(to, read.text);
}

void copy_kept_pretrained_files(const std::string& run_dir, const std::string& to_dir) {
    const fs::path kept = fs::path(run_dir) / kPretrainedFilesDir;
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(kept, ec);
    if (st.type() == fs::file_type::not_found) return;
    if (st.type() != fs::file_type::directory)
        throw RunError(kept.string() + ": not a folder (" +
                       (st.type() == fs::file_type::symlink ? "a symbolic link" : "a special file") +
                       "); nothing exported");
    fs::create_directories(to_dir);
    for (const char* name : kKeptPretrainedFiles)
        if (fs::symlink_status(kept / name, ec).type() != fs::file_type::not_found)
            copy_run_file((kept / name).string(), (fs::path(to_dir) / name).string());
}

void export_model(const std::string& run_dir, const std::string& out_dir) {
    export_target(out_dir);  // refused before the model is opened
    Checkpoint c = open_run_checkpoint(run_dir, model_checkpoint(run_dir));
    RunModel r = open_run_model(c.config, run_dir, RunData::none, &c);
    write_new_folder(out_dir, [&](const std::string& tmp) {
        // config.json first: the copy's identity is the run's, so the copied checkpoint belongs to it. Each
        // file is copied only when it is a regular file inside the run (a link is refused, never followed).
        std::error_code ec;
        for (const char* f : {kConfigFile, kSummaryFile, kNotesFile, kTokenizerFile})
            if (fs::symlink_status(fs::path(run_dir) / f, ec).type() != fs::file_type::not_found)
                copy_run_file((fs::path(run_dir) / f).string(), (fs::path(tmp) / f).string());
        copy_kept_pretrained_files(run_dir, (fs::path(tmp) / kPretrainedFilesDir).string());
        save_checkpoint((fs::path(tmp) / kBestCheckpoint).string(), r.model, nullptr, c.config, c.pos,
                        c.identity);
        write_status(tmp, kStatusFinished, "exported from " + fs::path(run_dir).filename().string());
    });
}

}  // namespace fone
