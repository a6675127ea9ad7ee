// Reading and writing dataset files (fone/tasks/dataset_file.h).
#include "fone/tasks/dataset_file.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "fone/io/file_read.h"
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
    namespace fs = std::filesystem;
    // A random suffix, so that two writers of the same file never share a temporary.
    std::random_device rd;
    std::ostringstream suffix;
    suffix << ".tmp-" << std::hex << ((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
    const std::string tmp = path + suffix.str();
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw DatasetError(path + ": cannot create the temporary file " + tmp);
        for (const Example& e : examples)
            out << e.line() << '\n';
        out.flush();
        if (!out) {
            out.close();
            std::error_code ec;
            fs::remove(tmp, ec);
            throw DatasetError(path + ": write error (disk full?)");
        }
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw DatasetError(path + ": cannot replace the file: " + ec.message());
    }
}

}  // namespace fone
