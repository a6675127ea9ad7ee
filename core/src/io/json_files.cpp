// Atomic writes, JSON lines and JSON reads (fone/io/json_files.h).
#include "fone/io/json_files.h"

#include "fone/io/file_read.h"
#include "fone/io/file_write.h"
#include "fone/io/json_bounded.h"
#include "io/posix_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>

namespace fone {

namespace fs = std::filesystem;
using detail::write_all;
using nlohmann::json;

namespace {

bool is_blank(std::string_view s) {
    return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

std::string errno_text(int err) {
    return std::strerror(err);
}

}  // namespace

FileError write_error(const std::string& path, const char* verb, int err) {
    return FileError(path + ": cannot " + verb + " (" + errno_text(err) + "; " + free_space_text(path) + ")");
}

std::string dump_json(const json& j, int indent) {
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

JsonLoad load_json(const std::string& path, json& out, std::string& error) {
    FileRead file = read_regular_file(path, kMaxJsonFileBytes);
    if (!file.ok()) {
        error = file.error;
        return file.missing ? JsonLoad::missing : JsonLoad::bad;
    }
    const std::string& text = file.text;
    if (is_blank(text)) {
        error = path + ": corrupt JSON (empty file)";
        return JsonLoad::bad;
    }
    if (!parse_json_bounded(text, path, out, &error)) return JsonLoad::bad;
    return JsonLoad::ok;
}

void write_file_atomic(const std::string& path, const std::string& content) {
    std::string tmp;
    const int fd = create_temp_beside(path, &tmp);  // refuses a link or special file at path
    int err = write_all(fd, content.data(), content.size());
    if (err == 0) {
        while (::fsync(fd) != 0) {
            if (errno == EINTR) continue;
            // fsync is meaningless on some special filesystems; the data is still written.
            if (errno != EINVAL && errno != EROFS) err = errno;
            break;
        }
    }
    if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
    if (err != 0) {
        ::unlink(tmp.c_str());
        throw write_error(path, "write", err);
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        ::unlink(tmp.c_str());
        throw FileError(path + ": cannot write (rename failed): " + ec.message());
    }
}

void write_json_atomic(const std::string& path, const json& j) {
    write_file_atomic(path, dump_json(j, 2) + "\n");
}

json read_json_file(const std::string& path) {
    json j;
    std::string error;
    if (load_json(path, j, error) != JsonLoad::ok) throw FileError(error);
    return j;
}

void append_jsonl(const std::string& path, const json& record) {
    const std::string line = dump_json(record, -1) + "\n";
    const int fd = open_for_writing(path, WriteOpen::append);
    struct stat before {};
    const bool sized = ::fstat(fd, &before) == 0;
    // One write() call: with O_APPEND, the line lands whole at the end (short writes only on a full disk).
    int err = write_all(fd, line.data(), line.size());
    // A line cut short by a full disk is taken back, so the file still ends with a whole line.
    if (err != 0 && sized) (void)::ftruncate(fd, before.st_size);
    if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
    if (err != 0) throw write_error(path, "append", err);
}

std::size_t repair_jsonl_tail(const std::string& path) {
    const int fd = open_for_writing(path, WriteOpen::repair);  // a link or special file: refused
    if (fd < 0) return 0;                                      // missing
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size == 0) {
        ::close(fd);
        return 0;
    }
    // Back from the end in blocks, to the last newline.
    off_t end = st.st_size, keep = 0;
    char buf[4096];
    while (end > 0) {
        const off_t from = end > static_cast<off_t>(sizeof buf) ? end - static_cast<off_t>(sizeof buf) : 0;
        const ssize_t n = ::pread(fd, buf, static_cast<std::size_t>(end - from), from);
        if (n <= 0) break;
        const auto last = std::string_view(buf, static_cast<std::size_t>(n)).rfind('\n');
        if (last != std::string_view::npos) {
            keep = from + static_cast<off_t>(last) + 1;
            break;
        }
        end = from;
    }
    const auto cut = static_cast<std::size_t>(st.st_size - keep);
    const int err = cut > 0 && ::ftruncate(fd, keep) != 0 ? errno : 0;
    ::close(fd);
    if (err != 0) throw write_error(path, "repair", err);
    return cut;
}

}  // namespace fone
