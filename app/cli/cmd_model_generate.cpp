// fone model generate: a model folder continues a prompt, streamed token by token (docs/pretrained.md).
// It needs LibTorch, so it lives in libfone_torch_commands.so, under the `model` group of cmd_model.cpp.
//
//   fone model generate DIR "Q: What is 98 plus 45?\n\nA:"         greedy, the text as it comes
//   fone model generate DIR "PROMPT" --temperature 0.8 --top-k 20 --seed 3
//   fone model generate DIR "PROMPT" --json     one JSON line per token, then the whole text and timings
#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.h"
#include "fone/hf/generate.h"
#include "json_io.h"
#include "model_command.h"

namespace fone::cli {
namespace {

using nlohmann::json;

struct ModelGenerateOptions {
    std::string dir, prompt;
    fp::GenerationSettings settings;
    bool json = false, no_cache = false;
    int threads = 0;
};

// New tokens per second after the first (the prompt's pass is first_token_seconds); null below two.
json decode_rate(const fp::Generation& g) {
    const double t = g.seconds - g.first_token_seconds;
    if (g.ids.size() < 2 || t <= 0) return nullptr;
    return static_cast<double>(g.ids.size() - 1) / t;
}

json end_event(const ModelGenerateOptions& o, const fp::Generation& g, const std::string& text) {
    return {{"event", "end"},
            {"prompt", o.prompt},
            {"prompt_ids", g.prompt_ids},
            {"ids", g.ids},
            {"text", text},
            {"tokens", g.ids.size()},
            {"stop", g.stop},
            {"first_token_seconds", g.first_token_seconds},
            {"seconds", g.seconds},
            {"tokens_per_second", decode_rate(g)}};
}

void run_model_generate(const ModelGenerateOptions& o) {
    const fp::ModelFolder m = fp::ModelFolder::open(o.dir);
    const fp::BpeTokenizer tokenizer = folder_tokenizer(m);
    const std::vector<int64_t> prompt = tokenizer.encode(o.prompt);
    fp::GenerationSettings settings = o.settings;
    settings.use_cache = !o.no_cache;
    fp::FolderGenerator generator(m, o.threads);
    const fp::Generation g = generator.generate(prompt, settings, [&](const fp::GeneratedToken& t) {
        const std::string piece = fp::decode_ids(tokenizer, {t.id});
        if (o.json)
            print_json_line(std::cout, {{"event", "token"},
                                        {"index", t.index},
                                        {"id", t.id},
                                        {"token", piece},
                                        {"probability", t.probability}});
        else
            std::cout << piece << std::flush;
    });
    const std::string text = fp::decode_ids(tokenizer, g.ids);
    if (o.json) {
        print_json_line(std::cout, end_event(o, g, text));
        return;
    }
    std::cout << '\n' << std::flush;
    const json rate = decode_rate(g);
    char timing[160];
    std::snprintf(timing, sizeof timing, "first token %.3f s", g.first_token_seconds);
    std::string note = timing;
    if (!rate.is_null()) {
        std::snprintf(timing, sizeof timing, ", %.1f tokens/s after it", rate.get<double>());
        note += timing;
    }
    std::cerr << "fone model generate: " << g.ids.size() << " tokens (stop: " << g.stop << "), " << note
              << std::endl;
}

void register_generate(CLI::App* model) {
    auto o = std::make_shared<ModelGenerateOptions>();
    auto* cmd = model->add_subcommand(kModelGenerate.name, kModelGenerate.description);
    cmd->add_option("dir", o->dir, "The model folder (config.json, weights, tokenizer.json)")->required();
    cmd->add_option("prompt", o->prompt, "The text to continue (tokenized as transformers does, with BOS)")
        ->required();
    cmd->add_option("--temperature", o->settings.temperature, "Sample from softmax(logits / T); 0: greedy")
        ->check(CLI::Range(0.0, 1e6))
        ->capture_default_str();
    cmd->add_option("--top-k", o->settings.top_k, "Sample among the K most probable tokens only (0: all)")
        ->check(CLI::Range(0, 1 << 30))
        ->capture_default_str();
    cmd->add_option("--seed", o->settings.seed, "Seed of the sampling")
        ->check(CLI::NonNegativeNumber)  // CLI11 reads -1 into an unsigned option as 2^64-1
        ->capture_default_str();
    cmd->add_option("--max-new-tokens", o->settings.max_new_tokens, "New tokens at most")
        ->check(CLI::Range(0, 1 << 20))
        ->capture_default_str();
    cmd->add_flag(
        "--json", o->json,
        "JSON lines: {\"event\": \"token\", \"index\", \"id\", \"token\", \"probability\"} per token, "
        "then {\"event\": \"end\", \"text\", \"ids\", \"stop\", \"first_token_seconds\", "
        "\"tokens_per_second\", ...}");
    cmd->add_flag("--no-cache", o->no_cache,
                  "Run the whole sequence through the model at every step (no KV cache: a check, slower)");
    cmd->add_option("--threads", o->threads, "Torch threads (0: auto, from the CPUs free)")
        ->check(CLI::Range(0, 1024));
    cmd->callback([o] { run_model_command("model generate", [&] { run_model_generate(*o); }); });
}

}  // namespace

void add_model_generate_command(CLI::App& app) {
    register_generate(app.get_subcommand("model"));
}

}  // namespace fone::cli
