#pragma once
// Cholesky factorization A = L L^T of the rigid coarse matrix in envelope (skyline) storage, under a reverse
// Cuthill-McKee ordering of A's graph. Why not a general sparse Cholesky: the factor is reused by many solves
// (rigid_correction.h), and a solve walks L twice. The coarse graphs are bands (aggregates along a bar, the
// layers of the contrast bar), so RCM makes every row of L one contiguous run L(i, first_i .. i); both
// triangular solves are then dense dot products and axpys (Eigen's vectorized kernels) instead of one indexed
// access per nonzero. Measured on the 60 x 6 x 6 cantilever's 1,620 columns: Eigen's SimplicialLLT factor
// has 120,654 entries and its solve cost 168 us, ~0.7 ns per entry and pass (docs/coarse-space.md).
//
// Fill stays inside the envelope (a row's fill starts no earlier than its first nonzero), so the pattern of
// L is fixed by analyze(); factorize() takes any matrix whose pattern is inside the analysed one.
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

namespace vbd::coarse {

class EnvelopeCholesky {
  public:
    // The ordering and the envelope of L from A's pattern (A symmetric; both triangles or the lower one).
    void analyze(const Eigen::SparseMatrix<double>& A);
    // L from A's values (its lower triangle); false when A is not positive definite (solve() then returns 0).
    bool factorize(const Eigen::SparseMatrix<double>& A);
    // x = A^{-1} b.
    Eigen::VectorXd solve(const Eigen::VectorXd& b) const;
    bool ok() const { return ok_; }
    // Entries stored in L's envelope.
    size_t envelopeSize() const { return values_.size(); }

  private:
    int n_ = 0;
    bool ok_ = false;
    std::vector<int> perm_;   // perm_[new] = old index
    std::vector<int> inv_;    // inv_[old] = new index
    std::vector<int> first_;  // row i of L spans columns first_[i] .. i (new indices)
    std::vector<size_t> start_;
    std::vector<double> values_;
    std::vector<double> invDiag_;  // 1 / L_ii
    mutable Eigen::VectorXd work_;
};

// Reverse Cuthill-McKee ordering of the graph of a symmetric pattern: order[new] = old. Each connected part
// starts at a pseudo-peripheral vertex (George-Liu: repeated breadth-first searches from the farthest level's
// lowest-degree vertex); neighbours are visited by ascending degree.
std::vector<int> reverseCuthillMcKee(const Eigen::SparseMatrix<double>& A);

}  // namespace vbd::coarse
