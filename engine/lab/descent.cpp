#include "lab/descent.h"

#include <numeric>

#include "math/enum_table.h"

// The lab's name tables (math/enum_table.h): the CLI's --method / --local-modes and lab.json read these.
namespace vbd {
template <>
struct EnumNames<lab::Method> {
    static constexpr EnumEntry<lab::Method> entries[] = {{"bcd", lab::Method::Bcd},
                                                         {"cg", lab::Method::Cg},
                                                         {"eigen", lab::Method::Eigen},
                                                         {"local", lab::Method::Local}};
};
template <>
struct EnumNames<lab::LocalModes> {
    static constexpr EnumEntry<lab::LocalModes> entries[] = {
        {"all", lab::LocalModes::All}, {"stiff", lab::LocalModes::Stiff}, {"soft", lab::LocalModes::Soft}};
};
}  // namespace vbd

namespace vbd::lab {

const char* methodName(Method m) { return enumName(m); }
bool parseMethod(const std::string& s, Method& out) { return enumFromName(s, out); }
const char* localModesName(LocalModes m) { return enumName(m); }
bool parseLocalModes(const std::string& s, LocalModes& out) { return enumFromName(s, out); }

namespace {

std::vector<int> blockIndices(int block, int bs) {
    std::vector<int> idx(static_cast<size_t>(bs));
    std::iota(idx.begin(), idx.end(), block * bs);
    return idx;
}

Eigen::MatrixXd principal(const Eigen::MatrixXd& A, const std::vector<int>& s) {
    Eigen::MatrixXd P(s.size(), s.size());
    for (size_t i = 0; i < s.size(); ++i)
        for (size_t j = 0; j < s.size(); ++j) P(Eigen::Index(i), Eigen::Index(j)) = A(s[i], s[j]);
    return P;
}

}  // namespace

SweepPlan bcdPlan(const Quadratic& q) {
    SweepPlan plan;
    const int bs = q.blockSize;
    for (int i = 0; i < q.blocks(); ++i)
        plan.steps.push_back({blockIndices(i, bs), Eigen::MatrixXd::Identity(bs, bs)});
    return plan;
}

SweepPlan eigenPlan(const Quadratic& q) {
    SweepPlan plan;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(q.A);
    std::vector<int> all(size_t(q.dim()));
    std::iota(all.begin(), all.end(), 0);
    for (int k = 0; k < q.dim(); ++k) plan.steps.push_back({all, es.eigenvectors().col(k)});  // ascending
    return plan;
}

SweepPlan localPlan(const Quadratic& q, LocalModes modes) {
    SweepPlan plan;
    if (modes != LocalModes::All) plan = bcdPlan(q);
    const int bs = q.blockSize, nb = q.blocks();
    auto coupled = [&](int i, int j) {
        return q.A.block(i * bs, j * bs, bs, bs).cwiseAbs().maxCoeff() > 0.0;
    };
    for (int i = 0; i < nb; ++i)
        for (int j = i; j < nb; ++j) {
            std::vector<int> s = blockIndices(i, bs);
            if (j == i) {
                // A block coupled to nobody is its own patch (under All; the smoother covers it otherwise).
                bool isolated = true;
                for (int k = 0; k < nb && isolated; ++k) isolated = k == i || !coupled(i, k);
                if (!isolated || modes != LocalModes::All) continue;
            } else {
                if (!coupled(i, j)) continue;
                const std::vector<int> sj = blockIndices(j, bs);
                s.insert(s.end(), sj.begin(), sj.end());
            }
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(principal(q.A, s));
            const Eigen::MatrixXd& Qp = es.eigenvectors();  // ascending eigenvalues
            const int m = int(s.size());
            if (modes == LocalModes::All)
                for (int k = m - 1; k >= 0; --k) plan.steps.push_back({s, Qp.col(k)});
            else
                plan.steps.push_back({s, Qp.col(modes == LocalModes::Stiff ? m - 1 : 0)});
        }
    return plan;
}

DescentPath runPlan(const Quadratic& q, const SweepPlan& plan, int sweeps, Method tag) {
    DescentPath path;
    path.method = tag;
    path.stepsPerSweep = int(plan.steps.size());
    // Per-step reduced Hessians H_s = V^T A_ss V, factored once.
    std::vector<Eigen::LDLT<Eigen::MatrixXd>> H;
    std::vector<bool> usable;
    for (const SubspaceStep& st : plan.steps) {
        const Eigen::MatrixXd h = st.V.transpose() * principal(q.A, st.support) * st.V;
        H.emplace_back(h);
        usable.push_back(H.back().info() == Eigen::Success && H.back().isPositive() &&
                         h.diagonal().minCoeff() > 0.0);
    }
    Eigen::VectorXd x = q.x0;
    path.x.push_back(x);
    path.energy.push_back(q.energy(x));
    path.sweep.push_back(0);
    Eigen::VectorXd r;
    for (int s = 1; s <= sweeps; ++s) {
        r = q.b - q.A * x;
        for (size_t k = 0; k < plan.steps.size(); ++k) {
            const SubspaceStep& st = plan.steps[k];
            if (usable[k]) {
                Eigen::VectorXd rs(st.support.size());
                for (size_t i = 0; i < st.support.size(); ++i) rs(Eigen::Index(i)) = r(st.support[i]);
                const Eigen::VectorXd d = st.V * H[k].solve(st.V.transpose() * rs);
                for (size_t i = 0; i < st.support.size(); ++i) {
                    const double di = d(Eigen::Index(i));
                    x(st.support[i]) += di;
                    r -= di * q.A.col(st.support[i]);
                }
            }
            path.x.push_back(x);
            // E(x) = 1/2 x^T A x - b^T x = -1/2 x^T (b + r) with A x = b - r: O(n) per step.
            path.energy.push_back(-0.5 * x.dot(q.b + r));
            path.sweep.push_back(s);
        }
    }
    return path;
}

DescentPath runCg(const Quadratic& q, int iterations) {
    DescentPath path;
    path.method = Method::Cg;
    path.stepsPerSweep = 1;
    Eigen::VectorXd x = q.x0, r = q.b - q.A * x, p = r;
    double rr = r.squaredNorm();
    path.x.push_back(x);
    path.energy.push_back(q.energy(x));
    path.sweep.push_back(0);
    path.exactSteps = int(x.size());
    for (int k = 1; k <= iterations; ++k) {
        const Eigen::VectorXd Ap = q.A * p;
        const double pAp = p.dot(Ap);
        if (pAp > 0.0 && rr > 0.0) {
            // alpha = r^T r / p^T A p is the exact line search along p (r^T p = r^T r by conjugacy).
            const double alpha = rr / pAp;
            x += alpha * p;
            r -= alpha * Ap;
            const double rrNew = r.squaredNorm();
            p = r + (rrNew / rr) * p;
            rr = rrNew;
        }
        path.x.push_back(x);
        path.energy.push_back(q.energy(x));
        path.sweep.push_back(k);
    }
    return path;
}

DescentPath runMethod(const Quadratic& q, Method m, int sweeps, LocalModes modes) {
    switch (m) {
        case Method::Bcd:
            return runPlan(q, bcdPlan(q), sweeps, m);
        case Method::Cg:
            return runCg(q, sweeps);
        case Method::Eigen:
            return runPlan(q, eigenPlan(q), sweeps, m);
        case Method::Local:
            return runPlan(q, localPlan(q, modes), sweeps, m);
    }
    return {};
}

Eigen::MatrixXd sweepOperator(const Quadratic& q, const SweepPlan& plan) {
    const int n = q.dim();
    Eigen::MatrixXd T = Eigen::MatrixXd::Identity(n, n);
    for (const SubspaceStep& st : plan.steps) {
        // W = E_s V: the step's directions in R^n; P = W (W^T A W)^{-1} W^T A is the A-orthogonal
        // projector onto span(W), and the step maps the error e to (I - P) e.
        Eigen::MatrixXd W = Eigen::MatrixXd::Zero(n, st.V.cols());
        for (size_t i = 0; i < st.support.size(); ++i) W.row(st.support[i]) = st.V.row(Eigen::Index(i));
        const Eigen::MatrixXd AW = q.A * W;
        const Eigen::MatrixXd h = W.transpose() * AW;
        if (!(h.diagonal().minCoeff() > 0.0)) continue;
        const Eigen::MatrixXd P = W * h.ldlt().solve(AW.transpose());
        T = T - P * T;
    }
    return T;
}

int sweepsToTol(const Quadratic& q, const DescentPath& path, double tol) {
    for (int s = 0; s <= path.sweeps(); ++s)
        if (q.relativeErrorA(path.x[size_t(path.sweepEnd(s))]) <= tol) return s;
    return -1;
}

int stepsToTol(const Quadratic& q, const DescentPath& path, double tol) {
    for (int k = 0; k <= path.steps(); ++k)
        if (q.relativeErrorA(path.x[size_t(k)]) <= tol) return k;
    return -1;
}

}  // namespace vbd::lab
