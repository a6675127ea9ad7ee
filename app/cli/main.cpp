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
#include "torch_commands.h"
#endif
#ifdef FONE_WITH_PLOTS
#include <QtGlobal>
#endif

namespace {

// "fone 0.1.0 (git abc; LibTorch 1.13.1, CPU only; OpenBLAS 0.3.21, Cooperlake kernel; Qt 6.4.2)": the
// workbench's About box shows this line and greys out CUDA unless it says "CUDA available".
std::string version_text() {
    std::string v = std::string("fone ") + FONE_VERSION + " (git " + FONE_GIT_REVISION + "; ";
#ifdef FONE_WITH_TORCH
    v += fone::cli::torch_commands().build_text();
#else
    v += "built without LibTorch: number and text tools only";
#endif
#ifdef FONE_WITH_PLOTS
    v += std::string("; Qt ") + qVersion();
#else
    v += "; without Qt";
#endif
    return v + ")";
}

// Every subcommand's bad option is one line on stderr and exit status 2 (the `fone` convention for bad
// input), not CLI11's two lines and 100-odd codes.
std::string command_path(const CLI::App& app) {
    std::string path;
    const CLI::App* a = &app;
    while (true) {
        const auto subs = a->get_subcommands();
        if (subs.empty()) break;
        a = subs.front();
        path += (path.empty() ? "" : " ") + a->get_name();
    }
    return path;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"FoNE Workbench: Fourier Number Embeddings on the command line", "fone"};
    app.set_version_flag("--version", std::function<std::string()>(version_text));
    app.require_subcommand(1);
    // An option given twice takes its last value, so scripts can append overrides.
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    fone::cli::add_number_commands(app);
    fone::cli::add_run_commands(app);
    fone::cli::add_data_commands(app);
    fone::cli::add_text_commands(app);
    fone::cli::add_analyse_commands(app);
    try {
#ifdef FONE_WITH_TORCH
        // LibTorch only for the commands that need it (torch_commands.h); --help lists them all.
        if (fone::cli::wants_torch_commands(app, argc, argv))
            fone::cli::torch_commands().add_commands(app);
        else
            fone::cli::add_torch_command_summaries(app);
#endif
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        const std::string cmd = command_path(app);
        fone::cli::print_error(
            cmd, std::string(e.what()) + " (see: fone " + (cmd.empty() ? "" : cmd + " ") + "--help)");
        return 2;
    } catch (const fone::cli::CliFailure& e) {
        return e.code;
    } catch (const std::exception& e) {
        fone::cli::print_error(app.get_subcommands().empty() ? "" : app.get_subcommands().front()->get_name(),
                               e.what());
        return 1;
    }
    return 0;
}
