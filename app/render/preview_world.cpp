#include "render/preview_world.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "mesh/box_grid.h"

namespace vbdgui {

std::vector<std::array<int, 3>> boundaryTriangles(const std::vector<std::array<int, 4>>& tets) {
    // For a positively oriented tet (0,1,2,3) the outward faces are (0,2,1), (0,1,3), (0,3,2), (1,2,3):
    // e.g. det[x1-x0, x2-x0, x3-x0] > 0 means (x1-x0) x (x2-x0) points towards x3, so (0,1,2) faces in.
    static const int kFaces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    std::map<std::array<int, 3>, std::pair<int, std::array<int, 3>>> faces;
    for (const auto& t : tets)
        for (const auto& f : kFaces) {
            std::array<int, 3> tri{t[f[0]], t[f[1]], t[f[2]]}, key = tri;
            std::sort(key.begin(), key.end());
            auto& e = faces[key];
            ++e.first;
            e.second = tri;
        }
    std::vector<std::array<int, 3>> out;
    for (const auto& kv : faces)
        if (kv.second.first == 1) out.push_back(kv.second.second);
    return out;
}

namespace {

class PreviewWorld final : public vbd::World {
  public:
    PreviewWorld(const vbd::SceneDesc& d, bool animate) : desc_(d), animate_(animate) {
        int body = 0;
        for (const auto& sb : d.softBodies) {
            if (sb.type != "box_grid") continue;
            vbd::TetMesh m = vbd::makeBoxGrid(sb.min, sb.max, sb.cells, sb.tetsPerCell);
            const int base = int(rest_.size());
            vbd::SurfaceView sv;
            sv.body = body++;
            for (auto t : boundaryTriangles(m.tets))
                sv.tris.push_back({t[0] + base, t[1] + base, t[2] + base});
            surfaces_.push_back(std::move(sv));
            for (const auto& x : m.X) {
                rest_.push_back(x);
                bool fixed = false;
                for (const auto& f : sb.fixed) fixed = fixed || f.box.contains(x);
                fixed_.push_back(fixed);
                anchor_.push_back(sb.min.x);
            }
        }
        for (const auto& c : d.cloths) {
            const int base = int(rest_.size()), nu = c.cells[0] + 1, nv = c.cells[1] + 1;
            const bool xy = c.plane == "xy";
            for (int j = 0; j < nv; ++j)
                for (int i = 0; i < nu; ++i) {
                    float u = float(c.size[0]) * float(i) / float(c.cells[0]);
                    float v = float(c.size[1]) * float(j) / float(c.cells[1]);
                    vbd::Vec3 x = c.min + (xy ? vbd::Vec3(u, v, 0) : vbd::Vec3(u, 0, v));
                    rest_.push_back(x);
                    bool fixed = false;
                    for (const auto& f : c.fixed) fixed = fixed || f.box.contains(x);
                    fixed_.push_back(fixed);
                    anchor_.push_back(c.min.x);
                }
            vbd::SurfaceView sv;
            sv.body = body++;
            sv.doubleSided = true;
            for (int j = 0; j < c.cells[1]; ++j)
                for (int i = 0; i < c.cells[0]; ++i) {
                    int a = base + j * nu + i, b = a + 1, e = a + nu, f = e + 1;
                    sv.tris.push_back({a, e, b});
                    sv.tris.push_back({b, e, f});
                }
            surfaces_.push_back(std::move(sv));
        }
        x_ = rest_;
        v_.assign(x_.size(), vbd::Vec3(0.0f));
    }

    void step() override {
        ++frame_;
        time_ += desc_.dt;
        if (animate_) {
            // A closed-form sag growing from the anchor side: y -= a (x - x0)^2 (1 - cos wt) / 2.
            const float a = 0.04f * (1.0f - std::cos(2.0f * float(time_)));
            for (size_t i = 0; i < x_.size(); ++i) {
                if (fixed_[i]) continue;
                float dx = rest_[i].x - anchor_[i];
                vbd::Vec3 nx = rest_[i] - vbd::Vec3(0, a * dx * dx, 0);
                v_[i] = (nx - x_[i]) / float(desc_.dt);
                x_[i] = nx;
            }
        }
        vbd::FrameMetrics fm;
        fm.frame = frame_;
        fm.time = time_;
        fm.iterations = desc_.solver.iterations;
        convergence_.clear();
        double r = 1.0;
        for (int k = 0; k <= desc_.solver.iterations; ++k, r *= 0.7)
            convergence_.push_back({frame_, k, r, -r});
        fm.residualInitial = 1.0;
        fm.residualFinal = r / 0.7;
        history_.push_back(fm);
    }
    const vbd::SceneDesc& desc() const override { return desc_; }
    double time() const override { return time_; }
    int frame() const override { return frame_; }
    const std::vector<vbd::Vec3>& positions() const override { return x_; }
    const std::vector<vbd::Vec3>& velocities() const override { return v_; }
    const std::vector<char>& fixedMask() const override { return fixed_; }
    const std::vector<vbd::SurfaceView>& surfaces() const override { return surfaces_; }
    int numColors() const override { return 1; }
    void scalarField(vbd::ScalarField f, std::vector<float>& out) const override {
        out.assign(x_.size(), 0.0f);
        // Height above the rest pose stands in for every field: it varies smoothly over the body.
        if (f != vbd::ScalarField::Color)
            for (size_t i = 0; i < x_.size(); ++i) out[i] = rest_[i].y - x_[i].y;
    }
    std::vector<vbd::RigidBodyView> bodies() const override {
        std::vector<vbd::RigidBodyView> out;
        for (const auto& b : desc_.rigidBodies) {
            vbd::RigidBodyView v;
            v.shape = b.shape;
            v.size = b.size;
            v.radius = float(b.radius);
            v.halfHeight = float(b.halfHeight);
            v.position = b.position;
            v.rotation = b.rotation;
            v.fixed = b.fixed;
            out.push_back(v);
        }
        return out;
    }
    std::vector<vbd::ContactView> contacts() const override { return {}; }
    vbd::MetricsSpan history() const override { return history_; }
    const std::vector<vbd::IterationRecord>& lastConvergence() const override { return convergence_; }
    void setSolver(const vbd::SolverDesc& s) override { desc_.solver = s; }
    void setDrag(int, const vbd::Vec3&, float) override {}
    void setBodyDrag(int, const vbd::Vec3&, const vbd::Vec3&, float) override {}
    // The preview is a fixed picture: it takes no new bodies.
    int addRigidBody(const vbd::RigidBodyDesc&) override { return -1; }
    vbd::VertexInspect inspectVertex(int) const override { return {}; }
    std::vector<vbd::JointView> joints() const override { return {}; }

  private:
    vbd::SceneDesc desc_;
    bool animate_;
    std::vector<vbd::Vec3> rest_, x_, v_;
    std::vector<float> anchor_;
    std::vector<char> fixed_;
    std::vector<vbd::SurfaceView> surfaces_;
    std::vector<vbd::FrameMetrics> history_;
    std::vector<vbd::IterationRecord> convergence_;
    int frame_ = 0;
    double time_ = 0;
};

}  // namespace

std::unique_ptr<vbd::World> makePreviewWorld(const vbd::SceneDesc& desc, bool animate) {
    return std::make_unique<PreviewWorld>(desc, animate);
}

}  // namespace vbdgui
