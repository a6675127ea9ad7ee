// safetensors reading (bounded, memory-mapped) and writing (atomic). See the header for the rules.
#include "fone/io/safetensors.h"
#include "fone/io/file_read.h"
#include "fone/io/file_write.h"
#include "fone/io/json_bounded.h"
#include "fone/io/json_files.h"
#include "io/posix_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

namespace fone::safetensors {

namespace {

using nlohmann::json;

constexpr std::string_view kMetadataKey = "__metadata__";
// Nesting deeper than {"t": {"shape": [..]}} (3 levels) is never valid: refuse it before the DOM is built.
constexpr int kMaxDepth = 4;

struct DtypeRow {
    Dtype dtype;
    std::string_view name;
    std::size_t size;
};
constexpr DtypeRow kDtypes[] = {{Dtype::F64, "F64", 8},   {Dtype::F32, "F32", 4}, {Dtype::F16, "F16", 2},
                                {Dtype::BF16, "BF16", 2}, {Dtype::I64, "I64", 8}, {Dtype::I32, "I32", 4},
                                {Dtype::I16, "I16", 2},   {Dtype::I8, "I8", 1},   {Dtype::U8, "U8", 1},
                                {Dtype::BOOL, "BOOL", 1}};

const DtypeRow& row_of(Dtype d) {
    for (const DtypeRow& r : kDtypes)
        if (r.dtype == d) return r;
    throw Error("unknown dtype");
}

[[noreturn]] void fail(const std::string& what, const std::string& why) {
    throw Error(what + ": not a valid safetensors file (" + why + ")");
}

// a * b, or fail when it overflows u64.
uint64_t checked_mul(uint64_t a, uint64_t b, const std::string& what, const std::string& name) {
    if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a)
        fail(what, "tensor '" + name + "': its size overflows");
    return a * b;
}

uint64_t read_u64_le(const std::byte* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | static_cast<uint64_t>(p[i]);
    return v;
}

void put_u64_le(char* out, uint64_t v) {
    for (int i = 0; i < 8; ++i)
        out[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

// A name as it may appear in a message: at most 80 characters, control characters escaped.
std::string shown(std::string_view name) {
    std::string out;
    for (char c : name.substr(0, 80)) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
            out += buf;
        } else {
            out += c;
        }
    }
    return name.size() > 80 ? out + "..." : out;
}

// The header text as JSON, refusing deep nesting and duplicate top-level keys before the DOM is built
// (fone/io/json_bounded.h: two linear passes; the parser callback used before was quadratic).
// Most JSON values a header may hold (about 8 a tensor: 500,000 tensors; the largest models have a few
// thousand a file): what a header costs to parse is bounded by this, not by its bytes (a 100 MB header of
// small entries took 2.5 GB).
constexpr std::size_t kMaxHeaderValues = 4'000'000;

json parse_json(std::string_view text, const std::string& what) {
    json j;
    std::string error;
    if (parse_json_bounded(text, what, j, &error, JsonLimits{kMaxDepth, true, kMaxHeaderValues})) return j;
    std::string why = error.substr(std::min(error.size(), what.size() + 2));  // without "<what>: "
    if (why.rfind("corrupt JSON", 0) == 0) fail(what, "header is not JSON: " + why.substr(13));
    fail(what, "the header " + why);
}

uint64_t as_offset(const json& v, const std::string& what, const std::string& name, const char* field) {
    if (!v.is_number_unsigned())
        fail(what, "tensor '" + name + "': " + field + " must hold whole numbers >= 0");
    return v.get<uint64_t>();
}

TensorInfo parse_entry(const std::string& raw_name, const json& entry, const std::string& what) {
    const std::string name = shown(raw_name);  // for messages
    if (!entry.is_object()) fail(what, "tensor '" + name + "' is not an object");
    for (const auto& [key, value] : entry.items())
        if (key != "dtype" && key != "shape" && key != "data_offsets")
            fail(what, "tensor '" + name + "' has an unknown field '" + shown(key) + "'");
    TensorInfo t;
    t.name = raw_name;
    const auto dtype = entry.find("dtype");
    if (dtype == entry.end() || !dtype->is_string()) fail(what, "tensor '" + name + "' has no dtype");
    try {
        t.dtype = dtype_from_name(dtype->get<std::string>());
    } catch (const Error&) {
        fail(what, "tensor '" + name + "' has an unknown dtype '" + shown(dtype->get<std::string>()) + "'");
    }
    const auto shape = entry.find("shape");
    if (shape == entry.end() || !shape->is_array()) fail(what, "tensor '" + name + "' has no shape");
    for (const json& d : *shape) {
        const uint64_t n = as_offset(d, what, name, "shape");
        if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            fail(what, "tensor '" + name + "': shape too large");
        t.shape.push_back(static_cast<int64_t>(n));
    }
    const auto offsets = entry.find("data_offsets");
    if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2)
        fail(what, "tensor '" + name + "' needs data_offsets [begin, end]");
    t.begin = as_offset((*offsets)[0], what, name, "data_offsets");
    t.end = as_offset((*offsets)[1], what, name, "data_offsets");
    if (t.end < t.begin) fail(what, "tensor '" + name + "' ends before it begins");
    uint64_t bytes = dtype_size(t.dtype);
    for (int64_t d : t.shape)
        bytes = checked_mul(bytes, static_cast<uint64_t>(d), what, name);
    if (bytes != t.end - t.begin)
        fail(what, "tensor '" + name + "' holds " + std::to_string(t.end - t.begin) +
                       " bytes, its shape and dtype need " + std::to_string(bytes));
    return t;
}

// The byte ranges must tile [0, data_size): sorted by begin, each starts where the previous ended.
void check_tiling(std::vector<TensorInfo>& tensors, uint64_t data_size, const std::string& what) {
    std::stable_sort(tensors.begin(), tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    uint64_t at = 0;
    for (const TensorInfo& t : tensors) {
        if (t.begin != at)
            fail(what, t.begin < at ? "tensor '" + shown(t.name) + "' overlaps another"
                                    : "bytes " + std::to_string(at) + ".." + std::to_string(t.begin) +
                                          " belong to no tensor");
        at = t.end;
    }
    if (at != data_size)
        fail(what, at < data_size
                       ? std::to_string(data_size - at) + " bytes after the last tensor belong to none"
                       : "the tensors need " + std::to_string(at) + " bytes of data, the file has " +
                             std::to_string(data_size));
}

std::string errno_text(int err) {
    return std::strerror(err);
}

}  // namespace

std::string_view dtype_name(Dtype d) {
    return row_of(d).name;
}

Dtype dtype_from_name(std::string_view name) {
    for (const DtypeRow& r : kDtypes)
        if (r.name == name) return r.dtype;
    throw Error("unknown safetensors dtype '" + shown(name) + "'");
}

std::size_t dtype_size(Dtype d) {
    return row_of(d).size;
}

namespace {

// Elements whose exponent field (mask) is all ones: NaN or infinity, in any IEEE width.
template <typename Bits>
int64_t first_all_ones(std::span<const std::byte> bytes, Bits mask) {
    const std::size_t n = bytes.size() / sizeof(Bits);
    for (std::size_t i = 0; i < n; ++i) {
        Bits v;
        std::memcpy(&v, bytes.data() + i * sizeof(Bits), sizeof(Bits));  // the mapping may be unaligned
        if ((v & mask) == mask) return static_cast<int64_t>(i);
    }
    return -1;
}

}  // namespace

int64_t first_non_finite(Dtype dtype, std::span<const std::byte> bytes) {
    switch (dtype) {
        case Dtype::F64:
            return first_all_ones<uint64_t>(bytes, 0x7ff0000000000000ULL);
        case Dtype::F32:
            return first_all_ones<uint32_t>(bytes, 0x7f800000U);
        case Dtype::F16:
            return first_all_ones<uint16_t>(bytes, static_cast<uint16_t>(0x7c00));
        case Dtype::BF16:
            return first_all_ones<uint16_t>(bytes, static_cast<uint16_t>(0x7f80));
        default:
            return -1;
    }
}

uint64_t TensorInfo::elements() const {
    uint64_t n = 1;
    for (int64_t d : shape)
        n *= static_cast<uint64_t>(d);  // overflow ruled out when the header was parsed
    return n;
}

Header parse_header(std::span<const std::byte> prefix, uint64_t file_size, const std::string& what) {
    if (file_size < 8 || prefix.size() < 8) fail(what, "shorter than the 8-byte header length");
    const uint64_t n = read_u64_le(prefix.data());
    if (n > kMaxHeaderBytes)
        fail(what, "its header claims " + std::to_string(n) + " bytes, more than the 100 MB allowed");
    if (n > file_size - 8)
        fail(what, "its header claims " + std::to_string(n) + " bytes, the file holds " +
                       std::to_string(file_size - 8) + " after the length");
    if (prefix.size() < 8 + n) fail(what, "the header is cut short");
    const std::string_view text(reinterpret_cast<const char*>(prefix.data() + 8),
                                static_cast<std::size_t>(n));
    if (text.empty() || text.front() != '{') fail(what, "the header does not start with '{'");
    const json j = parse_json(text, what);
    if (!j.is_object()) fail(what, "the header is not a JSON object");
    Header h;
    h.data_offset = 8 + n;
    h.data_size = file_size - h.data_offset;
    for (const auto& [name, entry] : j.items()) {
        if (name == kMetadataKey) {
            if (!entry.is_object()) fail(what, "__metadata__ is not an object");
            for (const auto& [key, value] : entry.items()) {
                if (!value.is_string()) fail(what, "__metadata__ '" + shown(key) + "' is not a string");
                h.metadata[key] = value.get<std::string>();
            }
            continue;
        }
        h.tensors.push_back(parse_entry(name, entry, what));
    }
    check_tiling(h.tensors, h.data_size, what);
    return h;
}

File File::open(const std::string& path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below as not a regular file.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw Error(path + ": cannot open (" + errno_text(errno) + ")");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error(path + ": not a regular file");
    }
    const auto size = static_cast<uint64_t>(st.st_size);
    if (size < 8) {
        ::close(fd);
        fail(path, "shorter than the 8-byte header length");
    }
    void* map = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    const int map_errno = errno;
    ::close(fd);
    if (map == MAP_FAILED) throw Error(path + ": cannot map (" + errno_text(map_errno) + ")");
    File f;
    f.path_ = path;
    f.base_ = static_cast<const std::byte*>(map);
    f.size_ = static_cast<std::size_t>(size);
    f.mapped_ = true;
    // The File owns the mapping from here: a parse error unmaps it through the destructor.
    f.header_ = parse_header({f.base_, f.size_}, size, path);
    f.index_names();
    return f;
}

File File::from_memory(std::span<const std::byte> bytes, const std::string& what) {
    File f;
    f.path_ = what;
    f.base_ = bytes.data();
    f.size_ = bytes.size();
    f.header_ = parse_header(bytes, bytes.size(), what);
    f.index_names();
    return f;
}

File::File(File&& o) noexcept
    : path_(std::move(o.path_)),
      header_(std::move(o.header_)),
      by_name_(std::move(o.by_name_)),
      base_(o.base_),
      size_(o.size_),
      mapped_(o.mapped_) {
    o.base_ = nullptr;
    o.mapped_ = false;
}

File& File::operator=(File&& o) noexcept {
    if (this != &o) {
        if (mapped_ && base_) ::munmap(const_cast<std::byte*>(base_), size_);
        path_ = std::move(o.path_);
        header_ = std::move(o.header_);
        by_name_ = std::move(o.by_name_);
        base_ = o.base_;
        size_ = o.size_;
        mapped_ = o.mapped_;
        o.base_ = nullptr;
        o.mapped_ = false;
    }
    return *this;
}

File::~File() {
    if (mapped_ && base_) ::munmap(const_cast<std::byte*>(base_), size_);
}

void File::index_names() {
    for (std::size_t i = 0; i < header_.tensors.size(); ++i)
        by_name_.emplace(header_.tensors[i].name, i);
}

const TensorInfo* File::find(std::string_view name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &header_.tensors[it->second];
}

const TensorInfo& File::at(std::string_view name) const {
    const TensorInfo* t = find(name);
    if (!t) throw Error(path_ + ": no tensor '" + shown(name) + "'");
    return *t;
}

std::span<const std::byte> File::bytes(const TensorInfo& t) const {
    return {base_ + header_.data_offset + t.begin, static_cast<std::size_t>(t.end - t.begin)};
}

const std::string& File::meta(const std::string& key) const {
    const auto it = header_.metadata.find(key);
    if (it == header_.metadata.end()) throw Error(path_ + ": no metadata '" + shown(key) + "'");
    return it->second;
}

namespace {

// The length prefix and the padded header for these tensors, after checking them.
std::string header_block(const std::vector<TensorData>& tensors,
                         const std::map<std::string, std::string>& metadata) {
    json h = json::object();
    std::set<std::string> names;
    uint64_t at = 0;
    for (const TensorData& t : tensors) {
        if (t.name == kMetadataKey || !names.insert(t.name).second)
            throw Error("safetensors: tensor name '" + shown(t.name) + "' is reserved or used twice");
        uint64_t need = dtype_size(t.dtype);
        for (int64_t d : t.shape) {
            if (d < 0) throw Error("safetensors: tensor '" + shown(t.name) + "' has a negative dimension");
            need = checked_mul(need, static_cast<uint64_t>(d), "safetensors", t.name);
        }
        if (need != t.nbytes)
            throw Error("safetensors: tensor '" + shown(t.name) + "' has " + std::to_string(t.nbytes) +
                        " bytes, its shape needs " + std::to_string(need));
        h[t.name] = {{"dtype", dtype_name(t.dtype)}, {"shape", t.shape}, {"data_offsets", {at, at + need}}};
        at += need;
    }
    if (!metadata.empty()) h[std::string(kMetadataKey)] = metadata;
    std::string text = h.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
    std::string block(8, '\0');
    put_u64_le(block.data(), text.size());
    return block + text;
}

using detail::write_all;

}  // namespace

std::string serialize(const std::vector<TensorData>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    std::string out = header_block(tensors, metadata);
    for (const TensorData& t : tensors)
        out.append(static_cast<const char*>(t.data), t.nbytes);
    return out;
}

void write(const std::string& path, const std::vector<TensorData>& tensors,
           const std::map<std::string, std::string>& metadata) {
    const std::string head = header_block(tensors, metadata);
    std::string tmp;
    int fd = -1;
    try {
        fd = create_temp_beside(path, &tmp);  // refuses a link or special file at path
    } catch (const FileError& e) {
        throw Error(e.what());
    }
    int err = write_all(fd, head.data(), head.size());
    for (std::size_t i = 0; err == 0 && i < tensors.size(); ++i)
        err = write_all(fd, static_cast<const char*>(tensors[i].data), tensors[i].nbytes);
    while (err == 0 && ::fsync(fd) != 0) {
        if (errno == EINTR) continue;
        if (errno != EINVAL && errno != EROFS) err = errno;
        break;
    }
    if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
    if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
    if (err != 0) {
        ::unlink(tmp.c_str());
        throw Error(path + ": cannot write (" + errno_text(err) + "; " + free_space_text(path) + ")");
    }
}

}  // namespace fone::safetensors
