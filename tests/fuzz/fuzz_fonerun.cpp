// libFuzzer target for .fonerun files (issue 43): any bytes through unpack_run_bytes into a run store, as
// `fone runs unpack` and the window's File → Open do with a file someone sent.
//
// The contract. Either a RunError whose message is one line starting with the file's name (a refusal, or a
// write that failed), and the store holds exactly what it held before (no run, no hidden folder left); or
// one new run folder directly under the store, holding only regular files and the folders a run has
// (snapshots/, pretrained/), every name one a pack may hold (pack_member_problem), a config.json that is a
// JSON object. Anything else (a crash, another exception, a link or a stray file, a half-unpacked run)
// traps, so that libFuzzer keeps the input.
//
// Inputs are raw: gzip'd tars like `fone runs pack` writes, and plain tars (libarchive reads both), which
// the fuzzer can mutate structurally (scripts/fuzz.sh seeds both). libarchive itself is the system's,
// not instrumented: coverage guides the fuzzer through our checks, ASan and UBSan watch our code.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "fone/store/run_pack.h"
#include "fone/store/run_store.h"

namespace fs = std::filesystem;

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

const std::string& store_root() {
    static const std::string root = [] {
        char tmpl[] = "/tmp/fuzz-fonerun-XXXXXX";
        check(::mkdtemp(tmpl) != nullptr);
        return std::string(tmpl);
    }();
    return root;
}

std::size_t entries(const std::string& dir) {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        (void)e;
        ++n;
    }
    return n;
}

// Every path under a received run: regular files, or the folders a run has, with names a pack may hold.
void check_run(const std::string& root, const std::string& dir) {
    check(fs::path(dir).parent_path() == fs::path(root));
    check(fs::is_directory(fs::symlink_status(dir)));
    for (fs::recursive_directory_iterator it(dir), end; it != end; ++it) {
        const fs::file_status st = fs::symlink_status(it->path());
        const std::string name = fs::relative(it->path(), dir).string();
        if (fs::is_directory(st)) {
            check(name == "snapshots" || name == fone::kPretrainedFilesDir);
            continue;
        }
        check(fs::is_regular_file(st));
        check(fone::pack_member_problem(name).empty());
    }
    check(fs::is_regular_file(fs::symlink_status(fs::path(dir) / fone::kConfigFile)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& root = store_root();
    const fone::RunStore store(root);
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    try {
        const fone::UnpackResult r = fone::unpack_run_bytes(store, bytes, "fuzz.fonerun");
        check_run(root, r.dir);
        check(entries(root) == 1);
        fs::remove_all(r.dir);
    } catch (const fone::RunError& e) {
        const std::string what = e.what();
        check(what.rfind("fuzz.fonerun: ", 0) == 0 || what.find("cannot") != std::string::npos);
        check(what.find('\n') == std::string::npos);
    }
    check(entries(root) == 0);  // a refusal leaves nothing behind, a run was removed above
    return 0;
}
