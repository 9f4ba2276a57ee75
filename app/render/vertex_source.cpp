#include "render/vertex_source.h"

#include <algorithm>

#include "render/geometry.h"

namespace vbdgui {

namespace {

class CpuVertexSource final : public VertexSource {
  public:
    CpuVertexSource(const Context& ctx, uint32_t n, uint32_t slots) : ctx_(ctx), n_(n) {
        for (uint32_t s = 0; s < slots; ++s)
            buffers_.push_back(ctx.createBuffer(std::max<VkDeviceSize>(sizeof(ParticleVertex) * n, 64),
                                                VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true));
    }
    ~CpuVertexSource() override {
        for (auto& b : buffers_) ctx_.destroy(b);
    }
    void upload(const vbd::World& world, const std::vector<float>& scalar, uint32_t slot) override {
        const auto& x = world.positions();
        smoothNormals(x, world.surfaces(), normals_);
        auto* out = static_cast<ParticleVertex*>(buffers_[slot].mapped);
        const uint32_t n = std::min<uint32_t>(n_, uint32_t(x.size()));
        for (uint32_t i = 0; i < n; ++i) {
            ParticleVertex v{};
            v.pos[0] = x[i].x, v.pos[1] = x[i].y, v.pos[2] = x[i].z;
            v.normal[0] = normals_[i].x, v.normal[1] = normals_[i].y, v.normal[2] = normals_[i].z;
            v.scalar = i < scalar.size() ? scalar[i] : 0.0f;
            out[i] = v;
        }
    }
    VkBuffer buffer(uint32_t slot) const override { return buffers_[slot].buffer; }
    uint32_t count() const override { return n_; }

  private:
    const Context& ctx_;
    uint32_t n_;
    std::vector<Buffer> buffers_;
    std::vector<vbd::Vec3> normals_;
};

}  // namespace

std::unique_ptr<VertexSource> makeCpuVertexSource(const Context& ctx, uint32_t particles, uint32_t slots) {
    return std::make_unique<CpuVertexSource>(ctx, particles, slots);
}

}  // namespace vbdgui
