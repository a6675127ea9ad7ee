// libfone_torch_commands.so's one exported symbol: the commands that need LibTorch (torch_commands.h).
#include "commands.h"
#include "fone/build_info.h"
#include "fone/hf/forward.h"
#include "fone/nn/device.h"
#include "fone/platform/blas_kernel.h"
#include "fone/platform/thread_environment.h"
#include "fone/probes/representations.h"
#include "fone/train/distributed.h"
#include "torch_commands.h"

namespace fone::cli {

namespace {

void add_commands(CLI::App& app) {
    add_train_commands(app);
    add_generate_command(app);
    add_sweep_commands(app);
    add_reproduce_commands(app);
    add_export_commands(app);
    add_model_forward_command(app);
    add_model_generate_command(app);
    add_intervention_commands(app);
    add_token_loss_command(app);
}

// "LibTorch 1.13.1, CPU only; OpenBLAS 0.3.21, Cooperlake kernel; ...; --nproc: Gloo": the workbench
// greys out CUDA unless it says "CUDA available", and hides Processes when it says "no --nproc".
std::string build_text() {
    const nlohmann::json t = torch_build_info();
    std::string v = "LibTorch " + t["libtorch"].get<std::string>() + ", ";
    const std::string cuda = t["cuda_build"].get<std::string>();
    const int gpus = t["gpus"].get<int>();
    if (t["cuda_available"].get<bool>())
        v += "CUDA " + cuda + ", CUDA available (" + std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s") +
             ")";
    else if (!cuda.empty())
        v += "CUDA " + cuda + ", no GPU visible: CPU only";
    else
        v += "CPU only";
    const OpenMpWait wait = openmp_wait();
    // The workbench offers "Processes" (--nproc) only where this says the build has it.
    const std::string nproc = distributed_available_on_cpu() ? "--nproc: Gloo" : "no --nproc (no c10d/Gloo)";
    return v + "; " + blas_kernel_text() + "; OpenMP wait " + wait.policy + " (" + wait.set_by + "); " +
           nproc;
}

NumberRepresentations representations(const std::string& run_dir, const std::vector<Decimal>& numbers) {
    return number_representations(run_dir, numbers);
}

NumberRepresentations model_representations(const std::string& model_dir,
                                            const std::vector<Decimal>& numbers) {
    return pretrained::number_hidden_states(pretrained::ModelFolder::open(model_dir), numbers);
}

constexpr TorchCommands kCommands = {TorchCommands::kAbi, FONE_VERSION " " FONE_GIT_REVISION,
                                     add_commands,        build_text,
                                     representations,     model_representations};

}  // namespace

}  // namespace fone::cli

extern "C" __attribute__((visibility("default"))) const fone::cli::TorchCommands* fone_torch_commands() {
    return &fone::cli::kCommands;
}
