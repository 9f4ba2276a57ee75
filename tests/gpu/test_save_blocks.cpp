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
