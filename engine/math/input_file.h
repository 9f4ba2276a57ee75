#pragma once
// Opening a user's file safely: only a regular file of a sane size is read. A FIFO blocks an open for ever,
// a device (/dev/zero) or an endless stream is read until memory runs out, and some regular-looking files
// block a read (/proc/kmsg): the file is opened non-blocking, checked on the open descriptor (not on a name
// another process could swap in between), and read up to its limit at most. Refusals are
// InputError(file, key, what) (exit code 2), next to which every reader of user data throws.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "math/error.h"

namespace vbd {

// The largest scene or actions file read (a scene of 200,000 rigid bodies is ~20 MB) and the largest TetGen
// .node / .ele file (2 million tets: ~60 MB).
inline constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t(256) << 20;
inline constexpr std::uintmax_t kMaxMeshFileBytes = std::uintmax_t(4) << 30;

// The whole content of `path`, which must be a regular file (symbolic links followed) of at most `limit`
// bytes, else InputError(path, key, ...).
inline std::string readInputFile(const std::string& path, const std::string& key, std::uintmax_t limit) {
    struct stat st {};
    // A stat first, so that a FIFO is never opened (even non-blocking, an open of a FIFO for reading
    // succeeds and its reads then see no data).
    if (::stat(path.c_str(), &st) != 0)
        throw InputError(
            path, key,
            errno == ENOENT ? "file not found" : std::string("cannot read file: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw InputError(path, key, "is a directory, not a file");
    if (!S_ISREG(st.st_mode))
        throw InputError(path, key, "not a regular file (a FIFO, socket or device is never opened)");
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw InputError(path, key, std::string("cannot read file: ") + std::strerror(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))  // what was opened, not what the name was
        throw InputError(path, key, "not a regular file (a FIFO, socket or device is never opened)");
    auto tooLarge = [&](std::uintmax_t size) {
        return InputError(path, key,
                          "file too large (" + std::to_string(size >> 20) + " MiB; at most " +
                              std::to_string(limit >> 20) + " MiB)");
    };
    if (std::uintmax_t(st.st_size) > limit) throw tooLarge(std::uintmax_t(st.st_size));
    std::string text;
    text.reserve(size_t(st.st_size));
    char chunk[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)  // EAGAIN: a file that would block (/proc/kmsg)
            throw InputError(path, key, std::string("cannot read file: ") + std::strerror(errno));
        if (n == 0) break;
        text.append(chunk, size_t(n));
        if (text.size() > limit) throw tooLarge(text.size());  // it grew while read
    }
    return text;
}

}  // namespace vbd
