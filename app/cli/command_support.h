// What every `fone` subcommand shares: how it fails (one line on stderr, an exit status) and where its run
// store is (--runs-dir, else the default store).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "commands.h"
#include "fone/store/run_store.h"

namespace fone::cli {

// Runs a subcommand's work. Whatever it throws leaves as one line on stderr, "fone COMMAND: error:
// MESSAGE", and a CliFailure with exit status 1, or bad_input_status for std::invalid_argument (train,
// generate and sweep give bad input status 2). A CliFailure from the work, its reason already on stderr,
// passes through as it is.
void run_command(const std::string& command, const std::function<void()>& work, int bad_input_status = 1);

// Writes "fone COMMAND: error: MESSAGE" and throws CliFailure with `status`.
[[noreturn]] void fail(const std::string& command, const std::string& message, int status = 1);

// A size or seed option: refuses a negative value (CLI11 would read "-1" as 2^64-1) and shows its default
// in --help.
template <class T>
CLI::Option* add_count_option(CLI::App* cmd, const std::string& name, T& value, const std::string& help) {
    return cmd->add_option(name, value, help)->check(CLI::NonNegativeNumber)->capture_default_str();
}

// Integers separated by commas ("2,5,10": --periods, --mod, --helix-periods); std::invalid_argument naming
// the option otherwise. "" is the empty list.
std::vector<int> parse_int_list(const std::string& text, const std::string& option);

// The run store's folder: runs_dir when given (--runs-dir), else RunStore::default_root().
std::string runs_root(const std::string& runs_dir);
// The run store in runs_root(runs_dir). Commands that only read pass create_root = false: a missing
// store is an empty one, never created.
RunStore open_store(const std::string& runs_dir, bool create_root);

}  // namespace fone::cli
