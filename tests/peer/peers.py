"""Side by side with Newton's SolverVBD on the CPU (run through tests/peer/run.sh, inside its venv).

For every scene of SCENES and every iteration count: `vbdlab export` writes the particle model our solver
builds; newton_model.py turns it into a Newton model (same vertices, tets, triangles, hinges, masses, fixed
vertices; materials and damping mapped as its docstring derives). Then, REPS times in turn: ours on 1 thread,
ours on 2 threads (`vbdlab sim --threads T`, diagnostics off), Newton (a fresh SolverVBD and fresh states).

Writes DIR/peers.csv (the table), DIR/physics.csv (final-state summaries of both programs), DIR/newton_setup.csv
(model build, solver construction and first-step/JIT times, never part of a per-step time), DIR/runs/ (our sim
outputs), DIR/models/ (the exported models) and DIR/versions.json.

Per-step time: each run's mean wall time per frame of dt over frames 2..N (frame 1 holds Warp's kernel
compilation or load on Newton's first run, and first-touch allocation on ours), then the median over REPS.
Newton: collision detection + SolverVBD.step for every substep of the frame, then wp.synchronize(). Ours: the
step_ms column of metrics.csv (World::step: all substeps plus the per-frame metrics).
"""

import argparse
import csv
import json
import os
import platform
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# key, scene file, iteration counts, frames (full), frames (--quick), extra --set for --quick (None: skipped),
# reference: iterations of a converged run (double precision; full runs only) that both are measured against;
# same_order: also run Newton in our color order (untimed; default on).
SCENES = [
    dict(key="hanging_bar", file="hanging_bar.json", iterations=[40, 300], frames=120, quick_frames=20,
         quick_sets=[], reference=3000),
    dict(key="cube_drop", file="cube_drop.json", iterations=[10], frames=120, quick_frames=40, quick_sets=[],
         reference=1000),
    dict(key="beam_10k", file="beam_10k.json", iterations=[10], frames=30, quick_frames=4,
         quick_sets=["soft_bodies.0.cells=[40,5,5]"]),
    dict(key="beam_100k", file="beam_100k.json", iterations=[10], frames=6, quick_frames=0, quick_sets=None,
         same_order=False),
    dict(key="cloth_64", file="cloth_64.json", iterations=[10], frames=60, quick_frames=10,
         quick_sets=["cloths.0.cells=[32,32]"]),
    dict(key="pyramid_10", file="pyramid_10.json", iterations=[10], frames=300, quick_frames=30, quick_sets=[],
         rigid=True),
]

# Newton's rigid settings under which the 10-row pyramid of 125 kg boxes stands (docs/peers.md, "The rigid
# pyramid"): contact stiffness 1e7 N/m per shape (Newton 1.8 default 2.5e3: a box sinks mg/(4 ke) = 12 cm per
# contact corner) and bodies colored by their contact graph (ModelBuilder.color() colors rigid bodies by
# joints only, so all 55 boxes share one color and each sweep is a Jacobi sweep, which diverges once contact
# stiffness dominates inertia, ke h^2 / m > ~1). Newton's defaults are run as well (physics.csv:
# newton_defaults).
PYRAMID_SHAPE_KE = float(os.environ.get("VBD_PEER_PYRAMID_KE", "1e7"))


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-3000:]}")
    return r


def read_metrics(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def per_step_ms(times_ms):
    t = list(times_ms)
    return float(np.mean(t[1:] if len(t) > 1 else t))


def summarize_particles(x, v, mass):
    x = np.asarray(x, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64) if v is not None else None
    m = np.asarray(mass, dtype=np.float64)
    com = (x * m[:, None]).sum(0) / m.sum()
    ke = 0.5 * float((m * (v * v).sum(1)).sum()) if v is not None else float("nan")
    ms = float(np.sqrt((v * v).sum(1)).max()) if v is not None else float("nan")
    return dict(lowest_y=float(x[:, 1].min()), com_x=com[0], com_y=com[1], com_z=com[2], kinetic_energy=ke,
                max_speed=ms)


class Ours:
    def __init__(self, exe, out_dir):
        self.exe = exe
        self.out_dir = out_dir

    def default_precision(self):
        if not hasattr(self, "_prec"):
            # An exported model names the precision the solver would use.
            tmp = os.path.join(self.out_dir, "models", "_precision_probe.json")
            self.export(os.path.join(HERE, "scenes", "hanging_bar.json"), [], tmp)
            self._prec = json.load(open(tmp))["solver"]["precision"]
            os.remove(tmp)
        return self._prec

    def export(self, scene, sets, path):
        args = [self.exe, "export", scene, "--out", path]
        for s in sets:
            args += ["--set", s]
        sh(args)

    def run(self, scene, sets, frames, threads, tag):
        out = os.path.join(self.out_dir, "runs", tag)
        if os.path.isdir(out):
            shutil.rmtree(out)
        args = [self.exe, "sim", scene, "--frames", str(frames), "--out", out, "--threads", str(threads),
                "--set", "solver.diagnostics=false"]
        for s in sets:
            args += ["--set", s]
        sh(args)
        rows = read_metrics(os.path.join(out, "metrics.csv"))
        final = json.load(open(os.path.join(out, "final_state.json")))
        return dict(ms=per_step_ms(float(r["step_ms"]) for r in rows), metrics=rows, final=final)


class NewtonRunner:
    """Newton on the exported model. Model and Warp modules are built once; each run gets a fresh solver."""

    def __init__(self, model_json, rigid, newton_defaults=False, our_colors=False):
        import warp as wp

        import newton
        from newton_model import build_rigid, build_soft

        self.wp, self.newton = wp, newton
        self.m = model_json
        self.rigid = rigid
        t0 = time.perf_counter()
        if rigid:
            if newton_defaults:
                self.model = build_rigid(model_json)
            else:
                self.model = build_rigid(model_json, shape_ke=PYRAMID_SHAPE_KE, color_contacts=True)
            self.has_ground = True
        else:
            self.model, self.has_ground = build_soft(model_json, our_colors=our_colors)
        self.build_s = time.perf_counter() - t0
        self.pipeline = None
        if self.has_ground:
            kw = {}
            if not rigid:
                from newton_model import SOFT_CONTACT_GAP

                kw["soft_contact_gap"] = SOFT_CONTACT_GAP
            self.pipeline = self.newton.CollisionPipeline(self.model, **kw)
        self.first_run = True
        self.solver_s = None
        self.first_frame_ms = None

    def make_solver(self):
        s = self.m["solver"]
        kw = dict(iterations=int(s["iterations"]), friction_epsilon=float(s["friction_epsilon"]))
        return self.newton.solvers.SolverVBD(self.model, **kw)

    def run(self, frames):
        wp = self.wp
        t0 = time.perf_counter()
        solver = self.make_solver()
        solver_s = time.perf_counter() - t0
        if self.solver_s is None:
            self.solver_s = solver_s
        s0, s1 = self.model.state(), self.model.state()
        control = self.model.control()
        contacts = self.pipeline.contacts() if self.pipeline else None
        sub = int(self.m["substeps"])
        h = float(self.m["dt"]) / sub
        times = []
        for _ in range(frames):
            ts = time.perf_counter()
            for _ in range(sub):
                s0.clear_forces()
                if self.pipeline:
                    self.pipeline.collide(s0, contacts)
                solver.step(s0, s1, control, contacts, h)
                s0, s1 = s1, s0
            wp.synchronize()
            times.append(1000 * (time.perf_counter() - ts))
        if self.first_run:
            self.first_frame_ms = times[0]
            self.first_run = False
        if self.rigid:
            q = s0.body_q.numpy()
            qd = s0.body_qd.numpy()
            final = dict(x=q[:, :3].copy(), v=qd[:, :3].copy(), w=qd[:, 3:].copy(), rot=q[:, 3:].copy())
        else:
            final = dict(x=s0.particle_q.numpy().copy(), v=s0.particle_qd.numpy().copy())
        return dict(ms=per_step_ms(times), final=final)


def precision_of(scene, sets, ours):
    """The state precision ours ran in: the scene's solver.precision after --set, else the engine default."""
    for st in reversed(sets):
        if st.startswith("solver.precision="):
            return st.split("=", 1)[1]
    sol = json.load(open(scene)).get("solver", {})
    return sol.get("precision", ours.default_precision())


def rigid_masses(m):
    out = []
    for b in m["rigid_bodies"]:
        if b["fixed"]:
            continue
        if b["shape"] == "box":
            vol = b["size"][0] * b["size"][1] * b["size"][2]
        else:
            vol = 4.0 / 3.0 * np.pi * b["radius"] ** 3
        out.append(b["density"] * vol)
    return np.asarray(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=None, help="alternating repetitions (default 3, quick 2)")
    ap.add_argument("--scenes", default=None, help="comma-separated keys (default: all)")
    ap.add_argument("--vbdlab", required=True)
    ap.add_argument("--set", dest="sets", action="append", default=[],
                    help="scene override for every selected scene (repeatable), e.g. solver.precision=double")
    a = ap.parse_args()
    reps = a.reps or (2 if a.quick else 3)
    os.makedirs(os.path.join(a.out, "models"), exist_ok=True)
    os.makedirs(os.path.join(a.out, "runs"), exist_ok=True)
    ours = Ours(os.path.abspath(a.vbdlab), a.out)

    import warp as wp

    import newton

    wp.init()
    versions = dict(newton=newton.__version__, warp=wp.config.version, python=platform.python_version(),
                    machine=platform.machine(), cpu=cpu_name(), cores=os.cpu_count(),
                    vbdlab=git_describe(), quick=a.quick, reps=reps, loadavg_start=os.getloadavg())
    json.dump(versions, open(os.path.join(a.out, "versions.json"), "w"), indent=1)

    keys = a.scenes.split(",") if a.scenes else [s["key"] for s in SCENES]
    unknown = sorted(set(keys) - {s["key"] for s in SCENES})
    if unknown:
        sys.exit(f"peers.py: --scenes: unknown scene(s) {', '.join(unknown)}; known: "
                 f"{', '.join(s['key'] for s in SCENES)}")
    peers_rows, phys_rows, setup_rows = [], [], []
    ref_cache = {}  # the reference does not depend on the iteration count under test
    for sc in SCENES:
        if sc["key"] not in keys:
            continue
        if a.quick and sc["quick_sets"] is None:
            continue
        frames = sc["quick_frames"] if a.quick else sc["frames"]
        base_sets = (list(sc["quick_sets"]) if a.quick else []) + a.sets
        scene = os.path.join(HERE, "scenes", sc["file"])
        for iters in sc["iterations"]:
            sets = base_sets + [f"solver.iterations={iters}"]
            tag = f"{sc['key']}_it{iters}"
            print(f"[peers] {tag}: export", flush=True)
            mpath = os.path.join(a.out, "models", tag + ".json")
            t0 = time.perf_counter()
            ours.export(scene, sets, mpath)
            export_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            m = json.load(open(mpath))
            load_s = time.perf_counter() - t0
            rigid = bool(sc.get("rigid"))
            print(f"[peers] {tag}: building the Newton model", flush=True)
            nr = NewtonRunner(m, rigid)
            res = {1: [], 2: [], "newton": []}
            for r in range(reps):
                for t in (1, 2):
                    print(f"[peers] {tag}: rep {r + 1}/{reps} ours, {t} thread(s), {frames} frames", flush=True)
                    res[t].append(ours.run(scene, sets, frames, t, f"{tag}_t{t}_r{r}"))
                print(f"[peers] {tag}: rep {r + 1}/{reps} Newton, {frames} frames", flush=True)
                res["newton"].append(nr.run(frames))
            # Untimed companions (soft scenes): ours with Newton's initial guess x = y (solver.initial_guess =
            # inertial), and, in full runs, a converged reference (double state, many iterations) that tells which
            # side is closer to the implicit-Euler solution where they differ.
            extra = {}
            if rigid:
                print(f"[peers] {tag}: Newton with its default contact stiffness and coloring", flush=True)
                extra["newton_defaults"] = NewtonRunner(m, rigid, newton_defaults=True).run(frames)
            else:
                print(f"[peers] {tag}: ours with the inertial initial guess", flush=True)
                extra["ours_inertial"] = ours.run(scene, sets + ["solver.initial_guess=inertial"], frames, 1,
                                                  f"{tag}_inertial")
                if sc.get("same_order", True):
                    print(f"[peers] {tag}: Newton sweeping in our color order", flush=True)
                    extra["newton_our_colors"] = NewtonRunner(m, rigid, our_colors=True).run(frames)
                if sc.get("reference") and not a.quick:
                    it_ref = sc["reference"]
                    if sc["key"] not in ref_cache:
                        print(f"[peers] {tag}: reference run ({it_ref} iterations, double)", flush=True)
                        ref_cache[sc["key"]] = ours.run(scene, base_sets + [f"solver.iterations={it_ref}",
                                                                           "solver.precision=double"], frames, 2,
                                                        f"{sc['key']}_reference")
                    extra["reference"] = ref_cache[sc["key"]]
            newton_ms = float(np.median([x["ms"] for x in res["newton"]]))
            nfin = res["newton"][0]["final"]
            finals = {"newton": (nfin["x"].astype(np.float64), nfin["v"].astype(np.float64), None)}
            if rigid:
                mass = rigid_masses(m)
                x0 = np.asarray([b["position"] for b in m["rigid_bodies"] if not b["fixed"]], dtype=np.float64)
                for name, run in extra.items():
                    finals[name] = (run["final"]["x"].astype(np.float64), run["final"]["v"].astype(np.float64), None)
                ob = res[1][0]["final"]["bodies"]
                finals["ours"] = (np.asarray([b["position"] for b in ob], dtype=np.float64),
                                  np.asarray([b["velocity"] for b in ob], dtype=np.float64), res[1][0]["metrics"])
                nverts, ntets = len(x0), 0
            else:
                mass = np.asarray(m["particles"]["mass"], dtype=np.float64)
                x0 = np.asarray(m["particles"]["x"], dtype=np.float64)
                for name, run in [("ours", res[1][0])] + list(extra.items()):
                    if name.startswith("newton"):
                        finals[name] = (run["final"]["x"].astype(np.float64), run["final"]["v"].astype(np.float64),
                                        None)
                    else:
                        finals[name] = (np.asarray(run["final"]["particles"], dtype=np.float64), None,
                                        run["metrics"])
                nverts, ntets = len(x0), len(m["tets"]["indices"])

            def diff(p, q):
                d = np.linalg.norm(finals[p][0] - finals[q][0], axis=1)
                return float(f"{d.max():.4g}"), float(f"{np.sqrt((d * d).mean()):.4g}")

            dmax, drms = diff("ours", "newton")
            cols = {}
            if "ours_inertial" in finals:
                cols["inertial_max_position_diff"], cols["inertial_rms_position_diff"] = diff("ours_inertial",
                                                                                              "newton")
            if "newton_our_colors" in finals:
                # Same initial guess and same sweep order: what is left is the damping's bulk term (nu > 0),
                # the contact models and float rounding.
                cols["same_order_max_position_diff"], cols["same_order_rms_position_diff"] = diff(
                    "ours_inertial", "newton_our_colors")
            if "reference" in finals:
                for p in ("ours", "ours_inertial", "newton"):
                    cols[f"ref_max_diff_{p}"] = diff(p, "reference")[0]
            for t in (1, 2):
                ms = float(np.median([x["ms"] for x in res[t]]))
                peers_rows.append(dict(scene=sc["key"], iterations=iters, vertices=nverts, tets=ntets,
                                       ours_threads=t, ours_ms_per_step=round(ms, 3),
                                       newton_ms_per_step=round(newton_ms, 3), ratio=round(newton_ms / ms, 3),
                                       max_position_diff=dmax, rms_position_diff=drms, frames=frames, reps=reps,
                                       ours_precision=precision_of(scene, sets, ours), **cols))
            # Final-state physics (ours: the 1-thread run of rep 1; every thread count gives the same bits).
            # Kinetic energy and max speed of ours from its metrics.csv, Newton's from its velocities.
            for prog, (xx, vv, metrics) in finals.items():
                sm = summarize_particles(xx, vv, mass)
                if metrics is not None:
                    sm["kinetic_energy"] = float(metrics[-1]["kinetic_energy"])
                    sm["max_speed"] = float(metrics[-1]["max_speed"])
                sm["max_displacement"] = float(np.linalg.norm(xx - x0, axis=1).max())
                phys_rows.append(dict(scene=sc["key"], iterations=iters, program=prog, frames=frames,
                                      time_s=round(frames * float(m["dt"]), 4),
                                      **{k: float(f"{v:.6g}") for k, v in sm.items()}))
            setup_rows.append(dict(scene=sc["key"], iterations=iters, export_s=round(export_s, 2),
                                   json_load_s=round(load_s, 2), newton_model_build_s=round(nr.build_s, 2),
                                   newton_solver_build_s=round(nr.solver_s, 2),
                                   newton_first_frame_ms=round(nr.first_frame_ms, 1),
                                   newton_ms_per_step=round(newton_ms, 3)))
            write_csv(os.path.join(a.out, "peers.csv"), peers_rows)
            write_csv(os.path.join(a.out, "physics.csv"), phys_rows)
            write_csv(os.path.join(a.out, "newton_setup.csv"), setup_rows)
            print(f"[peers] {tag}: newton {newton_ms:.2f} ms/step, ours "
                  f"{peers_rows[-2]['ours_ms_per_step']} / {peers_rows[-1]['ours_ms_per_step']} ms (1/2 threads), "
                  f"max |dx| {dmax:.3g} m", flush=True)
    versions["loadavg_end"] = os.getloadavg()
    json.dump(versions, open(os.path.join(a.out, "versions.json"), "w"), indent=1)
    import table

    with open(os.path.join(a.out, "table.md"), "w") as f:
        stdout, sys.stdout = sys.stdout, f
        try:
            table.main(a.out)
        finally:
            sys.stdout = stdout
    print(f"[peers] wrote {a.out}/peers.csv, physics.csv, newton_setup.csv, table.md", flush=True)


PEERS_COLUMNS = ["scene", "iterations", "vertices", "tets", "ours_threads", "ours_ms_per_step",
                 "newton_ms_per_step", "ratio", "max_position_diff", "rms_position_diff"]


def write_csv(path, rows):
    if not rows:
        return
    cols = list(rows[0].keys())
    if path.endswith("peers.csv"):
        cols = PEERS_COLUMNS + [c for c in cols if c not in PEERS_COLUMNS]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def git_describe():
    try:
        return subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return ""


if __name__ == "__main__":
    main()
