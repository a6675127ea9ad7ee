// Reading and writing dataset files (fone/tasks/dataset_file.h).
#include "fone/tasks/dataset_file.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "tasks/line_text.h"

namespace fone {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

}  // namespace

std::vector<Example> read_dataset_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw DatasetError(path + ": is a directory, not a dataset file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw DatasetError(path + ": cannot open the dataset file");
    std::vector<Example> examples;
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        std::string_view view(line);
        if (number == 1 && view.substr(0, kBom.size()) == kBom) view.remove_prefix(kBom.size());
        if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
        std::size_t first = 0;
        while (first < view.size() && is_line_space(view[first]))
            ++first;
        if (first == view.size() || view[first] == '#') continue;
        try {
            examples.push_back(parse_example_line(view));
        } catch (const DatasetError& e) {
            throw DatasetError(path + ":" + std::to_string(number) + ": " + e.what());
        }
    }
    if (in.bad()) throw DatasetError(path + ": read error after line " + std::to_string(number));
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
