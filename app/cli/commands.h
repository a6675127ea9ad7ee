// The `fone` subcommands, one registration function per group. Each subcommand's callback writes its
// output on stdout and throws CliFailure (after writing the reason on stderr) on failure.
#pragma once

#include <stdexcept>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace fone::cli {

// Exit status for a command that ran but failed on some input; the reason is already on stderr.
struct CliFailure : std::runtime_error {
    int code;
    explicit CliFailure(const std::string& what, int exit_code = 1)
        : std::runtime_error(what), code(exit_code) {}
};

void add_number_commands(CLI::App& app);     // encode, decode, parse
void add_run_commands(CLI::App& app);        // runs list | show | export
void add_data_commands(CLI::App& app);       // data (a task's splits as a+b=c files, text tasks as .jsonl)
void add_text_commands(CLI::App& app);       // tokenize (text with numbers, three number schemes)
void add_train_commands(CLI::App& app);      // train, eval, predict (needs LibTorch)
void add_generate_command(CLI::App& app);    // generate: text from a text run's model (needs LibTorch)
void add_sweep_commands(CLI::App& app);      // sweep: a grid of train runs (needs LibTorch)
void add_reproduce_commands(CLI::App& app);  // reproduce: the paper's experiments (needs LibTorch)
void add_export_commands(CLI::App& app);     // export: a run's model without optimiser state (needs LibTorch)
// The config `fone train ARGS` would train, as JSON, checked as train checks it (options, config file,
// resolve_train_config, the device) without making anything; std::invalid_argument naming the problem.
// `fone sweep` checks every cell with it before it writes its sweep file.
nlohmann::json check_train_args(const std::vector<std::string>& args);

// analyse spectrum | pca | probe | circles | hidden | tokens | errors (cmd_analyse.cpp)
void add_analyse_commands(CLI::App& app);
// analyse patch | knockout (cmd_analyse_intervene.cpp, needs LibTorch), under `analyse`
void add_intervention_commands(CLI::App* analyse);
// analyse timeline | grokking (cmd_analyse_dynamics.cpp; grokking needs LibTorch), under `analyse`
void add_dynamics_commands(CLI::App* analyse);

}  // namespace fone::cli
