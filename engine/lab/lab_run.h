#pragma once
// The `vbdlab lab` command's logic, kept in the engine so tests can drive it without the app:
// validate the options (vbd::InputError naming the option, nothing written), build the quadratic, run
// one method, and write DIR/trace.csv and DIR/summary.json.
#include <cstdint>
#include <string>

#include "lab/descent.h"
#include "lab/quadratic.h"
#include "lab/spectral.h"

namespace vbd::lab {

// Raw option values as the command line gave them; the *Set flags say which were given, because
// some options belong to only one mode (2-D: --angle; n-D: --dim --block --dominance --seed).
struct LabOptions {
    double kappa = 25;
    double angle = 30;
    bool angleSet = false;
    std::string method = "bcd";
    int iters = 20;  // sweeps (cg: iterations)
    double tol = 1e-6;
    std::string out;
    int dim = 0;  // total dimension n (n-D mode when given); must be a multiple of block
    bool dimSet = false;
    int block = 3;
    bool blockSet = false;
    double dominance = 0.5;  // coupling knob t in [0, 1) of makeBlockSystem
    bool dominanceSet = false;
    std::uint64_t seed = 1;
    bool seedSet = false;
    std::string localModes = "all";
    bool localModesSet = false;
};

// Limits that keep a run to seconds and a trace to tens of MB.
constexpr int kMaxDim = 512;
constexpr int kMaxIters = 100000;
constexpr double kMaxTraceValues = 2e7;

struct LabResult {
    LabOptions opt;
    Method method = Method::Bcd;
    LocalModes modes = LocalModes::All;
    bool nd = false;
    Quadratic q;
    DescentPath path;
    double kappa = 1;  // measured kappa(A)
    double rhoGs = 0;  // rho(M), block Gauss-Seidel
    double cgFactor = 0;
    double rhoSweep = -1;  // spectral radius of the method's sweep operator (-1 for cg)
    BlockDominance dominance;
    int predictedIterations = -1;
    int iterationsToTol = -1;  // sweeps (cg: iterations) until ||e||_A/||e0||_A <= tol, -1 if not reached
    int stepsToTol = -1;
    double finalRelativeError = 0;
};

// Validates and computes; throws vbd::InputError("vbdlab lab", "--option", why) on bad input.
LabResult computeLab(const LabOptions& opt);
// Creates opt.out and writes trace.csv (header `iteration,x0,...,x{n-1},energy`, row 0 = start, one
// row per step) and summary.json. Throws std::runtime_error when the files cannot be written.
void writeLab(const LabResult& r);
// The trace header for an n-dimensional run.
std::string traceHeader(int n);
// computeLab + writeLab + a one-paragraph summary on stdout. Returns the exit code (0).
int runLab(const LabOptions& opt);

}  // namespace vbd::lab
