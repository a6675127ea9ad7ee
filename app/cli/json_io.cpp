#include "json_io.h"

#include <iostream>

namespace fone::cli {

void print_json_line(std::ostream& out, const nlohmann::json& j) {
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out.flush();
}

void print_error(const std::string& command, const std::string& message) {
    // One line, whatever the message holds (a config's problems are one per line: joined with "; ").
    std::string one_line;
    for (const char c : message) {
        if (c == '\n') {
            if (!one_line.empty() && one_line.back() != ' ') one_line += "; ";
        } else {
            one_line += c == '\r' || c == '\t' ? ' ' : c;
        }
    }
    while (!one_line.empty() && (one_line.back() == ' ' || one_line.back() == ';'))
        one_line.pop_back();
    std::cerr << "fone" << (command.empty() ? "" : " " + command) << ": error: " << one_line << std::endl;
}

}  // namespace fone::cli
