// The one rule for a run that is wanted trained (fone/store/run_policy.h has the table).
#include "fone/store/run_policy.h"

#include <filesystem>

namespace fone {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string string_field(const json& j, const char* key) {
    if (!j.is_object()) return "";
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int int_field(const json& j, const char* key) {
    if (!j.is_object()) return 0;
    const auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}

// Whether two data paths name the same file once made absolute (a run stores its data file's absolute path).
bool same_file_name(const std::string& stored, const std::string& wanted) {
    std::error_code ec;
    const fs::path a = fs::absolute(stored, ec), b = fs::absolute(wanted, ec);
    return a.lexically_normal() == b.lexically_normal();
}

// What the state alone says, for a caller that wants the run trained to the end.
RunAction complete_action(const RunDecision& d, const RunWish& wish, const std::string& this_host) {
    if (d.status == kStatusFinished) return RunAction::reuse;
    if (d.status == kStatusRunning)
        return d.host.empty() || d.host == this_host ? RunAction::wait : RunAction::elsewhere;
    if (d.status == kStatusStopped || d.status == kStatusInterrupted)
        return d.has_checkpoint ? RunAction::resume : RunAction::restart;
    if (d.status == kStatusBroken && !d.has_checkpoint) return RunAction::restart;
    // Failed, or broken with a checkpoint: not ours to throw away.
    return wish.retry_failed ? RunAction::retry : RunAction::leave;
}

// What the state alone says, for a caller that names an existing run and wants it continued.
RunAction resume_action(RunDecision& d, const std::string& run_dir, const std::string& this_host) {
    if (d.status == kStatusFinished) {
        d.reason = run_dir + " has finished; nothing to resume";
        return RunAction::refuse;
    }
    if (d.status == kStatusRunning && (d.host.empty() || d.host == this_host)) {
        d.reason = run_dir + " is training in process " + std::to_string(d.pid) + "; stop it first";
        return RunAction::refuse;
    }
    return d.has_checkpoint ? RunAction::resume : RunAction::restart;
}

}  // namespace

const char* run_action_name(RunAction action) {
    switch (action) {
        case RunAction::start:
            return "start";
        case RunAction::reuse:
            return "reuse";
        case RunAction::resume:
            return "resume";
        case RunAction::restart:
            return "restart";
        case RunAction::retry:
            return "retry";
        case RunAction::leave:
            return "leave";
        case RunAction::wait:
            return "wait";
        case RunAction::elsewhere:
            return "elsewhere";
        case RunAction::refuse:
            return "refuse";
    }
    return "?";
}

RunDecision decide_run(const std::string& run_dir, const RunWish& wish) {
    RunDecision d;
    const fs::path dir(run_dir);
    std::error_code ec;
    if (!fs::exists(dir, ec)) {
        d.status = "absent";
        d.action = wish.goal == RunGoal::complete ? RunAction::start : RunAction::refuse;
        if (d.action == RunAction::refuse) d.reason = "no run " + run_dir;
        return d;
    }
    if (!fs::is_directory(dir, ec)) {
        d.status = kStatusBroken;
        d.reason = run_dir + " is not a directory";
        d.action = wish.goal == RunGoal::complete ? RunAction::leave : RunAction::refuse;
        return d;
    }
    try {
        const std::string root = dir.parent_path().string();
        d.info = RunStore(root.empty() ? "." : root, false).info(run_dir);
    } catch (const std::exception& e) {  // unreadable: a broken run, never the caller's end
        d.info.status = kStatusBroken;
        d.info.message = e.what();
    }
    d.status = d.info.status;
    d.reason = d.info.message;
    // summary.json is written when the run ends, just before status.json: an interrupted run whose
    // summary says "finished" has finished (killed between the two writes, or copied without status.json).
    if (d.status == kStatusInterrupted && string_field(d.info.summary, "status") == kStatusFinished) {
        d.status = kStatusFinished;
        d.reason = string_field(d.info.summary, "message");
    }
    // An older build's checkpoint counts: the run has something trained (converted, it resumes).
    d.has_checkpoint = fs::exists(dir / kLastCheckpoint, ec) || fs::exists(dir / kLegacyLastCheckpoint, ec);
    if (d.status == kStatusRunning) {
        d.host = string_field(d.info.last_status, "host");
        d.pid = int_field(d.info.last_status, "pid");
    }
    const std::string this_host = host_name();
    if (wish.holding_lock && d.status == kStatusRunning && (d.host.empty() || d.host == this_host))
        d.status = kStatusInterrupted;  // the lock is the caller's: the process status.json names is gone
    if (wish.goal == RunGoal::resume) {
        d.action = resume_action(d, run_dir, this_host);
        return d;
    }
    if (wish.settings && d.info.config.is_object() && !d.info.config.empty()) {
        if (const std::string diff = settings_difference(d.info.config, *wish.settings); !diff.empty()) {
            d.action = RunAction::refuse;
            d.reason = run_dir + " was trained with other settings (" + diff + ")";
            return d;
        }
    }
    d.action = complete_action(d, wish, this_host);
    if (d.action == RunAction::elsewhere) d.reason = "running on " + d.host;
    return d;
}

std::string settings_difference(const json& stored, const TrainConfig& wanted) {
    const json want = wanted.to_json();
    const json defaults = TrainConfig().to_json();
    for (auto it = want.begin(); it != want.end(); ++it) {
        if (it.key() == "name" || it.key() == "threads") continue;  // threads change speed, not results
        if (it.key() == "data_digest" && it->get<std::string>().empty()) continue;  // recorded at the start
        if (it.key() == "data" && stored.is_object() && stored.contains("data") &&
            stored["data"].is_string() &&
            same_file_name(stored["data"].get<std::string>(), it->get<std::string>()))
            continue;
        const bool has = stored.is_object() && stored.contains(it.key());
        if (!has && defaults.value(it.key(), json()) == it.value()) continue;
        if (!has || stored[it.key()] != it.value())
            return "\"" + it.key() + "\": " + (has ? stored[it.key()].dump() : std::string("absent")) +
                   ", wanted " + it.value().dump();
    }
    return "";
}

std::string clear_run_dir(const std::string& run_dir, RunAction action) {
    const fs::path dir(run_dir);
    std::error_code ec;
    if (!fs::exists(dir, ec)) return "";
    if (action == RunAction::restart) {
        if (fs::exists(dir / kLastCheckpoint, ec) || fs::exists(dir / kLegacyLastCheckpoint, ec))
            throw RunError(run_dir + ": has a checkpoint (something trained): not deleted");
        fs::remove_all(dir, ec);
        if (ec) throw RunError(run_dir + ": cannot delete the unfinished run: " + ec.message());
        return "";
    }
    if (action != RunAction::retry)
        throw RunError(run_dir + ": only a restart or a retry clears a run (not " + run_action_name(action) +
                       ")");
    for (int k = 1; k < 100000; ++k) {
        const fs::path aside = dir.parent_path() / (dir.filename().string() + ".failed-" + std::to_string(k));
        if (fs::exists(aside, ec)) continue;
        fs::rename(dir, aside, ec);
        if (ec) throw RunError(run_dir + ": cannot move the failed run aside: " + ec.message());
        return aside.string();
    }
    throw RunError(run_dir + ": no free name to move the failed run aside");
}

}  // namespace fone
