#include "lab/ellipse_lab.h"

#include <algorithm>
#include <cmath>

#include "lab/spectral.h"

namespace vbd::lab {

const DescentPath& EllipseLab::path(Method m) const {
    switch (m) {
        case Method::Bcd:
            return bcd;
        case Method::Cg:
            return cg;
        case Method::Eigen:
            return eigen;
        case Method::Local:
            return local;
    }
    return bcd;
}

EllipseLab computeEllipseLab(double kappa, double angleDeg, int sweeps, double tol, LocalModes modes) {
    EllipseLab L;
    L.kappa = std::isfinite(kappa) ? std::clamp(kappa, 1.0, 1e12) : 1.0;
    L.angleDeg = std::isfinite(angleDeg) ? angleDeg : 0.0;
    sweeps = std::clamp(sweeps, 1, 1000);
    L.q = makeEllipse2d(L.kappa, L.angleDeg);
    L.bcd = runMethod(L.q, Method::Bcd, sweeps);
    L.cg = runCg(L.q, 2);  // exact after 2 steps in 2-D; more would only add rounding noise
    L.eigen = runMethod(L.q, Method::Eigen, sweeps);
    const SweepPlan lp = localPlan(L.q, modes);
    L.local = runPlan(L.q, lp, sweeps, Method::Local);
    const double a = L.q.A(0, 0), b = L.q.A(0, 1), c = L.q.A(1, 1);
    L.rhoGs = b * b / (a * c);  // closed form of rho(M) for 2x2 (see gaussSeidelMatrix)
    L.rhoLocal = spectralRadius(sweepOperator(L.q, lp));
    L.cgFactor = cgFactor(L.kappa);
    L.dominance = std::abs(b) / std::sqrt(a * c);
    L.predictedBcdSweeps = predictedSweeps(L.rhoGs, tol);
    L.bcdSweepsToTol = sweepsToTol(L.q, L.bcd, tol);
    return L;
}

std::vector<Eigen::Vector2d> ellipseContour(const Quadratic& q, double level, int points) {
    std::vector<Eigen::Vector2d> pts;
    const double dE = level - q.minEnergy();
    const Eigen::Vector2d c = q.xStar.head<2>();
    if (dE < 0) return pts;
    if (dE == 0) return {c};
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> es(q.A.topLeftCorner<2, 2>());
    const Eigen::Vector2d& l = es.eigenvalues();
    const Eigen::Matrix2d& U = es.eigenvectors();
    const double r1 = std::sqrt(2.0 * dE / l(0)), r2 = std::sqrt(2.0 * dE / l(1));
    points = std::max(points, 3);
    pts.reserve(size_t(points));
    for (int k = 0; k < points; ++k) {
        const double phi = 2.0 * M_PI * k / points;
        pts.push_back(c + r1 * std::cos(phi) * U.col(0) + r2 * std::sin(phi) * U.col(1));
    }
    return pts;
}

std::vector<double> contourLevels(const Quadratic& q, int count, double ratio) {
    std::vector<double> lv;
    const double es = q.minEnergy(), d0 = q.energy(q.x0) - es;
    double f = 1.0;
    for (int k = 0; k < count; ++k, f *= ratio) lv.push_back(es + d0 * f);
    return lv;
}

}  // namespace vbd::lab
