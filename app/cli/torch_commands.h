// The commands that need LibTorch (kTorchCommands: train, eval, predict, generate, sweep, reproduce,
// export) are built into libfone_torch_commands.so. `fone` opens it only when one of them runs, or when
// --version asks for LibTorch's version: the number and text commands and --help start without LibTorch's
// ~0.4 s of start-up, and the BLAS kernel is chosen (fone/platform/blas_kernel.h) before LibTorch loads
// OpenBLAS.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "fone/probes/representations.h"

namespace fone::cli {

// What libfone_torch_commands.so hands `fone` (its one exported symbol, fone_torch_commands()).
struct TorchCommands {
    static constexpr int kAbi = 2;
    int abi;
    const char* revision;                 // FONE_VERSION and FONE_GIT_REVISION: the same build only
    void (*add_commands)(CLI::App& app);  // registers every command of kTorchCommands
    std::string (*build_text)();          // "LibTorch 1.13.1, CPU only; OpenBLAS 0.3.21, Cooperlake kernel"
    // fone/probes/representations.h's, for `fone analyse --source run`.
    NumberRepresentations (*number_representations)(const std::string& run_dir,
                                                    const std::vector<Decimal>& numbers);
    // fone/hf/forward.h's number_hidden_states, for `fone analyse --source model`.
    NumberRepresentations (*model_representations)(const std::string& model_dir,
                                                   const std::vector<Decimal>& numbers);
};

// Whether argv names a command that app does not have yet: one of kTorchCommands, or a word `fone` does
// not know (the full set of commands then gives CLI11's usual error).
bool wants_torch_commands(const CLI::App& app, int argc, char** argv);
// Chooses the BLAS kernel and OpenMP's wait policy (it may start `fone` again, see
// settle_thread_environment), opens the library once and returns it. Throws std::runtime_error naming what it
// tried when it cannot.
const TorchCommands& torch_commands();
// The names and descriptions of kTorchCommands, for --help without LibTorch.
void add_torch_command_summaries(CLI::App& app);

}  // namespace fone::cli
