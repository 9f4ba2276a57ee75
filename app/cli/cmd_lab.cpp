// `vbdlab lab --kappa K --angle DEG --method bcd|cg|eigen|local --iters N --out DIR`: the conditioning
// lab on a small SPD quadratic (DESIGN.md "Command line"). Parsing only; the logic (validation, the
// systems, the four descent bases, the files) is vbd::lab::runLab in engine/lab/lab_run.h.
#include <memory>

#include "cli/commands.h"
#include "lab/lab_run.h"

namespace vbdcli {

static const char* kLabFooter = R"(What it shows (seed: "Conditioning, geometrically"):
  E(x) = 1/2 x^T A x - b^T x has elliptic level sets; kappa = lambda_max/lambda_min is their squared
  aspect ratio and sets CG's rate, while block diagonal dominance (how tilted the ellipse is against
  the block coordinates) sets block coordinate descent's rate rho(M). Same kappa, different tilt:
  completely different bcd.

Modes:
  2-D (default): A = R(theta) diag(1, kappa) R(theta)^T, eigenvalue 1 on the axis at --angle degrees
    from x, kappa on the perpendicular one; b = 0 (minimiser x* = 0), start x0 = 2 u1 + (2/sqrt kappa) u2
    (energy 4, equal in both modes). Blocks are single coordinates.
  n-D (--dim N): --dim/--block blocks of size --block; A = G^T (I + t S) G with S a nonpositive
    block coupling normalised so that t = --dominance is the block-Jacobi spectral radius, and
    block-diagonal G scaled so that kappa(A) = --kappa exactly. rho(M) grows with t and does not
    depend on kappa. x0 = 0, b = A xs with xs random in [-1, 1] (--seed).

Methods (one row of trace.csv per direction step; --iters counts sweeps):
  bcd    block Gauss-Seidel: exact solve of each block in turn (VBD without colouring)
  cg     conjugate gradients (one step per iteration)
  eigen  one exact line search per eigenvector of A (softest first): exact after one sweep
  local  sparse local-eigen basis: eigenvectors of the principal submatrix of every coupled block
         pair, each an exact line search (--local-modes all); or a bcd sweep followed by the single
         stiffest (stiff) or softest (soft) eigenvector of each pair

Outputs:
  DIR/trace.csv     iteration,x0,x1,...,energy   (row 0 = start point)
  DIR/summary.json  kappa, rho_gs = rho(-(D+L)^{-1} L^T), cg_factor = (sqrt k - 1)/(sqrt k + 1),
                    rho_sweep (the method's per-sweep rate), dominance = max_i sum_j
                    ||D_i^-1/2 A_ij D_j^-1/2|| (and dominance_fv = max_i ||D_i^-1|| sum_j ||A_ij||),
                    predicted_iterations, iterations_to_tol / steps_to_tol (first sweep / step with
                    ||x - x*||_A <= tol ||x0 - x*||_A; null if not reached), energies, settings.
Bad values exit with code 2 and write nothing.)";

static Command addLabCommand(CLI::App& root) {
    auto o = std::make_shared<vbd::lab::LabOptions>();
    CLI::App* sub = root.add_subcommand("lab", "Conditioning lab: descent bases on small SPD quadratics");
    sub->add_option("--kappa", o->kappa, "Condition number of A (>= 1)")->capture_default_str();
    CLI::Option* angle = sub->add_option("--angle", o->angle,
                                         "2-D: tilt of the principal axes from the coordinate axes, degrees")
                             ->capture_default_str();
    sub->add_option("--method", o->method, "bcd | cg | eigen | local")->capture_default_str();
    sub->add_option("--iters", o->iters, "Sweeps to run (cg: iterations), >= 1")->capture_default_str();
    sub->add_option("--tol", o->tol, "Relative A-norm error for iterations_to_tol, in (0, 1)")
        ->capture_default_str();
    sub->add_option("--out", o->out, "Output directory (created)")->required();
    CLI::Option* dim =
        sub->add_option("--dim", o->dim, "n-D mode: total dimension n (a multiple of --block)");
    CLI::Option* block = sub->add_option("--block", o->block, "n-D: block size")->capture_default_str();
    CLI::Option* dom =
        sub->add_option("--dominance", o->dominance,
                        "n-D: coupling t in [0, 1) = block-Jacobi spectral radius (0: block diagonal)")
            ->capture_default_str();
    CLI::Option* seed = sub->add_option("--seed", o->seed, "n-D: random seed")->capture_default_str();
    CLI::Option* modes =
        sub->add_option("--local-modes", o->localModes, "local: all | stiff | soft")->capture_default_str();
    sub->footer(kLabFooter);
    Command c;
    c.sub = sub;
    c.run = [o, angle, dim, block, dom, seed, modes]() {
        o->angleSet = angle->count() > 0;
        o->dimSet = dim->count() > 0;
        o->blockSet = block->count() > 0;
        o->dominanceSet = dom->count() > 0;
        o->seedSet = seed->count() > 0;
        o->localModesSet = modes->count() > 0;
        checkOutputFolder(o->out);  // before the run, as the other commands
        return vbd::lab::runLab(*o);
    };
    return c;
}

static Registrar reg(&addLabCommand);

}  // namespace vbdcli
