// libFuzzer target for the checkpoint loader (fone::inspect_checkpoint: what eval, predict, export and
// resume do to a checkpoint file: the archive, its meta data, its config, then its weights against the model
// the config builds). A corrupt, truncated or mismatched file must be a clear error (RunError, or
// std::invalid_argument for a config the engine refuses), never a crash, a hang or unbounded memory.
//
// LibTorch itself is not instrumented (Debian's build), so coverage guides the fuzzer only through our code;
// three input modes make up for it (the first byte picks one):
//   raw        the input is the file
//   flips      (offset, byte) pairs XORed into a real checkpoint (FONE_FUZZ_CHECKPOINT, a tiny trained run's)
//   structured a real checkpoint rewritten with one part changed: meta.config replaced by input text, a
//              weight of another shape or dtype, a key dropped, meta.position/meta.times of other lengths
//              or types, meta.format changed; then possibly truncated
// scripts/fuzz.sh --target fuzz_checkpoint makes the seed checkpoint with the regular build's `fone`.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "fone/engine.h"
#include "fone/run_store.h"

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

std::string g_seed_bytes;           // the seed checkpoint's bytes ("" without FONE_FUZZ_CHECKPOINT)
std::vector<std::string> g_keys;    // its top-level tensor keys
std::vector<c10::IValue> g_values;  // and their values
std::string g_tmp;                  // the file each input is written to

struct Input {
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

std::string structured(Input& in) {
    torch::serialize::OutputArchive out;
    const std::size_t target = g_keys.empty() ? 0 : in.byte() % g_keys.size();
    const std::uint8_t kind = in.byte() % 7;
    for (std::size_t i = 0; i < g_keys.size(); ++i) {
        const std::string& key = g_keys[i];
        c10::IValue value = g_values[i];
        if (i == target) {
            if (kind == 0) continue;              // key dropped
            if (kind == 1 && value.isTensor()) {  // another shape
                const int64_t a = in.byte() % 9, b = in.byte() % 9;
                value = torch::zeros(in.byte() % 2 ? std::vector<int64_t>{a} : std::vector<int64_t>{a, b});
            } else if (kind == 2 && value.isTensor()) {  // another dtype
                const torch::ScalarType types[] = {torch::kFloat64, torch::kInt64, torch::kUInt8,
                                                   torch::kFloat16, torch::kBool};
                value = value.toTensor().to(types[in.byte() % 5]);
            } else if (kind == 3 && value.isTensor() && value.toTensor().numel() > 0) {  // values poked
                torch::Tensor t = value.toTensor().clone().to(torch::kFloat64).flatten();
                const int64_t k = in.byte() % t.numel();
                const double v[] = {NAN, INFINITY, -1e300, 1e300, -1, 0};
                t[k] = v[in.byte() % 6];
                value = t.to(value.toTensor().scalar_type()).reshape(value.toTensor().sizes());
            }
        }
        out.write(key, value);
    }
    if (kind == 4) {  // meta.config replaced by the rest of the input
        const std::string text = in.rest();
        auto t = torch::empty({static_cast<int64_t>(text.size())}, torch::kUInt8);
        if (!text.empty()) std::memcpy(t.data_ptr<uint8_t>(), text.data(), text.size());
        out.write("meta.config", t);
    } else if (kind == 5) {  // meta.position / meta.times / meta.format of other lengths and values
        const std::string which[] = {"meta.position", "meta.times", "meta.format"};
        const std::string key = which[in.byte() % 3];
        const int64_t len = in.byte() % 6;
        std::vector<int64_t> v;
        for (int64_t i = 0; i < len; ++i)
            v.push_back(static_cast<int8_t>(in.byte()) * (1 + in.byte()));
        out.write(key, torch::tensor(v, torch::kInt64));
    }
    std::string bytes;
    out.save_to([&](const void* buf, std::size_t n) {
        bytes.append(static_cast<const char*>(buf), n);
        return n;
    });
    if (kind == 6 && !bytes.empty()) bytes.resize(bytes.size() * in.byte() / 256);  // truncated
    return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    torch::set_num_threads(1);
    g_tmp = "/tmp/fuzz_checkpoint-" + std::to_string(::getpid()) + ".pt";
    if (const char* seed = std::getenv("FONE_FUZZ_CHECKPOINT"); seed && *seed) {
        std::ifstream in(seed, std::ios::binary);
        g_seed_bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        torch::serialize::InputArchive a;
        a.load_from(seed);
        for (const std::string& k : a.keys()) {
            c10::IValue v;
            if (a.try_read(k, v)) {
                g_keys.push_back(k);
                g_values.push_back(v);
            }
        }
        std::fprintf(stderr, "fuzz_checkpoint: seed %s, %zu bytes, %zu keys\n", seed, g_seed_bytes.size(),
                     g_keys.size());
    }
    std::atexit([] { std::remove(g_tmp.c_str()); });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Input in{data, size};
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
