#include "mesh/isolated.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

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

std::atomic<bool> g_cancel{false};

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

// The address space the process maps now (VmSize, bytes; 0 if unknown): a parent with the CUDA runtime
// loaded maps tens of GiB it never touches, which a cap counted from zero would leave the child none of.
rlim_t mappedBytes() {
    std::ifstream f("/proc/self/status");
    for (std::string line; std::getline(f, line);)
        if (line.rfind("VmSize:", 0) == 0) return rlim_t(std::strtoull(line.c_str() + 7, nullptr, 10)) << 10;
    return 0;
}

// The child's side: never returns.
[[noreturn]] void runChild(const std::function<std::string()>& work, int pipeOut, pid_t parent) {
    // Child: killed with its parent (the deadline is the parent's), holding no descriptor but its pipe
    // (as fd 3). Its log lines and a crashing library's diagnostics go nowhere, and its address space is
    // capped at what it maps plus half the machine's memory: a header that claims 3.5e11 vertices must
    // not take the machine down with it. (Not under AddressSanitizer, whose shadow memory reserves
    // terabytes of address space.)
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    int out = pipeOut;
    if (out != 3) {
        ::dup2(out, 3);
        out = 3;
    }
    if (::close_range(4, ~0U, 0) != 0) {  // no close_range (an old kernel, a sandbox): one by one
        rlimit nofile{};
        const rlim_t top =
            ::getrlimit(RLIMIT_NOFILE, &nofile) == 0 ? std::min<rlim_t>(nofile.rlim_cur, 1 << 16) : 1024;
        for (int fd = 4; fd < int(top); ++fd) ::close(fd);
    }
#if !VBD_ISOLATED_ASAN
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0) {
        const rlim_t cap = mappedBytes() + rlim_t(pages) * rlim_t(page) / 2;
        const rlimit lim{cap, cap};
        ::setrlimit(RLIMIT_AS, &lim);
    }
#endif
    const int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
        ::dup2(devnull, 1);
        ::dup2(devnull, 2);
        if (devnull > 2) ::close(devnull);
    }
    const std::string bytes = work();
    const bool ok = writeAll(out, bytes.data(), bytes.size());
    ::close(out);
    ::_exit(ok ? 0 : 1);
}

}  // namespace

std::string IsolatedRun::signalText() const {
    const char* d = ::strsignal(signal);
    return "signal " + std::to_string(signal) + (d ? std::string(", ") + d : std::string());
}

std::string IsolatedRun::whyNoResult(const std::string& who, const std::string& subject,
                                     double timeoutSeconds, const std::string& crashCause) const {
    switch (end) {
        case End::TimedOut: {
            char t[32];
            std::snprintf(t, sizeof t, "%g", timeoutSeconds);
            return who + " did not finish within " + t +
                   " s and was stopped (VBD_MESH_IMPORT_TIMEOUT sets the limit in seconds)";
        }
        case End::Cancelled:
            return who + " was stopped: the app is closing";
        case End::NotStarted:
            return "cannot start the process that runs " + who + " (no pipe or fork)";
        case End::Crashed:
            return who + " crashed on " + subject + " (" + signalText() + "): " + crashCause;
        case End::Stopped:
        case End::Done:
            break;
    }
    return who + " stopped before it finished (out of memory?)";
}

void cancelIsolatedRuns(bool on) { g_cancel = on; }

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
    // Close-on-exec: a popen on another thread must not hand the write end to its program (the read here
    // would then never see EOF).
    if (::pipe2(fds, O_CLOEXEC) != 0) return run;
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return run;
    }
    if (pid == 0) {
        ::close(fds[0]);
        runChild(work, fds[1], parent);
    }
    ::close(fds[1]);
    char chunk[1 << 16];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    bool timedOut = false, cancelled = false;
    for (;;) {
        const double left =
            std::chrono::duration<double, std::milli>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            timedOut = true;
            break;
        }
        if (g_cancel) {
            cancelled = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int r = ::poll(&p, 1, int(std::min(left, 100.0)) + 1);  // 0.1 s: the cancel is seen
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) continue;  // the deadline check above ends the wait
        const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // EOF: the child closed the pipe (done or dead)
        run.bytes.append(chunk, size_t(n));
    }
    ::close(fds[0]);
    if (timedOut || cancelled) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (cancelled) {
        run.end = IsolatedRun::End::Cancelled;
    } else if (timedOut) {
        run.end = IsolatedRun::End::TimedOut;
    } else if (WIFSIGNALED(status)) {
        run.end = IsolatedRun::End::Crashed;
        run.signal = WTERMSIG(status);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        run.end = IsolatedRun::End::Done;
        return run;
    } else {
        run.end = IsolatedRun::End::Stopped;
    }
    run.bytes.clear();
    return run;
}

}  // namespace vbd
