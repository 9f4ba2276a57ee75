#include "mesh/box_grid.h"

#include <utility>

namespace vbd {

namespace {

void orient(std::array<int, 4>& t, const std::vector<Vec3>& X) {
    Mat33 Dm = Mat33::fromCols(X[t[1]] - X[t[0]], X[t[2]] - X[t[0]], X[t[3]] - X[t[0]]);
    if (Dm.det() < 0) std::swap(t[2], t[3]);
}

}  // namespace

TetMesh makeBoxGrid(const Vec3& min, const Vec3& max, const std::array<int, 3>& cells, int tetsPerCell) {
    TetMesh m;
    const int nx = cells[0], ny = cells[1], nz = cells[2];
    auto vid = [&](int i, int j, int k) { return i + (nx + 1) * (j + (ny + 1) * k); };
    m.X.reserve(size_t(nx + 1) * (ny + 1) * (nz + 1));
    for (int k = 0; k <= nz; ++k)
        for (int j = 0; j <= ny; ++j)
            for (int i = 0; i <= nx; ++i)
                m.X.push_back({min.x + (max.x - min.x) * float(i) / float(nx),
                               min.y + (max.y - min.y) * float(j) / float(ny),
                               min.z + (max.z - min.z) * float(k) / float(nz)});
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                // corner(b) for b = bit mask (x=1, y=2, z=4)
                auto corner = [&](int b) { return vid(i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1)); };
                if (tetsPerCell == 5) {
                    // Parity flips the diagonal pattern so neighbouring cells share face diagonals.
                    const bool odd = ((i + j + k) & 1) != 0;
                    const int a[4] = {odd ? 1 : 0, odd ? 2 : 3, odd ? 4 : 5, odd ? 7 : 6};
                    const int b[4] = {odd ? 0 : 1, odd ? 3 : 2, odd ? 5 : 4, odd ? 6 : 7};
                    // a[] = corners of one parity (central tet), b[] = the others, each cut off with its 3
                    // neighbours
                    std::array<int, 4> t{corner(a[0]), corner(a[1]), corner(a[2]), corner(a[3])};
                    orient(t, m.X);
                    m.tets.push_back(t);
                    for (int q = 0; q < 4; ++q) {
                        std::array<int, 4> s{corner(b[q]), 0, 0, 0};
                        int n = 1;
                        for (int r = 0; r < 4; ++r) {
                            int d = a[r] ^ b[q];
                            if (d == 1 || d == 2 || d == 4) s[n++] = corner(a[r]);
                        }
                        orient(s, m.X);
                        m.tets.push_back(s);
                    }
                } else {
                    for (const auto& p : perms) {
                        int b0 = 0, b1 = 1 << p[0], b2 = b1 | (1 << p[1]), b3 = 7;
                        std::array<int, 4> t{corner(b0), corner(b1), corner(b2), corner(b3)};
                        orient(t, m.X);
                        m.tets.push_back(t);
                    }
                }
            }
    return m;
}

}  // namespace vbd
