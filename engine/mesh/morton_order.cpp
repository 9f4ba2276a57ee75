#include "mesh/morton_order.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace vbd {

namespace {

// Spreads the low 21 bits of v so that bit b lands at bit 3b.
uint64_t spread3(uint64_t v) {
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

uint64_t quantize(float x, float lo, float size) {
    constexpr float kMax = float((1 << 21) - 1);
    const float t = size > 0 ? (x - lo) / size * kMax : 0.f;
    // NaN and out-of-cube values clamp to the cube (the key only orders; it never indexes).
    return uint64_t(std::clamp(std::isfinite(t) ? t : 0.f, 0.f, kMax));
}

}  // namespace

uint64_t mortonKey(const Vec3& p, const Vec3& lo, float size) {
    return spread3(quantize(p.x, lo.x, size)) | spread3(quantize(p.y, lo.y, size)) << 1 |
           spread3(quantize(p.z, lo.z, size)) << 2;
}

void sortMorton(std::vector<int>& items, const std::vector<Vec3>& points) {
    if (items.size() < 2) return;
    Vec3 lo = points[size_t(items[0])], hi = lo;
    for (int i : items) {
        const Vec3& p = points[size_t(i)];
        lo = {std::fmin(lo.x, p.x), std::fmin(lo.y, p.y), std::fmin(lo.z, p.z)};
        hi = {std::fmax(hi.x, p.x), std::fmax(hi.y, p.y), std::fmax(hi.z, p.z)};
    }
    const float size = std::fmax(hi.x - lo.x, std::fmax(hi.y - lo.y, hi.z - lo.z));
    std::vector<std::pair<uint64_t, int>> keyed;
    keyed.reserve(items.size());
    for (int i : items) keyed.emplace_back(mortonKey(points[size_t(i)], lo, size), i);
    std::sort(keyed.begin(), keyed.end());
    for (size_t k = 0; k < items.size(); ++k) items[k] = keyed[k].second;
}

}  // namespace vbd
