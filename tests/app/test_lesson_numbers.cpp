// Every number a lesson's text quotes (the bold ones in assets/lessons/*/lesson.md) recomputed from the
// same scene and settings as the lesson's actions give it: the scene each step loads and the `set`,
// `set_left`, `set_right` actions before it are replayed through the app's own SceneSettings, the Worlds
// are stepped to the frames the step stops at, and each quantity is read as the app shows it (metrics
// history, inspector, conditioning lab). The text and the app cannot drift apart: a bold number without
// a check here fails, a check whose number is no longer in the text fails, and a number outside bold
// must be a setting of the step (in its actions or its scene file).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "gui/core/lesson.h"
#include "gui/core/scene_settings.h"
#include "lab/ellipse_lab.h"
#include "lab/quadratic.h"
#include "lab/spectral.h"
#include "scene/scene.h"
#include "world/world.h"

namespace vbdgui {
namespace {

namespace fs = std::filesystem;

const std::string kRoot = std::string(VBD_SOURCE_DIR) + "/assets/lessons";

Lesson lessonNamed(const std::string& name) {
    ActionContext ctx;
    ctx.scene = std::string(VBD_SOURCE_DIR) + "/assets/scenes/default.json";
    return loadLesson(kRoot + "/" + name, ctx);
}

// The scene of each side at the end of step `step`, as the action list leaves it: a load resets both
// sides, compare copies the left settings to the right, set / set_left / set_right add settings.
SceneSettings sideAt(const Lesson& L, int step, int side) {
    SceneSettings lab[2];
    const ActionStep& last = L.script.steps[size_t(step)];
    for (int i = 0; i < last.first + last.count; ++i) {
        const Action& a = L.script.actions[size_t(i)];
        if (a.verb == Verb::Load) lab[0] = lab[1] = SceneSettings(a.value.get<std::string>());
        if (a.verb == Verb::Compare && a.value.get<bool>()) lab[1] = lab[0];
        if (a.verb != Verb::Set) continue;
        for (int l = 0; l < 2; ++l) {
            if ((a.side == Side::Left && l == 1) || (a.side == Side::Right && l == 0)) continue;
            for (auto it = a.value.begin(); it != a.value.end(); ++it)
                lab[l].set(it.key(), it.value().dump());
        }
    }
    return lab[side];
}

// Runs a World of the step's scene for `frames` frames; the metrics of every frame.
std::vector<vbd::FrameMetrics> run(const Lesson& L, int step, int side, int frames,
                                   std::unique_ptr<vbd::World>* keep = nullptr) {
    auto w = vbd::World::create(sideAt(L, step, side).resolve());
    std::vector<vbd::FrameMetrics> m;
    for (int f = 0; f < frames; ++f) {
        w->step();
        m.push_back(w->history().back());
    }
    if (keep) *keep = std::move(w);
    return m;
}

template <typename F>
double extreme(const std::vector<vbd::FrameMetrics>& m, F value, bool lowest) {
    double v = lowest ? 1e300 : -1e300;
    for (const auto& r : m) v = lowest ? std::min(v, value(r)) : std::max(v, value(r));
    return v;
}
double comY(const vbd::FrameMetrics& m) { return m.com.y; }
double totalE(const vbd::FrameMetrics& m) { return m.totalEnergy; }

// Mean height of particles [first, first + count) of a World.
double meanY(const vbd::World& w, size_t first, size_t count) {
    double s = 0;
    for (size_t i = first; i < first + count; ++i) s += w.positions()[i].y;
    return s / double(count);
}

// What one bold number must be: the value the app shows and how far the quoted digits may be from it.
struct Check {
    double value;
    double tol;  // absolute
};
using Checks = std::map<std::pair<int, std::string>, Check>;  // (step, bold text) -> check

// Tolerances: a quote rounded to d decimals is within half a unit of its last digit (5e-3 for 0.852);
// the simulated quantities are deterministic for a build, and the margin covers builds that round
// differently (SIMD width, -march=native): one unit of the last quoted digit.
Checks conditioningChecks() {
    Checks c;
    // The kappa = 25 pair exactly as panel_lab.cpp's pairPanel computes it (20 sweeps as the step sets).
    const vbd::lab::EllipseLab a = vbd::lab::computeEllipseLab(25, 0, 20);
    const vbd::lab::EllipseLab b = vbd::lab::computeEllipseLab(25, 45, 20);
    c[{0, "25"}] = {b.kappa, 0};
    c[{0, "0.667"}] = {a.cgFactor, 5e-4};
    EXPECT_EQ(a.cgFactor, b.cgFactor);
    c[{0, "1 sweep"}] = {double(a.predictedBcdSweeps), 0};
    c[{0, "45"}] = {b.angleDeg, 0};
    c[{0, "0.852"}] = {b.rhoGs, 5e-4};
    c[{0, "87 sweeps"}] = {double(b.predictedBcdSweeps), 0};
    c[{0, "1e-6"}] = {1e-6, 0};  // computeEllipseLab's default tolerance, the one the panel uses
    // The path itself needs one sweep less (docs/lab.md); the panel shows the prediction.
    EXPECT_EQ(vbd::lab::computeEllipseLab(25, 45, 100).bcdSweepsToTol, 86);
    // The random n-D system as panel_lab.cpp's computeNd builds it from the step's lab action (floats as
    // EllipseState stores them).
    auto nd = [](float kappa) {
        vbd::lab::BlockSystemParams p;
        p.blocks = 8;
        p.blockSize = 3;
        p.kappa = kappa;
        p.coupling = 0.6f;
        p.seed = 1;
        const vbd::lab::BlockSystem s = vbd::lab::makeBlockSystem(p);
        const double rho = vbd::lab::spectralRadius(vbd::lab::gaussSeidelMatrix(s.q.A, 3));
        const double k = vbd::lab::conditionNumber(s.q.A);
        return std::array<double, 4>{double(s.q.A.rows()), k, rho, vbd::lab::cgFactor(k)};
    };
    const auto lo = nd(1000.0f), hi = nd(1e6f);
    c[{1, "24"}] = {lo[0], 0};
    c[{1, "1e3"}] = {lo[1], 1e-3 * lo[1]};
    c[{1, "0.3834"}] = {lo[2], 5e-5};
    c[{1, "0.9387"}] = {lo[3], 5e-5};
    c[{2, "1e6"}] = {hi[1], 1e-3 * hi[1]};
    c[{2, "0.998"}] = {hi[3], 5e-4};
    c[{2, "0.3834"}] = {hi[2], 5e-5};
    return c;
}

Checks dominanceChecks(const Lesson& L) {
    Checks c;
    // Step 1: the dominance field after one step on 6-tet cells, averaged over the layers of vertices across
    // the bar (x = const, 0.25 m apart): the interface layer (x = 2), and the inner layers of each half (the
    // ends and the interface's neighbours left out).
    {
        auto w = vbd::World::create(sideAt(L, 0, 0).resolve());
        w->step();
        std::vector<float> f;
        w->scalarField(vbd::ScalarField::DiagonalDominance, f);
        double sum[3] = {0, 0, 0};
        int n[3] = {0, 0, 0};
        for (size_t i = 0; i < f.size(); ++i) {
            const double x = w->positions()[i].x;
            const int k = std::abs(x - 2) < 0.05 ? 0
                          : (x > 2.3 && x < 3.7) ? 1
                          : (x > 0.3 && x < 1.7) ? 2
                                                 : -1;
            if (k < 0) continue;
            sum[k] += f[i];
            ++n[k];
        }
        std::printf("dominance on 6-tet cells: interface %.4f (%d), stiff %.4f (%d), soft %.4f (%d)\n",
                    sum[0] / n[0], n[0], sum[1] / n[1], n[1], sum[2] / n[2], n[2]);
        EXPECT_EQ(n[0], 25);
        // What the heat map shows: the surface. The top face's vertices off its edges (y = 2, 0 < z < 1) in
        // the same three classes, and the least ratio anywhere (an edge's vertex).
        double top[3] = {0, 0, 0}, least = 1e30;
        int nt[3] = {0, 0, 0};
        for (size_t i = 0; i < f.size(); ++i) {
            const vbd::Vec3 p = w->positions()[i];
            least = std::min(least, double(f[i]));
            if (std::abs(p.y - 2) > 0.05 || p.z < 0.05 || p.z > 0.95) continue;
            const int k = std::abs(p.x - 2) < 0.05   ? 0
                          : (p.x > 2.3 && p.x < 3.7) ? 1
                          : (p.x > 0.3 && p.x < 1.7) ? 2
                                                     : -1;
            if (k < 0) continue;
            top[k] += f[i];
            ++nt[k];
        }
        EXPECT_EQ(nt[0], 3);
        c[{0, "2.15"}] = {top[0] / nt[0], 5e-3};
        c[{0, "2.34"}] = {top[1] / nt[1], 5e-3};
        c[{0, "2.35"}] = {top[2] / nt[2], 5e-3};
        c[{0, "1.73"}] = {least, 5e-3};
        c[{0, "2.28"}] = {sum[0] / n[0], 5e-3};
        c[{0, "3.18"}] = {sum[1] / n[1], 5e-3};
        c[{0, "3.20"}] = {sum[2] / n[2], 5e-3};
    }
    // Step 2: the inspector after one step (step 1 steps once, paused), at the vertex the step inspects.
    auto w = vbd::World::create(sideAt(L, 1, 0).resolve());
    w->step();
    const vbd::VertexInspect v = w->inspectVertex(382);
    EXPECT_TRUE(v.valid);
    Eigen::Matrix3d D;
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) D(r, k) = 0.5 * (double(v.block(r, k)) + double(v.block(k, r)));
    const Eigen::Vector3d ev = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(D).eigenvalues();
    c[{1, "1.36"}] = {ev(2) / ev(0), 5e-3};
    c[{1, "2.44"}] = {double(v.dominance), 5e-3};
    c[{1, "0.47"}] = {double(v.dominanceSum), 5e-3};
    // Step 3: 34 frames at 10 sweeps (the lowest point, at frame 33); the centre of mass starts at the bar's
    // middle. The total energy after frame 1 and at its peak, and the least det F over the run.
    const auto m = run(L, 2, 0, 34);
    EXPECT_EQ(sideAt(L, 2, 0).resolve().solver.iterations, 10);
    c[{2, "1.5 m"}] = {m.front().com.y, 0.05};  // after frame 1: it has barely moved
    c[{2, "0.53 m"}] = {extreme(m, comY, true), 0.01};
    c[{2, "5.9e3 J"}] = {m.front().totalEnergy, 0.05e3};
    c[{2, "1.7e8 J"}] = {extreme(
                             m, [](const vbd::FrameMetrics& f) { return f.totalEnergy; }, false),
                         0.05e8};
    c[{2, "0.62"}] = {extreme(
                          m, [](const vbd::FrameMetrics& f) { return f.minVolumeRatio; }, true),
                      5e-3};
    return c;
}

Checks coarseChecks(const Lesson& L) {
    Checks c;
    // Step 1: frame 10's residual after its sweeps over its initial guess, left and right.
    const auto left = run(L, 1, 0, 34), right = run(L, 1, 1, 34);
    const auto& l10 = left[9];
    const auto& r10 = right[9];
    c[{0, "0.88"}] = {l10.residualFinal / l10.residualInitial, 0.01};
    c[{0, "0.11"}] = {r10.residualFinal / r10.residualInitial, 0.01};
    // Step 2: run to frame 34.
    c[{1, "0.53 m"}] = {extreme(left, comY, true), 0.01};
    c[{1, "1.00 m"}] = {extreme(right, comY, true), 0.005};
    // Step 3: the element basis with the contrast filter, to frame 40.
    const auto element = run(L, 2, 1, 40);
    c[{2, "0.57 m"}] = {extreme(element, comY, true), 0.01};
    // Step 4: stiff_rigid left, aggregate right, to frame 34.
    const auto stiff = run(L, 3, 0, 34), aggregate = run(L, 3, 1, 34);
    c[{3, "1.29 m"}] = {aggregate.back().com.y, 0.005};
    c[{3, "1.26 m"}] = {extreme(aggregate, comY, true), 0.005};
    c[{3, "1.02 m"}] = {stiff.back().com.y, 0.005};
    // "where a converged solve puts it": the same scene solved to a relative residual of 1e-8 (300 sweeps
    // at most) follows the ten-sweep aggregate bar within 2 mm; stiff_rigid's is 0.26 m below it. Every
    // frame ends below 1e-6 of its first residual (a few stop at the rounding floor, 1-2e-4 N from 2e3 N).
    SceneSettings converged = sideAt(L, 3, 1);
    converged.set("solver.iterations", "300");
    converged.set("solver.tolerance", "1e-8");
    auto w = vbd::World::create(converged.resolve());
    for (int f = 0; f < 34; ++f) {
        w->step();
        const vbd::FrameMetrics& m = w->history().back();
        EXPECT_LE(m.residualFinal, 1e-6 * m.residualInitial) << "frame " << f + 1;
        EXPECT_NEAR(m.com.y, aggregate[size_t(f)].com.y, 2e-3) << "frame " << f + 1;
    }
    return c;
}

Checks dampingChecks(const Lesson& L) {
    Checks c;
    std::unique_ptr<vbd::World> wl, wr;
    const auto left = run(L, 0, 0, 40, &wl), right = run(L, 0, 1, 40, &wr);
    const vbd::SceneDesc d = sideAt(L, 0, 0).resolve();
    c[{0, "0.1 s"}] = {d.softBodies.at(1).material.damping, 0};
    c[{0, "3.38 m"}] = {left.back().com.y, 5e-3};
    c[{0, "2.27 m"}] = {right.back().com.y, 5e-3};
    // "the free-fall value": implicit Euler from rest, y_n = y_0 - g h^2 n (n + 1) / 2, centre 4.5 m.
    const double h = d.dt, n = 40;
    EXPECT_NEAR(right.back().com.y, 4.5 - 9.81 * h * h * n * (n + 1) / 2, 1e-3);
    // The damped cube is the second soft body: the second half of the particles.
    const size_t half = wl->positions().size() / 2;
    c[{0, "4.50 m"}] = {meanY(*wl, half, half), 5e-3};
    c[{1, "2.1e4 J"}] = {left.back().kineticEnergy, 0.05e4};
    c[{1, "4.3e4 J"}] = {right.back().kineticEnergy, 0.05e4};
    return c;
}

Checks truncationChecks(const Lesson& L) {
    Checks c;
    const auto plain = run(L, 0, 0, 120);
    c[{0, "49.0 J"}] = {plain.front().totalEnergy, 0.05};
    c[{0, "62.4 J"}] = {extreme(plain, totalE, false), 0.05};
    const auto cheb = run(L, 1, 1, 120);
    c[{1, "50.1 J"}] = {extreme(cheb, totalE, false), 0.05};
    c[{1, "48.9 J"}] = {cheb.back().totalEnergy, 0.05};
    const auto agg = run(L, 2, 1, 60);
    c[{2, "48.89 J"}] = {agg.back().totalEnergy, 5e-3};
    for (size_t f = 1; f < agg.size(); ++f)  // "only falls" (to rounding of the energy sum)
        EXPECT_LE(agg[f].totalEnergy, agg[f - 1].totalEnergy + 1e-9 * std::fabs(agg[f - 1].totalEnergy));
    const auto many = run(L, 3, 1, 30);
    c[{3, "48.89 J"}] = {many.back().totalEnergy, 5e-3};
    return c;
}

// Every bold number of the lesson has a check and agrees with it; every check is quoted.
void verify(const Lesson& L, Checks checks) {
    for (size_t s = 0; s < L.steps.size(); ++s) {
        const std::string text = L.steps[s].text + " " + L.steps[s].look;
        for (const std::string& q : quotedNumbers(text)) {
            auto it = checks.find({int(s), q});
            if (it == checks.end()) {
                ADD_FAILURE() << L.name << " step " << s + 1 << ": \"" << q << "\" is quoted but not checked";
                continue;
            }
            double quoted = 0;
            ASSERT_TRUE(firstNumber(q, quoted));
            EXPECT_NEAR(it->second.value, quoted, it->second.tol)
                << L.name << " step " << s + 1 << ": the text says \"" << q << "\", the app shows "
                << it->second.value;
            checks.erase(it);
        }
    }
    for (const auto& [k, v] : checks)
        ADD_FAILURE() << L.name << " step " << k.first + 1 << ": checks \"" << k.second << "\" (" << v.value
                      << "), which the text no longer quotes";
}

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A number outside bold is a setting: it must be written in the step's actions or in the scene file the
// step runs (or repeat a bold number of the same step).
TEST(LessonNumbers, EveryOtherNumberIsASettingOfTheStep) {
    const std::regex number("[0-9]+(\\.[0-9]+)?(e-?[0-9]+)?");
    for (const std::string& dir : listLessons(kRoot)) {
        const Lesson L = lessonNamed(fs::path(dir).filename().string());
        std::string scene;
        for (size_t s = 0; s < L.steps.size(); ++s) {
            const ActionStep& st = L.script.steps[s];
            std::string actions;
            for (int i = st.first; i < st.first + st.count; ++i) {
                const Action& a = L.script.actions[size_t(i)];
                actions += " " + a.value.dump() + " " + std::to_string(a.frame);
                if (a.verb == Verb::Load) scene = readFile(a.value.get<std::string>());
            }
            const std::string& md = L.steps[s].text;
            const std::vector<std::string> bold = quotedNumbers(md + " " + L.steps[s].look);
            std::string outside = L.steps[s].title + " " + md + " " + L.steps[s].look;
            for (const std::string& b : bold)
                for (size_t at; (at = outside.find("**" + b + "**")) != std::string::npos;)
                    outside.erase(at, b.size() + 4);
            for (std::sregex_iterator it(outside.begin(), outside.end(), number), end; it != end; ++it) {
                const std::string n = it->str();
                const bool repeat = std::any_of(bold.begin(), bold.end(), [&](const std::string& b) {
                    double x = 0, y = 0;
                    return firstNumber(b, x) && firstNumber(n, y) && x == y;
                });
                const bool setting =
                    actions.find(n) != std::string::npos || scene.find(n) != std::string::npos;
                EXPECT_TRUE(repeat || setting)
                    << L.name << " step " << s + 1 << ": " << n << " is neither quoted in bold (and checked) "
                    << "nor a setting of the step";
            }
        }
    }
}

TEST(LessonNumbers, ThereAreFiveLessons) { EXPECT_GE(listLessons(kRoot).size(), 5u); }

TEST(LessonNumbers, Conditioning) {
    const Lesson L = lessonNamed("01-conditioning");
    verify(L, conditioningChecks());
}

// Lessons 2-5: each step's scene rebuilt from the step's own actions, every bold number checked.
struct LessonCase {
    const char* folder;
    const char* testName;
    Checks (*checks)(const Lesson&);
};

class LessonNumbersOf : public ::testing::TestWithParam<LessonCase> {};

TEST_P(LessonNumbersOf, QuotedNumbersMatchTheScene) {
    const Lesson L = lessonNamed(GetParam().folder);
    verify(L, GetParam().checks(L));
}

INSTANTIATE_TEST_SUITE_P(
    Lessons, LessonNumbersOf,
    ::testing::Values(LessonCase{"02-dominance", "Dominance", dominanceChecks},
                      LessonCase{"03-coarse-space", "CoarseSpace", coarseChecks},
                      LessonCase{"04-damping", "Damping", dampingChecks},
                      LessonCase{"05-truncated-solves", "TruncatedSolves", truncationChecks}),
    [](const ::testing::TestParamInfo<LessonCase>& i) { return std::string(i.param.testName); });

}  // namespace
}  // namespace vbdgui
