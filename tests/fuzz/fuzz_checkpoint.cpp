// libFuzzer target for the checkpoint loader (fone::inspect_checkpoint: what eval, predict, export and
// resume do to a checkpoint file: the safetensors header, its metadata, its config and identity, then its
// weights and AdamW state against the model the config builds). A corrupt, truncated or mismatched file
// must be a clear error (RunError, or std::invalid_argument for a config the engine refuses), never a
// crash, a hang or unbounded memory.
//
// Each input is written as checkpoint-last.safetensors in a run folder holding the seed run's config.json
// (so that its identity can match and the reader goes past it). Three input modes (the first byte picks):
//   raw        the input is the file
//   flips      (offset, byte) pairs XORed into a real checkpoint (FONE_FUZZ_CHECKPOINT: a tiny trained run's)
//   structured the real checkpoint with one part of its JSON header changed: a tensor's dtype, shape or
//              offsets, or a metadata value replaced by the rest of the input
// scripts/fuzz.sh --target fuzz_checkpoint makes the seed checkpoint with the regular build's `fone`.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fone/checkpoints/checkpoint.h"
#include "fone/store/run_store.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct FuzzInput {
    const std::uint8_t* p;
    std::size_t n;
    std::uint8_t byte() {
        if (n == 0) return 0;
        --n;
        return *p++;
    }
    std::string rest() {
        std::string s(reinterpret_cast<const char*>(p), n);
        p += n;
        n = 0;
        return s;
    }
};

void check(bool ok) {
    if (!ok) __builtin_trap();
}

std::string g_seed_bytes;  // the seed checkpoint ("" without FONE_FUZZ_CHECKPOINT)
json g_seed_header;        // its JSON header
std::string g_dir;         // the run folder each input is written to
std::string g_file;        // its checkpoint

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_file(const std::string& bytes) {
    std::ofstream out(g_file, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The seed's data section behind a new header (the length prefix is little-endian u64).
std::string with_header(const json& header) {
    // Invalid UTF-8 from the fuzzer in a metadata value: replaced (raw mode feeds arbitrary header bytes).
    const std::string text = header.dump(-1, ' ', false, json::error_handler_t::replace);
    std::uint64_t n = 0;
    std::memcpy(&n, g_seed_bytes.data(), 8);
    std::string out(8, '\0');
    const std::uint64_t len = text.size();
    std::memcpy(out.data(), &len, 8);
    return out + text + g_seed_bytes.substr(8 + n);
}

std::string structured(FuzzInput& in) {
    json h = g_seed_header;
    std::vector<std::string> names;
    for (auto it = h.begin(); it != h.end(); ++it)
        names.push_back(it.key());
    const std::string& name = names[in.byte() % names.size()];
    json& t = h[name];
    const std::uint8_t what = in.byte() % 6;
    if (name == "__metadata__") {
        std::vector<std::string> keys;
        for (auto it = t.begin(); it != t.end(); ++it)
            keys.push_back(it.key());
        if (!keys.empty()) t[keys[what % keys.size()]] = in.rest();
    } else if (what == 0) {
        static const char* dtypes[] = {"F32", "F64", "F16", "BF16", "I64", "I32", "U8", "BOOL", "X"};
        t["dtype"] = dtypes[in.byte() % 9];
    } else if (what == 1 && t["shape"].is_array() && !t["shape"].empty()) {
        t["shape"][in.byte() % t["shape"].size()] = static_cast<std::int64_t>(in.byte()) - 2;
    } else if (what == 2) {
        t["shape"].push_back(in.byte());
    } else if (what == 3) {
        t["data_offsets"][in.byte() % 2] = static_cast<std::uint64_t>(in.byte()) << (in.byte() % 40);
    } else if (what == 4) {
        h.erase(name);
    } else {
        return with_header(h).substr(0, g_seed_bytes.size() * in.byte() / 256);  // cut short
    }
    return with_header(h);
}

void load_and_check() {
    try {
        const json j = fone::inspect_checkpoint(g_file);
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
    g_dir = "/tmp/fuzz_checkpoint-" + std::to_string(::getpid());
    fs::create_directories(g_dir);
    g_file = (fs::path(g_dir) / fone::kLastCheckpoint).string();
    if (const char* seed = std::getenv("FONE_FUZZ_CHECKPOINT"); seed && *seed) {
        g_seed_bytes = read_file(seed);
        std::uint64_t n = 0;
        if (g_seed_bytes.size() >= 8) std::memcpy(&n, g_seed_bytes.data(), 8);
        if (n > 0 && 8 + n <= g_seed_bytes.size())
            g_seed_header = json::parse(g_seed_bytes.substr(8, n), nullptr, false);
        if (!g_seed_header.is_object()) g_seed_bytes.clear();
        const fs::path config = fs::path(seed).parent_path() / fone::kConfigFile;
        std::error_code ec;
        fs::copy_file(config, fs::path(g_dir) / fone::kConfigFile, fs::copy_options::overwrite_existing, ec);
    }
    std::atexit([] {
        std::error_code ec;
        fs::remove_all(g_dir, ec);
    });
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
        write_file(structured(in));
    }
    load_and_check();
    return 0;
}
