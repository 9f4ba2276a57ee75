#pragma once
// Third-party code that may crash, assert or loop on a hostile input (assimp's readers, TetGen, whose Debian
// build keeps its assertions) runs in a forked child: a SIGABRT or SIGSEGV there ends the child, not the app,
// and a deadline bounds it. The child writes its result as bytes into a pipe; the caller decodes them.
#include <functional>
#include <string>

namespace vbd {

struct IsolatedRun {
    enum class End { Done, Crashed, TimedOut, Stopped, NotStarted, Cancelled };
    End end = End::NotStarted;       // Stopped: the child exited without finishing its output; NotStarted: no
                                     // pipe or no fork
    std::string bytes;               // what work() returned (Done only)
    int signal = 0;                  // the signal that ended the child (Crashed)
    std::string signalText() const;  // "signal 6, Aborted"
    // Why the run gave no result, for a refusal: "<who> did not finish within 60 s and was stopped (...)",
    // "<who> crashed on <subject> (signal 6, Aborted): <crashCause>", ...; for a Done run whose bytes do not
    // decode, "<who> stopped before it finished". One wording for every isolated reader.
    std::string whyNoResult(const std::string& who, const std::string& subject, double timeoutSeconds,
                            const std::string& crashCause) const;
};

// Runs `work` in a child process with its stdout and stderr sent to /dev/null, every other inherited file
// descriptor closed (a popen's pipe held open by the child would block its pclose), its address space capped
// at what the parent already maps plus half the machine's memory (not under AddressSanitizer), killed after
// `timeoutSeconds` of wall time, and killed with its parent. `work` must not throw (catch and encode errors
// in its bytes).
IsolatedRun runIsolated(const std::function<std::string()>& work, double timeoutSeconds);

// While on, every run (and every run started) kills its child within 0.1 s and ends Cancelled: an app
// closing while a mesh is imported on its simulation thread turns it on around the join, so that the window
// does not wait out TetGen's deadline.
void cancelIsolatedRuns(bool on);

// The deadline for a reader or mesher: VBD_MESH_IMPORT_TIMEOUT (seconds) where set and positive, else
// `fallback`.
double isolationTimeout(double fallback);

}  // namespace vbd
