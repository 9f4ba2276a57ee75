// The GUI panel's API (ellipse_lab.h): four paths plus exact numbers per (kappa, angle), contours.
#include <gtest/gtest.h>

#include <cmath>

#include "lab/ellipse_lab.h"
#include "lab/spectral.h"

using namespace vbd::lab;

TEST(LabEllipse, PanelNumbersMatchClosedForms) {
    const EllipseLab L = computeEllipseLab(25, 45, 10);
    EXPECT_NEAR(L.rhoGs, std::pow(24.0 / 26.0, 2), 1e-14);  // ((kappa-1)/(kappa+1))^2, O(1) roundings
    EXPECT_DOUBLE_EQ(L.cgFactor, 4.0 / 6.0);
    EXPECT_NEAR(L.dominance * L.dominance, L.rhoGs, 1e-14);
    EXPECT_LT(L.rhoLocal, 1e-14);  // local/all is the eigenbasis in 2-D: its sweep operator is ~0
    EXPECT_EQ(L.bcd.steps(), 20);
    EXPECT_EQ(L.cg.steps(), 2);
    EXPECT_EQ(L.eigen.steps(), 20);
    // Every path starts at x0 and eigen, cg and local end at x* = 0 (kappa eps with margin).
    for (Method m : {Method::Bcd, Method::Cg, Method::Eigen, Method::Local})
        EXPECT_EQ((L.path(m).x.front() - L.q.x0).norm(), 0.0);
    for (Method m : {Method::Cg, Method::Eigen, Method::Local})
        EXPECT_LT(L.q.relativeErrorA(L.path(m).x.back()), 1e-13) << methodName(m);
    // bcd after 10 sweeps: rho^9 times its first-sweep error, far from converged at 45 degrees.
    EXPECT_GT(L.q.relativeErrorA(L.bcd.x.back()), 0.1);
    // Predicted sweeps to 1e-6 from rho: ceil(log 1e-6 / log 0.852) = 87.
    EXPECT_EQ(L.predictedBcdSweeps, 87);
    EXPECT_EQ(L.bcdSweepsToTol, -1);
    // Axis-aligned: bcd done in one sweep, prediction 1.
    const EllipseLab A = computeEllipseLab(25, 0, 3);
    EXPECT_EQ(A.rhoGs, 0.0);
    EXPECT_EQ(A.bcdSweepsToTol, 1);
    EXPECT_EQ(A.predictedBcdSweeps, 1);
}

TEST(LabEllipse, SliderValuesAreClamped) {
    const EllipseLab L = computeEllipseLab(0.2, std::nan(""), 0);
    EXPECT_EQ(L.kappa, 1.0);
    EXPECT_EQ(L.angleDeg, 0.0);
    EXPECT_EQ(L.bcd.sweeps(), 1);
}

TEST(LabEllipse, ContourPointsLieOnTheLevelSet) {
    for (double deg : {0.0, 30.0, 100.0}) {
        const Quadratic q = makeEllipse2d(25, deg);
        const std::vector<double> levels = contourLevels(q, 4);
        ASSERT_EQ(levels.size(), 4u);
        EXPECT_NEAR(levels[0], q.energy(q.x0), 1e-12);  // the first level passes through the start
        EXPECT_NEAR(levels[1], 0.25 * q.energy(q.x0), 1e-12);
        for (double lv : levels) {
            const auto pts = ellipseContour(q, lv, 48);
            ASSERT_EQ(pts.size(), 48u);
            // E at each point equals the level up to O(kappa eps) from the 2x2 eigen solve.
            for (const auto& p : pts) EXPECT_NEAR(q.energy(p), lv, 1e-12 * 25 * (1 + lv));
        }
        // Semi-axes: sqrt(2 L / 1) along u1 and sqrt(2 L / kappa) along u2 (aspect ratio sqrt(kappa)).
        const auto pts = ellipseContour(q, 2.0, 4);
        EXPECT_NEAR(pts[0].norm(), 2.0, 1e-12);
        EXPECT_NEAR(pts[1].norm(), 2.0 / 5.0, 1e-12);
    }
    EXPECT_TRUE(ellipseContour(makeEllipse2d(4, 0), -1.0).empty());
    EXPECT_EQ(ellipseContour(makeEllipse2d(4, 0), 0.0).size(), 1u);
}
