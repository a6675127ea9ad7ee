#include "fone/platform/own_library.h"

#include <cstdlib>
#include <filesystem>

namespace fone {

std::vector<std::string> own_library_paths(const std::string& file, const char* env_var) {
    std::vector<std::string> paths;
    if (const char* env = std::getenv(env_var); env && *env) paths.emplace_back(env);
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const auto prefix = exe.parent_path().parent_path();
        paths.push_back((prefix / "lib" / file).string());
        paths.push_back((prefix / FONE_INSTALL_LIBDIR / file).string());
    }
    paths.push_back((std::filesystem::path(FONE_INSTALL_FULL_LIBDIR) / file).string());
    return paths;
}

}  // namespace fone
