// Dataset files: plain text, one example per line ("a+b=c", read by parse_example_line of expression.h),
// so that users bring their own data and `fone data` writes the paper's tasks for them to inspect.
#pragma once

#include <string>
#include <vector>

#include "fone/tasks/expression.h"

namespace fone {

// Reads every example of a dataset file. "#" comment lines and blank lines are skipped, a UTF-8
// byte-order mark and CRLF line endings are accepted. A malformed line throws DatasetError naming the
// file, the line number and what is wrong; nothing is skipped silently.
// line_numbers (optional): the file line of each example (blank and '#' lines are skipped), for messages
// about an example that is read well but cannot be used ("data.txt:7: number ... has 9 integer digits").
std::vector<Example> read_dataset_file(const std::string& path,
                                       std::vector<std::size_t>* line_numbers = nullptr);
// Written to a temporary file and renamed, so a crash never leaves half a file.
void write_dataset_file(const std::string& path, const std::vector<Example>& examples);

}  // namespace fone
