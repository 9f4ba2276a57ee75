#include "mesh/box_grid.h"

#include <utility>

namespace vbd {

namespace {

void orient(std::array<int, 4>& t, const std::vector<Vec3>& X) {
    Mat33 Dm = Mat33::fromCols(X[t[1]] - X[t[0]], X[t[2]] - X[t[0]], X[t[3]] - X[t[0]]);
    if (Dm.det() < 0) std::swap(t[2], t[3]);
}

// The 8 corners of grid cell (i, j, k) as vertex ids: corner(b) for the bit mask b (x = 1, y = 2, z = 4).
class CellCorners {
  public:
    CellCorners(const std::array<int, 3>& cells, int i, int j, int k)
        : nx_(cells[0]), ny_(cells[1]), i_(i), j_(j), k_(k) {}
    int operator()(int b) const {
        const int i = i_ + (b & 1), j = j_ + ((b >> 1) & 1), k = k_ + ((b >> 2) & 1);
        return i + (nx_ + 1) * (j + (ny_ + 1) * k);
    }

  private:
    int nx_, ny_, i_, j_, k_;
};

void pushOriented(TetMesh& m, std::array<int, 4> t) {
    orient(t, m.X);
    m.tets.push_back(t);
}

// Five tets: the central tet on the corners of one parity, and the four corners of the other parity
// each cut off with its three edge neighbours. Parity of (i + j + k) flips the pattern so that
// neighbouring cells share face diagonals (the mesh conforms).
void addFiveTetCell(TetMesh& m, const CellCorners& corner, bool odd) {
    const int a[4] = {odd ? 1 : 0, odd ? 2 : 3, odd ? 4 : 5, odd ? 7 : 6};
    const int b[4] = {odd ? 0 : 1, odd ? 3 : 2, odd ? 5 : 4, odd ? 6 : 7};
    pushOriented(m, {corner(a[0]), corner(a[1]), corner(a[2]), corner(a[3])});
    for (int q : b) {
        std::array<int, 4> s{corner(q), 0, 0, 0};
        int n = 1;
        for (int r : a) {
            const int d = r ^ q;  // one bit apart: an edge neighbour
            if (d == 1 || d == 2 || d == 4) s[size_t(n++)] = corner(r);
        }
        pushOriented(m, s);
    }
}

// Six tets around the main diagonal 0 -> 7, one per axis order: each walks 0 -> one axis -> two
// axes -> 7 along the cube's edges (Kuhn triangulation; conforming with the same pattern everywhere).
void addSixTetCell(TetMesh& m, const CellCorners& corner) {
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (const auto& p : perms) {
        const int b1 = 1 << p[0], b2 = b1 | (1 << p[1]);
        pushOriented(m, {corner(0), corner(b1), corner(b2), corner(7)});
    }
}

}  // namespace

TetMesh makeBoxGrid(const Vec3& min, const Vec3& max, const std::array<int, 3>& cells, int tetsPerCell) {
    TetMesh m;
    const int nx = cells[0], ny = cells[1], nz = cells[2];
    m.X.reserve(size_t(nx + 1) * (ny + 1) * (nz + 1));
    for (int k = 0; k <= nz; ++k)
        for (int j = 0; j <= ny; ++j)
            for (int i = 0; i <= nx; ++i)
                m.X.push_back({min.x + (max.x - min.x) * float(i) / float(nx),
                               min.y + (max.y - min.y) * float(j) / float(ny),
                               min.z + (max.z - min.z) * float(k) / float(nz)});
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                const CellCorners corner(cells, i, j, k);
                if (tetsPerCell == 5)
                    addFiveTetCell(m, corner, ((i + j + k) & 1) != 0);
                else
                    addSixTetCell(m, corner);
            }
    return m;
}

}  // namespace vbd
