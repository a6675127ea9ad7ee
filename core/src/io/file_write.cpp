// Opening files for writing without following links or writing into special files (fone/io/file_write.h).
#include "fone/io/file_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "fone/io/json_files.h"

namespace fone {
namespace {

const char* special_kind(mode_t mode) {
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a plain file";
}

[[noreturn]] void refuse(const std::string& path, mode_t mode) {
    if (S_ISLNK(mode))
        throw FileError(path +
                        ": refused to write through a symbolic link (this program never follows one "
                        "when it writes; remove the link)");
    throw FileError(path + ": refused to write: not a regular file (" + special_kind(mode) + ")");
}

const char* verb_of(WriteOpen how) {
    return how == WriteOpen::append ? "append" : how == WriteOpen::repair ? "repair" : "write";
}

}  // namespace

void check_write_target(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return;  // missing (or unreadable: the open will say why)
    if (!S_ISREG(st.st_mode)) refuse(path, st.st_mode);
}

int open_for_writing(const std::string& path, WriteOpen how) {
    check_write_target(path);
    int flags = O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK;
    if (how == WriteOpen::append) flags |= O_WRONLY | O_CREAT | O_APPEND;
    if (how == WriteOpen::update) flags |= O_RDWR | O_CREAT;
    if (how == WriteOpen::repair) flags |= O_RDWR;
    const int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) {
        const int err = errno;
        if (how == WriteOpen::repair && err == ENOENT) return -1;
        if (err == ELOOP) refuse(path, S_IFLNK);  // a link planted after the check above
        throw write_error(path, verb_of(how), err);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        refuse(path, st.st_mode);
    }
    // O_NONBLOCK only kept the open of a FIFO from waiting; regular files ignore it, but clear it anyway.
    (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int create_temp_beside(const std::string& path, std::string* tmp_path) {
    check_write_target(path);
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
    int fd = ::open(tmp.c_str(), flags, 0644);
    if (fd < 0 && errno == EEXIST) {
        // Left by an earlier process of this pid, or planted: unlink removes the name, never its target.
        (void)::unlink(tmp.c_str());
        fd = ::open(tmp.c_str(), flags, 0644);
    }
    if (fd < 0) throw write_error(path, "write", errno);
    if (tmp_path) *tmp_path = tmp;
    return fd;
}

}  // namespace fone
