// `fone runs`: the options its commands share, and the registration of the commands that keep, compare and
// share runs (cmd_runs_keep.cpp, cmd_runs_share.cpp) under the group cmd_runs.cpp makes.
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

namespace fone::cli {

struct RunsOptions {
    std::string runs_dir;
};

// note, tag, diff, mv, rm, restore, trash, archive (cmd_runs_keep.cpp); pack, unpack (cmd_runs_share.cpp).
void add_run_keeping_commands(CLI::App* runs, std::shared_ptr<RunsOptions> o);
void add_run_sharing_commands(CLI::App* runs, std::shared_ptr<RunsOptions> o);

}  // namespace fone::cli
