// Placeholder: being written.
#include "commands.h"
namespace fone::cli {
void add_run_commands(CLI::App&) {}
}  // namespace fone::cli
