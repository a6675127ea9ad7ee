// Who this process is among a run's ranks, from the environment torchrun, srun or `fone train --nproc` set.
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "fone/train/distributed.h"

namespace fone {
namespace {

// A variable's value as a whole number in [low, high]; nullopt when it is unset or empty.
std::optional<long> integer_variable(const EnvironmentReader& env, const char* name, long low, long high) {
    const char* text = env(name);
    if (!text || !*text) return std::nullopt;
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (*end != '\0' || v < low || v > high)
        throw std::invalid_argument(std::string(name) + "=" + text + ": must be a whole number in " +
                                    std::to_string(low) + ".." + std::to_string(high));
    return v;
}

std::string text_variable(const EnvironmentReader& env, const char* name) {
    const char* text = env(name);
    return text ? text : "";
}

constexpr long kMaxWorld = 1 << 20;

std::optional<DistributedSetup> from_torchrun(const EnvironmentReader& env) {
    const auto world = integer_variable(env, "WORLD_SIZE", 1, kMaxWorld);
    if (!world) return std::nullopt;
    DistributedSetup d;
    d.world_size = static_cast<int>(*world);
    d.rank = static_cast<int>(integer_variable(env, "RANK", 0, *world - 1).value_or(0));
    d.local_rank = static_cast<int>(integer_variable(env, "LOCAL_RANK", 0, *world - 1).value_or(d.rank));
    d.local_world_size =
        static_cast<int>(integer_variable(env, "LOCAL_WORLD_SIZE", 1, *world).value_or(*world));
    if (const std::string addr = text_variable(env, "MASTER_ADDR"); !addr.empty()) d.master_addr = addr;
    d.master_port = static_cast<int>(integer_variable(env, "MASTER_PORT", 1, 65535).value_or(d.master_port));
    const std::string by = text_variable(env, "FONE_LAUNCHER");
    d.launcher = by.empty() ? "torchrun" : by;
    d.rendezvous_file = text_variable(env, "FONE_RENDEZVOUS_FILE");
    d.token = text_variable(env, "TORCHELASTIC_RUN_ID");
    return d;
}

std::optional<DistributedSetup> from_slurm(const EnvironmentReader& env) {
    const auto tasks = integer_variable(env, "SLURM_NTASKS", 1, kMaxWorld);
    if (!tasks) return std::nullopt;
    DistributedSetup d;
    d.world_size = static_cast<int>(*tasks);
    d.rank = static_cast<int>(integer_variable(env, "SLURM_PROCID", 0, *tasks - 1).value_or(0));
    d.local_rank = static_cast<int>(integer_variable(env, "SLURM_LOCALID", 0, *tasks - 1).value_or(0));
    // "2(x3),1": the first node's count is enough to split a node's threads among its tasks.
    const std::string per_node = text_variable(env, "SLURM_NTASKS_PER_NODE").empty()
                                     ? text_variable(env, "SLURM_TASKS_PER_NODE")
                                     : text_variable(env, "SLURM_NTASKS_PER_NODE");
    d.local_world_size = std::max(1, std::atoi(per_node.c_str()));
    const std::string addr = text_variable(env, "MASTER_ADDR");
    d.master_addr = !addr.empty() ? addr : first_slurm_host(text_variable(env, "SLURM_JOB_NODELIST"));
    if (d.master_addr.empty()) d.master_addr = "127.0.0.1";
    const long job = integer_variable(env, "SLURM_JOB_ID", 0, std::numeric_limits<long>::max()).value_or(0);
    d.master_port =
        static_cast<int>(integer_variable(env, "MASTER_PORT", 1, 65535).value_or(29500 + job % 1000));
    d.launcher = "slurm";
    d.token = std::to_string(job) + "." + text_variable(env, "SLURM_STEP_ID");
    return d;
}

}  // namespace

std::string first_slurm_host(const std::string& nodelist) {
    // The first entry ends at the first comma outside brackets; a bracket holds ranges "07-09,12".
    const std::size_t bracket = nodelist.find('[');
    const std::size_t comma = nodelist.find(',');
    if (bracket == std::string::npos || (comma != std::string::npos && comma < bracket))
        return nodelist.substr(0, comma);
    const std::string prefix = nodelist.substr(0, bracket);
    const std::size_t end = nodelist.find_first_of(",-]", bracket + 1);
    return prefix + nodelist.substr(bracket + 1, end == std::string::npos ? end : end - bracket - 1);
}

std::optional<DistributedSetup> distributed_from_environment(const EnvironmentReader& env) {
    // torchrun's variables first: `srun torchrun ...` and `fone train --nproc` under Slurm set both.
    std::optional<DistributedSetup> d = from_torchrun(env);
    if (!d) d = from_slurm(env);
    if (!d || d->world_size < 2) return std::nullopt;
    if (const std::string token = text_variable(env, "FONE_RUN_TOKEN"); !token.empty()) d->token = token;
    if (d->token.size() > 256 || d->token.find_first_of("/\n") != std::string::npos)
        throw std::invalid_argument(
            "FONE_RUN_TOKEN (or the job id): at most 256 characters, no '/' or newline");
    return d;
}

}  // namespace fone
