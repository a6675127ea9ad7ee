// libFuzzer target for the safetensors reader (checkpoints, downloaded model folders): any bytes through
// File::from_memory.
//
// The contract: bytes are either refused with a safetensors::Error (one line, naming the file) or accepted as
// a header whose tensors tile the data exactly, each range inside the input and of the size its shape and
// dtype need. Anything else (another exception, a crash, a hang, unbounded memory) traps so that libFuzzer
// keeps the input. Every accepted file is written back with serialize() and must parse to the same tensors.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fone/io/safetensors.h"

namespace st = fone::safetensors;

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

void check_accepted(const st::File& f, std::size_t size) {
    uint64_t covered = 0;
    for (const st::TensorInfo& t : f.tensors()) {
        const auto bytes = f.bytes(t);
        check(bytes.size() == t.elements() * st::dtype_size(t.dtype));
        covered += bytes.size();
        check(covered <= size);
    }
    // Round trip: the same tensors written by our writer read back identically.
    std::vector<st::TensorData> out;
    for (const st::TensorInfo& t : f.tensors()) {
        const auto bytes = f.bytes(t);
        out.push_back({t.name, t.dtype, t.shape, bytes.data(), bytes.size()});
    }
    const std::string again = st::serialize(out, f.metadata());
    const st::File g =
        st::File::from_memory({reinterpret_cast<const std::byte*>(again.data()), again.size()}, "again");
    check(g.tensors().size() == f.tensors().size());
    check(g.metadata() == f.metadata());
    for (const st::TensorInfo& t : f.tensors()) {
        const st::TensorInfo& u = g.at(t.name);
        check(u.dtype == t.dtype && u.shape == t.shape);
        const auto a = f.bytes(t), b = g.bytes(u);
        check(a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const st::File f =
            st::File::from_memory({reinterpret_cast<const std::byte*>(data), size}, "fuzz.safetensors");
        check_accepted(f, size);
    } catch (const st::Error& e) {
        check(std::strncmp(e.what(), "fuzz.safetensors: ", 18) == 0);
        check(std::strchr(e.what(), '\n') == nullptr);
    }
    return 0;
}
