#include "render/geometry.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace vbdgui {

ShapeMesh unitBox() {
    ShapeMesh m;
    // Each face: normal axis a with sign s; the two tangent axes ordered so that (u x v) = s e_a.
    for (int a = 0; a < 3; ++a)
        for (int s = -1; s <= 1; s += 2) {
            int u = (a + 1) % 3, v = (a + 2) % 3;
            if (s < 0) std::swap(u, v);
            uint32_t base = uint32_t(m.vertices.size());
            for (int k = 0; k < 4; ++k) {
                float cu = (k == 1 || k == 2) ? 0.5f : -0.5f, cv = (k >= 2) ? 0.5f : -0.5f;
                ShapeVertex sv{};
                sv.pos[a] = 0.5f * float(s);
                sv.pos[u] = cu;
                sv.pos[v] = cv;
                sv.normal[a] = float(s);
                m.vertices.push_back(sv);
            }
            for (uint32_t i : {0u, 1u, 2u, 0u, 2u, 3u}) m.indices.push_back(base + i);
        }
    return m;
}

ShapeMesh unitSphere(int slices, int stacks) {
    ShapeMesh m;
    const float pi = 3.14159265358979f;
    for (int j = 0; j <= stacks; ++j) {
        float th = pi * float(j) / float(stacks);
        for (int i = 0; i <= slices; ++i) {
            float ph = 2 * pi * float(i) / float(slices);
            float x = std::sin(th) * std::cos(ph), y = std::cos(th), z = -std::sin(th) * std::sin(ph);
            m.vertices.push_back({{x, y, z}, {x, y, z}});
        }
    }
    for (int j = 0; j < stacks; ++j)
        for (int i = 0; i < slices; ++i) {
            uint32_t a = uint32_t(j * (slices + 1) + i), b = a + uint32_t(slices + 1);
            for (uint32_t k : {a, b, a + 1, a + 1, b, b + 1}) m.indices.push_back(k);
        }
    return m;
}

std::vector<uint32_t> surfaceEdges(const std::vector<vbd::SurfaceView>& surfaces) {
    std::unordered_set<uint64_t> seen;
    std::vector<uint32_t> out;
    for (const auto& s : surfaces)
        for (const auto& t : s.tris)
            for (int k = 0; k < 3; ++k) {
                uint32_t a = uint32_t(t[k]), b = uint32_t(t[(k + 1) % 3]);
                if (a > b) std::swap(a, b);
                if (seen.insert((uint64_t(a) << 32) | b).second) {
                    out.push_back(a);
                    out.push_back(b);
                }
            }
    return out;
}

uint32_t packRgba(float r, float g, float b, float a) {
    auto q = [](float v) { return uint32_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
    return q(r) | (q(g) << 8) | (q(b) << 16) | (q(a) << 24);
}

std::array<float, 3> heatMapColor(float t) {
    static const float c[5][3] = {{0.05f, 0.03f, 0.45f},
                                  {0.10f, 0.40f, 0.90f},
                                  {0.15f, 0.80f, 0.45f},
                                  {0.95f, 0.85f, 0.15f},
                                  {0.85f, 0.10f, 0.05f}};
    t = std::clamp(t, 0.0f, 1.0f) * 4.0f;
    int i = std::min(int(t), 3);
    float f = t - float(i);
    return {c[i][0] + f * (c[i + 1][0] - c[i][0]), c[i][1] + f * (c[i + 1][1] - c[i][1]),
            c[i][2] + f * (c[i + 1][2] - c[i][2])};
}

}  // namespace vbdgui
