// Bounded reads of regular files, and the free space named in write errors (fone/io/file_read.h).
#include "fone/io/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace fone {
namespace {

const char* file_kind(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a plain file";
}

}  // namespace

std::string bytes_text(std::uint64_t bytes) {
    const char* units[] = {"bytes", "KB", "MB", "GB", "TB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

FileRead read_regular_file(const std::string& path, std::uint64_t max_bytes, Links links) {
    FileRead r;
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below); no effect on files.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
                                            (links == Links::refuse ? O_NOFOLLOW : 0));
    if (fd < 0) {
        const int err = errno;
        if (err == ELOOP && links == Links::refuse) {
            r.error = path +
                      ": is a symbolic link (refused: a file copied out of a folder someone else "
                      "prepared must be in it, not a link to elsewhere)";
            return r;
        }
        r.missing = err == ENOENT || err == ENOTDIR;
        r.error = path + (r.missing ? ": missing" : ": cannot read: " + std::string(std::strerror(err)));
        return r;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const bool dir = S_ISDIR(st.st_mode);
        r.error = path + (dir ? ": cannot read: is a directory"
                              : ": not a regular file (" + std::string(file_kind(st.st_mode)) + ")");
        ::close(fd);
        return r;
    }
    const std::string too_large = path + ": larger than the " + bytes_text(max_bytes) + " allowed for it";
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
        ::close(fd);
        r.error = too_large;
        return r;
    }
    r.text.reserve(static_cast<std::size_t>(st.st_size));
    char buf[65536];
    for (;;) {  // up to the bound, whatever st_size said (a file that grows, /proc files of size 0)
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            r.error = path + ": cannot read: " + std::strerror(err);
            break;
        }
        if (n == 0) break;
        if (r.text.size() + static_cast<std::size_t>(n) > max_bytes) {
            r.error = too_large;
            break;
        }
        r.text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    if (!r.ok()) r.text.clear();
    return r;
}

std::string file_digest(const std::string& path, std::string* error) {
    const auto failed = [&](const std::string& why) {
        if (error) *error = why;
        return std::string();
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        const int err = errno;
        return failed(path + (err == ENOENT || err == ENOTDIR
                                  ? ": missing"
                                  : ": cannot read: " + std::string(std::strerror(err))));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return failed(path + ": not a regular file");
    }
    std::uint64_t h = 1469598103934665603ULL;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            return failed(path + ": cannot read: " + std::strerror(err));
        }
        if (n == 0) break;
        for (ssize_t i = 0; i < n; ++i)
            h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ULL;
    }
    ::close(fd);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

std::string free_space_text(const std::string& path) {
    struct stat st {};
    std::string dir = path;
    if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        const auto slash = dir.rfind('/');
        dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : dir.substr(0, slash));
    }
    struct statvfs s {};
    if (::statvfs(dir.c_str(), &s) != 0) return "free space unknown";
    return bytes_text(static_cast<std::uint64_t>(s.f_bavail) * s.f_frsize) + " free";
}

}  // namespace fone
