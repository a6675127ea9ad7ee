// Small pieces of text handling that the dataset-line reader (expression.cpp), the dataset files
// (dataset_file.cpp) and the task names (tasks.cpp) share. Private to core/src/tasks/.
#pragma once

#include <string>
#include <string_view>

namespace fone {

// Space inside a dataset line: a line never holds '\n'.
inline bool is_line_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// A piece of the user's text in an error message: quoted, and cut after 60 bytes so that one long line
// cannot flood the message.
inline std::string quote_text(std::string_view text) {
    constexpr std::size_t kShown = 60;
    std::string s(text.substr(0, kShown));
    if (text.size() > kShown) s += "...";
    return "'" + s + "'";
}

}  // namespace fone
