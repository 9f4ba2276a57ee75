#pragma once
// Built-in rigid scenes as SceneDesc builders, shared by tests, benchmarks and the scene files
// assets/scenes/rigid_*.json (which hold the same bodies in the file format).
#include "scene/scene_desc.h"

namespace vbd {

// n boxes of edge `size` stacked on the ground, touching.
SceneDesc rigidStackScene(int n = 10, float size = 0.5f);
// A 2D pyramid of rows*(rows+1)/2 boxes (20 rows = 210 boxes), small horizontal gaps.
SceneDesc rigidPyramidScene(int rows = 20, float size = 0.5f);
// Two storeys of leaning card pairs with flat cards across them.
SceneDesc rigidCardHouseScene();
// A chain of `links` capsules hanging from the world by ball joints, holding at its end a box
// `ratio` times heavier than a link.
SceneDesc rigidHeavyChainScene(int links = 50, double ratio = 5e4);
// A row of n dominoes; the first one is tipped.
SceneDesc rigidDominoesScene(int n = 20);
// A 1 x 2 x 3 box (no gravity, no ground) spinning at `omega` about its principal axis `axis`
// (0: x, the major axis, largest moment; 1: y, intermediate; 2: z, minor), perturbed by `eps`
// rad/s about the other two axes.
SceneDesc rigidSpinScene(int axis = 1, float omega = 4.0f, float eps = 0.01f);
// Ramps (fixed boxes) at several angles, each with a box at rest on it; body i*2 is ramp i, body
// i*2+1 its box. angles (rad) and friction coefficients (ramp and box use the same mu).
SceneDesc rigidRampsScene(const std::vector<float>& angles, const std::vector<float>& mu);
inline SceneDesc rigidRampsScene() {
    return rigidRampsScene({0.2f, 0.4f, 0.6f, 0.4f}, {0.5f, 0.5f, 0.5f, 0.9f});
}
// A simple pendulum: a small sphere on a ball joint at distance L below-and-beside the pivot.
SceneDesc rigidPendulumScene(float length = 1.0f, float angle0 = 0.1f);
// A loose block of n boxes (columns on a square footprint, 2 side tall, gaps between them, each box
// yawed a little) falling onto the ground: the many-body benchmark.
SceneDesc rigidPileScene(int n = 10000, float size = 0.5f);

}  // namespace vbd
