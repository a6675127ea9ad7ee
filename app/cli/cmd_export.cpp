// fone export --run RUN --out DIR: a run's model without its optimiser state, as a run directory that
// `fone eval/predict --run DIR` and the workbench open (how the bundled demo model is made).
#include <iostream>

#include "command_support.h"
#include "fone/store/run_store.h"
#include "fone/train/checkpoint.h"
#include "json_io.h"

namespace fone::cli {

void add_export_commands(CLI::App& app) {
    auto run = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto runs_dir = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("export", torch_command_description("export"));
    cmd->add_option("--run", *run, "Run name or directory")->required();
    cmd->add_option("--out", *out, "New folder for the copy")->required();
    cmd->add_option("--runs-dir", *runs_dir, "Run store");
    cmd->callback([run, out, runs_dir] {
        run_command("export", [&] {
            export_model(open_store(*runs_dir, false).resolve(*run), *out);
            print_json_line(std::cout, {{"exported", *out}});
        });
    });
}

}  // namespace fone::cli
