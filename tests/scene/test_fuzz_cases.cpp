// A fixed sample of the nastiest scenes of the mutation campaign (tests/fuzz/mutate.py, issue 12), each
// once written out as NaN with exit code 0. `NAME.exit2.json` must be refused at validation (exit 2, the
// message names the file, nothing written); `NAME.exit1.json` is valid input that diverges: the run may
// finish (exit 0) or be stopped by the finiteness guard (exit 1), and whatever it wrote holds no NaN, inf
// or null.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "file_util.h"

namespace fs = std::filesystem;

namespace {

using vbdtest::slurp;

bool holdsNonFinite(const fs::path& p) {
    std::string t = slurp(p);
    for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
    return t.find("nan") != std::string::npos || t.find("inf") != std::string::npos ||
           t.find("null") != std::string::npos;
}

}  // namespace

TEST(FuzzCases, RefusedOrStoppedAndNeverNaN) {
    const fs::path cases = fs::path(VBD_SOURCE_DIR) / "tests/fuzz/cases";
    const fs::path tmp = fs::temp_directory_path() / ("vbd_fuzz_cases_" + std::to_string(::getpid()));
    int n = 0;
    for (const auto& e : fs::directory_iterator(cases)) {
        const std::string name = e.path().filename().string();
        if (e.path().extension() != ".json") continue;
        SCOPED_TRACE(name);
        ++n;
        fs::remove_all(tmp);
        fs::create_directories(tmp);
        const fs::path out = tmp / "out";
        // The memory check is made deterministic: a 16 GB machine whatever this one has.
        const std::string cmd = "VBD_MEMORY_LIMIT_MB=16000 timeout -s KILL 300 " +
                                std::string(VBD_BINARY_DIR) + "/bin/vbdlab sim '" + e.path().string() +
                                "' --frames 3 --out '" + out.string() + "' > /dev/null 2> '" +
                                (tmp / "err.txt").string() + "'";
        const int status = std::system(cmd.c_str());
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        const std::string err = slurp(tmp / "err.txt");
        if (name.find(".exit2.") != std::string::npos) {
            EXPECT_EQ(code, 2) << err;
            EXPECT_NE(err.find(name + ": "), std::string::npos) << err;
            EXPECT_FALSE(fs::exists(out)) << "output folder created on exit 2";
        } else {
            EXPECT_TRUE(code == 0 || code == 1) << "exit " << code << "\n" << err;
            if (code == 1) {
                EXPECT_NE(err.find("not finite"), std::string::npos) << err;
            }
        }
        for (const char* f : {"metrics.csv", "convergence.csv", "final_state.json"}) {
            if (fs::exists(out / f)) {
                EXPECT_FALSE(holdsNonFinite(out / f)) << f;
            }
        }
    }
    fs::remove_all(tmp);
    EXPECT_GE(n, 10);
}
