// The device saves' memory (gpu/save_blocks.h) on the host executor: a dropped save's block is the next
// save's (no allocation and no free a frame in the app's timeline), blocks of another size are not kept,
// at most kKeep are, and the blocks a stepper's saves reuse never hold two live saves at once: saves made
// after others were dropped give their own frame's particles, and so do the older saves still held.
#include <gtest/gtest.h>

#include <vector>

#include "backend/parallel.h"
#include "gpu/host_exec.h"
#include "gpu/save_blocks.h"
#include "gpu/soft_stepper.h"
#include "scene/scene.h"
#include "soft/soft_solver.h"

using namespace vbd;

namespace {

TEST(SaveBlocks, ADroppedBlockIsTheNextTakeOfItsSize) {
    HostExec ex;
    SaveBlocks<HostExec> blocks;
    void* a = blocks.take(ex, 1000);
    void* b = blocks.take(ex, 1000);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(a, b);
    blocks.give(a, 1000);
    EXPECT_EQ(blocks.kept(), 1u);
    EXPECT_EQ(blocks.take(ex, 1000), a);  // reused, not allocated
    EXPECT_EQ(blocks.kept(), 0u);
    blocks.give(a, 1000);
    blocks.give(b, 1000);
    EXPECT_EQ(blocks.kept(), 2u);
    void* c = blocks.take(ex, 2000);  // another size (more vertices, a residual field): the kept ones go
    EXPECT_EQ(blocks.kept(), 0u);
    blocks.give(c, 2000);
    EXPECT_EQ(blocks.kept(), 1u);
    std::vector<void*> many;
    for (size_t k = 0; k < SaveBlocks<HostExec>::kKeep + 2; ++k) many.push_back(blocks.take(ex, 2000));
    for (void* p : many) blocks.give(p, 2000);
    EXPECT_EQ(blocks.kept(), SaveBlocks<HostExec>::kKeep);  // the rest freed
    blocks.give(nullptr, 2000);
    EXPECT_EQ(blocks.kept(), SaveBlocks<HostExec>::kKeep);
    void* d = blocks.take(ex, 2000);
    blocks.retire();  // the stepper is gone: nothing kept, and nothing taken back from now on
    EXPECT_EQ(blocks.kept(), 0u);
    blocks.give(d, 2000);
    EXPECT_EQ(blocks.kept(), 0u);
}

// A stepper's saves through its blocks, as the timeline makes and drops them: each save, read after the
// stepper went on and after other saves were dropped and made, gives the particles of its own frame.
// Blocks of varying size (the rigid contacts kept for the timeline's saves): a kept block with room serves a
// smaller or equal take; a take beyond every kept block's room allocates half again as much; the largest
// kKeep are kept; after retire nothing is.
TEST(RoomBlocks, AKeptBlockWithRoomIsTheNextTake) {
    HostExec ex;
    RoomBlocks<HostExec> blocks;
    const RoomBlocks<HostExec>::Block a = blocks.take(ex, 1000);
    ASSERT_NE(a.p, nullptr);
    EXPECT_EQ(a.room, 1500u);
    blocks.give(a);
    const RoomBlocks<HostExec>::Block b = blocks.take(ex, 1400);  // fits a's room
    EXPECT_EQ(b.p, a.p);
    EXPECT_EQ(blocks.kept(), 0u);
    const RoomBlocks<HostExec>::Block c = blocks.take(ex, 1600);  // beyond it: new
    EXPECT_NE(c.p, a.p);
    EXPECT_EQ(c.room, 2400u);
    blocks.give(b);
    blocks.give(c);
    std::vector<RoomBlocks<HostExec>::Block> more;
    for (size_t k = 0; k < RoomBlocks<HostExec>::kKeep; ++k) more.push_back(blocks.take(ex, 3000 + 1000 * k));
    EXPECT_EQ(blocks.kept(), 2u);  // none of them fitted the kept ones
    for (const RoomBlocks<HostExec>::Block& m : more) blocks.give(m);
    EXPECT_EQ(blocks.kept(), RoomBlocks<HostExec>::kKeep);
    const RoomBlocks<HostExec>::Block big = blocks.take(ex, 7000);  // the largest kept (room 7500) is left
    EXPECT_EQ(big.room, 7500u);
    const RoomBlocks<HostExec>::Block mid = blocks.take(ex, 4000);  // the smallest with room: 4500
    EXPECT_EQ(mid.room, 4500u);
    blocks.give(big);
    blocks.give(mid);
    blocks.retire();
    EXPECT_EQ(blocks.kept(), 0u);
    blocks.give(blocks.take(ex, 10));  // freed, not kept
    EXPECT_EQ(blocks.kept(), 0u);
}

TEST(SaveBlocks, SavesMadeFromReusedBlocksKeepTheirOwnFrames) {
    ThreadLimit oneThread(1);
    const SceneDesc d = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/cube_drop.json");
    SoftSolver solver;
    solver.build(d);
    auto st = makeHostPipelineStepper(Precision::Double);
    st->configure(solver);
    std::vector<std::shared_ptr<const DeviceStateCopy>> held;
    std::vector<std::vector<Vec3>> frames;
    for (int f = 0; f < 8; ++f) {
        st->step(solver, float(d.dt), d.gravity, true);
        held.push_back(st->saveOnDevice());
        frames.push_back(solver.model().x);
        if (held.size() > 3) held.erase(held.begin());  // the oldest dropped: its block is the next save's
    }
    ASSERT_EQ(held.size(), 3u);
    for (size_t k = 0; k < held.size(); ++k) {
        std::vector<Vec3> x;
        held[k]->particles(&x, nullptr);
        const std::vector<Vec3>& want = frames[frames.size() - held.size() + k];
        ASSERT_EQ(x.size(), want.size());
        double diff = 0;
        for (size_t i = 0; i < x.size(); ++i) diff = std::max(diff, double(norm(x[i] - want[i])));
        EXPECT_EQ(diff, 0.0) << "save " << k;
    }
    EXPECT_GT(norm(frames.back()[0] - frames.front()[0]), 0.0f);  // the frames differ (the cube falls)
}

}  // namespace
