// fone sweep --slurm FILE: the sweep as a Slurm job array (docs/cluster.md). Array task i trains cell i:
// `fone train <args>` when its run does not exist yet, `fone train --resume` when it does (a requeued,
// preempted or resubmitted task continues from its last checkpoint), nothing when it has finished. The
// script decides only "finished or not, exists or not" (in bash, on the compute node); `fone train --resume`
// then follows the store's rule for a run named to continue (fone/store/run_policy.h).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "cmd_sweep.h"

namespace fone::cli {

namespace fs = std::filesystem;

namespace {

// The `fone` that is running (its absolute path), for the script to call on the compute nodes.
std::string self_executable() {
    std::error_code ec;
    const fs::path p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("fone") : p.string();
}

}  // namespace

// A word for bash, single-quoted unless it is plainly safe.
std::string shell_quote(const std::string& s) {
    const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("@%+=:,./_-", c) != nullptr;
    });
    if (plain) return s;
    std::string out = "'";
    for (const char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

void check_slurm_options(const SweepOptions& o) {
    if (o.slurm_cpus < 1 || o.slurm_cpus > 4096)
        throw std::invalid_argument("--slurm-cpus: 1..4096 CPUs per array task, not " +
                                    std::to_string(o.slurm_cpus));
    if (o.slurm_gpus < 0 || o.slurm_gpus > 64)
        throw std::invalid_argument("--slurm-gpus: 0..64 GPUs per array task, not " +
                                    std::to_string(o.slurm_gpus));
    if (o.slurm_ntasks < 1 || o.slurm_ntasks > 4096)
        throw std::invalid_argument("--slurm-ntasks: 1..4096 processes per cell, not " +
                                    std::to_string(o.slurm_ntasks));
    if (o.slurm_gpus_per_task < 0 || o.slurm_gpus_per_task > 64)
        throw std::invalid_argument("--slurm-gpus-per-task: 0..64 GPUs per task, not " +
                                    std::to_string(o.slurm_gpus_per_task));
    const auto one_line = [](const std::string& flag, const std::string& v) {
        if (v.find_first_of("\n\r") != std::string::npos)
            throw std::invalid_argument(flag + ": one line, without line breaks");
    };
    one_line("--slurm-time", o.slurm_time);
    one_line("--slurm-partition", o.slurm_partition);
    for (const std::string& opt : o.slurm_options) {
        one_line("--slurm-option", opt);
        if (opt.rfind("--", 0) != 0)
            throw std::invalid_argument("--slurm-option: an sbatch option such as --account=abc, not '" +
                                        opt + "'");
    }
    if (o.dry_run) throw std::invalid_argument("--slurm writes a script and starts nothing: drop --dry-run");
}

// The job-array script: task i is cell i. It runs `fone train <args>` for a cell whose run does not exist
// yet, `fone train --resume` for one that does (a requeued or resubmitted task continues from its last
// checkpoint), and nothing for a finished one. The store must be on a filesystem every node sees.
std::string slurm_script(const std::string& sweep, const std::string& sweep_file, const std::string& root,
                         const std::string& logs, const std::vector<SweepCell>& cells,
                         const std::vector<std::string>& shared, int parallel, const SweepOptions& o) {
    std::ostringstream s;
    const std::size_t n = cells.size();
    s << "#!/bin/bash\n";
    s << "# Slurm job array for the FoNE sweep '" << sweep << "' (" << n << " cell" << (n == 1 ? "" : "s")
      << "), written by `fone sweep --slurm`.\n";
    s << "# Submit: sbatch " << shell_quote(o.slurm) << "    Watch: fone runs list --runs-dir "
      << shell_quote(root) << " (or the workbench on that store)\n";
    s << "# Array task i trains cell i of " << sweep_file
      << ". A task whose run exists resumes it (fone train\n"
      << "# --resume: after a requeue, a preemption or a resubmission); a finished run is left alone.\n";
    s << "#SBATCH --job-name=" << shell_quote("fone-" + sweep) << "\n";
    s << "#SBATCH --array=0-" << (n - 1);
    if (parallel > 0) s << "%" << parallel;
    s << "\n";
    s << "#SBATCH --cpus-per-task=" << o.slurm_cpus << "\n";
    if (o.slurm_gpus > 0) s << "#SBATCH --gres=gpu:" << o.slurm_gpus << "\n";
    if (o.slurm_ntasks > 1) s << "#SBATCH --ntasks=" << o.slurm_ntasks << "\n";
    if (o.slurm_gpus_per_task > 0) s << "#SBATCH --gpus-per-task=" << o.slurm_gpus_per_task << "\n";
    if (!o.slurm_time.empty()) s << "#SBATCH --time=" << o.slurm_time << "\n";
    if (!o.slurm_partition.empty()) s << "#SBATCH --partition=" << o.slurm_partition << "\n";
    s << "#SBATCH --requeue\n";
    s << "#SBATCH --open-mode=append\n";
    s << "#SBATCH --output=" << logs << "/slurm-%A_%a.out\n";
    for (const std::string& opt : o.slurm_options)
        s << "#SBATCH " << opt << "\n";
    s << "set -euo pipefail\n\n";
    s << "FONE=\"${FONE:-" << self_executable() << "}\"   # override: FONE=/path/to/fone sbatch ...\n";
    s << "RUNS_DIR=" << shell_quote(root) << "\n";
    s << "task=\"${SLURM_ARRAY_TASK_ID:?run this script with sbatch (a job array), or set "
         "SLURM_ARRAY_TASK_ID}\"\n";
    s << "case \"$task\" in\n";
    for (std::size_t i = 0; i < n; ++i) {
        s << "  " << i << ") run=" << shell_quote(cells[i].run) << "; args=(";
        for (std::size_t k = 0; k < cells[i].args.size(); ++k)
            s << (k ? " " : "") << shell_quote(cells[i].args[k]);
        s << ") ;;\n";
    }
    s << "  *) echo \"fone sweep " << sweep << ": no cell $task (cells 0.." << (n - 1)
      << ")\" >&2; exit 2 ;;\n";
    s << "esac\n\n";
    // Threads: the CPUs Slurm gave the task, unless the shared train options chose.
    const bool own_threads = names_option(shared, "--threads") || names_option(shared, "--config");
    s << "threads=()\n";
    if (!own_threads) s << "threads=(--threads \"${SLURM_CPUS_PER_TASK:-1}\")\n";
    s << "dir=\"$RUNS_DIR/$run\"\n";
    s << "if [[ -f \"$dir/" << kStatusFile << "\" ]] && grep -Eq '\"status\": *\"finished\"' \"$dir/"
      << kStatusFile << "\"; then\n";
    s << "  echo \"fone sweep " << sweep << ": $run has finished; nothing to do\"\n";
    s << "  exit 0\n";
    s << "fi\n";
    s << "echo \"fone sweep " << sweep
      << ": task $task, run $run on $(hostname), attempt ${SLURM_RESTART_COUNT:-0}\" >&2\n";
    // Several tasks: srun starts one rank per task (fone reads SLURM_PROCID, SLURM_NTASKS and the node list);
    // one rank that fails stops the others. srun of Slurm >= 22.05 does not pass the job's CPUs per task on.
    s << "launch=()\n";
    if (o.slurm_ntasks > 1)
        s << "launch=(srun --kill-on-bad-exit=1 --cpus-per-task=\"${SLURM_CPUS_PER_TASK:-1}\")\n";
    s << "if [[ -d \"$dir\" ]]; then\n";
    s << "  exec \"${launch[@]}\" \"$FONE\" train --resume \"$dir\" \"${threads[@]}\"\n";
    s << "else\n";
    s << "  exec \"${launch[@]}\" \"$FONE\" train \"${args[@]}\" \"${threads[@]}\" --runs-dir "
         "\"$RUNS_DIR\"\n";
    s << "fi\n";
    return s.str();
}

}  // namespace fone::cli
