// libFuzzer target for the rank environment (issue 44): the variables torchrun, srun or `fone train --nproc`
// set (RANK, WORLD_SIZE, MASTER_PORT, SLURM_*, FONE_RUN_TOKEN, ...), as lines NAME=VALUE, through
// distributed_from_environment, as every data-parallel rank reads them, and first_slurm_host.
//
// The contract: nullopt (not a rank), a setup whose numbers are in range (0 <= rank < world_size <= 2^20,
// 0 <= local_rank < world_size, a port in 1..65535, a token of at most 256 bytes without '/' or a newline),
// or a std::invalid_argument whose message names a variable. Anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "fone/train/distributed.h"

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::map<std::string, std::string> vars;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(at, end - at);
        const std::size_t eq = line.find('=');
        if (eq != std::string::npos && line.find('\0') == std::string::npos)
            vars[line.substr(0, eq)] = line.substr(eq + 1);
        at = end + 1;
    }
    const fone::EnvironmentReader env = [&](const char* name) -> const char* {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
    std::optional<fone::DistributedSetup> d;
    try {
        d = fone::distributed_from_environment(env);
    } catch (const std::invalid_argument& e) {
        const std::string m = e.what();
        check(m.find('=') != std::string::npos || m.find("FONE_RUN_TOKEN") != std::string::npos);
        return 0;
    }
    if (const auto it = vars.find("SLURM_JOB_NODELIST"); it != vars.end())
        (void)fone::first_slurm_host(it->second);
    if (!d) return 0;
    check(d->world_size >= 2 && d->world_size <= (1 << 20));
    check(d->rank >= 0 && d->rank < d->world_size);
    check(d->local_rank >= 0 && d->local_rank < d->world_size);
    check(d->local_world_size >= 1);
    check(d->master_port >= 1 && d->master_port <= 65535);
    check(!d->master_addr.empty());
    check(d->token.size() <= 256 && d->token.find('/') == std::string::npos &&
          d->token.find('\n') == std::string::npos);
    return 0;
}
