// fone model inspect | tokenize: a Hugging Face model folder as downloaded (docs/pretrained.md).
//
//   fone model inspect DIR                          family, shape, dtype, parameters, single-token integers
//   fone model tokenize DIR "527.38+94.605="        the ids tokenizer.json gives (as transformers does)
//   (model forward: cmd_model_forward.cpp, in the LibTorch commands)
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "json_io.h"
#include "model_command.h"

namespace fone::cli {

namespace {

using nlohmann::json;

void register_inspect(CLI::App* model) {
    auto dir = std::make_shared<std::string>();
    auto* cmd = model->add_subcommand(
        "inspect",
        "A model folder as JSON: family, layers, hidden size, heads, kv heads, vocabulary, dtype, "
        "parameters, files, tokenizer, which integers 0..9999 are single tokens");
    cmd->add_option("dir", *dir,
                    "The model folder (config.json, model.safetensors or shards, tokenizer.json)")
        ->required();
    cmd->callback([dir] {
        run_model_command("model inspect",
                          [&] { print_json_line(std::cout, fp::describe(fp::ModelFolder::open(*dir))); });
    });
}

void register_tokenize(CLI::App* model) {
    auto dir = std::make_shared<std::string>();
    auto text = std::make_shared<std::string>();
    auto plain = std::make_shared<bool>(false);
    auto* cmd =
        model->add_subcommand("tokenize", "The token ids of a text under the folder's tokenizer.json");
    cmd->add_option("dir", *dir, "The model folder, or a tokenizer.json")->required();
    cmd->add_option("text", *text, "The text")->required();
    cmd->add_flag("--no-special", *plain,
                  "Without the post-processor's tokens (Llama-3's <|begin_of_text|>)");
    cmd->callback([dir, text, plain] {
        run_model_command("model tokenize", [&] {
            const bool file = std::filesystem::is_regular_file(*dir);
            const fp::BpeTokenizer t = fp::BpeTokenizer::load(file ? *dir : *dir + "/tokenizer.json");
            const std::vector<int64_t> ids = t.encode(*text, !*plain);
            json tokens = json::array();
            for (const int64_t id : ids)
                tokens.push_back(t.token_text(id));
            print_json_line(std::cout, {{"ids", ids}, {"tokens", tokens}});
        });
    });
}

}  // namespace

void add_model_commands(CLI::App& app) {
    auto* model = app.add_subcommand("model", "A Hugging Face model folder: inspect, tokenize, forward");
    model->require_subcommand(1);
    register_inspect(model);
    register_tokenize(model);
}

}  // namespace fone::cli
