// Reading and writing dataset files (fone/tasks/dataset_file.h).
#include "fone/tasks/dataset_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "fone/io/file_read.h"
#include "fone/io/file_write.h"
#include "fone/io/json_files.h"
#include "io/posix_io.h"
#include "tasks/line_text.h"

namespace fone {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

}  // namespace

std::vector<Example> read_dataset_file(const std::string& path, std::vector<std::size_t>* line_numbers) {
    const FileRead file = read_regular_file(path, kMaxDataFileBytes);
    if (!file.ok()) throw DatasetError(file.error);
    std::vector<Example> examples;
    std::size_t number = 0;
    for (std::size_t pos = 0; pos < file.text.size();) {
        ++number;
        const std::size_t nl = std::min(file.text.find('\n', pos), file.text.size());
        std::string_view view(file.text.data() + pos, nl - pos);
        pos = nl + 1;
        if (number == 1 && view.substr(0, kBom.size()) == kBom) view.remove_prefix(kBom.size());
        if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
        std::size_t first = 0;
        while (first < view.size() && is_line_space(view[first]))
            ++first;
        if (first == view.size() || view[first] == '#') continue;
        try {
            examples.push_back(parse_example_line(view));
            if (line_numbers) line_numbers->push_back(number);
        } catch (const DatasetError& e) {
            throw DatasetError(path + ":" + std::to_string(number) + ": " + e.what());
        }
    }
    return examples;
}

void write_dataset_file(const std::string& path, const std::vector<Example>& examples) {
    std::string tmp;
    int fd = -1;
    try {
        fd = create_temp_beside(path, &tmp);  // a link or special file at path is refused
    } catch (const FileError& e) {
        throw DatasetError(e.what());
    }
    // Written in blocks of about 1 MB: a dataset of 10^8 lines is never one string in memory.
    std::string block;
    int err = 0;
    for (std::size_t i = 0; i < examples.size() && err == 0; ++i) {
        block += examples[i].line();
        block += '\n';
        if (block.size() >= (1u << 20) || i + 1 == examples.size()) {
            err = detail::write_all(fd, block.data(), block.size());
            block.clear();
        }
    }
    if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
    if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
    if (err != 0) {
        ::unlink(tmp.c_str());
        throw DatasetError(write_error(path, "write", err).what());
    }
}

}  // namespace fone
