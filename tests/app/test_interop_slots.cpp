// The window's interop hand-over (gui/core/interop_slots.h) without CUDA or Vulkan: which slot the
// simulation thread writes, what its write waits for, and which frames the render thread may draw from the
// exported buffers. A model of the two timelines checks the two properties the design rests on, over long
// random interleavings of steps and draws: a write into a slot waits for every draw that read the slot's
// previous content, and never for a draw number not yet handed to a submit (no deadlock).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "gui/core/interop_slots.h"

namespace {

using vbdgui::InteropFrame;
using vbdgui::InteropSlots;

TEST(InteropSlots, ClaimsAvoidTheHeldAndThePublishedSlot) {
    InteropSlots s(3);
    const auto a = s.claim();
    s.publish(a);
    ASSERT_GE(a.slot, 0);
    EXPECT_EQ(a.simDone, 1u);
    EXPECT_EQ(a.waitRenderDone, 0u);  // never drawn: no wait
    EXPECT_EQ(s.beginDraw({a.slot, a.simDone, false, s.id()}), 1u);
    EXPECT_EQ(s.held(), a.slot);
    const auto b = s.claim();
    s.publish(b);
    EXPECT_NE(b.slot, a.slot);  // a is held (and was published)
    EXPECT_EQ(s.published(), b.slot);
    const auto c = s.claim();  // neither held a nor published b
    EXPECT_NE(c.slot, a.slot);
    EXPECT_NE(c.slot, b.slot);
    EXPECT_EQ(c.simDone, 3u);
}

TEST(InteropSlots, AStaleFrameIsRefusedOnceItsSlotIsRewritten) {
    InteropSlots s(3);
    const auto a = s.claim();
    s.publish(a);
    const InteropFrame fa{a.slot, a.simDone, false, s.id()};
    // Not drawn: after two more writes a's slot is neither held nor published, so the third claims it.
    for (int k = 0; k < 2; ++k) s.publish(s.claim());
    const auto d = s.claim();
    ASSERT_EQ(d.slot, a.slot);
    EXPECT_EQ(s.beginDraw(fa), 0u);  // the render thread uploads that snapshot from the host instead
    EXPECT_EQ(s.held(), -1);
    EXPECT_EQ(s.beginDraw({-1, 0}), 0u);  // a snapshot without an interop frame
}

TEST(InteropSlots, AWriteWaitsForTheLastDrawOfItsSlot) {
    InteropSlots s(3);
    const auto a = s.claim();
    s.publish(a);
    uint64_t r = 0;
    for (int k = 0; k < 4; ++k) r = s.beginDraw({a.slot, a.simDone, false, s.id()});  // paused: redrawn
    EXPECT_EQ(r, 4u);
    s.release();  // the next frame is a CPU upload
    s.publish(s.claim());
    s.publish(s.claim());
    const auto again = s.claim();
    ASSERT_EQ(again.slot, a.slot);
    EXPECT_EQ(again.waitRenderDone, 4u);
}

// The render thread takes a snapshot, then blocks in the swapchain's acquire (up to a display refresh) while
// the simulation writes on: the taken frame's slot is kept, so its draw reads it from the slot (before, the
// writer claimed it two writes later and the frame fell back to the CPU upload). With 3 slots held + taken +
// published leave none: the caller publishes no interop frame.
TEST(InteropSlots, ATakenFrameIsKeptUntilItsDraw) {
    InteropSlots s(4);
    const auto a = s.claim();
    s.publish(a);
    ASSERT_GT(s.beginDraw({a.slot, a.simDone, false, s.id()}), 0u);  // a is held
    const auto b = s.claim();
    s.publish(b);
    const InteropFrame fb{b.slot, b.simDone, false, s.id()};
    EXPECT_TRUE(s.take(fb));
    EXPECT_EQ(s.taken(), b.slot);
    for (int k = 0; k < 6; ++k) {  // the simulation runs ahead while the render thread waits
        const auto c = s.claim();
        ASSERT_GE(c.slot, 0);
        EXPECT_NE(c.slot, a.slot);
        EXPECT_NE(c.slot, b.slot);
        s.publish(c);
    }
    EXPECT_GT(s.beginDraw(fb), 0u);
    EXPECT_EQ(s.taken(), -1);
    EXPECT_EQ(s.held(), b.slot);

    InteropSlots three(3);
    const auto x = three.claim();
    three.publish(x);
    ASSERT_GT(three.beginDraw({x.slot, x.simDone, false, three.id()}), 0u);
    const auto y = three.claim();
    three.publish(y);
    ASSERT_TRUE(three.take({y.slot, y.simDone, false, three.id()}));
    const auto z = three.claim();
    three.publish(z);
    EXPECT_LT(three.claim().slot, 0);  // held x, taken y, published z
    three.release();                   // the next frame is a CPU upload: nothing held or taken
    EXPECT_GE(three.claim().slot, 0);
}

// A lab whose link was remade (a change of backend or precision) starts its numbers again: a snapshot written
// through the old link names a slot and a write number the new one also has, and must not be drawn from it.
TEST(InteropSlots, AFrameOfOtherSlotsIsRefused) {
    InteropSlots old(4), fresh(4);
    const auto a = old.claim();
    old.publish(a);
    const auto b = fresh.claim();
    fresh.publish(b);
    ASSERT_EQ(a.slot, b.slot);
    ASSERT_EQ(a.simDone, b.simDone);
    const InteropFrame fromOld{a.slot, a.simDone, false, old.id()};
    EXPECT_NE(old.id(), fresh.id());
    EXPECT_FALSE(fresh.take(fromOld));
    EXPECT_EQ(fresh.beginDraw(fromOld), 0u);
    EXPECT_GT(fresh.beginDraw({b.slot, b.simDone, false, fresh.id()}), 0u);
}

// Random interleavings of the two threads with the GPU's view of both timelines: the render thread takes the
// latest snapshot (now and then a stale or random frame), later draws what it took, or draws a frame from the
// host copy. A write never reads a draw's slot away, never waits on an unsubmitted draw, and a frame that
// matched its slot when taken is always drawn from it.
TEST(InteropSlots, RandomInterleavingsNeverReadARewrittenSlotNorWaitOnAnUnsubmittedDraw) {
    std::mt19937 rng(7);
    int interopDraws = 0, refused = 0;
    for (int run = 0; run < 50; ++run) {
        InteropSlots s(4);
        InteropFrame latest;  // the published snapshot's frame
        InteropFrame took;    // what the render thread took to draw next
        bool tookMatched = false;
        std::map<int, std::vector<uint64_t>> readsOf;  // slot -> draw numbers that read its current content
        std::map<int, uint64_t> content;               // slot -> write number it holds
        uint64_t submitted = 0;                        // draw numbers whose submit has been made
        uint64_t pending = 0;  // handed out by beginDraw, its submit not made yet (a step may run between)
        for (int op = 0; op < 2000; ++op) {
            const int what = int(rng() % 5);
            if (what >= 2 && pending) {  // the render thread submits the frame it began
                submitted = pending;
                pending = 0;
            }
            if (what < 2) {  // the simulation thread: a device step and its write
                const auto c = s.claim();
                ASSERT_GE(c.slot, 0);
                ASSERT_LE(c.waitRenderDone, submitted) << "a write would wait for a draw never submitted";
                for (uint64_t r : readsOf[c.slot])
                    ASSERT_LE(r, c.waitRenderDone) << "a write would not wait for a draw reading its slot";
                readsOf[c.slot].clear();
                content[c.slot] = c.simDone;
                s.publish(c);
                latest = {c.slot, c.simDone, false, s.id()};
            } else if (what == 2) {  // the render thread takes the snapshot it will draw (maybe a stale one)
                took =
                    (rng() % 4 == 0) ? InteropFrame{int(rng() % 4), 1 + rng() % 50, false, s.id()} : latest;
                tookMatched = s.take(took);
            } else if (what == 3) {  // ... and draws it
                const uint64_t r = s.beginDraw(took);
                if (r == 0) {
                    ASSERT_FALSE(tookMatched) << "a frame that matched its slot when taken was refused";
                    ++refused;
                    s.release();
                    continue;
                }
                ASSERT_EQ(content[took.slot], took.simDone)
                    << "a draw would read a slot holding another frame";
                ASSERT_EQ(r, submitted + 1);  // renderDone's values only grow
                pending = r;
                ++interopDraws;
                readsOf[took.slot].push_back(r);
            } else {  // a frame drawn from the host copy (CPU step, edit, capture)
                s.release();
                tookMatched = false;
            }
        }
    }
    // Both branches ran: the taken latest frame is always drawable, the random stale ones almost never.
    EXPECT_GT(interopDraws, 10000);
    EXPECT_GT(refused, 1000);
}

// The link without a device: a writer that records its calls.
struct RecordingWriter final : vbd::ExternalVertexWriter {
    struct Call {
        uint32_t slot;
        uint64_t wait, frame;
        int scalars;
        int instances = -1, numBodies = -1;  // -1: no BodyInstanceFrame passed
        std::vector<float> values;           // the scalars written
    };
    std::vector<Call> calls;
    int n = -1;  // the vertex count it was imported for (-1: any)
    bool readsInPlace(const vbd::DeviceParticles& src) const override { return n < 0 || src.n == n; }
    bool write(const vbd::DeviceParticles&, const vbd::Vec3*, const float* scalar, int numScalars,
               const vbd::BodyInstanceFrame* bodies, uint32_t slot, uint64_t waitRenderDone,
               uint64_t frame) override {
        calls.push_back({slot, waitRenderDone, frame, numScalars, bodies ? bodies->count : -1,
                         bodies ? bodies->numBodies : -1, std::vector<float>(scalar, scalar + numScalars)});
        return vbd::bodyInstancesWritable(bodies, instanceCapacity(), 0);  // as the CUDA writer decides
    }
    int instanceCapacity() const override { return 4; }
    void finish() override {}
};

TEST(WindowVertexLink, WritesOnlyCurrentDeviceStatesAndNothingOnceDetached) {
    auto writer = std::make_shared<RecordingWriter>();
    vbdgui::WindowVertexLink link(5, writer, 3);
    EXPECT_EQ(link.generation(), 5u);
    double x[3] = {0, 0, 0};
    vbd::DeviceParticles dev;
    dev.x = x;
    dev.n = 1;
    dev.current = false;  // the step ran on the CPU: no interop frame
    EXPECT_LT(link.write(dev).slot, 0);
    dev.current = true;
    link.setScalars({0.25f});
    const InteropFrame f = link.write(dev);
    ASSERT_GE(f.slot, 0);
    ASSERT_EQ(writer->calls.size(), 1u);
    EXPECT_EQ(writer->calls[0].slot, uint32_t(f.slot));
    EXPECT_EQ(writer->calls[0].frame, f.simDone);
    EXPECT_EQ(writer->calls[0].scalars, 1);
    EXPECT_EQ(link.slots().published(), f.slot);
    writer->n = 2;  // particles the writer cannot read in place: no write (drawn from the snapshot)
    EXPECT_LT(link.write(dev).slot, 0);
    EXPECT_EQ(writer->calls.size(), 1u);
    writer->n = -1;
    link.detach();
    EXPECT_EQ(writer.use_count(), 1);  // the render thread may now destroy the CUDA imports
    EXPECT_LT(link.write(dev).slot, 0);
    EXPECT_EQ(writer->calls.size(), 1u);
}

// A rigid-only World (no particles on the device): the link writes when the device rigid step's states are
// current, hands the writer the table the render thread set, and the frame says whether the instances were
// written (else the render thread draws the bodies from the snapshot's CPU upload).
TEST(WindowVertexLink, RigidOnlyWorldWritesInstancesFromCurrentDeviceBodies) {
    auto writer = std::make_shared<RecordingWriter>();
    vbdgui::WindowVertexLink link(1, writer, 3);
    const vbd::DeviceParticles none;  // no soft step on the device
    vbd::RigidBodyState states[2];
    vbd::DeviceRigidBodies bodies;
    bodies.state = states;
    bodies.n = 2;
    bodies.cudaDevice = 0;
    bodies.current = false;  // the bodies were edited (or stepped on the CPU) since the device step
    EXPECT_LT(link.write(none, bodies).slot, 0);
    EXPECT_TRUE(writer->calls.empty());
    bodies.current = true;
    // No table yet (the render thread has not drawn): vertices only.
    InteropFrame f = link.write(none, bodies);
    ASSERT_GE(f.slot, 0);
    EXPECT_FALSE(f.bodies);
    ASSERT_EQ(writer->calls.size(), 1u);
    EXPECT_EQ(writer->calls[0].instances, -1);
    std::vector<vbd::RigidBodyView> views(2);
    views[1].shape = vbd::ShapeType::Sphere;
    const vbd::BodyInstanceTable table = vbd::bodyInstanceTable(views, {{{1, 0, 0}}, {{0, 1, 0}}});
    link.setBodies(table.items, 2);
    f = link.write(none, bodies);
    ASSERT_GE(f.slot, 0);
    EXPECT_TRUE(f.bodies);
    EXPECT_EQ(writer->calls.back().instances, 2);
    EXPECT_EQ(writer->calls.back().numBodies, 2);
    // A body added since the table was built: the writer is told the table's count and refuses.
    bodies.n = 3;
    f = link.write(none, bodies);
    ASSERT_GE(f.slot, 0);
    EXPECT_FALSE(f.bodies);
    // More bodies than the exported buffers hold (4 here), or states on another device: the CPU upload.
    views.resize(5);
    link.setBodies(vbd::bodyInstanceTable(views, std::vector<std::array<float, 3>>(5)).items, 5);
    bodies.n = 5;
    EXPECT_FALSE(link.write(none, bodies).bodies);
    views.resize(2);
    link.setBodies(vbd::bodyInstanceTable(views, std::vector<std::array<float, 3>>(2)).items, 2);
    bodies.n = 2;
    bodies.cudaDevice = 1;
    EXPECT_FALSE(link.write(none, bodies).bodies);
    bodies.cudaDevice = 0;
    EXPECT_TRUE(link.write(none, bodies).bodies);
}

// The heat map a write carries is its own frame's: the field the simulation thread computed for the frame,
// mapped with the scale the render thread set (heat_scale.h), not the scalars the render thread made for the
// frame it drew last. Scalars set without a field (the material tint), a field of another kind (the wanted
// field just changed) or none computed: the set scalars.
TEST(WindowVertexLink, AWriteMapsItsFramesOwnField) {
    auto writer = std::make_shared<RecordingWriter>();
    vbdgui::WindowVertexLink link(1, writer, 4);
    double x[9] = {};
    vbd::DeviceParticles dev;
    dev.x = x;
    dev.n = 3;
    dev.current = true;
    vbdgui::HeatScale scale;
    scale.field = vbd::ScalarField::VolumeRatio;
    link.setScalars({0.1f, 0.2f, 0.3f}, scale);  // the drawn frame's scalars
    const std::vector<float> field = {0.5f, 1.0f, 2.0f};
    ASSERT_GE(link.write(dev, {}, &field, vbd::ScalarField::VolumeRatio).slot, 0);
    EXPECT_EQ(writer->calls.back().values,
              (std::vector<float>{0.0f, 1.0f / 3.0f, 1.0f}));  // auto range 0.5..2
    scale.logScale = true;                                     // log10: -0.301, 0, 0.301
    scale.autoRange = false;
    scale.rangeMin = -1;
    scale.rangeMax = 1;
    link.setScalars({0.1f, 0.2f, 0.3f}, scale);
    ASSERT_GE(link.write(dev, {}, &field, vbd::ScalarField::VolumeRatio).slot, 0);
    const std::vector<float> logged = writer->calls.back().values;
    ASSERT_EQ(logged.size(), 3u);
    EXPECT_NEAR(logged[0], (std::log10(0.5f) + 1) / 2, 1e-6);
    EXPECT_NEAR(logged[1], 0.5f, 1e-6);
    EXPECT_NEAR(logged[2], (std::log10(2.0f) + 1) / 2, 1e-6);
    // The field computed is not the one drawn, or none: the set scalars.
    ASSERT_GE(link.write(dev, {}, &field, vbd::ScalarField::Residual).slot, 0);
    EXPECT_EQ(writer->calls.back().values, (std::vector<float>{0.1f, 0.2f, 0.3f}));
    ASSERT_GE(link.write(dev).slot, 0);
    EXPECT_EQ(writer->calls.back().values, (std::vector<float>{0.1f, 0.2f, 0.3f}));
    // No field drawn (the tint): the set scalars whatever the frame computed.
    link.setScalars({0.7f, 0.0f, -1.0f}, {});
    ASSERT_GE(link.write(dev, {}, &field, vbd::ScalarField::VolumeRatio).slot, 0);
    EXPECT_EQ(writer->calls.back().values, (std::vector<float>{0.7f, 0.0f, -1.0f}));
}

}  // namespace
