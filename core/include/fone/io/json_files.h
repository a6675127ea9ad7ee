// Writing and reading the JSON files a program keeps (run files, sweep files, data files): atomic writes,
// append-only JSON lines, and reads that refuse what is not a regular file of a sane size
// (fone/io/file_read.h). The ground floor: no concept of a run here, only files.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace fone {

// A file that cannot be read, parsed or written; the message names the file. (The run store calls it
// RunError, fone/store/run_store.h.)
class FileError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Writes content to path.tmp-<pid> in the same directory, fsyncs, renames over path.
void write_file_atomic(const std::string& path, const std::string& content);
void write_json_atomic(const std::string& path, const nlohmann::json& j);
// Throws FileError "<path>: missing" / "<path>: corrupt JSON at byte N: ..." / "<path>: not a regular file"
// (files are read through read_regular_file, fone/io/file_read.h: at most kMaxJsonFileBytes).
nlohmann::json read_json_file(const std::string& path);

// read_json_file without exceptions (a listing reads thousands of files, most of them fine or just absent).
// On missing or bad, error holds the message read_json_file would throw.
enum class JsonLoad { ok, missing, bad };
JsonLoad load_json(const std::string& path, nlohmann::json& out, std::string& error);

// Opens path for appending, writes one line, flushes and closes: a crash loses at most the line being
// written. A failed write (a full disk) throws FileError naming the file and the free space.
void append_jsonl(const std::string& path, const nlohmann::json& record);

// Cuts a last line that has no newline (what a power cut or a full disk leaves) off a JSON-lines file, so
// that the next append starts a line of its own; returns the bytes removed (0: the file ends whole, or is
// missing). A resume calls it before it appends anything.
std::size_t repair_jsonl_tail(const std::string& path);

// JSON as written to files: invalid UTF-8 in strings replaced, never an exception. indent -1: one line.
std::string dump_json(const nlohmann::json& j, int indent);

// "<path>: cannot <verb> (No space left on device; 12.0 KB free)": a failed write names the file and the
// free space of its filesystem (the usual reason is a full disk).
FileError write_error(const std::string& path, const char* verb, int err);

}  // namespace fone
