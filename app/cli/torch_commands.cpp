#include "torch_commands.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "commands.h"
#include "fone/build_info.h"
#include "fone/platform/own_library.h"
#include "fone/platform/thread_environment.h"

namespace fone::cli {

namespace {

constexpr const char* kRevision = FONE_VERSION " " FONE_GIT_REVISION;

const TorchCommands& open_torch_commands() {
    // glog reads GLOG_minloglevel when LibTorch loads it (with the library below): its lines ("E1129 ...
    // socket.cpp:860] [c10d] ...", "WARNING: Logging before InitGoogleLogging()") repeat, with source
    // positions, what fone's one error line says. Fatal ones only, unless the user asked for more.
    ::setenv("GLOG_minloglevel", "3", 0);
    std::string tried;
    for (const std::string& path : own_library_paths("libfone_torch_commands.so", "FONE_TORCH_COMMANDS")) {
        // RTLD_GLOBAL: the SentencePiece bridge and LibTorch's own plugins see LibTorch's symbols.
        void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (!library) {
            tried += std::string(tried.empty() ? "" : "; ") + ::dlerror();
            continue;
        }
        using Entry = const TorchCommands* (*)();
        const auto entry = reinterpret_cast<Entry>(::dlsym(library, "fone_torch_commands"));
        const TorchCommands* commands = entry ? entry() : nullptr;
        if (commands && commands->abi == TorchCommands::kAbi &&
            std::strcmp(commands->revision, kRevision) == 0)
            return *commands;
        tried += (tried.empty() ? "" : "; ") + path + ": not the LibTorch commands of this build";
    }
    throw std::runtime_error("cannot open libfone_torch_commands.so (" + tried +
                             "); set FONE_TORCH_COMMANDS to its path");
}

}  // namespace

bool wants_torch_commands(const CLI::App& app, int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (argv[i][0] == '-')
            continue;  // `fone`'s own options take no values: the first word is the command
        try {
            app.get_subcommand(argv[i]);
        } catch (const CLI::OptionNotFound&) {
            return true;
        }
        // The LibTorch commands inside groups of `fone`'s own (runs convert, model forward, analyse
        // patch|knockout).
        for (const GroupedCommand& c : kTorchSubcommands) {
            if (std::strcmp(argv[i], c.group) != 0) continue;
            for (int j = i + 1; j < argc; ++j)
                if (std::strcmp(argv[j], c.command.name) == 0) return true;
        }
        return false;
    }
    return false;
}

const TorchCommands& torch_commands() {
    settle_thread_environment();
    static const TorchCommands& commands = open_torch_commands();
    return commands;
}

void add_torch_command_summaries(CLI::App& app) {
    for (const CommandSummary& c : kTorchCommands)
        app.add_subcommand(c.name, c.description);
    for (const GroupedCommand& c : kTorchSubcommands)
        app.get_subcommand(c.group)->add_subcommand(c.command.name, c.command.description);
}

}  // namespace fone::cli
