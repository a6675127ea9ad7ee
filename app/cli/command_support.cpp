#include "command_support.h"

#include <iostream>
#include <sstream>
#include <stdexcept>

#include "json_io.h"

namespace fone::cli {

void run_command(const std::string& command, const std::function<void()>& work, int bad_input_status) {
    try {
        work();
    } catch (const CliFailure&) {
        throw;
    } catch (const std::invalid_argument& e) {
        fail(command, e.what(), bad_input_status);
    } catch (const std::exception& e) {
        fail(command, e.what(), 1);
    }
}

std::vector<int> parse_int_list(const std::string& text, const std::string& option) {
    std::vector<int> out;
    std::stringstream list(text);
    for (std::string cell; std::getline(list, cell, ',');) {
        std::size_t used = 0;
        int v = 0;
        try {
            v = std::stoi(cell, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (cell.empty() || used != cell.size())
            throw std::invalid_argument(option + " takes integers separated by commas, not '" + text + "'");
        out.push_back(v);
    }
    return out;
}

void fail(const std::string& command, const std::string& message, int status) {
    print_error(command, message);
    throw CliFailure(message, status);
}

std::string torch_command_description(std::string_view name) {
    for (const CommandSummary& c : kTorchCommands)
        if (name == c.name) return c.description;
    throw std::out_of_range("not a LibTorch command: " + std::string(name));
}

std::string runs_root(const std::string& runs_dir) {
    if (!runs_dir.empty()) return runs_dir;
    // No HOME, XDG_DATA_HOME or FONE_RUNS_DIR: the store falls back on the current folder; say where.
    if (const std::string note = RunStore::default_root_note(); !note.empty()) std::cerr << note << "\n";
    return RunStore::default_root();
}

RunStore open_store(const std::string& runs_dir, bool create_root) {
    return RunStore(runs_root(runs_dir), create_root);
}

}  // namespace fone::cli
