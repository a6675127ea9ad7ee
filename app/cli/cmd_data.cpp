// fone data: the paper's tasks as plain dataset files ("a+b=c" lines), to inspect, edit or reuse with
// `fone train --task file --data FILE` and `fone eval --data FILE`; the text tasks (word-problems,
// units, tables) as train/val/test.jsonl files of {"prompt", "answer"}.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "command_support.h"
#include "fone/store/train_config.h"  // default_train_size: the same training-set size as fone train's
#include "fone/tasks/tasks.h"
#include "fone/tasks/typed_sums.h"
#include "fone/text/text_data.h"
#include "json_io.h"

namespace fone::cli {
namespace {

// One file per split in `out`, written by `write(path, split)`; returns the "files" JSON.
template <typename SplitsT, typename Write>
nlohmann::json write_splits(const std::string& out, const SplitsT& s, const std::string& extension,
                            Write write) {
    std::filesystem::create_directories(out);
    nlohmann::json files = nlohmann::json::object();
    for (const auto& [name, examples] : {std::pair{"train", &s.train}, {"val", &s.val}, {"test", &s.test}}) {
        const std::string path = (std::filesystem::path(out) / (std::string(name) + extension)).string();
        write(path, *examples);
        files[name] = {{"path", path}, {"examples", examples->size()}};
    }
    return files;
}

struct DataOptions {
    std::string task = "dec-add", out;
    std::optional<std::size_t> train_size;  // fone train's default for the task when not given
    std::size_t val_size = 1000, test_size = 2000;
    std::uint64_t seed = 42;
    int modulus = 97, classify_d = 10, long_digits = 60;
    std::string sampling, weights;  // "": the task's default, as fone train's
    std::optional<double> drills;   // word-problems: fone train's default when not given
};

void write_data(const DataOptions& o) {
    const std::size_t train_size = o.train_size.value_or(default_train_size(o.task));
    if (is_text_task_name(o.task) && !(o.sampling.empty() && o.weights.empty()))
        throw std::invalid_argument("--sampling and --sampling-weights are for dec-add, int-add and sub");
    if (is_text_task_name(o.task)) {
        const bool word_problems = o.task == "word-problems";
        if (o.drills && !word_problems) throw std::invalid_argument("--drills is for word-problems");
        const double drills = word_problems ? o.drills.value_or(kWordProblemDrills) : 0;
        const TextSplits s = generate_text_splits(text_task_from_name(o.task), train_size, o.val_size,
                                                  o.test_size, o.seed, drills);
        const auto files = write_splits(o.out, s, ".jsonl", write_text_jsonl);
        print_json_line(std::cout, {{"task", o.task}, {"seed", o.seed}, {"files", files}});
        return;
    }
    TaskOptions task;
    task.kind = task_from_name(o.task);
    if (task.kind == TaskKind::file) throw std::invalid_argument("--task file reads data; it makes none");
    task.modulus = o.modulus;
    task.classify_d = o.classify_d;
    task.long_digits = o.long_digits;
    task.sampling = !o.sampling.empty() ? o.sampling : has_typed_sums(task.kind) ? "typed" : "uniform";
    if (!o.weights.empty()) task.sampling_weights = parse_shape_weights(o.weights);
    if (task.sampling == "typed" && task.sampling_weights.empty())
        task.sampling_weights = default_shape_weights(task.kind, train_size);
    const Splits s = generate_splits(task, train_size, o.val_size, o.test_size, o.seed);
    const auto files = write_splits(o.out, s, ".txt", write_dataset_file);
    print_json_line(std::cout, {{"task", o.task}, {"seed", o.seed}, {"files", files}});
}

// "--task"'s help from the task lists of tasks/ and text/ (the file task has no splits to write).
std::string data_task_help() {
    std::string out;
    for (const std::string& name : task_names())
        if (name != "file") out += (out.empty() ? "" : ", ") + name;
    out += "; text: ";
    const std::vector<std::string> text = text_task_names();
    for (std::size_t i = 0; i < text.size(); ++i)
        out += (i ? ", " : "") + text[i];
    return out;
}

}  // namespace

void add_data_commands(CLI::App& app) {
    auto o = std::make_shared<DataOptions>();
    auto* data = app.add_subcommand("data", "Write a task's train/val/test splits as a+b=c files");
    data->add_option("--task", o->task, data_task_help())->capture_default_str();
    data->add_option("--train-size", o->train_size,
                     "Training examples (default: fone train's for the task, " +
                         std::to_string(default_train_size("dec-add")) + "; word-problems " +
                         std::to_string(default_train_size("word-problems")) + ", units and tables " +
                         std::to_string(default_train_size("units")) + ")")
        ->check(CLI::NonNegativeNumber);
    add_count_option(data, "--val-size", o->val_size, "Validation examples");
    add_count_option(data, "--test-size", o->test_size, "Test examples");
    add_count_option(data, "--seed", o->seed, "Seed (the same as fone train's gives the same splits)");
    data->add_option("--modulus", o->modulus, "Modulus of mod-add")->capture_default_str();
    data->add_option("--classify-d", o->classify_d, "Threshold d of classify")->capture_default_str();
    data->add_option("--long-digits", o->long_digits, "Longest operand of long-add")->capture_default_str();
    data->add_option("--sampling", o->sampling,
                     "dec-add, int-add, sub: typed (the default, as fone train's) or uniform (the paper's)");
    data->add_option("--sampling-weights", o->weights, "Typed sampling: weight per shape (as fone train's)");
    data->add_option("--drills", o->drills,
                     "word-problems: share of training examples that are bare sums of the additive "
                     "templates (as fone train's: default 0.75)");
    data->add_option("--out", o->out, "Folder for train.txt, val.txt and test.txt (.jsonl for text tasks)")
        ->required();
    data->callback([o] { run_command("data", [&] { write_data(*o); }); });
}

}  // namespace fone::cli
