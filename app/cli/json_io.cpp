#include "json_io.h"

#include <iostream>

namespace fone::cli {

void print_json_line(std::ostream& out, const nlohmann::json& j) {
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out.flush();
}

void print_error(const std::string& command, const std::string& message) {
    std::cerr << "fone " << command << ": error: " << message << std::endl;
}

}  // namespace fone::cli
