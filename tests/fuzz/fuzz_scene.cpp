// libFuzzer target: scene parsing and validation (engine/scene: JSON parse, --set overrides, every key's
// checks, scene_limits' float-range and memory checks). Any input must either parse into a SceneDesc or
// throw InputError; anything else (another exception, a crash, a sanitizer report, a hang) is a finding.
//
// The first line of the input, when it starts with "--set ", is taken as one override
// ("--set solver.iterations=3"), so the fuzzer reaches applyOverride too. Built with clang by
// tests/fuzz/CMakeLists.txt (a configuration of its own); run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "math/error.h"
#include "scene/scene.h"
#include "scene/scene_limits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> overrides;
    if (text.compare(0, 6, "--set ") == 0) {
        const size_t nl = text.find('\n');
        overrides.push_back(text.substr(6, nl == std::string::npos ? std::string::npos : nl - 6));
        text = nl == std::string::npos ? std::string() : text.substr(nl + 1);
    }
    try {
        const vbd::SceneDesc s = vbd::parseScene(text, "fuzz.json", overrides);
        // Accepted scenes must be within the limits the World relies on.
        if (!(s.dt / s.substeps >= vbd::limits::kMinStep)) std::abort();
        const vbd::MemoryEstimate m = vbd::estimateSceneMemory(s);
        if (!(m.bytes <= vbd::machineMemoryBytes())) std::abort();
    } catch (const vbd::InputError&) {
        // refused with a message: the expected outcome for bad input
    }
    return 0;
}
