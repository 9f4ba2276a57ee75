#include "coarse/envelope_cholesky.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "backend/simd.h"

namespace vbd::coarse {

namespace {

constexpr int kW = simd::nativeLanes<double>(8);
using P = simd::Pack<double, kW>;

// a . b over n entries: two pack accumulators (the rows are ~70 long: a single FMA chain would wait on its
// latency), then the lanes and the tail in order.
VBD_SIMD_INLINE double dotRun(const double* a, const double* b, int n) {
    P s0(0.0), s1(0.0);
    int k = 0;
    for (; k + 2 * kW <= n; k += 2 * kW) {
        s0 += simd::load<double, kW>(a + k) * simd::load<double, kW>(b + k);
        s1 += simd::load<double, kW>(a + k + kW) * simd::load<double, kW>(b + k + kW);
    }
    if (k + kW <= n) {
        s0 += simd::load<double, kW>(a + k) * simd::load<double, kW>(b + k);
        k += kW;
    }
    s0 += s1;
    double s = 0;
    for (int l = 0; l < kW; ++l) s += s0[l];
    for (; k < n; ++k) s += a[k] * b[k];
    return s;
}

// y -= alpha a over n entries.
VBD_SIMD_INLINE void axpyRun(double* y, double alpha, const double* a, int n) {
    const P al(alpha);
    int k = 0;
    for (; k + kW <= n; k += kW) {
        const P r = simd::load<double, kW>(y + k) - al * simd::load<double, kW>(a + k);
        std::memcpy(y + k, &r.v, sizeof(r.v));
    }
    for (; k < n; ++k) y[k] -= alpha * a[k];
}

using Graph = std::vector<std::vector<int>>;

Graph adjacency(const Eigen::SparseMatrix<double>& A) {
    Graph g(size_t(A.rows()));
    for (int c = 0; c < A.outerSize(); ++c)
        for (Eigen::SparseMatrix<double>::InnerIterator it(A, c); it; ++it)
            if (it.row() != c) {
                g[size_t(it.row())].push_back(c);
                g[size_t(c)].push_back(int(it.row()));
            }
    for (auto& nb : g) {
        std::sort(nb.begin(), nb.end());
        nb.erase(std::unique(nb.begin(), nb.end()), nb.end());
    }
    return g;
}

// Breadth-first levels from `root` over unvisited vertices (visited untouched); neighbours by ascending
// degree (ties by index). Returns the visit order; `last` receives the first vertex of the deepest level.
std::vector<int> breadthFirst(const Graph& g, int root, const std::vector<char>& visited, int& depth,
                              std::vector<int>* lastLevel) {
    std::vector<int> order{root}, level(g.size(), -1);
    level[size_t(root)] = 0;
    std::vector<int> nb;
    for (size_t k = 0; k < order.size(); ++k) {
        const int v = order[k];
        nb.clear();
        for (int u : g[size_t(v)])
            if (!visited[size_t(u)] && level[size_t(u)] < 0) nb.push_back(u);
        std::sort(nb.begin(), nb.end(), [&](int a, int b) {
            return g[size_t(a)].size() != g[size_t(b)].size() ? g[size_t(a)].size() < g[size_t(b)].size()
                                                              : a < b;
        });
        for (int u : nb) {
            level[size_t(u)] = level[size_t(v)] + 1;
            order.push_back(u);
        }
    }
    depth = level[size_t(order.back())];
    if (lastLevel) {
        lastLevel->clear();
        for (int v : order)
            if (level[size_t(v)] == depth) lastLevel->push_back(v);
    }
    return order;
}

// George-Liu: from a low-degree vertex, move to the deepest level's lowest-degree vertex while the depth
// grows.
int pseudoPeripheral(const Graph& g, int start, const std::vector<char>& visited) {
    int root = start, depth = 0;
    std::vector<int> last;
    breadthFirst(g, root, visited, depth, &last);
    for (int round = 0; round < 8; ++round) {
        const int next = *std::min_element(last.begin(), last.end(), [&](int a, int b) {
            return g[size_t(a)].size() != g[size_t(b)].size() ? g[size_t(a)].size() < g[size_t(b)].size()
                                                              : a < b;
        });
        int d = 0;
        std::vector<int> nextLast;
        breadthFirst(g, next, visited, d, &nextLast);
        if (d <= depth) break;
        root = next;
        depth = d;
        last = std::move(nextLast);
    }
    return root;
}

}  // namespace

std::vector<int> reverseCuthillMcKee(const Eigen::SparseMatrix<double>& A) {
    const Graph g = adjacency(A);
    const size_t n = g.size();
    std::vector<int> byDegree(n);
    for (size_t i = 0; i < n; ++i) byDegree[i] = int(i);
    std::stable_sort(byDegree.begin(), byDegree.end(),
                     [&](int a, int b) { return g[size_t(a)].size() < g[size_t(b)].size(); });
    std::vector<char> visited(n, 0);
    std::vector<int> order;
    order.reserve(n);
    for (int s : byDegree) {
        if (visited[size_t(s)]) continue;
        int depth = 0;
        const std::vector<int> part =
            breadthFirst(g, pseudoPeripheral(g, s, visited), visited, depth, nullptr);
        for (int v : part) visited[size_t(v)] = 1;
        order.insert(order.end(), part.begin(), part.end());
    }
    std::reverse(order.begin(), order.end());
    return order;
}

void EnvelopeCholesky::analyze(const Eigen::SparseMatrix<double>& A) {
    n_ = int(A.rows());
    perm_ = reverseCuthillMcKee(A);
    inv_.assign(size_t(n_), 0);
    for (int i = 0; i < n_; ++i) inv_[size_t(perm_[size_t(i)])] = i;
    first_.resize(size_t(n_));
    for (int i = 0; i < n_; ++i) first_[size_t(i)] = i;
    for (int c = 0; c < A.outerSize(); ++c)
        for (Eigen::SparseMatrix<double>::InnerIterator it(A, c); it; ++it) {
            const int i = inv_[size_t(it.row())], j = inv_[size_t(c)];
            const int r = std::max(i, j);
            first_[size_t(r)] = std::min(first_[size_t(r)], std::min(i, j));
        }
    start_.assign(size_t(n_) + 1, 0);
    for (int i = 0; i < n_; ++i)
        start_[size_t(i) + 1] = start_[size_t(i)] + size_t(i - first_[size_t(i)] + 1);
    values_.assign(start_[size_t(n_)], 0.0);
    invDiag_.assign(size_t(n_), 0.0);
    work_.resize(n_);
    ok_ = false;
}

// Row by row (the bordered form): for j < i, L_ij = (A_ij - L_i,k<j . L_j,k<j) / L_jj over the columns both
// envelopes share, then L_ii = sqrt(A_ii - |L_i,k<i|^2).
bool EnvelopeCholesky::factorize(const Eigen::SparseMatrix<double>& A) {
    std::fill(values_.begin(), values_.end(), 0.0);
    ok_ = false;
    for (int c = 0; c < A.outerSize(); ++c)
        for (Eigen::SparseMatrix<double>::InnerIterator it(A, c); it; ++it) {
            const int i = inv_[size_t(it.row())], j = inv_[size_t(c)];
            if (j > i) continue;
            if (j < first_[size_t(i)]) return false;  // outside the analysed pattern
            values_[start_[size_t(i)] + size_t(j - first_[size_t(i)])] = it.value();
        }
    for (int i = 0; i < n_; ++i) {
        double* Li = values_.data() + start_[size_t(i)];
        const int fi = first_[size_t(i)];
        for (int j = fi; j < i; ++j) {
            const double* Lj = values_.data() + start_[size_t(j)];
            const int fj = first_[size_t(j)], k0 = std::max(fi, fj);
            const double s = dotRun(Li + (k0 - fi), Lj + (k0 - fj), j - k0);
            Li[j - fi] = (Li[j - fi] - s) / Lj[j - fj];
        }
        const double d = Li[i - fi] - dotRun(Li, Li, i - fi);
        if (!(d > 0)) return false;
        Li[i - fi] = std::sqrt(d);
        invDiag_[size_t(i)] = 1 / Li[i - fi];
    }
    ok_ = true;
    return true;
}

// L y = P b forward (a dot product per row), L^T x = y backward (an axpy per row), x unpermuted. Each row
// waits for the one before, so the diagonal is applied as a stored reciprocal (a division per row was a
// fifth of the solve).
Eigen::VectorXd EnvelopeCholesky::solve(const Eigen::VectorXd& b) const {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n_);
    if (!ok_) return x;
    double* y = work_.data();
    for (int i = 0; i < n_; ++i) y[i] = b(perm_[size_t(i)]);
    for (int i = 0; i < n_; ++i) {
        const double* Li = values_.data() + start_[size_t(i)];
        const int fi = first_[size_t(i)];
        // One dot product over the whole run. (Reading the last kW entries, just stored by the rows before,
        // as scalars, so that no vector load waits for a just-stored scalar, was 12 % slower:
        // BM_EnvelopeSolve 40.7 -> 35.7 us without it; a column copy of L making the backward solve a dot
        // product too, 30 % slower, and blocking the forward solve 4 to 16 rows at a time, no faster.)
        const double s = dotRun(Li, y + fi, i - fi);
        y[i] = (y[i] - s) * invDiag_[size_t(i)];
    }
    for (int i = n_ - 1; i >= 0; --i) {
        const double* Li = values_.data() + start_[size_t(i)];
        const int fi = first_[size_t(i)];
        y[i] *= invDiag_[size_t(i)];
        axpyRun(y + fi, y[i], Li, i - fi);
    }
    for (int i = 0; i < n_; ++i) x(perm_[size_t(i)]) = y[i];
    return x;
}

}  // namespace vbd::coarse
