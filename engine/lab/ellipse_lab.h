#pragma once
// What the GUI's live energy-ellipse panel calls every frame: the seed's 2-D picture (same kappa,
// different tilt, four descent bases) with its exact numbers. Everything is 2x2, so a call costs a few
// microseconds per sweep; no allocation beyond the paths themselves.
#include <vector>

#include "lab/descent.h"
#include "lab/quadratic.h"

namespace vbd::lab {

struct EllipseLab {
    double kappa = 1, angleDeg = 0;
    Quadratic q;                        // makeEllipse2d(kappa, angleDeg)
    DescentPath bcd, cg, eigen, local;  // `sweeps` sweeps each (cg: 2 steps, then it is exact)
    double rhoGs = 0;                   // rho(M) = b^2/(ac), the bcd rate per sweep
    double rhoLocal = 0;                // sweep rate of the local plan (0 for LocalModes::All)
    double cgFactor = 0;                // (sqrt(kappa) - 1)/(sqrt(kappa) + 1)
    double dominance = 0;               // |b|/sqrt(ac) (whitened coupling, rho = dominance^2)
    int predictedBcdSweeps = 0;         // predictedSweeps(rhoGs, tol)
    int bcdSweepsToTol = -1;            // measured on the bcd path (-1: not within `sweeps`)

    const DescentPath& path(Method m) const;
};

// Slider values are clamped rather than refused (kappa to [1, 1e12], sweeps to [1, 1000]): the panel
// calls this each frame and must always get a picture.
EllipseLab computeEllipseLab(double kappa, double angleDeg, int sweeps = 10, double tol = 1e-6,
                             LocalModes modes = LocalModes::All);

// Points (closed loop, first point not repeated) of the level set E(x) = level of a 2-D quadratic:
// x = x* + sqrt(2 (level - E*)/lambda_1) cos(phi) u1 + sqrt(2 (level - E*)/lambda_2) sin(phi) u2.
// Empty below E*, the single point x* at E*.
std::vector<Eigen::Vector2d> ellipseContour(const Quadratic& q, double level, int points = 64);

// `count` level values for drawing: E* + (E(x0) - E*) * ratio^k, k = 0..count-1 (the first passes
// through the start point).
std::vector<double> contourLevels(const Quadratic& q, int count, double ratio = 0.25);

}  // namespace vbd::lab
