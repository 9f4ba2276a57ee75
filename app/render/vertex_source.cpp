#include "render/vertex_source.h"

#include <algorithm>
#include <cstddef>

#include "render/geometry.h"
#include "render/renderer.h"

namespace vbdgui {

static_assert(offsetof(ParticleVertex, pos) == 0 && offsetof(ParticleVertex, scalar) == 3 * sizeof(float) &&
                  offsetof(ParticleVertex, normal) == 4 * sizeof(float) &&
                  sizeof(ParticleVertex) == 8 * sizeof(float),
              "ParticleVertex must match vbd::VertexLayout's defaults");

vbd::VertexLayout particleVertexLayout() {
    vbd::VertexLayout l;
    l.stride = int(sizeof(ParticleVertex) / sizeof(float));
    l.pos = int(offsetof(ParticleVertex, pos) / sizeof(float));
    l.scalar = int(offsetof(ParticleVertex, scalar) / sizeof(float));
    l.normal = int(offsetof(ParticleVertex, normal) / sizeof(float));
    return l;
}

vbd::BodyInstanceTable bodyInstanceTable(const std::vector<vbd::RigidBodyView>& bodies) {
    std::vector<std::array<float, 3>> colors(bodies.size());
    for (size_t i = 0; i < bodies.size(); ++i) colors[i] = bodyColor(i, bodies[i].fixed);
    return vbd::bodyInstanceTable(bodies, colors);
}

vbd::SurfaceAdjacency particleAdjacency(const vbd::World& world) {
    std::vector<std::array<int, 3>> tris;
    for (const auto& s : world.surfaces()) tris.insert(tris.end(), s.tris.begin(), s.tris.end());
    return vbd::buildSurfaceAdjacency(int(world.numParticles()), tris);
}

namespace {

class CpuVertexSource final : public VertexSource {
  public:
    CpuVertexSource(const Context& ctx, const vbd::World& world, uint32_t slots)
        : ctx_(ctx), n_(uint32_t(world.numParticles())), adj_(particleAdjacency(world)) {
        for (uint32_t s = 0; s < slots; ++s)
            buffers_.push_back(ctx.createBuffer(std::max<VkDeviceSize>(sizeof(ParticleVertex) * n_, 64),
                                                VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true));
    }
    ~CpuVertexSource() override {
        for (auto& b : buffers_) ctx_.destroy(b);
    }
    void upload(const vbd::World& world, const std::vector<float>& scalar, const vbd::BodyInstanceTable&,
                uint32_t slot) override {
        const auto& x = world.positions();
        const uint32_t n = std::min<uint32_t>(n_, uint32_t(x.size()));
        vbd::fillVertexRecords(x.data(), int(n), adj_, scalar.data(), int(scalar.size()),
                               particleVertexLayout(), static_cast<float*>(buffers_[slot].mapped));
    }
    VkBuffer buffer(uint32_t slot) const override { return buffers_[slot].buffer; }
    uint32_t count() const override { return n_; }

  private:
    const Context& ctx_;
    uint32_t n_;
    vbd::SurfaceAdjacency adj_;
    std::vector<Buffer> buffers_;
};

}  // namespace

std::unique_ptr<VertexSource> makeCpuVertexSource(const Context& ctx, const vbd::World& world,
                                                  uint32_t slots) {
    return std::make_unique<CpuVertexSource>(ctx, world, slots);
}

std::unique_ptr<VertexSource> makeVertexSource(const Context& ctx, const vbd::World& world, uint32_t slots,
                                               bool wantInterop, std::string& line) {
    line = "vertex buffer: CPU upload";
    if (wantInterop) {
        std::string why;
        auto src = makeInteropVertexSource(ctx, world, slots, why);
        if (src) {
            line = std::string("vertex buffer: ") +
                   (src->hostStandIn() ? "host-executor interop (" : "CUDA-Vulkan interop (") + why + ")";
            return src;
        }
        line += " (no interop: " + why + ")";
    }
    return makeCpuVertexSource(ctx, world, slots);
}

}  // namespace vbdgui
