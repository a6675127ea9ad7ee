// What a resume repairs or refuses in a run folder (train/run_folder_repair.h).
#include "train/run_folder_repair.h"

#include <filesystem>

#include "fone/analysis/snapshot_file.h"
#include "fone/store/run_store.h"

namespace fone {

namespace fs = std::filesystem;

void remove_stale_temporaries(const std::string& run_dir) {
    if (fs::path(run_dir).filename() != kSnapshotsDir)
        remove_stale_temporaries((fs::path(run_dir) / kSnapshotsDir).string());
    std::error_code ec;
    for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const auto mark = name.rfind(".tmp-");
        if (mark == std::string::npos) continue;
        const std::string pid = name.substr(mark + 5);
        if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
        if (pid.size() < 10 && !process_alive(std::stoi(pid))) {
            std::error_code rm;
            fs::remove(it->path(), rm);
        }
    }
}

void refuse_unfinished_creation(const std::string& run_dir) {
    std::error_code ec;
    if (fs::exists(fs::path(run_dir) / kConfigFile, ec)) return;
    const std::string prefix = std::string(kConfigFile) + ".tmp-";
    for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(prefix, 0) == 0)
            throw RunError(run_dir +
                           ": its config.json was never finished (the run was killed while being made); "
                           "its settings are only in " +
                           name + ", kept: nothing to resume");
    }
}

}  // namespace fone
