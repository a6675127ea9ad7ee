// fone — the FoNE Workbench command-line tool.
//
//   fone encode 4.17 18                       FoNE embeddings, one JSON line per number
//   fone encode 4.17 | fone decode            ...and back
//   fone parse "Ana pays $41.40 for 12 pens"  numbers found in text, as JSON
//   fone tokenize "Ana pays $41.40"           its tokens under the fone, digit and subword schemes
//   fone generate --run RUN "PROMPT"          text from a text run's model, token by token
//   fone --version
#include <iostream>

#include "commands.h"
#include "fone/build_info.h"
#include "json_io.h"

#ifdef FONE_WITH_TORCH
#include <torch/cuda.h>
#include <torch/version.h>
#endif

namespace {

std::string version_text() {
    std::string v = std::string("fone ") + FONE_VERSION;
#ifdef FONE_WITH_TORCH
    v += std::string(" (LibTorch ") + TORCH_VERSION + ", " +
         (torch::cuda::is_available() ? "CUDA available" : "CPU only") + ")";
#else
    v += " (built without LibTorch: number and text tools only)";
#endif
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"FoNE Workbench: Fourier Number Embeddings on the command line", "fone"};
    app.set_version_flag("--version", version_text());
    app.require_subcommand(1);
    // An option given twice takes its last value, so scripts can append overrides.
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    fone::cli::add_number_commands(app);
    fone::cli::add_run_commands(app);
    fone::cli::add_data_commands(app);
    fone::cli::add_text_commands(app);
    fone::cli::add_analyse_commands(app);
#ifdef FONE_WITH_TORCH
    fone::cli::add_train_commands(app);
    fone::cli::add_generate_command(app);
    fone::cli::add_sweep_commands(app);
    fone::cli::add_reproduce_commands(app);
    fone::cli::add_export_commands(app);
#endif
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const fone::cli::CliFailure& e) {
        return e.code;
    } catch (const std::exception& e) {
        fone::cli::print_error(app.get_subcommands().empty() ? "" : app.get_subcommands().front()->get_name(),
                               e.what());
        return 1;
    }
    return 0;
}
