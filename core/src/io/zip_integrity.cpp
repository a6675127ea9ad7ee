#include "fone/io/zip_integrity.h"

#include <array>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <vector>

namespace fone::detail {
namespace {

std::uint32_t crc32(const unsigned char* p, std::size_t n) {
    static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i)
        c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

struct Bytes {
    const std::vector<unsigned char>& b;
    bool has(std::uint64_t at, std::uint64_t n) const { return at <= b.size() && n <= b.size() - at; }
    std::uint32_t u16(std::uint64_t at) const { return b[at] | b[at + 1] << 8; }
    std::uint32_t u32(std::uint64_t at) const {
        return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
               std::uint32_t(b[at + 3]) << 24;
    }
    std::uint64_t u64(std::uint64_t at) const {
        return std::uint64_t(u32(at)) | std::uint64_t(u32(at + 4)) << 32;
    }
};

}  // namespace

std::string zip_problem(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "cannot be read";
    const std::vector<unsigned char> data((std::istreambuf_iterator<char>(in)),
                                          std::istreambuf_iterator<char>());
    const Bytes z{data};
    // The end-of-central-directory record: in the last 22 + 65535 bytes.
    if (data.size() < 22) return "not a zip archive (too short)";
    std::uint64_t eocd = data.size() - 22;
    const std::uint64_t lowest = data.size() > 22 + 65535 ? data.size() - 22 - 65535 : 0;
    while (z.u32(eocd) != 0x06054b50u) {
        if (eocd == lowest) return "not a zip archive (no end of central directory: truncated?)";
        --eocd;
    }
    std::uint64_t entries = z.u16(eocd + 10), dir_size = z.u32(eocd + 12), dir_offset = z.u32(eocd + 16);
    if (entries == 0xFFFF || dir_offset == 0xFFFFFFFFu || dir_size == 0xFFFFFFFFu) {
        // Zip64: a locator just before the record points at the zip64 end of central directory.
        if (eocd < 20 || z.u32(eocd - 20) != 0x07064b50u) return "zip64 archive without its locator";
        const std::uint64_t e64 = z.u64(eocd - 20 + 8);
        if (!z.has(e64, 56) || z.u32(e64) != 0x06064b50u) return "zip64 end of central directory missing";
        entries = z.u64(e64 + 32);
        dir_size = z.u64(e64 + 40);
        dir_offset = z.u64(e64 + 48);
    }
    if (!z.has(dir_offset, dir_size)) return "central directory outside the file (truncated?)";
    if (entries == 0) return "an empty archive";
    std::uint64_t at = dir_offset;
    for (std::uint64_t i = 0; i < entries; ++i) {
        if (!z.has(at, 46) || z.u32(at) != 0x02014b50u) return "central directory damaged";
        const std::uint32_t method = z.u16(at + 10), crc = z.u32(at + 16);
        std::uint64_t packed = z.u32(at + 20), size = z.u32(at + 24);
        const std::uint32_t name_len = z.u16(at + 28), extra_len = z.u16(at + 30),
                            comment_len = z.u16(at + 32);
        std::uint64_t local = z.u32(at + 42);
        if (!z.has(at + 46, std::uint64_t(name_len) + extra_len + comment_len))
            return "central directory damaged";
        const std::string name(data.begin() + static_cast<long>(at + 46),
                               data.begin() + static_cast<long>(at + 46 + name_len));
        // Zip64 sizes and offset, in that order, for the fields that are 0xFFFFFFFF.
        for (std::uint64_t x = at + 46 + name_len; x + 4 <= at + 46 + name_len + extra_len;) {
            const std::uint32_t id = z.u16(x), len = z.u16(x + 2);
            std::uint64_t f = x + 4;
            if (id == 0x0001) {
                if (size == 0xFFFFFFFFu && f + 8 <= x + 4 + len) size = z.u64(f), f += 8;
                if (packed == 0xFFFFFFFFu && f + 8 <= x + 4 + len) packed = z.u64(f), f += 8;
                if (local == 0xFFFFFFFFu && f + 8 <= x + 4 + len) local = z.u64(f), f += 8;
            }
            x += 4 + len;
        }
        if (!z.has(local, 30) || z.u32(local) != 0x04034b50u) return "record '" + name + "' is missing";
        const std::uint64_t start = local + 30 + z.u16(local + 26) + z.u16(local + 28);
        if (!z.has(start, packed)) return "record '" + name + "' is cut short (truncated?)";
        if (method != 0 && method != 8) return "record '" + name + "' has an unknown compression";
        // Stored records (PyTorch's) are checked against their CRC; a deflated one only for its bounds.
        if (method == 0 && (packed != size || crc32(&data[start], packed) != crc))
            return "record '" + name + "' fails its CRC-32";
        at += 46 + name_len + extra_len + comment_len;
    }
    return "";
}

}  // namespace fone::detail
