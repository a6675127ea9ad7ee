// fone export --run RUN --out DIR: a run's model without its optimiser state, as a run directory that
// `fone eval/predict --run DIR` and the workbench open (how the bundled demo model is made); with
// --format hf, a fone-adapter run as a Hugging Face model folder (fone/checkpoints/checkpoint.h).
// fone runs convert RUN --trust: an older build's .pt checkpoints rewritten as safetensors (it needs
// LibTorch, so it is registered here, under the `runs` group of cmd_runs.cpp).
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "command_support.h"
#include "fone/checkpoints/checkpoint.h"
#include "fone/store/run_store.h"
#include "json_io.h"

namespace fone::cli {
namespace {

// Under `fone runs` (added before this group by main.cpp).
void add_convert_command(CLI::App& app) {
    CLI::App* runs = app.get_subcommand("runs");
    auto run = std::make_shared<std::string>();
    auto trust = std::make_shared<bool>(false);
    auto* cmd = runs->add_subcommand(kRunsConvert.name, kRunsConvert.description);
    cmd->fallthrough();
    cmd->add_option("run", *run, "Run name in the store, or a path to a run directory")->required();
    cmd->add_flag("--trust", *trust, "Required: you trust where the run's .pt files came from");
    cmd->callback([runs, run, trust] {
        if (!*trust)
            fail("runs convert",
                 "opening a .pt checkpoint can run code stored in it; if you trust where the run came from, "
                 "add --trust",
                 2);
        run_command("runs convert", [&] {
            const CLI::Option* dir = runs->get_option("--runs-dir");
            const RunStore store = open_store(dir->count() ? dir->as<std::string>() : "", false);
            const std::string run_dir = store.resolve(*run);
            std::cerr << "fone runs convert: opening " << run_dir
                      << "'s .pt files with LibTorch's archive reader (the legacy format, which can run code "
                         "stored in it: --trust given)"
                      << std::endl;
            // Whatever the archive's code prints goes to stderr: stdout holds the JSON report alone.
            std::cout.flush();
            std::fflush(stdout);
            const int saved = ::dup(STDOUT_FILENO);
            ::dup2(STDERR_FILENO, STDOUT_FILENO);
            nlohmann::json report;
            try {
                report = convert_legacy_checkpoints(run_dir);
            } catch (...) {
                std::fflush(stdout);
                ::dup2(saved, STDOUT_FILENO);
                ::close(saved);
                throw;
            }
            std::cout.flush();
            std::fflush(stdout);
            ::dup2(saved, STDOUT_FILENO);
            ::close(saved);
            print_json_line(std::cout, report);
        });
    });
}

}  // namespace

void add_export_commands(CLI::App& app) {
    auto run = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto runs_dir = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>("run");
    auto* cmd = app.add_subcommand("export", torch_command_description("export"));
    cmd->add_option("--run", *run, "Run name or directory")->required();
    cmd->add_option("--out", *out, "New folder for the copy")->required();
    cmd->add_option("--runs-dir", *runs_dir, "Run store");
    cmd->add_option("--format", *format,
                    "run (a run directory without the optimiser state, the default) or hf (a fone-adapter "
                    "run as a Hugging Face model folder, the adapter merged into the embeddings)")
        ->check(CLI::IsMember({"run", "hf"}));
    cmd->callback([run, out, runs_dir, format] {
        run_command("export", [&] {
            const std::string run_dir = open_store(*runs_dir, false).resolve(*run);
            if (*format == "hf")
                export_hf_model(run_dir, *out);
            else
                export_model(run_dir, *out);
            print_json_line(std::cout, {{"exported", *out}, {"format", *format}});
        });
    });
    add_convert_command(app);
}

}  // namespace fone::cli
