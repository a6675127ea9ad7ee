// fone train | eval | predict: the training engine on the command line.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "command_support.h"
#include "fone/nn/device.h"
#include "fone/platform/cpu.h"
#include "fone/pretrained/model_folder.h"
#include "fone/store/model_config.h"
#include "fone/tasks/typed_sums.h"
#include "fone/train/distributed.h"
#include "fone/train/inference.h"
#include "fone/train/training.h"
#include "json_io.h"
#include "local_launch.h"

namespace fone::cli {
namespace {

using nlohmann::json;

extern "C" void on_stop_signal(int) {
    request_stop();
}

// Options whose value was given on the command line, as TrainConfig keys. Only given ones are set, so
// that defaults, a preset and a config file can fill the rest.
struct TrainOptions {
    json given = json::object();
    // The option that set each key of `given` ("lr" or "model.hidden" -> "--lr"), for --dry-run's sources.
    std::map<std::string, std::string> flag_of;
    std::string config_file, resume, runs_dir, periods, weights;
    bool dry_run = false, as_json = false;
    // Data-parallel launch options (not settings of the run: fone/train/distributed.h).
    int nproc = 0, master_port = 0;
    std::string master_addr;
    double dist_timeout = 300;
    std::vector<std::function<void()>> collect;

    template <typename T>
    void add(CLI::App* cmd, const std::string& flags, const std::string& key, const std::string& help,
             bool model_key = false) {
        auto value = std::make_shared<T>();
        CLI::Option* opt = cmd->add_option(flags, *value, help);
        // CLI11 reads "-1" into an unsigned option as 2^64-1: a negative count or seed is refused instead.
        if constexpr (std::is_unsigned_v<T>) opt->check(CLI::NonNegativeNumber);
        collect.push_back([this, opt, value, key, model_key, flags] {
            if (opt->count() > 0) set(key, *value, model_key, flags);
        });
    }
    void add_flag(CLI::App* cmd, const std::string& flags, const std::string& key, bool value,
                  const std::string& help, bool model_key = false) {
        CLI::Option* opt = cmd->add_flag(flags, help);
        collect.push_back([this, opt, key, value, model_key, flags] {
            if (opt->count() > 0) set(key, value, model_key, flags);
        });
    }
    // A TrainConfig key, or a key of its "model" object.
    void set(const std::string& key, const json& value, bool model_key, const std::string& flag) {
        (model_key ? given["model"][key] : given[key]) = value;
        flag_of[model_key ? "model." + key : key] = flag;
    }
};

// "--task"'s help from the task lists of tasks/ and text/ (the file task last: it needs --data).
std::string task_help() {
    std::string arithmetic;
    for (const std::string& name : task_names())
        if (name != "file") arithmetic += name + ", ";
    std::string text;
    for (const std::string& name : text_task_names_for_training())
        text += (text.empty() ? "" : ", ") + name + (name == "text" ? " (--data FILE)" : "");
    return arithmetic + "file; a language model on text with numbers: " + text;
}

void add_train_options(CLI::App* cmd, TrainOptions& o) {
    o.add<std::string>(cmd, "--task", "task", task_help());
    o.add<std::string>(cmd, "--data", "data",
                       "Dataset file of a+b=c lines (--task file); JSONL of {\"prompt\", \"answer\"} or "
                       "plain text, one document a line (--task text)");
    o.add<std::string>(cmd, "--method", "method", "Number method: " + method_list_text());
    o.add<double>(cmd, "--ntl-lambda", "ntl_lambda",
                  "ntl: weight of the Number Token Loss (paper: 0.15, 0.3, 0.8)");
    o.add<std::string>(cmd, "--ntl-tokens", "ntl_tokens", "ntl: on digit or subword tokens");
    o.add<int>(cmd, "--abacus-max-offset", "abacus_max_offset",
               "abacus: random offset of digit positions in training, 0..N");
    o.add<std::string>(cmd, "--subword-direction", "subword_direction",
                       "Subword chunks: l2r (from the left, as Llama-3; the default) or r2l (from the point "
                       "outwards, Singh & Strouse)");
    o.add<std::string>(cmd, "--numerologic-tokens", "numerologic_tokens",
                       "numerologic: digit (the default) or subword tokens behind the digit count");
    o.add_flag(cmd, "--no-bittokens-reciprocal", "bittokens_reciprocal", false,
               "bittokens: the 64 bits of x only, without those of 1/x");
    o.add<double>(cmd, "--digit-loss-weight", "digit_loss_weight",
                  "Text, fone: weight of the Fourier digit loss where the next token is a number (default 1; "
                  "word-problems 10)");
    o.add<int>(cmd, "--vocab-size", "text_vocab_size",
               "Text: SentencePiece vocabulary, trained on the train split (default 1000)");
    o.add<int>(cmd, "--context", "text_context",
               "Text documents: tokens per packed window (default 256 for --task text; 0: one row per "
               "document)");
    o.add_flag(cmd, "--strict-numbers", "strict_numbers", true,
               "Text: refuse a corpus with a number longer than the digit slots take (40 in all, or "
               "--int-digits/--frac-digits) instead of reading it as text, as before issue 41");
    o.add<double>(cmd, "--drills", "drills",
                  "word-problems: share of training examples that are bare sums of the additive templates "
                  "(default 0.75; 0: sentences only, as before)");
    o.add<std::string>(cmd, "--text-loss", "text_loss",
                       "Text: answer (the tokens after the prompt only, the default) or all (every token)");
    o.add<std::string>(cmd, "--sampling", "sampling",
                       "dec-add, int-add, sub: typed (the default: sums with the shapes people type, "
                       "docs/training.md) or uniform (the paper's sampling)");
    cmd->add_option("--sampling-weights", o.weights,
                    "Typed sampling: weight per shape, e.g. uniform=3,round=1,carry=2 (shapes not named "
                    "are not drawn): round, short, one_decimal, carry, equal, zeros, mixed, uniform, edges "
                    "(the range's ends; not in the default mixture)");
    o.add<std::size_t>(cmd, "--train-size", "train_size", "Training examples");
    o.add<std::size_t>(cmd, "--val-size", "val_size", "Validation examples");
    o.add<std::size_t>(cmd, "--test-size", "test_size", "Test examples");
    o.add<int>(cmd, "--modulus", "modulus", "Modulus of mod-add");
    o.add<int>(cmd, "--classify-d", "classify_d", "Threshold d of classify (the paper: 10 and -190)");
    o.add<int>(cmd, "--long-digits", "long_digits", "Longest operand of long-add");
    o.add<std::string>(cmd, "--init-from", "init_from",
                       "Start from a Hugging Face Llama or Qwen2 folder (its shape and weights; the size "
                       "options are then ignored): fone, digit or subword on an arithmetic task, or "
                       "fone-adapter on text; lr 5e-5 and batch 200 by default (docs/pretrained.md)");
    o.add<int>(cmd, "--align-steps", "align_steps",
               "fone-adapter: steps of the alignment phase, where only the FoNE projection trains (every "
               "weight after them; -1, the default: the whole run)");
    o.add<int>(cmd, "--size-level", "size_level", "The paper's model size level 1..6");
    o.add<int>(cmd, "--hidden", "hidden", "Hidden size (custom shape)", true);
    o.add<int>(cmd, "--layers", "layers", "Layers (custom shape)", true);
    o.add<int>(cmd, "--heads", "heads", "Attention heads (custom shape)", true);
    o.add<int>(cmd, "--kv-heads", "kv_heads", "Key-value heads (custom shape)", true);
    o.add<int>(cmd, "--intermediate", "intermediate", "SwiGLU width (custom shape)", true);
    o.add<int>(cmd, "--head-dim", "head_dim", "Attention head width (the paper's models: 64)", true);
    o.add<double>(cmd, "--rope-theta", "rope_theta", "Rotary base (Llama-3.2: 500000)", true);
    o.add<std::string>(cmd, "--fone-input", "fone_input", "pad (zero-padded FoNE) or linear (learned map)",
                       true);
    o.add<std::string>(cmd, "--head-norm", "head_norm", "layernorm or none, before the digit head", true);
    o.add_flag(cmd, "--no-head-temperature", "head_temperature", false, "No learnable scale on digit logits",
               true);
    o.add<double>(cmd, "--init-std", "init_std", "Normal init std of projections (0: LibTorch default)",
                  true);
    o.add<double>(cmd, "--head-temperature-init", "head_temperature_init",
                  "Starting scale of the digit logits", true);
    o.add<int>(cmd, "--epochs", "epochs", "Epochs");
    o.add<double>(cmd, "--cpu-seconds", "cpu_seconds",
                  "Training budget in CPU seconds (user + system of the training steps): the run ends at the "
                  "step that spends it (or after --epochs, if sooner), the learning-rate schedule runs over "
                  "it; equal compute for methods whose steps cost differently (0: none)");
    o.add<double>(cmd, "--lr", "lr", "Peak learning rate");
    o.add<std::size_t>(cmd, "--batch", "batch", "Batch size");
    o.add<double>(cmd, "--warmup", "warmup", "Warm-up, as a fraction of all steps");
    o.add<std::string>(cmd, "--schedule", "schedule", "cosine or constant");
    o.add<double>(cmd, "--clip", "clip", "Gradient-norm clip (0: off)");
    o.add<double>(cmd, "--weight-decay", "weight_decay", "AdamW weight decay");
    o.add_flag(cmd, "--swap-operands", "swap_operands", true,
               "Also train on b+a for every a+b (default below 25,600)");
    o.add_flag(cmd, "--no-swap-operands", "swap_operands", false, "Train on the examples as drawn only");
    o.add<std::uint64_t>(cmd, "--seed", "seed", "Seed of data, initialisation and order");
    o.add<std::string>(cmd, "--device", "device", "auto, cpu or cuda");
    o.add<std::string>(cmd, "--precision", "precision",
                       "fp32, or bf16: the forward pass's matrix products in bf16 (autocast), the rest fp32");
    o.add<int>(cmd, "--threads", "threads",
               "CPU threads (0: auto, from the CPUs free now, adapted while training)");
    o.add<double>(cmd, "--target-acc", "target_acc",
                  "Stop once the test exact match reaches this (typed sampling: and every typed shape's)");
    o.add<int>(cmd, "--eval-every", "eval_every", "Steps between evaluations (0: each epoch)");
    o.add<int>(cmd, "--checkpoint-every", "checkpoint_every", "Steps between checkpoints (0: each epoch)");
    o.add<std::string>(
        cmd, "--snapshots", "snapshots",
        "What each evaluation records in RUN/snapshots/ (fone analyse timeline): representations "
        "(the probe numbers' hidden states at every layer) or none");
    o.add<std::string>(cmd, "--name", "name", "Run name (default: made from task, method and time)");
    o.add<std::string>(cmd, "--preset", "preset",
                       "fast (the defaults) or paper (lr 5e-3, 100 epochs, level 4, ...)");
    o.add<int>(cmd, "--int-digits", "int_digits",
               "FoNE integer digit slots m (default: the task's; text: the corpus's longest)");
    o.add<int>(cmd, "--frac-digits", "frac_digits",
               "FoNE fractional digit slots n (default: the task's; text: the corpus's longest)");
    o.add<int>(cmd, "--period-base", "period_base", "FoNE period base");
    cmd->add_option("--periods", o.periods, "Mixed period multipliers, e.g. 2,5,10");
    cmd->add_option("--config", o.config_file, "JSON file of settings (command-line options override it)");
    cmd->add_option("--resume", o.resume, "Continue a stopped or interrupted run (name or directory)");
    cmd->add_option("--runs-dir", o.runs_dir, "Run store (default: $FONE_RUNS_DIR or ~/.local/share/...)");
    cmd->add_option("--nproc", o.nproc,
                    "Train the run on N processes of this machine (data-parallel, each with its share of "
                    "--threads); under torchrun or srun the ranks come from their environment instead")
        ->check(CLI::Range(1, 1024));
    cmd->add_option(
        "--master-addr", o.master_addr,
        "Distributed: the host of rank 0's rendezvous (default: $MASTER_ADDR, Slurm's first node)");
    cmd->add_option("--master-port", o.master_port,
                    "Distributed: the rendezvous port (default: $MASTER_PORT; --nproc: a free one)")
        ->check(CLI::Range(1, 65535));
    cmd->add_option("--dist-timeout", o.dist_timeout,
                    "Distributed: seconds a rank waits for the others (rendezvous, each collective) before "
                    "the run fails naming the rank (default 300)")
        ->check(CLI::Range(1.0, 86400.0));
}

// This process's rank from torchrun's or Slurm's environment, the options overriding the rendezvous.
std::optional<DistributedSetup> distributed_setup(const TrainOptions& o) {
    std::optional<DistributedSetup> d =
        distributed_from_environment([](const char* n) { return std::getenv(n); });
    if (!d) return d;
    if (!distributed_available()) throw std::invalid_argument(distributed_unavailable_message());
    if (!o.master_addr.empty()) d->master_addr = o.master_addr;
    if (o.master_port > 0) d->master_port = o.master_port;
    d->timeout_seconds = o.dist_timeout;
    return d;
}

// --nproc N: the ranks are this command started N times, each with its share of the threads: of --threads
// when given, else of the cores this process may use and its cgroup quota (threads_per_run, the one owner
// of that share).
int launch_nproc(const TrainOptions& o) {
    if (!distributed_available()) throw std::invalid_argument(distributed_unavailable_message());
    if (distributed_from_environment([](const char* n) { return std::getenv(n); }))
        throw std::invalid_argument(
            "--nproc: this process is already one rank of a distributed launch "
            "(WORLD_SIZE or SLURM_NTASKS says so); drop --nproc");
    // Each rank is a process with LibTorch loaded (about 190 MB before its model and data) that needs a core
    // of its own: more ranks than cores only wait for each other.
    const int cores = std::max(2, available_cores());  // two ranks are always allowed (a test, a demo)
    if (o.nproc > cores)
        throw std::invalid_argument(
            "--nproc " + std::to_string(o.nproc) + ": this process may use " + std::to_string(cores) +
            " core(s); a rank needs one of its own (--nproc " + std::to_string(cores) + " at most here)");
    constexpr std::uint64_t kRankBaseBytes = 200ull << 20;
    if (const std::uint64_t have = physical_memory_bytes(); have > 0 && o.nproc * kRankBaseBytes > have)
        throw std::invalid_argument("--nproc " + std::to_string(o.nproc) + ": the ranks alone need about " +
                                    std::to_string((o.nproc * kRankBaseBytes) >> 20) +
                                    " MB (200 MB each before their model), more than this machine's " +
                                    std::to_string(have >> 20) + " MB");
    LocalLaunch launch;
    launch.nproc = o.nproc;
    const int given = o.given.value("threads", 0);
    launch.threads_each = given > 0 ? std::max(1, given / o.nproc) : threads_per_run(o.nproc);
    launch.master_port = o.master_port;
    launch.tcp = !o.master_addr.empty();
    launch.timeout_seconds = o.dist_timeout;
    return launch_local_ranks(launch, rank_command_line(launch.threads_each));
}

std::string bar(double fraction, int width) {
    const int full = static_cast<int>(fraction * width + 0.5);
    return std::string(static_cast<std::size_t>(std::clamp(full, 0, width)), '#') +
           std::string(static_cast<std::size_t>(width - std::clamp(full, 0, width)), '.');
}

// JSON lines on stdout; a progress bar on stderr when it is a terminal.
EventSink make_sink() {
    // A rank 0 of --nproc writes to its launcher's pipe, which passes the bar on to the terminal.
    const bool tty = ::isatty(STDERR_FILENO) || std::getenv("FONE_STDERR_IS_TTY");
    auto last_acc = std::make_shared<double>(-1.0);
    return [tty, last_acc](const json& e) {
        print_json_line(std::cout, e);
        if (!tty) return;
        const std::string kind = e.value("event", "");
        if (kind == "eval") *last_acc = e.value("exact_match", 0.0);
        if (kind == "progress") {
            const double f = e.value("step", 0.0) / std::max(1.0, e.value("total_steps", 1.0));
            std::fprintf(
                stderr, "\r[%s] %3.0f%% epoch %.2f loss %.4f %s eta %.0fs   ", bar(f, 30).c_str(), 100 * f,
                e.value("epoch", 0.0), e.value("loss", 0.0),
                *last_acc >= 0 ? ("acc " + std::to_string(100 * *last_acc).substr(0, 5) + "%").c_str() : "",
                e.value("eta_seconds", 0.0));
        } else if (kind == "end") {
            std::fprintf(stderr, "\n%s: %s\n", e.value("status", "").c_str(), e.value("message", "").c_str());
        }
    };
}

ResolvedSettings resolve_options(TrainOptions& o);

// A setting's value as the table shows it: text as is, anything else as JSON.
std::string value_text(const json& v) {
    if (v.is_string()) return v.get<std::string>().empty() ? "\"\"" : v.get<std::string>();
    return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

// --dry-run: every setting of the run and where it came from; an aligned table on a terminal, one JSON
// object with --json or when stdout is a pipe or a file (what a script reads).
void print_dry_run(const ResolvedSettings& r, bool as_json) {
    if (json_output(as_json)) {
        print_json_line(std::cout, r.to_json());
        return;
    }
    std::size_t key_width = 3, value_width = 5;
    for (const SourcedSetting& s : r.settings) {
        key_width = std::max(key_width, s.key.size());
        // A long value (typed sampling's weights) runs into its source rather than widening every row.
        if (const std::size_t n = value_text(s.value).size(); n <= 40) value_width = std::max(value_width, n);
    }
    auto row = [&](const std::string& key, const std::string& value, const std::string& source) {
        std::cout << key << std::string(key_width + 2 - key.size(), ' ') << value
                  << std::string(value.size() < value_width ? value_width + 2 - value.size() : 2, ' ')
                  << source << '\n';
    };
    row("key", "value", "source");
    for (const SourcedSetting& s : r.settings)
        row(s.key, value_text(s.value), s.source);
    std::cout.flush();
}

// --threads 0 (the default) is chosen when the run starts, from the machine as it is then: the dry run says
// what that choice would be now, and why, in the threads line's source.
void explain_threads(ResolvedSettings& r) {
    if (r.config.threads > 0) return;
    for (SourcedSetting& s : r.settings)
        if (s.key == "threads") {
            const ThreadChoice now = choose_threads(0, 0.1);
            s.source += "; " + now.reason.substr(0, now.reason.find(':')) +
                        " now:" + now.reason.substr(now.reason.find(':') + 1);
        }
}

int run_train(TrainOptions& o) {
    for (auto& f : o.collect)
        f();
    if (o.dry_run) {
        if (!o.resume.empty())
            throw std::invalid_argument(
                "--dry-run shows a new run's settings; --resume continues a run with its own");
        ResolvedSettings r = resolve_options(o);
        resolve_device(r.config.device);  // as a run would: --device cuda without CUDA is an error here too
        explain_threads(r);
        print_dry_run(r, o.as_json);
        return 0;  // no store opened, no run directory made
    }
    if (o.as_json) throw std::invalid_argument("--json goes with --dry-run (a run writes JSON lines anyway)");
    if (o.nproc > 1) return launch_nproc(o);
    const std::optional<DistributedSetup> dist = distributed_setup(o);
    // A rank's share of the cores when none was given (torchrun, srun without --threads): the ranks on this
    // machine share its cores and its cgroup quota.
    if (dist && !o.given.contains("threads")) o.given["threads"] = threads_per_run(dist->local_world_size);
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    // `fone train ... | head -1`: a reader that goes away must not kill the run. Writes to the closed pipe
    // then fail (std::cout stops printing) and training goes on to its end.
    std::signal(SIGPIPE, SIG_IGN);
    const EventSink sink = make_sink();
    TrainOutcome out;
    if (!o.resume.empty()) {
        // A resumed run is its checkpoint's config; silently ignoring other options would mislead.
        const int threads = o.given.value("threads", -1);
        if (o.given.contains("threads") && (threads < 0 || threads > 1024))
            throw std::invalid_argument("threads: must be in 0..1024 (0: auto, from the CPUs free)");
        o.given.erase("threads");
        if (!o.given.empty() || !o.config_file.empty() || !o.periods.empty() || !o.weights.empty()) {
            std::string keys;
            for (auto it = o.given.begin(); it != o.given.end(); ++it)
                keys += (keys.empty() ? "" : ", ") + it.key();
            throw std::invalid_argument(
                "--resume continues a run with its own settings (only --threads may change); "
                "drop the other options (" +
                (keys.empty() ? std::string("--config/--periods") : keys) + ")");
        }
        out = train_resume(open_store(o.runs_dir, false).resolve(o.resume), sink, threads,
                           dist.value_or(DistributedSetup{}));
    } else {
        const TrainConfig config = resolve_options(o).config;
        RunStore store = open_store(o.runs_dir, true);
        out = train_new(config, store, sink, dist.value_or(DistributedSetup{}));
    }
    return out.status == kStatusFailed ? 1 : 0;
}

}  // namespace

nlohmann::json check_train_args(const std::vector<std::string>& args) {
    CLI::App app{"check", "fone train"};
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    TrainOptions o;
    add_train_options(&app, o);
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        throw std::invalid_argument(e.what());
    }
    for (auto& f : o.collect)
        f();
    if (!o.resume.empty()) throw std::invalid_argument("--resume is not a train option here");
    const TrainConfig config = resolve_options(o).config;
    resolve_device(config.device);
    return config.to_json();
}

namespace {

// Each given option as a layer of its own (after the config file's), so that every setting names its source.
void add_option_layers(const TrainOptions& o, std::vector<SettingsLayer>& layers) {
    auto source = [&](const std::string& key) {
        const auto it = o.flag_of.find(key);
        return "flag " + (it != o.flag_of.end() ? it->second : "--" + key);
    };
    for (auto it = o.given.begin(); it != o.given.end(); ++it) {
        if (it.key() != "model" || !it->is_object()) {
            layers.emplace_back(source(it.key()), json{{it.key(), *it}});
            continue;
        }
        for (auto m = it->begin(); m != it->end(); ++m)
            layers.emplace_back(source("model." + m.key()), json{{"model", {{m.key(), *m}}}});
    }
}

ResolvedSettings resolve_options(TrainOptions& o) {
    std::vector<SettingsLayer> layers;
    if (!o.config_file.empty())
        layers.emplace_back("config file " + o.config_file, read_config_file(o.config_file));
    if (!o.periods.empty()) {
        o.given["period_multipliers"] = parse_int_list(o.periods, "--periods");
        o.flag_of["period_multipliers"] = "--periods";
    }
    if (!o.weights.empty()) {
        o.given["sampling_weights"] = parse_shape_weights(o.weights);
        o.flag_of["sampling_weights"] = "--sampling-weights";
    }
    // A run records where it started from as a full path: checks and resumes work from any folder.
    if (o.given.contains("init_from") && !o.given["init_from"].get<std::string>().empty())
        o.given["init_from"] = std::filesystem::absolute(o.given["init_from"].get<std::string>()).string();
    add_option_layers(o, layers);
    // --init-from DIR (from a flag or the config file): the folder's model shape is the last layer, read from
    // its config.json once here, so that the dry run shows the shape the run will have and says where it
    // came from.
    const std::string init_from = resolve_with_sources(layers, false).config.init_from;
    if (!init_from.empty())
        layers.emplace_back("pretrained folder " + init_from, pretrained::init_from_shape(init_from));
    return resolve_with_sources(layers);
}

}  // namespace

namespace {

// fone eval: a run's metrics (its test split, --data, --suite typed) or --benchmark arithmetic.
void add_eval_command(CLI::App& app) {
    auto run = std::make_shared<std::string>();
    auto data = std::make_shared<std::string>();
    auto runs_dir = std::make_shared<std::string>();
    auto threads = std::make_shared<int>(0);
    auto wrong = std::make_shared<std::size_t>(0);
    auto* eval = app.add_subcommand("eval", torch_command_description("eval"));
    eval->add_option("--run", *run, "Run name or directory (required, but for --benchmark with --model)");
    eval->add_option("--data", *data,
                     "Dataset file of a+b=c lines; for a text run JSONL or plain text (default: the run's "
                     "test split)");
    eval->add_option("--runs-dir", *runs_dir, "Run store");
    eval->add_option("--threads", *threads, "CPU threads (0: auto, from the CPUs free)")
        ->check(CLI::Range(0, 1024));
    eval->add_option("--mispredictions", *wrong,
                     "Also list the first N wrong answers (per shape with --suite typed)");
    auto suite = std::make_shared<std::string>("test");
    auto per_shape = std::make_shared<std::size_t>(kTypedSuitePerShape);
    auto suite_seed = std::make_shared<std::uint64_t>(kTypedSuiteSeed);
    eval->add_option(
            "--suite", *suite,
            "test (the run's test split, or --data) or typed: exact match per shape of the sums people "
            "type (dec-add, int-add, sub; docs/training.md)")
        ->check(CLI::IsMember({"test", "typed"}))
        ->capture_default_str();
    eval->add_option("--per-shape", *per_shape, "--suite typed: examples per shape")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    eval->add_option("--suite-seed", *suite_seed,
                     "--suite typed: seed of the suite (the default suite is never in a typed training set)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    auto bench = std::make_shared<BenchmarkOptions>();
    add_benchmark_options(eval, *bench);
    eval->callback([run, data, runs_dir, threads, wrong, suite, per_shape, suite_seed, bench] {
        run_command("eval", [&] {
            if (!bench->benchmark.empty()) {
                if (!data->empty() || *suite != "test" || *wrong > 0)
                    throw std::invalid_argument(
                        "--benchmark brings its own problems: drop --data, --suite, --mispredictions");
                return run_benchmark(*bench, *run, *runs_dir, *threads);
            }
            if (!bench->model.empty() || bench->json)
                throw std::invalid_argument("--model and --json go with --benchmark arithmetic");
            if (run->empty())
                throw std::invalid_argument("--run is required (or --benchmark arithmetic --model DIR)");
            if (*suite == "typed" && !data->empty())
                throw std::invalid_argument("--suite typed brings its own examples; drop --data");
            const std::string dir =
                open_store(*runs_dir, false).resolve(*run);  // reads only: creates nothing
            print_json_line(std::cout, *suite == "typed" ? evaluate_typed_suite(dir, *threads, *per_shape,
                                                                                *suite_seed, *wrong)
                                                         : evaluate_run(dir, *data, *threads, *wrong));
        });
    });
}

}  // namespace

void add_train_commands(CLI::App& app) {
    auto o = std::make_shared<TrainOptions>();
    auto* train = app.add_subcommand("train", torch_command_description("train"));
    add_train_options(train, *o);
    train->add_flag(
        "--dry-run", o->dry_run,
        "Print every setting the run would get and where it comes from (the default for the task "
        "and size, a preset, the config file, a flag), then exit without training or making a run");
    train->add_flag("--json", o->as_json,
                    "--dry-run: one JSON object {\"config\", \"sources\"}, as when stdout is not a terminal");
    train->callback([o] {
        int code = 0;
        run_command(
            "train", [&] { code = run_train(*o); }, 2);
        if (code) throw CliFailure("training failed", code);
    });
    add_eval_command(app);

    auto prompt = std::make_shared<std::string>();
    auto p_run = std::make_shared<std::string>();
    auto p_dir = std::make_shared<std::string>();
    auto* predict = app.add_subcommand("predict", torch_command_description("predict"));
    predict->add_option("--run", *p_run, "Run name or directory")->required();
    predict->add_option("prompt", *prompt, "The prompt")->required();
    predict->add_option("--runs-dir", *p_dir, "Run store");
    predict->callback([prompt, p_run, p_dir] {
        run_command("predict", [&] {
            print_json_line(std::cout, predict_run(open_store(*p_dir, false).resolve(*p_run), *prompt));
        });
    });
}

}  // namespace fone::cli
