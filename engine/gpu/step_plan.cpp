#include "gpu/step_plan.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "soft/soft_state.h"

namespace vbd {

std::string deviceStepUnsupported(const SoftModel& m, const SolverDesc& /*s*/) {
    if (m.numVertices() == 0) return "no soft bodies or cloth";
    return "";
}

bool persistingPositionsFromEnv() {
    const char* v = std::getenv("VBD_CUDA_L2_PERSIST");
    return v && v[0] == '1';
}

TetLayout tetLayoutFromEnv() {
    const char* v = std::getenv("VBD_CUDA_TET_LAYOUT");
    if (!v) return TetLayout::Arrays;
    const std::string s(v);
    return s == "tet"         ? TetLayout::TetRecords
           : s == "incidence" ? TetLayout::IncidenceRecords
                              : TetLayout::Arrays;
}

int blocksFor(long long n) {
    if (n < 0) throw std::runtime_error("blocksFor: negative count");
    const long long b = (n + kBlockSize - 1) / kBlockSize;
    if (b > INT_MAX) throw std::runtime_error("blocksFor: grid too large");
    return int(b);
}

std::vector<double> chebyshevWeights(double rho, int iterations) {
    std::vector<double> w(size_t(iterations > 0 ? iterations : 0) + 1, 1.0);
    double omega = 1;
    for (int k = 1; k <= iterations; ++k) {
        if (k == 1)
            omega = 1;
        else if (k == 2)
            omega = 2.0 / (2.0 - rho * rho);
        else
            omega = 4.0 / (4.0 - rho * rho * omega);
        w[size_t(k)] = omega;
    }
    return w;
}

StepPlan makeStepPlan(const SoftModel& m, const SolverDesc& s) {
    // Vertex indices and the packed incidence items (4 * tet + local) are ints in the shared kernel.
    if (m.x.size() > size_t(INT_MAX)) throw std::runtime_error("device step: more than 2^31 - 1 vertices");
    if (m.tets.size() > size_t(INT_MAX / 4)) throw std::runtime_error("device step: more than 2^29 - 1 tets");
    if (m.tris.size() > size_t(INT_MAX) || m.hinges.size() > size_t(INT_MAX))
        throw std::runtime_error("device step: more than 2^31 - 1 cloth triangles or hinges");
    StepPlan p;
    p.n = int(m.x.size());
    p.numTets = int(m.tets.size());
    p.numTris = int(m.tris.size());
    p.numHinges = int(m.hinges.size());
    p.colorOffsets.push_back(0);
    for (const auto& g : m.colorGroups) {
        p.colorVerts.insert(p.colorVerts.end(), g.begin(), g.end());
        p.colorOffsets.push_back(int(p.colorVerts.size()));
    }
    // The tile sweep launches up to 32 threads per vertex of a color (a warp per vertex), indexed by int.
    for (int c = 0; c < p.numColors(); ++c)
        if (p.colorSize(c) > (INT_MAX - 31) / 32)
            throw std::runtime_error("device step: a color of more than 2^26 vertices");
    p.iterations = s.iterations;
    p.chebyshevRho = s.chebyshevRho;
    p.chebyshevWeights = chebyshevWeights(s.chebyshevRho, s.iterations);
    p.tolerance = s.tolerance > 0;
    p.residualEachIteration = s.diagnostics || p.tolerance;
    p.energyEachIteration = s.diagnostics;
    p.doublePrecision = s.precision == Precision::Double;
    return p;
}

size_t StepPlan::reductionPartials() const {
    const int longest = std::max({n, numTets, numTris, numHinges});
    const int b = blocksFor(longest);
    return size_t(b > 0 ? b : 1);
}

size_t StepPlan::deviceBytes(const SoftModel& m) const {
    size_t bytes = 0;
    SoftViewParams v{};
    forEachParamArray(m, v, [&](auto&, const auto& array) { bytes += array.size() * sizeof(array[0]); });
    const size_t vec = doublePrecision ? sizeof(Vec3d) : sizeof(Vec3);
    const size_t mat = doublePrecision ? sizeof(Mat33d) : sizeof(Mat33);
    // x, v, x_prev, y, v_last, two Chebyshev histories; in-contact flags, fixed flags, kinematic region, x0
    bytes += size_t(n) * (7 * vec + 2 + sizeof(int) + sizeof(Vec3));
    bytes += size_t(numTets) * mat + m.regions.size() * sizeof(KinematicRegion);
    bytes += (m.tris.size() * 3 + m.hinges.size()) * (doublePrecision ? 8 : 4);  // cloth references
    bytes += colorVerts.size() * sizeof(int);
    // Collision: bound, x_c and reference per vertex, the sweep's snapshot (x and dx); the contacts of a
    // detection come and go (counted at the model's last detection).
    if (m.collision.enabled) {
        bytes += size_t(n) * (sizeof(float) + 2 * sizeof(Vec3) + 2 * vec + sizeof(int));
        const size_t contacts = m.collision.contacts.size();
        bytes += contacts * (sizeof(SelfContact) + 4 * sizeof(int)) +
                 size_t(blocksFor((long long)contacts)) * sizeof(double);
    }
    bytes +=
        (reductionPartials() * 2 + resultDoubles()) * sizeof(double) + 256;  // partials, results, scalars
    return bytes;
}

}  // namespace vbd
