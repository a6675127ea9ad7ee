// JSON output helpers for the CLI: one object per line, flushed, never throwing on odd bytes.
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

namespace fone::cli {

// Writes j on one line and flushes; invalid UTF-8 in strings is replaced, not thrown.
void print_json_line(std::ostream& out, const nlohmann::json& j);
// Whether a command that reads well as a table prints JSON instead: when asked (--json) or when stdout is a
// pipe or a file, what a script reads. The one rule of fone train --dry-run, fone reproduce --list and
// fone analyse circles.
bool json_output(bool asked);
// One-line error on stderr: "fone <command>: error: <message>".
void print_error(const std::string& command, const std::string& message);

}  // namespace fone::cli
