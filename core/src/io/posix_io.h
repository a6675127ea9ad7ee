// The store's one way of writing bytes to a file descriptor. Private to core/src/store/.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace fone::detail {

// Writes all of data to fd, retrying on EINTR and short writes. Returns 0 or the errno (ENOSPC on a full
// disk).
inline int write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return 0;
}

}  // namespace fone::detail
