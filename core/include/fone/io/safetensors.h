// safetensors: tensors stored as data that cannot carry code (Hugging Face's format, used for our checkpoints
// and read from downloaded model folders). A file is
//
//   [8 bytes: N, little-endian u64] [N bytes: JSON header] [data bytes]
//
// The header maps each tensor's name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets into the
// data bytes) and may hold "__metadata__": {string: string}. Reading is a bounded parse: every size is
// checked against the file before anything is allocated, the byte ranges must tile the data exactly (no gaps,
// no overlaps, nothing left over), and each range's length must be the shape's element count times the
// dtype's size (checked arithmetic). Files are memory-mapped read-only, so an 8B-parameter model opens
// without reading it into memory. No torch here: the trainer and the pretrained-model loader turn the byte
// ranges into tensors themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fone::safetensors {

// A file that is not a well-formed safetensors file, or cannot be read or written. The message names the
// file and the problem in one line.
class Error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

enum class Dtype { F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL };

// "F32", "BF16", ... as the format spells them; dtype_from_name throws Error for an unknown name.
std::string_view dtype_name(Dtype d);
Dtype dtype_from_name(std::string_view name);
std::size_t dtype_size(Dtype d);

struct TensorInfo {
    std::string name;
    Dtype dtype = Dtype::F32;
    std::vector<int64_t> shape;
    uint64_t begin = 0, end = 0;  // byte range in the data section
    uint64_t elements() const;    // product of the shape (1 for a scalar)
};

// Largest header accepted (the format's own readers use 100 MB).
inline constexpr uint64_t kMaxHeaderBytes = 100u << 20;

// A parsed header: tensors in file order (by begin offset), metadata, and the data section's expected size.
struct Header {
    std::vector<TensorInfo> tensors;
    std::map<std::string, std::string> metadata;
    uint64_t data_offset = 0;  // where the data section starts in the file (8 + N)
    uint64_t data_size = 0;    // bytes the tensors cover
};

// Parses the first bytes of a file (at least the 8-byte length and the header) whose total size is
// file_size. `what` names the file in errors. This is the fuzzers' entry point.
Header parse_header(std::span<const std::byte> prefix, uint64_t file_size, const std::string& what);

// An open, memory-mapped, validated file. Movable, not copyable; the mapping lives as long as the object.
class File {
  public:
    // Opens a regular file (a FIFO, a device or a directory is an Error, never a hang) and validates it.
    static File open(const std::string& path);
    // Validates bytes already in memory (tests, fuzzers); the bytes must outlive the File.
    static File from_memory(std::span<const std::byte> bytes, const std::string& what);

    File(File&&) noexcept;
    File& operator=(File&&) noexcept;
    ~File();

    const std::string& path() const { return path_; }
    const std::vector<TensorInfo>& tensors() const { return header_.tensors; }
    const std::map<std::string, std::string>& metadata() const { return header_.metadata; }
    // nullptr when absent (a lookup in an index: opening a model of 40,000 tensors is not quadratic).
    const TensorInfo* find(std::string_view name) const;
    // Error naming the file and the tensor when absent.
    const TensorInfo& at(std::string_view name) const;
    // The raw little-endian bytes of a tensor, inside the mapping.
    std::span<const std::byte> bytes(const TensorInfo& t) const;
    // The metadata value, or Error naming the file and the key.
    const std::string& meta(const std::string& key) const;

  private:
    File() = default;
    void index_names();
    std::string path_;
    Header header_;
    std::map<std::string, std::size_t, std::less<>> by_name_;  // name -> header_.tensors[i]: find is log n
    const std::byte* base_ = nullptr;                          // the whole file
    std::size_t size_ = 0;
    bool mapped_ = false;
};

// One tensor to write: its bytes are copied out as given (little-endian, row-major).
struct TensorData {
    std::string name;
    Dtype dtype = Dtype::F32;
    std::vector<int64_t> shape;
    const void* data = nullptr;
    std::size_t nbytes = 0;
};

// Writes a file atomically: to path.tmp-<pid> in the same folder, fsync, rename. The header is padded with
// spaces to a multiple of 8 bytes (aligned data). A write that fails (a full disk) removes the temporary
// file and throws Error naming the file, the reason and the free space left on its filesystem
// (fone::free_space_text); the file at `path`, if any, is untouched. Names must be unique and not
// "__metadata__"; nbytes must match the shape.
void write(const std::string& path, const std::vector<TensorData>& tensors,
           const std::map<std::string, std::string>& metadata = {});

// The index of the first NaN or infinite element of a floating tensor's bytes (F64, F32, F16, BF16: its
// exponent bits all ones), or -1 when every element is finite or the dtype is not floating. One pass, no
// conversion: pretrained weights are checked this way before any computation reads them.
int64_t first_non_finite(Dtype dtype, std::span<const std::byte> bytes);

// The bytes write() would put in the file (for tests and in-memory round trips).
std::string serialize(const std::vector<TensorData>& tensors,
                      const std::map<std::string, std::string>& metadata);

}  // namespace fone::safetensors
