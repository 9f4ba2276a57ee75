#pragma once
// Helpers for scene tests: load built-in scenes, run worlds, read state.
#include <string>
#include <vector>

#include "scene/scene.h"
#include "soft/soft_solver.h"
#include "world/world.h"

namespace vbdtest {

inline std::string scenePath(const std::string& name) {
    return std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + name;
}

inline vbd::SceneDesc loadScene(const std::string& name, const std::vector<std::string>& sets = {}) {
    return vbd::loadSceneFile(scenePath(name), sets);
}

inline vbd::Vec3d centerOfMass(const vbd::SoftModel& m) {
    vbd::Vec3d c(0, 0, 0);
    double M = 0;
    for (int i = 0; i < m.numVertices(); ++i) {
        c += vbd::Vec3d(m.x[size_t(i)]) * double(m.mass[size_t(i)]);
        M += m.mass[size_t(i)];
    }
    return c / M;
}

inline double totalVolume(const vbd::SoftModel& m) {
    double v = 0;
    for (size_t e = 0; e < m.tets.size(); ++e) {
        const auto& t = m.tets[e];
        vbd::Mat33d Ds =
            vbd::Mat33d::fromCols(vbd::Vec3d(m.x[t[1]] - m.x[t[0]]), vbd::Vec3d(m.x[t[2]] - m.x[t[0]]),
                                  vbd::Vec3d(m.x[t[3]] - m.x[t[0]]));
        v += Ds.det() / 6.0;
    }
    return v;
}

}  // namespace vbdtest
