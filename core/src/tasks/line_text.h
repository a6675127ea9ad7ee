// Small pieces of text handling that the dataset-line reader (expression.cpp), the dataset files
// (dataset_file.cpp) and the task names (tasks.cpp) share. Private to core/src/tasks/.
#pragma once

#include <string>
#include <string_view>

#include "fone/io/shown_text.h"

namespace fone {

// Space inside a dataset line: a line never holds '\n'.
inline bool is_line_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// A piece of the user's text in an error message: quoted, cut after 60 bytes so that one long line cannot
// flood the message, and control bytes escaped so that a file's escape sequences never reach the terminal.
inline std::string quote_text(std::string_view text) {
    std::string quoted(1, '\'');  // (not "'" + string&&: a GCC 12 -Wrestrict false positive)
    quoted += shown_text(text);
    quoted += '\'';
    return quoted;
}

}  // namespace fone
