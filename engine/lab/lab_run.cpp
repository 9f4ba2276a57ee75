#include "lab/lab_run.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "math/error.h"

namespace vbd::lab {

namespace {

const char* kWho = "vbdlab lab";

[[noreturn]] void bad(const std::string& key, const std::string& why) { throw InputError(kWho, key, why); }

// Shortest of %.15g / %.17g that reads back as the same double; -0 written as 0; NaN/inf as null.
std::string num(double v) {
    if (!std::isfinite(v)) return "null";
    if (v == 0.0) return "0";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string str(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

void validate(const LabOptions& o) {
    if (!std::isfinite(o.kappa) || o.kappa < 1.0)
        bad("--kappa", "must be a number >= 1 (got " + str(o.kappa) + ")");
    if (o.kappa > 1e12) bad("--kappa", "must be <= 1e12 so that double precision can resolve the minimiser");
    Method m;
    if (!parseMethod(o.method, m))
        bad("--method", "unknown method '" + o.method + "' (use bcd, cg, eigen or local)");
    LocalModes lm;
    if (!parseLocalModes(o.localModes, lm))
        bad("--local-modes", "unknown value '" + o.localModes + "' (use all, stiff or soft)");
    if (o.localModesSet && m != Method::Local) bad("--local-modes", "only applies to --method local");
    if (o.iters < 1) bad("--iters", "must be >= 1 (got " + std::to_string(o.iters) + ")");
    if (o.iters > kMaxIters) bad("--iters", "must be <= " + std::to_string(kMaxIters));
    if (!(o.tol > 0.0 && o.tol < 1.0)) bad("--tol", "must be in (0, 1) (got " + str(o.tol) + ")");
    if (o.out.empty()) bad("--out", "an output directory is required");
    if (std::filesystem::exists(o.out) && !std::filesystem::is_directory(o.out))
        bad("--out", "'" + o.out + "' exists and is not a directory");
    if (o.dimSet) {
        if (o.angleSet) bad("--angle", "only applies to the 2-D mode (drop --dim)");
        if (o.block < 1) bad("--block", "must be >= 1 (got " + std::to_string(o.block) + ")");
        if (o.dim < 2 || o.dim > kMaxDim) bad("--dim", "must be in [2, " + std::to_string(kMaxDim) + "]");
        if (o.dim % o.block != 0)
            bad("--dim", "must be a multiple of --block (" + std::to_string(o.block) + ")");
        if (o.dim / o.block < 2) bad("--dim", "must hold at least 2 blocks of size --block");
        if (!(o.dominance >= 0.0 && o.dominance < 1.0))
            bad("--dominance", "must be in [0, 1) (got " + str(o.dominance) + ")");
    } else {
        if (!std::isfinite(o.angle)) bad("--angle", "must be a finite number of degrees");
        if (o.blockSet) bad("--block", "only applies to the n-D mode (give --dim)");
        if (o.dominanceSet) bad("--dominance", "only applies to the n-D mode (give --dim)");
        if (o.seedSet) bad("--seed", "only applies to the n-D mode (give --dim)");
    }
}

}  // namespace

std::string traceHeader(int n) {
    std::string h = "iteration";
    for (int i = 0; i < n; ++i) h += ",x" + std::to_string(i);
    return h + ",energy";
}

LabResult computeLab(const LabOptions& o) {
    validate(o);
    LabResult r;
    r.opt = o;
    parseMethod(o.method, r.method);
    parseLocalModes(o.localModes, r.modes);
    r.nd = o.dimSet;
    if (r.nd) {
        BlockSystemParams p;
        p.blockSize = o.block;
        p.blocks = o.dim / o.block;
        p.kappa = o.kappa;
        p.coupling = o.dominance;
        p.seed = o.seed;
        try {
            r.q = makeBlockSystem(p).q;
        } catch (const std::invalid_argument& e) {
            bad("--kappa", e.what());
        }
    } else {
        r.q = makeEllipse2d(o.kappa, o.angle);
    }
    const int n = r.q.dim();

    SweepPlan plan;
    if (r.method == Method::Bcd) plan = bcdPlan(r.q);
    if (r.method == Method::Eigen) plan = eigenPlan(r.q);
    if (r.method == Method::Local) plan = localPlan(r.q, r.modes);
    const double stepsPerSweep = r.method == Method::Cg ? 1.0 : double(plan.steps.size());
    if (double(o.iters) * stepsPerSweep * (n + 2) > kMaxTraceValues)
        bad("--iters", "the trace would hold " + str(double(o.iters) * stepsPerSweep * (n + 2)) +
                           " values (limit " + str(kMaxTraceValues) + "); lower --iters or --dim");

    r.path = r.method == Method::Cg ? runCg(r.q, o.iters) : runPlan(r.q, plan, o.iters, r.method);
    r.kappa = conditionNumber(r.q.A);
    r.rhoGs = spectralRadius(gaussSeidelMatrix(r.q.A, r.q.blockSize));
    r.cgFactor = cgFactor(r.kappa);
    r.dominance = blockDominance(r.q.A, r.q.blockSize);
    if (r.method == Method::Cg) {
        r.predictedIterations = predictedCgIterations(r.kappa, o.tol, n);
    } else {
        r.rhoSweep = r.method == Method::Bcd ? r.rhoGs : spectralRadius(sweepOperator(r.q, plan));
        // eigen and local/all are exact in one sweep in exact arithmetic; their computed sweep
        // operators have rho ~ machine epsilon, which predictedSweeps maps to 1 or 2 sweeps.
        r.predictedIterations = predictedSweeps(r.rhoSweep, o.tol);
    }
    r.iterationsToTol = sweepsToTol(r.q, r.path, o.tol);
    r.stepsToTol = stepsToTol(r.q, r.path, o.tol);
    r.finalRelativeError = r.q.relativeErrorA(r.path.x.back());
    return r;
}

void writeLab(const LabResult& r) {
    namespace fs = std::filesystem;
    const LabOptions& o = r.opt;
    std::error_code ec;
    fs::create_directories(o.out, ec);
    if (ec) throw InputError(o.out, "--out", "cannot create the folder: " + ec.message());
    const int n = r.q.dim();
    {
        std::ofstream f(fs::path(o.out) / "trace.csv");
        if (!f) throw std::runtime_error("cannot write " + (fs::path(o.out) / "trace.csv").string());
        f << traceHeader(n) << '\n';
        for (size_t k = 0; k < r.path.x.size(); ++k) {
            f << k;
            for (int i = 0; i < n; ++i) f << ',' << num(r.path.x[k](i));
            f << ',' << num(r.path.energy[k]) << '\n';
        }
        if (!f) throw std::runtime_error("error writing trace.csv");
    }
    std::ofstream f(fs::path(o.out) / "summary.json");
    if (!f) throw std::runtime_error("cannot write " + (fs::path(o.out) / "summary.json").string());
    auto intOrNull = [](int v) { return v < 0 ? std::string("null") : std::to_string(v); };
    f << "{\n";
    f << "  \"mode\": \"" << (r.nd ? "nd" : "2d") << "\",\n";
    f << "  \"method\": \"" << methodName(r.method) << "\",\n";
    if (r.method == Method::Local) f << "  \"local_modes\": \"" << localModesName(r.modes) << "\",\n";
    f << "  \"dim\": " << n << ",\n";
    f << "  \"block\": " << r.q.blockSize << ",\n";
    f << "  \"angle\": " << (r.nd ? "null" : num(o.angle)) << ",\n";
    f << "  \"kappa_requested\": " << num(o.kappa) << ",\n";
    f << "  \"kappa\": " << num(r.kappa) << ",\n";
    f << "  \"rho_gs\": " << num(r.rhoGs) << ",\n";
    f << "  \"cg_factor\": " << num(r.cgFactor) << ",\n";
    f << "  \"rho_sweep\": " << (r.rhoSweep < 0 ? "null" : num(r.rhoSweep)) << ",\n";
    f << "  \"dominance\": " << num(r.dominance.maxWhitened) << ",\n";
    f << "  \"dominance_fv\": " << num(r.dominance.maxFv) << ",\n";
    f << "  \"dominance_per_block\": [";
    for (size_t i = 0; i < r.dominance.whitened.size(); ++i)
        f << (i ? ", " : "") << num(r.dominance.whitened[i]);
    f << "],\n";
    f << "  \"dominance_knob\": " << (r.nd ? num(o.dominance) : "null") << ",\n";
    f << "  \"seed\": " << (r.nd ? std::to_string(o.seed) : "null") << ",\n";
    f << "  \"tol\": " << num(o.tol) << ",\n";
    f << "  \"iters\": " << o.iters << ",\n";
    f << "  \"steps_per_sweep\": " << r.path.stepsPerSweep << ",\n";
    f << "  \"steps\": " << r.path.steps() << ",\n";
    f << "  \"predicted_iterations\": " << intOrNull(r.predictedIterations) << ",\n";
    f << "  \"iterations_to_tol\": " << intOrNull(r.iterationsToTol) << ",\n";
    f << "  \"steps_to_tol\": " << intOrNull(r.stepsToTol) << ",\n";
    f << "  \"initial_energy\": " << num(r.path.energy.front()) << ",\n";
    f << "  \"final_energy\": " << num(r.path.energy.back()) << ",\n";
    f << "  \"min_energy\": " << num(r.q.minEnergy()) << ",\n";
    f << "  \"final_relative_error\": " << num(r.finalRelativeError) << "\n";
    f << "}\n";
    if (!f) throw std::runtime_error("error writing summary.json");
}

int runLab(const LabOptions& opt) {
    const LabResult r = computeLab(opt);
    writeLab(r);
    std::printf("%s on %s system, n = %d: kappa %.6g, rho_gs %.6g, cg_factor %.6g, dominance %.4g\n",
                methodName(r.method), r.nd ? "n-D" : "2-D", r.q.dim(), r.kappa, r.rhoGs, r.cgFactor,
                r.dominance.maxWhitened);
    if (r.iterationsToTol >= 0)
        std::printf("reached tol %.3g after %d sweeps (%d steps); predicted %d\n", opt.tol, r.iterationsToTol,
                    r.stepsToTol, r.predictedIterations);
    else
        std::printf("did not reach tol %.3g in %d sweeps (relative A-norm error %.3g); predicted %d\n",
                    opt.tol, opt.iters, r.finalRelativeError, r.predictedIterations);
    std::printf("wrote %s/trace.csv and %s/summary.json\n", opt.out.c_str(), opt.out.c_str());
    return 0;
}

}  // namespace vbd::lab
