// libFuzzer target for the checkpoint loader (fone::inspect_checkpoint: what eval, predict, export and
// resume do to a checkpoint file: the archive, its meta data, its config, then its weights against the model
// the config builds). A corrupt, truncated or mismatched file must be a clear error (RunError, or
// std::invalid_argument for a config the engine refuses), never a crash, a hang or unbounded memory.
//
// Three input modes (the first byte picks one):
//   raw        the input is the file
//   flips      (offset, byte) pairs XORed into a real checkpoint (FONE_FUZZ_CHECKPOINT: a tiny trained run's)
//   structured the real checkpoint rewritten with one part changed (fuzz_checkpoint_archive.cpp)
// scripts/fuzz.sh --target fuzz_checkpoint makes the seed checkpoint with the regular build's `fone`.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "fone/store/run_store.h"
#include "fone/train/checkpoint.h"
#include "fuzz_checkpoint_archive.h"

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

std::string g_seed_bytes;  // the seed checkpoint ("" without FONE_FUZZ_CHECKPOINT)
std::string g_tmp;         // the file each input is written to

void write_file(const std::string& bytes) {
    std::ofstream out(g_tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void load_and_check() {
    try {
        const nlohmann::json j = fone::inspect_checkpoint(g_tmp);
        check(j.is_object() && j.contains("config") && j.contains("params"));
    } catch (const fone::RunError& e) {
        check(std::strlen(e.what()) > 0);
    } catch (const std::invalid_argument& e) {
        check(std::strlen(e.what()) > 0);
    }
    // Anything else propagates: libFuzzer reports an uncaught exception as a crash.
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    g_tmp = "/tmp/fuzz_checkpoint-" + std::to_string(::getpid()) + ".pt";
    if (const char* seed = std::getenv("FONE_FUZZ_CHECKPOINT"); seed && *seed)
        g_seed_bytes = load_seed_checkpoint(seed);
    std::atexit([] { std::remove(g_tmp.c_str()); });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzInput in{data, size};
    const std::uint8_t mode = in.byte() % 4;
    if (mode <= 1 || g_seed_bytes.empty()) {
        write_file(in.rest());
    } else if (mode == 2) {
        std::string bytes = g_seed_bytes;
        while (in.n >= 3) {
            const std::size_t offset = (std::size_t(in.byte()) << 8 | in.byte()) * 7919 % bytes.size();
            bytes[offset] = static_cast<char>(bytes[offset] ^ in.byte());
        }
        write_file(bytes);
    } else {
        write_file(rewrite_checkpoint(in));
    }
    load_and_check();
    return 0;
}
