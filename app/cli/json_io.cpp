#include "json_io.h"

#include <cstdio>
#include <iostream>

#include <unistd.h>

namespace fone::cli {

void print_json_line(std::ostream& out, const nlohmann::json& j) {
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out.flush();
}

bool json_output(bool asked) {
    return asked || !::isatty(STDOUT_FILENO);
}

void print_error(const std::string& command, const std::string& full_message) {
    // LibTorch's errors (c10::Error) carry their C++ backtrace after this line: the user's part is before it.
    const std::string message = full_message.substr(0, full_message.find("\nException raised from "));
    // One line, whatever the message holds (a config's problems are one per line: joined with "; "), and
    // no control character from a user's file reaches the terminal (an escape sequence is shown as \x1b).
    std::string one_line;
    for (const char c : message) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n') {
            if (!one_line.empty() && one_line.back() != ' ') one_line += "; ";
        } else if (c == '\r' || c == '\t') {
            one_line += ' ';
        } else if (u < 0x20 || u == 0x7f) {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02x", u);
            one_line += hex;
        } else {
            one_line += c;
        }
    }
    while (!one_line.empty() && (one_line.back() == ' ' || one_line.back() == ';'))
        one_line.pop_back();
    std::cerr << "fone" << (command.empty() ? "" : " " + command) << ": error: " << one_line << std::endl;
}

}  // namespace fone::cli
