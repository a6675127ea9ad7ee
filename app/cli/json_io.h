// JSON output helpers for the CLI: one object per line, flushed, never throwing on odd bytes.
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

namespace fone::cli {

// Writes j on one line and flushes; invalid UTF-8 in strings is replaced, not thrown.
void print_json_line(std::ostream& out, const nlohmann::json& j);
// One-line error on stderr: "fone <command>: error: <message>".
void print_error(const std::string& command, const std::string& message);

}  // namespace fone::cli
