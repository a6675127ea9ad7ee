// What to do with a run name that is wanted trained: the one rule for `fone sweep`, `fone reproduce`, the
// workbench's sweep designer and `fone train --resume`. The rule, from the run's state in the store:
//
//   state of <root>/<run>            goal complete (a cell wanted trained)  goal resume (continue this run)
//   absent                           start                                   refuse: no such run
//   finished (or interrupted with    reuse                                   refuse: nothing to resume
//     a summary.json that says so)
//   running (its lock held) here     wait (until it ends, then decide again) refuse: it is training
//   running (its lock held) on       elsewhere (left alone)                  resume / restart (*)
//     another host
//   stopped, interrupted             resume; restart without a checkpoint    resume; restart without one
//   failed                           leave; retry when the caller asks       resume; restart without one
//   broken (unreadable config etc.)  restart without a checkpoint, else as failed    as failed
//   other settings than wanted (**)  refuse
//
// "running" is what the store says: the run's lock held by a live process (fone/store/run_lock.h), here or
// on another host of a shared filesystem; a run whose process died (its lock free) or that has no lock file
// is interrupted, whatever pid or host status.json names (issue 33: such a run read "running" for ever and
// `sweep --resume` waited on it). Only on a filesystem without locks does status.json's pid decide.
//
// In words: a finished run is used as it is, never trained again; a run with checkpoint-last is resumed
// and one without is restarted (nothing trained is lost); a failed run is kept as evidence (left alone, or
// moved aside to RUN.failed-<k> and trained afresh when the caller wants it retried), never deleted; a run
// training in a live process is never touched. Only a run without a checkpoint is ever deleted.
//
// (*) resuming a run "running" on another host is what a requeued Slurm task does after its node died
//     (`fone sweep --slurm`): its lock, if still held, refuses the second trainer naming the first.
// (**) only when the caller names the settings the run must have been made with (`fone reproduce`: a
//     preset changed since would otherwise be reported under the new one).
//
// How a restart happens is the caller's: a caller that knows the run's settings (a sweep or reproduction
// cell) frees the name with clear_run_dir() and starts the cell afresh; `fone train --resume` starts again
// from step 0 in the same directory, from its config.json.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "fone/store/run_store.h"
#include "fone/store/train_config.h"

namespace fone {

enum class RunAction {
    start,      // no run by that name: make it
    reuse,      // finished: use it as it is
    resume,     // continue from checkpoint-last.safetensors
    restart,    // nothing trained to lose (no checkpoint-last.safetensors): train it again from step 0
    retry,      // failed, and the caller wants it trained again: move it aside (RUN.failed-<k>), start afresh
    leave,      // failed (or broken with a checkpoint): kept as it is and reported
    wait,       // training in a live process on this host: wait for it to end, then decide again
    elsewhere,  // "running" on another host: it cannot be checked from here, so it is left alone
    refuse,     // the caller may not have it (reason says why)
};
// "start", "reuse", "resume", ... as above.
const char* run_action_name(RunAction action);

enum class RunGoal {
    complete,  // the caller wants the run trained to the end (a sweep or reproduction cell)
    resume,    // the caller names an existing run and wants it continued (`fone train --resume`)
};

struct RunWish {
    RunGoal goal = RunGoal::complete;
    bool retry_failed = false;  // goal complete: retry a failed run instead of leaving it
    // goal complete: the settings the run must have been made with; a stored config.json that differs
    // (names and threads aside) is refused.
    std::optional<TrainConfig> settings;
    // goal resume: the caller holds the run's lock (fone/store/run_lock.h), so a "running" status.json on
    // this host is a dead process's, whatever its pid is now.
    bool holding_lock = false;
};

struct RunDecision {
    RunAction action = RunAction::start;
    std::string status;  // the run's state: a kStatus* value, or "absent"
    std::string reason;  // why (the run's own message, or the policy's)
    bool has_checkpoint = false;
    int pid = 0;       // running: the process training it
    std::string host;  // running: where it trains ("" unknown)
    RunInfo info;      // as read (empty when absent)
};

// The decision for the run directory run_dir (which need not exist), read from its files now. Never
// throws for a bad run: an unreadable one is "broken" with the reason.
RunDecision decide_run(const std::string& run_dir, const RunWish& wish = {});

// The first setting in which a stored config.json differs from wanted, as "\"key\": stored, wanted W";
// "" when none. name and threads never count (threads change speed, not results); a key the stored config
// lacks (a setting added to the engine after the run was made) counts only when wanted differs from its
// default. "data" compares as absolute paths, and "data_digest" only when wanted has one (a run records
// its data file's digest when it starts).
std::string settings_difference(const nlohmann::json& stored, const TrainConfig& wanted);

// Frees a run's name for a fresh start, as the decision says: restart deletes the directory (refused with
// RunError when it holds checkpoint-last.safetensors: something trained), retry renames it RUN.failed-<k>
// (kept). Returns the path it was moved to ("" for a delete, or when there was nothing to clear).
std::string clear_run_dir(const std::string& run_dir, RunAction action);

}  // namespace fone
