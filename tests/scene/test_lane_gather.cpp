// gatherLaneVec (soft/tet_lanes.h): the SIMD sweep reads the positions of W tet vertices as W short loads
// transposed in registers (AVX-512 for 8 doubles, AVX2/AVX-512 for 4 doubles and 8 floats) where the portable
// path gathers each coordinate lane by lane; checked at both widths the CPU kernels use (the per-tet passes'
// kTetLaneWidth, the sweep's kTetLanes). Loads only move bits, so the two must agree exactly -- and the
// 3-element masked loads must not read past a vertex: the positions here end at a page followed by an
// inaccessible one, so a 4th element read from the last vertex faults.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <random>

#include "soft/tet_blocks.h"
#include "soft/tet_lanes.h"

using namespace vbd;

namespace {

// n Vec3T<T> ending exactly at a page boundary, the next page PROT_NONE.
template <typename T>
struct GuardedPositions {
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    void* map = nullptr;
    T* xyz = nullptr;
    explicit GuardedPositions(int n) {
        map = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        EXPECT_NE(map, MAP_FAILED);
        EXPECT_EQ(mprotect(static_cast<char*>(map) + page, page, PROT_NONE), 0);
        xyz = reinterpret_cast<T*>(static_cast<char*>(map) + page) - 3 * n;
    }
    ~GuardedPositions() { munmap(map, 2 * page); }
};

template <typename T, int W>
void checkGather() {
    constexpr int n = 53;
    GuardedPositions<T> g(n);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-10.0, 10.0);
    for (int k = 0; k < 3 * n; ++k) g.xyz[k] = T(u(rng));
    std::uniform_int_distribution<int> pick(0, n - 1);
    int checked = 0;
    for (int trial = 0; trial < 200; ++trial) {
        int32_t idx[W];
        for (int l = 0; l < W; ++l) idx[l] = 3 * pick(rng);
        idx[trial % W] = 3 * (n - 1);  // the last vertex in every lane position in turn
        const Vec3T<simd::Pack<T, W>> v = gatherLaneVec<T, W>(g.xyz, idx);
        for (int l = 0; l < W; ++l)
            for (int c = 0; c < 3; ++c) {
                ASSERT_EQ(v[c][l], g.xyz[idx[l] + c]) << "lane " << l << " coordinate " << c;
                ++checked;
            }
    }
    EXPECT_EQ(checked, 200 * W * 3);
}

}  // namespace

TEST(LaneGather, DoubleLanesEqualTheScalarLoadsAndStayInsideTheArray) {
    checkGather<double, kTetLaneWidth<double>>();
    checkGather<double, kTetLanes<double>>();
}

TEST(LaneGather, FloatLanesEqualTheScalarLoadsAndStayInsideTheArray) {
    checkGather<float, kTetLaneWidth<float>>();
    checkGather<float, kTetLanes<float>>();
}
