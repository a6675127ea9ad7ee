// The `fone` subcommands, one registration function per group. Each subcommand's callback writes its
// output on stdout and throws CliFailure (after writing the reason on stderr) on failure.
#pragma once

#include <stdexcept>
#include <string_view>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "fone/train/arithmetic_benchmark.h"

namespace fone::cli {

// Exit status for a command that ran but failed on some input; the reason is already on stderr.
struct CliFailure : std::runtime_error {
    int code;
    explicit CliFailure(const std::string& what, int exit_code = 1)
        : std::runtime_error(what), code(exit_code) {}
};

void add_number_commands(CLI::App& app);  // encode, decode, parse
void add_run_commands(CLI::App& app);     // runs list | show | export
void add_data_commands(CLI::App& app);    // data (a task's splits as a+b=c files, text tasks as .jsonl)
void add_text_commands(CLI::App& app);    // tokenize (text with numbers, three number schemes)
// The commands that need LibTorch, in --help's order, with the descriptions --help shows. They live in
// libfone_torch_commands.so (torch_commands.h), which registers them with these descriptions; `fone` lists
// them from this table without loading LibTorch.
struct CommandSummary {
    const char* name;
    const char* description;
};
inline constexpr CommandSummary kTorchCommands[] = {
    {"train", "Train a model; JSON events on stdout, one per line"},
    {"eval", "Metrics of a run's model on its test split or a dataset file (JSON)"},
    {"predict", "The model's answer to a prompt such as \"123.456+654.321=\" (JSON)"},
    {"generate",
     "Text from a text run's model after a prompt, streamed token by token (greedy unless --temperature)"},
    {"sweep",
     "Train a grid of runs (train sizes x size levels x methods x seeds), N at a time; JSON events on "
     "stdout"},
    {"reproduce", "Run one of the paper's experiments at this machine's scale"},
    {"export", "Copy a run's model (weights and config, no optimiser state)"},
};
// `fone runs convert` reads LibTorch archives, so it too lives in libfone_torch_commands.so, under the
// `runs` group that `fone` itself registers.
inline constexpr CommandSummary kRunsConvert = {
    "convert",
    "Rewrite a run's checkpoints of an older fone (.pt, LibTorch archives) as safetensors. Opening a .pt "
    "file "
    "can run code stored in it: convert only runs from someone you trust (--trust says you do)"};
// `fone model forward` runs a model folder through LibTorch: it too lives in libfone_torch_commands.so,
// under the `model` group that `fone` itself registers (inspect and tokenize need no LibTorch).
inline constexpr CommandSummary kModelForward = {
    "forward",
    "One forward pass of a model folder: the logits and hidden states at the last position (embeddings, "
    "after every block, the last after the final norm: transformers' output_hidden_states)"};
// `fone model generate`: text from a model folder (greedy or sampled, a KV cache, streamed).
inline constexpr CommandSummary kModelGenerate = {
    "generate",
    "Continue a prompt with a model folder, streamed token by token: greedy unless --temperature, a KV "
    "cache so each new token runs one position"};
// `fone analyse patch | knockout` run a model: they too live in libfone_torch_commands.so, under the
// `analyse` group that `fone` itself registers.
inline constexpr CommandSummary kAnalysePatch = {
    "patch",
    "Turn one digit's clock (the (cos, sin) pair of one decimal place) at a layer and position, run the "
    "rest of the forward pass: the answer before and after, and every place's digit probabilities"};
inline constexpr CommandSummary kAnalyseKnockout = {
    "knockout",
    "Remove (or scale) one period's pair at a layer: with --prompt, which digits break; without, the "
    "damage of every layer x period over the run's test split (DIR/knockout.csv, DIR/knockout.png)"};
inline constexpr CommandSummary kAnalyseTokenLoss = {
    "token-loss",
    "A test document of two text runs (same corpus, same text tokenizer) with each token coloured by the "
    "loss each model pays for it, numbers framed: DIR/token-loss.png; --json: every piece's losses and the "
    "number each model writes"};
// The LibTorch commands inside groups of `fone`'s own: {group, command}.
struct GroupedCommand {
    const char* group;
    CommandSummary command;
};
inline constexpr GroupedCommand kTorchSubcommands[] = {
    {"runs", kRunsConvert},     {"model", kModelForward},      {"model", kModelGenerate},
    {"analyse", kAnalysePatch}, {"analyse", kAnalyseKnockout}, {"analyse", kAnalyseTokenLoss}};
// kTorchCommands' description of `name` (throws std::out_of_range for another name).
std::string torch_command_description(std::string_view name);

void add_train_commands(CLI::App& app);      // train, eval, predict (needs LibTorch)
void add_generate_command(CLI::App& app);    // generate: text from a text run's model (needs LibTorch)
void add_sweep_commands(CLI::App& app);      // sweep: a grid of train runs (needs LibTorch)
void add_reproduce_commands(CLI::App& app);  // reproduce: the paper's experiments (needs LibTorch)
void add_export_commands(CLI::App& app);     // export: a run's model without optimiser state (needs LibTorch)
// The config `fone train ARGS` would train, as JSON, checked as train checks it (options, config file,
// resolve_train_config, the device) without making anything; std::invalid_argument naming the problem.
// `fone sweep` checks every cell with it before it writes its sweep file.
nlohmann::json check_train_args(const std::vector<std::string>& args);

// fone eval --benchmark arithmetic (cmd_benchmark.cpp, needs LibTorch): its options on `eval`, its run.
struct BenchmarkOptions {
    std::string benchmark, model, style = "gpt3";
    std::vector<std::string> tasks;
    ArithmeticBenchmarkSettings settings;
    bool json = false;
};
void add_benchmark_options(CLI::App* eval, BenchmarkOptions& o);
void run_benchmark(const BenchmarkOptions& o, const std::string& run, const std::string& runs_dir,
                   int threads);

// model inspect | tokenize: a Hugging Face model folder (cmd_model.cpp); add_model_forward_command adds
// `model forward` (cmd_model_forward.cpp, needs LibTorch) to the group add_model_commands made.
void add_model_commands(CLI::App& app);
void add_model_forward_command(CLI::App& app);
void add_model_generate_command(CLI::App& app);  // model generate (cmd_model_generate.cpp, needs LibTorch)

// analyse spectrum | pca | probe | circles | hidden | tokens | errors (cmd_analyse.cpp)
void add_analyse_commands(CLI::App& app);
// analyse timeline (cmd_analyse_timeline.cpp), under `analyse`
void add_timeline_command(CLI::App* analyse);
// analyse replay (cmd_analyse_replay.cpp), under `analyse`
void add_replay_command(CLI::App* analyse);
// analyse patch | knockout (cmd_analyse_intervene.cpp, needs LibTorch), under `analyse`
void add_intervention_commands(CLI::App& app);
// analyse token-loss (cmd_analyse_token_loss.cpp, needs LibTorch), under `analyse`
void add_token_loss_command(CLI::App& app);

}  // namespace fone::cli
