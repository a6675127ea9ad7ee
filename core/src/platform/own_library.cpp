#include "fone/platform/own_library.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace fone {

std::vector<std::string> own_library_paths(const std::string& file, const char* env_var) {
    std::vector<std::string> paths;
    const auto add = [&paths](const std::string& path) {  // once each (lib/ is often the install's libdir)
        if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    };
    if (const char* env = std::getenv(env_var); env && *env) add(env);
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const auto prefix = exe.parent_path().parent_path();
        add((prefix / "lib" / file).string());
        add((prefix / FONE_INSTALL_LIBDIR / file).string());
    }
    add((std::filesystem::path(FONE_INSTALL_FULL_LIBDIR) / file).string());
    return paths;
}

}  // namespace fone
