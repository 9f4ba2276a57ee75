#include "mesh/isolated.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__)
#define VBD_ISOLATED_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VBD_ISOLATED_ASAN 1
#endif
#endif
#ifndef VBD_ISOLATED_ASAN
#define VBD_ISOLATED_ASAN 0
#endif

namespace vbd {

namespace {

bool writeAll(int fd, const char* p, size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= size_t(w);
    }
    return true;
}

}  // namespace

std::string IsolatedRun::signalText() const {
    const char* d = ::strsignal(signal);
    return "signal " + std::to_string(signal) + (d ? std::string(", ") + d : std::string());
}

double isolationTimeout(double fallback) {
    if (const char* env = std::getenv("VBD_MESH_IMPORT_TIMEOUT")) {
        const double t = std::atof(env);
        if (t > 0) return t;
    }
    return fallback;
}

IsolatedRun runIsolated(const std::function<std::string()>& work, double timeoutSeconds) {
    IsolatedRun run;
    int fds[2];
    if (::pipe(fds) != 0) return run;
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return run;
    }
    if (pid == 0) {
        // Child: its log lines and a crashing library's diagnostics go nowhere, and its address space is
        // capped at half the machine's memory: a header that claims 3.5e11 vertices must not take the
        // machine down with it. (Not under AddressSanitizer, whose shadow memory reserves terabytes of
        // address space.)
        ::close(fds[0]);
#if !VBD_ISOLATED_ASAN
        const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
        if (pages > 0 && page > 0) {
            const rlim_t cap = rlim_t(pages) * rlim_t(page) / 2;
            const rlimit lim{cap, cap};
            ::setrlimit(RLIMIT_AS, &lim);
        }
#endif
        const int devnull = ::open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            ::dup2(devnull, 1);
            ::dup2(devnull, 2);
        }
        const std::string out = work();
        const bool ok = writeAll(fds[1], out.data(), out.size());
        ::close(fds[1]);
        ::_exit(ok ? 0 : 1);
    }
    ::close(fds[1]);
    char chunk[1 << 16];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    bool timedOut = false;
    for (;;) {
        const double left =
            std::chrono::duration<double, std::milli>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            timedOut = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int r = ::poll(&p, 1, int(std::min(left, 1e9)) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) continue;  // the deadline check above ends the wait
        const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // EOF: the child closed the pipe (done or dead)
        run.bytes.append(chunk, size_t(n));
    }
    ::close(fds[0]);
    if (timedOut) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timedOut) {
        run.end = IsolatedRun::End::TimedOut;
    } else if (WIFSIGNALED(status)) {
        run.end = IsolatedRun::End::Crashed;
        run.signal = WTERMSIG(status);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        run.end = IsolatedRun::End::Done;
        return run;
    }
    run.bytes.clear();
    return run;
}

}  // namespace vbd
