"""Newton's rigid AVBD on our box pyramid under chosen settings: does it stand?

    python pyramid_probe.py MODEL.json --frames 300 [--ke 1e7] [--substeps 1] [--iterations 10] [--legacy]
        [--history latest|sticky] [--gamma 0.999] [--alpha A] [--margin M] [--gap G] [--csv out.csv]

MODEL.json is a `vbdlab export` of a rigid scene. Prints, once a second of simulated time, the largest
displacement of any box from its start, the top box's height change and the largest speed; the pyramid
"stands" when the largest displacement stays below 5 % of a box edge.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import warp as wp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--ke", type=float, default=None, help="shape contact stiffness (N/m); Newton default 2.5e3")
    ap.add_argument("--kd", type=float, default=0.0)
    ap.add_argument("--substeps", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--legacy", action="store_true", help="rigid_compliant_alm=False (deprecated AVBD path)")
    ap.add_argument("--beta", type=float, default=None)
    ap.add_argument("--k-start", type=float, default=None)
    ap.add_argument("--history", default="disabled", choices=["disabled", "latest", "sticky"])
    ap.add_argument("--gamma", type=float, default=0.999)
    ap.add_argument("--alpha", type=float, default=None)
    ap.add_argument("--margin", type=float, default=0.0)
    ap.add_argument("--gap", type=float, default=None)
    ap.add_argument("--friction-eps", type=float, default=1e-2)
    ap.add_argument("--buffer", type=int, default=64, help="rigid_body_contact_buffer_size (Newton default 64)")
    ap.add_argument("--every", type=int, default=0, help="print every N frames (default: once a second)")
    ap.add_argument("--color-contacts", action="store_true", help="color bodies by their contact graph")
    ap.add_argument("--csv", default=None)
    a = ap.parse_args()

    import newton
    from newton_model import build_rigid

    m = json.load(open(a.model))
    t0 = time.perf_counter()
    model = build_rigid(m, shape_ke=a.ke, shape_kd=a.kd, margin=a.margin, gap=a.gap, color_contacts=a.color_contacts)
    print("body colors:", len(model.body_color_groups), flush=True)
    kw = dict(iterations=a.iterations, rigid_avbd_gamma=a.gamma, friction_epsilon=a.friction_eps,
              rigid_body_contact_buffer_size=a.buffer)
    if a.legacy:
        kw["rigid_compliant_alm"] = False
    if a.beta is not None:
        kw["rigid_avbd_beta"] = a.beta
    if a.k_start is not None:
        kw["rigid_contact_k_start"] = a.k_start
    if a.alpha is not None:
        kw["rigid_avbd_contact_alpha"] = a.alpha
    if a.history != "disabled":
        kw["rigid_contact_history"] = True
    pipeline = newton.CollisionPipeline(model, contact_matching=a.history)
    contacts = pipeline.contacts()
    solver = newton.solvers.SolverVBD(model, **kw)
    s0, s1 = model.state(), model.state()
    control = model.control()
    build_s = time.perf_counter() - t0
    q0 = s0.body_q.numpy()[:, :3].copy()
    top = int(np.argmax(q0[:, 1]))
    edge = float(m["rigid_bodies"][0]["size"][0])
    fps = round(1.0 / float(m["dt"]))
    h = float(m["dt"]) / a.substeps
    rows = []
    first_s = None
    step_s = []
    for f in range(1, a.frames + 1):
        ts = time.perf_counter()
        for _ in range(a.substeps):
            s0.clear_forces()
            pipeline.collide(s0, contacts)
            solver.step(s0, s1, control, contacts, h)
            s0, s1 = s1, s0
        wp.synchronize()
        el = time.perf_counter() - ts
        if first_s is None:
            first_s = el
        else:
            step_s.append(el)
        if f % (a.every or fps) == 0 or f == a.frames:
            q = s0.body_q.numpy()[:, :3]
            qd = s0.body_qd.numpy()
            disp = np.linalg.norm(q - q0, axis=1)
            speed = np.linalg.norm(qd[:, :3], axis=1)
            row = dict(frame=f, max_disp=float(disp.max()), top_dy=float(q[top, 1] - q0[top, 1]),
                       lowest_y=float((q[:, 1]).min()), max_speed=float(speed.max()))
            rows.append(row)
            print(json.dumps(row), flush=True)
    stands = all(r["max_disp"] < 0.05 * edge for r in rows)
    summary = dict(settings=vars(a), stands=stands, build_s=build_s, first_step_s=first_s,
                   ms_per_step=1000 * float(np.median(step_s)) if step_s else None, final=rows[-1])
    print("SUMMARY " + json.dumps(summary), flush=True)
    if a.csv:
        with open(a.csv, "a") as fo:
            fo.write(json.dumps(summary) + "\n")


if __name__ == "__main__":
    main()
