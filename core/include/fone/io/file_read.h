// Reading a file that could be anything. Every reader of run files, config files, metrics and data files
// goes through read_regular_file, so that a FIFO (which would wait for a writer forever), a device such as
// /dev/zero (which never ends), a directory or a file larger than its kind can be is refused at once with
// a one-line message, never a hang or a read until memory runs out.
#pragma once

#include <cstdint>
#include <string>

namespace fone {

// The largest file of each kind that is read.
inline constexpr std::uint64_t kMaxJsonFileBytes = 64ull << 20;    // config.json, status.json, config files
inline constexpr std::uint64_t kMaxMetricsFileBytes = 1ull << 30;  // metrics.jsonl
inline constexpr std::uint64_t kMaxDataFileBytes = 2ull << 30;     // dataset files, text corpora
inline constexpr std::uint64_t kMaxSmallFileBytes = 1ull << 20;    // a lock file, /proc entries

// What read_regular_file found: the bytes, or why not (one line that names the file).
struct FileRead {
    std::string text;
    std::string error;     // "" when read
    bool missing = false;  // the file (or a folder on its path) does not exist: error says so
    bool ok() const { return error.empty(); }
};

// Whether a read may follow a symbolic link in the last component of the path. A file the user named may be
// a link (a Hugging Face cache is made of them); a file inside a folder someone else prepared, which this
// program copies out of it (an export), may not: a link there to ~/.ssh/id_rsa would be published.
enum class Links { follow, refuse };

// The whole of `path` when it is a regular file (or, with Links::follow, a link to one) of at most
// max_bytes. Errors: "<path>: missing", "<path>: is a directory", "<path>: not a regular file (a FIFO)",
// "<path>: larger than the N MB allowed", "<path>: cannot read: <errno text>", with Links::refuse "<path>:
// is a symbolic link (...)". Never blocks on a FIFO.
FileRead read_regular_file(const std::string& path, std::uint64_t max_bytes, Links links = Links::follow);

// A digest of a file's content (16 hex digits, FNV-1a 64 over its bytes), read in blocks: how a run notices
// that its data file changed. "" and *error set when the file cannot be read (read_regular_file's rules,
// without reading it into memory).
std::string file_digest(const std::string& path, std::string* error = nullptr);

// "12.3 MB", "512 KB", "20 bytes" (powers of 1024).
std::string bytes_text(std::uint64_t bytes);

// "12.3 GB free" / "512 KB free" for the filesystem holding path (a file or a folder); "free space
// unknown" when it cannot be read. For messages about writes that failed.
std::string free_space_text(const std::string& path);

}  // namespace fone
