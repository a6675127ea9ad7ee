// The LibTorch half of fuzz_checkpoint: plain types only, so that the C++20 half need not include torch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

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

// Reads a real checkpoint (its bytes are returned) and keeps its tensors for rewrite_checkpoint.
std::string load_seed_checkpoint(const char* path);
// The seed rewritten with one part changed, chosen by the input: a tensor dropped, reshaped, retyped or
// poked (NaN, inf, huge); meta.config replaced by the rest of the input; meta.position / meta.times /
// meta.format of other lengths; or the file truncated.
std::string rewrite_checkpoint(FuzzInput& in);
