#include "gui/core/interop_slots.h"

#include <atomic>
#include <cstring>

namespace vbdgui {

namespace {
std::atomic<std::uint64_t> g_nextSlotsId{1};
}

InteropSlots::InteropSlots(int slots)
    : lastRead_(size_t(slots), 0), written_(size_t(slots), 0), id_(g_nextSlotsId++) {}

InteropSlots::Claim InteropSlots::claim() {
    std::lock_guard<std::mutex> lk(m_);
    const int n = size();
    Claim c;
    // Round robin over the free slots: a slot left longest ago has the oldest lastRead, the least likely
    // to make the device wait.
    for (int k = 0; k < n && c.slot < 0; ++k) {
        const int s = (next_ + k) % n;
        if (s != held_ && s != taken_ && s != published_) c.slot = s;
    }
    if (c.slot < 0) return c;  // fewer than 4 slots
    next_ = (c.slot + 1) % n;
    c.waitRenderDone = lastRead_[size_t(c.slot)];
    c.simDone = ++writes_;
    written_[size_t(c.slot)] = c.simDone;
    return c;
}

void InteropSlots::publish(const Claim& c) {
    std::lock_guard<std::mutex> lk(m_);
    if (c.slot >= 0 && written_[size_t(c.slot)] == c.simDone) published_ = c.slot;
}

bool InteropSlots::take(InteropFrame f) {
    std::lock_guard<std::mutex> lk(m_);
    taken_ = matches(f) ? f.slot : -1;
    return taken_ >= 0;
}

std::uint64_t InteropSlots::beginDraw(InteropFrame f) {
    std::lock_guard<std::mutex> lk(m_);
    taken_ = -1;
    if (!matches(f)) return 0;
    held_ = f.slot;
    lastRead_[size_t(f.slot)] = ++draws_;
    return draws_;
}

void InteropSlots::release() {
    std::lock_guard<std::mutex> lk(m_);
    held_ = -1;
    taken_ = -1;
}

int InteropSlots::taken() const {
    std::lock_guard<std::mutex> lk(m_);
    return taken_;
}

int InteropSlots::held() const {
    std::lock_guard<std::mutex> lk(m_);
    return held_;
}

int InteropSlots::published() const {
    std::lock_guard<std::mutex> lk(m_);
    return published_;
}

InteropFrame WindowVertexLink::write(const vbd::DeviceParticles& src, const vbd::DeviceRigidBodies& bodies,
                                     const std::vector<float>* field, vbd::ScalarField fieldKind) {
    std::lock_guard<std::mutex> lk(m_);
    // Particles from the device step, or a rigid-only World whose bodies the device stepped.
    const bool current = src.x ? src.current : bodies.current;
    if (!writer_ || !current) return {};
    // Nothing from the host here: particles the writer cannot read in place (another device, another count)
    // are drawn from the snapshot instead.
    if (src.x && !writer_->readsInPlace(src)) return {};
    const InteropSlots::Claim c = slots_.claim();
    if (c.slot < 0) return {};
    const vbd::BodyInstanceFrame b{bodies, table_.data(), int(table_.size()), tableBodies_};
    const std::vector<float>* scalar = &scalar01_;
    const bool mapped =
        scale_.field != vbd::ScalarField::None && field && !field->empty() && fieldKind == scale_.field;
    if (mapped) {
        fieldScratch_ = *field;
        heatScalars(fieldScratch_, scale_, frameScalars_);
        scalar = &frameScalars_;
    }
    const bool wroteBodies =
        writer_->write(src, nullptr, scalar->data(), int(scalar->size()), table_.empty() ? nullptr : &b,
                       uint32_t(c.slot), c.waitRenderDone, c.simDone);
    slots_.publish(c);
    InteropFrame f;
    f.slot = c.slot;
    f.simDone = c.simDone;
    f.bodies = wroteBodies;
    f.owner = slots_.id();
    f.mapped = mapped;
    f.scale = scale_;
    f.scalars = scalarsVersion_;
    return f;
}

void WindowVertexLink::setBodies(const std::vector<vbd::BodyInstanceShape>& table, int numBodies) {
    std::lock_guard<std::mutex> lk(m_);
    tableBodies_ = numBodies;
    if (table.size() != table_.size() ||
        std::memcmp(static_cast<const void*>(table.data()), static_cast<const void*>(table_.data()),
                    table.size() * sizeof(vbd::BodyInstanceShape)) != 0)
        table_ = table;
}

void WindowVertexLink::setScalars(const std::vector<float>& scalar01, const HeatScale& scale) {
    std::lock_guard<std::mutex> lk(m_);
    if (scalar01 != scalar01_) {
        scalar01_ = scalar01;
        ++scalarsVersion_;
    }
    scale_ = scale;
}

bool WindowVertexLink::scalarsCurrent(const InteropFrame& f) {
    std::lock_guard<std::mutex> lk(m_);
    if (f.mapped) return scale_.field != vbd::ScalarField::None && sameHeatScale(f.scale, scale_);
    return scale_.field == vbd::ScalarField::None && f.scalars == scalarsVersion_;
}

void WindowVertexLink::detach() {
    std::lock_guard<std::mutex> lk(m_);
    writer_.reset();
}

}  // namespace vbdgui
