// The LibTorch half of fuzz_checkpoint (see fuzz_checkpoint.cpp): reads the seed checkpoint's archive and
// rewrites it with one part changed. Compiled as C++17, without the project's C++20 headers: clang 14 cannot
// compile LibTorch 1.13's headers in C++20 mode against libstdc++ 12.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "fuzz_checkpoint_archive.h"

namespace {

std::vector<std::string> g_keys;    // the seed's top-level keys
std::vector<c10::IValue> g_values;  // and their values

}  // namespace

std::string load_seed_checkpoint(const char* path) {
    torch::set_num_threads(1);
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    torch::serialize::InputArchive a;
    a.load_from(path);
    for (const std::string& k : a.keys()) {
        c10::IValue v;
        if (a.try_read(k, v) && v.isTensor()) {
            g_keys.push_back(k);
            g_values.push_back(v);
        }
    }
    std::fprintf(stderr, "fuzz_checkpoint: seed %s, %zu bytes, %zu tensors\n", path, bytes.size(),
                 g_keys.size());
    return bytes;
}

std::string rewrite_checkpoint(FuzzInput& in) {
    torch::serialize::OutputArchive out;
    const std::size_t target = g_keys.empty() ? 0 : in.byte() % g_keys.size();
    const std::uint8_t kind = in.byte() % 7;
    for (std::size_t i = 0; i < g_keys.size(); ++i) {
        const std::string& key = g_keys[i];
        torch::Tensor t = g_values[i].toTensor();
        if (i == target) {
            if (kind == 0) continue;  // key dropped
            if (kind == 1) {          // another shape
                const int64_t a = in.byte() % 9, b = in.byte() % 9;
                t = in.byte() % 2 ? torch::zeros({a}) : torch::zeros({a, b});
            } else if (kind == 2) {  // another dtype
                const torch::ScalarType types[] = {torch::kFloat64, torch::kInt64, torch::kUInt8,
                                                   torch::kFloat16, torch::kBool};
                t = t.to(types[in.byte() % 5]);
            } else if (kind == 3 && t.numel() > 0) {  // values poked
                torch::Tensor f = t.clone().to(torch::kFloat64).flatten();
                const int64_t k = in.byte() % f.numel();
                const double v[] = {NAN, INFINITY, -1e300, 1e300, -1, 0};
                f[k] = v[in.byte() % 6];
                t = f.to(t.scalar_type()).reshape(t.sizes());
            }
        }
        out.write(key, t);
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
