// fone generate: text from a text run's model, streamed token by token.
//
//   fone generate --run RUN "Ana buys 12 pens at $3.45 each. How much does she pay?"
//   fone generate --run RUN --temperature 0.8 --top-k 20 --seed 3 "PROMPT"
//   fone generate --run RUN --json "PROMPT"     one JSON line per token, then the whole text and numbers
#include <iostream>
#include <memory>

#include "command_support.h"
#include "fone/store/run_store.h"
#include "fone/train/inference.h"
#include "json_io.h"

namespace fone::cli {
namespace {

struct GenerateOptions {
    GenerateRequest request;
    std::string run, runs_dir;
    bool json = false;
};

// The text as it comes (or JSON lines with --json); a note on stderr when the model did not end it.
void run_generate(const GenerateOptions& o) {
    if (o.request.prompt.empty())
        throw std::invalid_argument(
            "the prompt is empty: give the question to answer or the text to continue");
    const std::string dir = open_store(o.runs_dir, false).resolve(o.run);
    bool wrote = false;
    const EventSink on_token = [&](const nlohmann::json& e) {
        if (o.json) {
            print_json_line(std::cout, e);
            return;
        }
        const std::string text = e.value("text", "");
        if (text.empty()) return;
        std::cout << text << std::flush;
        wrote = true;
    };
    const nlohmann::json end = generate_run(dir, o.request, on_token);
    if (o.json) {
        print_json_line(std::cout, end);
        return;
    }
    if (wrote) std::cout << '\n';
    std::cout.flush();
    if (end.value("stop", "") != "eos")
        std::cerr << "fone generate: stopped at " << end.value("tokens", 0) << " tokens ("
                  << end.value("stop", "") << ") before the model ended the text" << std::endl;
}

}  // namespace

void add_generate_command(CLI::App& app) {
    auto o = std::make_shared<GenerateOptions>();
    auto* cmd = app.add_subcommand("generate", torch_command_description("generate"));
    cmd->add_option("--run", o->run,
                    "Run name or directory (a run of fone train --task text|word-problems|...)")
        ->required();
    cmd->add_option("prompt", o->request.prompt,
                    "The prompt (a question for runs trained on prompts and answers)")
        ->required();
    cmd->add_option("--temperature", o->request.temperature, "Sample from softmax(logits / T); 0: greedy")
        ->capture_default_str();
    cmd->add_option("--top-k", o->request.top_k, "Sample among the K most probable tokens only (0: all)")
        ->capture_default_str();
    cmd->add_option("--max-tokens", o->request.max_tokens, "New tokens at most")->capture_default_str();
    cmd->add_option("--seed", o->request.seed, "Seed of the sampling")
        ->check(CLI::NonNegativeNumber)  // CLI11 reads -1 into an unsigned option as 2^64-1
        ->capture_default_str();
    cmd->add_flag("--continue", o->request.continue_text,
                  "Continue the prompt's text instead of answering it (no [ANS] after the prompt)");
    cmd->add_flag("--json", o->json,
                  "JSON lines: {\"event\": \"token\", ...} per token, then {\"event\": \"end\", \"text\", "
                  "\"numbers\", ...}");
    cmd->add_option("--threads", o->request.threads, "CPU threads (0: auto, from the CPUs free)");
    cmd->add_option("--runs-dir", o->runs_dir, "Run store");
    cmd->callback([o] {
        run_command(
            "generate", [&] { run_generate(*o); }, 2);
    });
}

}  // namespace fone::cli
